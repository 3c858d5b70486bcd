"""The records extraction hands to the graph: one mention per entity stands for it."""

from incident_graph.schema.records import MAX_NAME_WORDS, ExtractedCase, Mention, name_words

SENTENCE = "It exposed a bug: the front-ends went into an infinite loop and one more long clause here."


def mention(text: str, confidence: float, name: str = "software bug") -> Mention:
    start = SENTENCE.index(text) if text in SENTENCE else 0
    return Mention(type="RootCause", name=name, mention=text, sentence=SENTENCE, start=start,
                   end=start + len(text), confidence=confidence, method="taxonomy")


def strongest(*mentions: Mention) -> list[str]:
    case = ExtractedCase(case_id="c", title="t", source="s", text=SENTENCE, mentions=mentions)
    return [m.mention for m in case.strongest_mentions_of("RootCause")]


def test_the_most_confident_mention_stands_for_its_entity():
    assert strongest(mention("infinite loop", 0.6), mention("bug", 0.95)) == ["bug"]


def test_on_equal_confidence_the_more_specific_wording_stands():
    assert strongest(mention("bug", 0.95), mention("infinite loop", 0.95)) == ["infinite loop"]


def test_past_a_names_length_more_words_say_no_more():
    long_one = "the front-ends went into an infinite loop and one more long clause here"
    assert name_words(long_one) > MAX_NAME_WORDS
    capped = "front-ends went into an infinite loop and one more long"  # the cap's worth of words
    assert name_words(capped) >= MAX_NAME_WORDS
    assert strongest(mention(capped, 0.95), mention(long_one, 0.95)) == [capped]  # a tie: the first


def test_each_entity_keeps_its_own_mention():
    found = strongest(mention("bug", 0.95), mention("infinite loop", 0.95, name="infinite loop"))
    assert found == ["bug", "infinite loop"]
