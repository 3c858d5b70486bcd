"""incident_phrases: entities the taxonomy does not name, from the parse of the trained pipeline."""

from incident_graph.ingest.components import MENTIONS


def found(nlp, text: str, attribute: str = "text") -> dict[str, set[str]]:
    """Role -> mention texts (or another attribute of the mentions: "id_" for their names), from
    the phrase finder alone (before the classifier decides, and before mentions are widened)."""
    with nlp.select_pipes(disable=["incident_entity_classifier", "incident_mention_extent"]):
        doc = nlp(text)
    roles: dict[str, set[str]] = {}
    for span in doc.spans[MENTIONS]:
        roles.setdefault(span.label_, set()).add(getattr(span, attribute))
    return roles


def test_the_root_cause_was_x_makes_x_a_root_cause(nlp):
    roles = found(nlp, "After two days of digging, the root cause turned out to be a priority inversion in the "
                       "flight software scheduler.")
    assert any("priority inversion" in text for text in roles.get("RootCause", ()))


def test_x_led_to_y_gives_cause_and_effect(nlp):
    roles = found(nlp, "A configuration issue in the password rotation job led to leaking virtual machines.")
    assert any("configuration issue" in text for text in roles.get("RootCause", ()))
    assert any("leaking virtual machines" in text for text in roles.get("Symptom", ()))


def test_caused_by_and_due_to_name_the_cause(nlp):
    roles = found(nlp, "The stall was caused by lock contention in the metadata store. "
                       "Writes then failed due to exhausted connection pools.")
    causes = " | ".join(roles.get("RootCause", ()))
    assert "lock contention" in causes and "connection pools" in causes


def test_coordinated_causes_are_split(nlp):
    roles = found(nlp, "The outage was caused by a stale routing table and an expired credential.")
    causes = roles.get("RootCause", set())
    assert any("stale routing table" in text and "expired" not in text for text in causes)
    assert any("expired credential" in text for text in causes)


def test_made_worse_by_is_a_contributing_factor(nlp):
    roles = found(nlp, "Recovery was made worse by a runbook that pointed at the decommissioned cluster.")
    assert any("runbook" in text for text in roles.get("ContributingFactor", ()))


def test_denied_causes_are_not_findings(nlp):
    roles = found(nlp, "The storage array was not the cause of the outage.")
    assert not any("storage array" in text for text in roles.get("RootCause", ()))


def test_failures_of_a_thing_are_symptoms(nlp):
    roles = found(nlp, "During the incident, checkout requests failed and the payment worker hung.")
    symptoms = " | ".join(roles.get("Symptom", ()))
    assert "requests failed" in symptoms


def test_named_components_are_found_anywhere(nlp):
    roles = found(nlp, "Engineers restarted the Consul cluster behind the service discovery layer.")
    assert any("Consul cluster" in text for text in roles.get("Component", ()))


def test_a_vendor_leading_capitalised_words_names_a_product(nlp):
    roles = found(nlp, "Customers of AWS Lambda and Amazon EventBridge saw elevated errors after a deployment.")
    assert {"AWS Lambda", "Amazon EventBridge"} <= roles.get("Component", set())


def test_a_vendor_with_only_corporate_words_is_no_product(nlp):
    doc = nlp("Engineers at Amazon Web Services and Google Cloud restarted the Google Compute Engine fleet.")
    products = {span.text for span in nlp.get_pipe("incident_phrases").product_names(doc[:])}
    assert products == {"Google Compute Engine"}


def test_a_spaced_dash_ends_a_name(nlp):
    doc = nlp("RCA - Azure Cognitive Services - West Europe\n\nRequests failed for two hours.\n")
    components = {span.text for span in doc.spans[MENTIONS] if span.label_ == "Component"}
    assert "Azure Cognitive Services" in components
    assert not any("RCA" in text or "Europe" in text for text in components)


def test_cause_with_a_caused_clause_makes_the_clause_the_symptom(nlp):
    roles = found(nlp, "A bad router rule caused all of the edge routers to crash.")
    assert any("routers to crash" in text for text in roles.get("Symptom", ()))


def test_a_failed_state_or_a_negated_ability_names_what_failed(nlp):
    roles = found(nlp, "Hours later the status site was still unavailable. The spacecraft's computer began "
                       "resetting itself. The mobile apps could not connect. We could not restart the service.")
    symptoms = roles.get("Symptom", set())
    assert any("status site was still unavailable" in text for text in symptoms), symptoms
    assert any("computer began resetting" in text for text in symptoms), symptoms
    assert any("mobile apps could not connect" in text for text in symptoms), symptoms
    assert not any("restart" in text for text in symptoms), symptoms  # what we did, not what failed


def test_a_taxonomy_word_grows_to_the_phrase_it_modifies(nlp):
    roles = found(nlp, "A faulty configuration change was rolled out to the databases.")
    assert any("faulty configuration change" in text for text in roles.get("RootCause", ())), roles


def test_a_missing_safeguard_is_a_contributing_factor(nlp):
    roles = found(nlp, "The import job had no rate limit. There was no canary stage for schema changes. "
                       "Alerts on disk usage were never configured. Nobody reviewed the new retention job. "
                       "Operators lacked access to the storage console.")
    factors = roles.get("ContributingFactor", set())
    assert "no rate limit" in factors
    assert any(text.startswith("no canary") for text in factors)
    assert any("were never configured" in text for text in factors)
    assert any(text.startswith("Nobody reviewed") for text in factors)
    assert any("lacked access to the storage console" in text for text in factors)


def test_a_denied_symptom_or_a_lost_ability_is_no_missing_safeguard(nlp):
    roles = found(nlp, "There was no data loss. The pods had no network for ten minutes. "
                       "Customers could not check out. We did not restart the primary. We did not detect it.")
    factors = roles.get("ContributingFactor", set())
    assert not any(text.startswith("no ") or "not" in text for text in factors), factors


def test_the_onset_of_the_incident_names_its_trigger(nlp):
    roles = found(nlp, "The incident started when a scheduled job deleted the routing table of the edge proxies. "
                       "The review meeting began when the on-call engineer joined.")
    causes = roles.get("RootCause", set())
    assert any(text.startswith("scheduled job deleted the routing table") for text in causes), causes
    assert not any("engineer joined" in text for text in causes), causes


def test_stopping_an_activity_is_a_symptom_with_its_object(nlp):
    roles = found(nlp, "After the upgrade the billing service stopped sending invoices.")
    assert "billing service stopped sending invoices" in roles.get("Symptom", set())


def test_blame_a_result_of_and_what_was_found_name_causes(nlp):
    roles = found(nlp, "A stale resolver cache was to blame. The timeouts were the result of a bad index on the "
                       "orders table. Engineers found that the connection pool was too small for the new traffic. "
                       "Monitoring showed that requests failed.")
    causes = roles.get("RootCause", set())
    assert "stale resolver cache" in causes
    assert "bad index on the orders table" in causes
    assert any(text.startswith("connection pool was too small") for text in causes), causes
    assert not any("requests failed" in text for text in causes), causes  # a failure found is a symptom


def test_a_reason_for_a_slow_response_is_a_factor_not_the_cause(nlp):
    roles = found(nlp, "Recovery took four hours because the backups sat in the same region. The delay in the "
                       "rollback was due to an unlabelled entry in the deploy log. The queue stalled because a consumer crashed.")
    factors, causes = roles.get("ContributingFactor", set()), roles.get("RootCause", set())
    assert any("backups sat in the same region" in text for text in factors), factors
    assert any("unlabelled entry in the deploy log" in text for text in factors), factors
    assert any("consumer crashed" in text for text in causes), causes
    assert not any("backups" in text or "deploy log" in text for text in causes), causes


def core_name(nlp, sentence: str) -> str:
    doc = nlp(sentence)
    return nlp.get_pipe("incident_entity_classifier").finder.core_name(doc[:-1])


def test_a_clause_name_keeps_the_complement_its_verb_needs(nlp):
    assert core_name(nlp, "The rollback path depended on infrastructure that failed at the same time.") \
        == "rollback path depended on infrastructure"
    assert core_name(nlp, "The brokers ran out of memory.") == "brokers ran out of memory"
    assert core_name(nlp, "The resolver fell back to a very low default.") == "resolver fell back to a very low default"
    assert core_name(nlp, "Load planning had been skipped in the rush to launch.") == "load planning had been skipped"


def test_a_clause_name_leaves_out_when_it_happened(nlp):
    assert core_name(nlp, "The cache went down after the deploy.") == "cache went down"
    assert core_name(nlp, "The degradation began in the evening.") == "degradation began"
    assert core_name(nlp, "The two production services used by outside users went down.") \
        == "two production services went down"


def test_a_predicate_symptom_grows_to_what_failed_but_not_to_when(nlp):
    symptoms = found(nlp, "On Tuesday the MediaWiki API cluster went down.").get("Symptom", set())
    assert "MediaWiki API cluster went down" in symptoms
    symptoms = found(nlp, "Robinhood's trading app was down for the whole US trading day on Monday, "
                          "March 2, as markets surged.").get("Symptom", set())
    assert any("trading app was down" in text for text in symptoms)
    assert not any("Monday" in text for text in symptoms)


def first_noun(nlp, sentence: str, word: str):
    doc = nlp(sentence)
    return next(token for token in doc if token.text == word)


def test_a_definite_incident_word_refers_to_the_incident(nlp):
    finder = nlp.get_pipe("incident_phrases")
    for sentence, word in (("The outage lasted two hours.", "outage"), ("During this incident we paged everyone.", "incident"),
                           ("It was its most serious outage since 2019.", "outage")):
        token = first_noun(nlp, sentence, word)
        assert finder.refers_to_the_incident(token.doc[token.i:token.i + 1]), sentence
    for sentence, word in (("A partial outage of the API followed.", "outage"), ("The API outage lasted an hour.", "outage"),
                           ("There was an outage in one region.", "outage")):
        token = first_noun(nlp, sentence, word)
        assert not finder.refers_to_the_incident(token.doc[token.i:token.i + 1]), sentence


def test_what_a_failure_happened_to_is_affected_not_a_cause(nlp):
    finder = nlp.get_pipe("incident_phrases")
    token = first_noun(nlp, "Propagation of configuration changes was delayed.", "changes")
    assert finder.is_affected(token.doc[token.i - 1:token.i + 1])
    token = first_noun(nlp, "A software bug crashed the servers.", "bug")
    assert not finder.is_affected(token.doc[token.i - 1:token.i + 1])


def test_a_cause_keeps_the_participle_clause_that_says_what_it_did(nlp):
    roles = found(nlp, "The growth was caused by illegal sites being created automatically at a high rate.")
    assert "illegal sites being created automatically at a high rate" in roles.get("RootCause", set())


def test_a_clause_saying_something_came_through_unharmed_denies_impact(nlp):
    finder = nlp.get_pipe("incident_phrases")
    doc = nlp("Web browsers were almost entirely unaffected.")
    assert finder.denies_impact(doc[0:6])  # the clause
    assert finder.denies_impact(doc[0:2])  # its subject
    doc = nlp("The website and its DNS records were all intact.")
    assert finder.denies_impact(doc[1:2])
    for sentence in ("The company's own servers stayed up.", "Traffic through the network kept flowing.",
                     "The resolvers continued to work.", "The API kept running and answering requests."):
        doc = nlp(sentence)
        subject = next(t for t in doc if t.dep_ in ("nsubj", "nsubjpass"))
        assert finder.denies_impact(doc[subject.left_edge.i:subject.i + 1]), sentence
    for sentence in ("Older clients were affected and failed their handshakes.", "The servers went down.",
                     "Traffic stopped flowing.", "The job continued to run out of memory."):
        doc = nlp(sentence)
        subject = next(t for t in doc if t.dep_ in ("nsubj", "nsubjpass"))
        assert not finder.denies_impact(doc[subject.left_edge.i:subject.i + 1]), sentence


def test_a_denying_subject_of_a_failure_denies_impact(nlp):
    finder = nlp.get_pipe("incident_phrases")
    for sentence in ("Nobody lost any data.", "No email was lost.", "None of the storage nodes crashed."):
        doc = nlp(sentence)
        verb = next(t for t in doc if t.pos_ == "VERB")
        assert finder.denies_impact(doc[verb.i:verb.i + 1]), sentence
    # What nobody could do, and nothing going right, are failures.
    for sentence in ("Nobody could log in.", "Nothing worked.", "No request succeeded.", "The servers lost power."):
        doc = nlp(sentence)
        verb = next(t for t in doc if t.pos_ == "VERB")
        assert not finder.denies_impact(doc[verb.i:verb.i + 1]), sentence


def test_a_safeguard_switched_off_before_the_incident_is_a_factor(nlp):
    for sentence, words in (("Our consumer-lag alert had been muted since a previous incident.", "alert had been muted"),
                            ("The disk usage check was disabled in March.", "check was disabled"),
                            ("Someone had bypassed the review.", "bypassed the review")):
        factors = found(nlp, sentence).get("ContributingFactor", set())
        assert any(words in text for text in factors), (sentence, factors)
    # A step of the response, a denial, and something that is no safeguard.
    for sentence in ("We muted the alert at 14:20.", "The alert was not muted.", "Customer emails were ignored."):
        factors = found(nlp, sentence).get("ContributingFactor", set())
        assert not any("mute" in text or "ignore" in text for text in factors), (sentence, factors)


def test_what_customers_saw_fail_is_the_subject_of_the_failure(nlp):
    symptoms = found(nlp, "That afternoon customers started to see API calls to the service slow down and fail.") \
        .get("Symptom", set())
    assert any(text.startswith("API calls") and "slow down" in text for text in symptoms), symptoms


def test_a_timeline_label_is_no_part_of_a_name(nlp):
    symptoms = found(nlp, "# Delays\n\n## Impact\n\n- 26 March: workflow processing fell behind.\n"
                          "- 09:49 UTC - The queue workers stalled.\n").get("Symptom", set())
    assert any("workflow processing fell behind" in text for text in symptoms), symptoms
    assert any("queue workers stalled" in text for text in symptoms), symptoms
    assert not any("March" in text or "UTC" in text for text in symptoms), symptoms


def test_every_leading_label_is_trimmed_however_many_there_are(nlp):
    """Dropping "A year earlier, on" uncovers a second label, "29 February 2012,": it goes too."""
    doc = nlp("A year earlier, on 29 February 2012, Windows Azure had suffered a long outage.")
    trimmed = nlp.get_pipe("incident_phrases").trim(doc[:])
    assert trimmed is not None and trimmed.text == "Windows Azure had suffered a long outage", trimmed


def names(nlp, text: str) -> dict[str, set[str]]:
    return found(nlp, text, "id_")


def test_what_the_services_users_could_not_do_is_a_symptom(nlp):
    for sentence, name in (("Customers could not place orders for two hours.", "customer unable to place order"),
                           ("Drivers were unable to accept rides.", "driver unable to accept ride"),
                           ("Merchants failed to receive payouts.", "merchant unable to receive payout"),
                           ("Users were not able to upload files.", "user unable to upload file")):
        found_names = names(nlp, sentence).get("Symptom", set())
        assert name in found_names, (sentence, found_names)
    symptoms = found(nlp, "For an hour customers could not load the CircleCI web interface.").get("Symptom", set())
    assert "customers could not load the CircleCI web interface" in symptoms, symptoms
    # What the engineers could not do is no symptom, nor is what was done to the customers.
    for sentence in ("Engineers could not reproduce the bug.", "Customers could not be reached by email."):
        assert not any("unable" in n for n in names(nlp, sentence).get("Symptom", set())), sentence


def test_a_part_or_an_amount_is_named_by_what_it_is_of(nlp):
    assert "node crash" in names(nlp, "Roughly 30% of the storage nodes crashed.").get("Symptom", set())
    assert "server crash" in names(nlp, "A third of the web servers crashed.").get("Symptom", set())


def test_what_a_thing_failed_or_stopped_doing_stays_in_the_phrase(nlp):
    symptoms = found(nlp, "The cluster failed to elect a leader. The billing service stopped processing invoices.") \
        .get("Symptom", set())
    assert "cluster failed to elect a leader" in symptoms, symptoms
    assert any("stopped processing invoices" in text for text in symptoms), symptoms


def test_a_missing_safeguard_named_by_its_modifier_is_a_factor(nlp):
    factors = found(nlp, "The certificate rotation job had no validation step.").get("ContributingFactor", set())
    assert "no validation step" in factors, factors
    factors = found(nlp, "The alert went to a channel. Nobody watched the alert channel.").get("ContributingFactor", set())
    assert any(text.startswith("Nobody watched") for text in factors), factors
    # "step" alone names no safeguard.
    assert not found(nlp, "The migration had no second step.").get("ContributingFactor")


def test_a_reason_keeps_what_went_wrong_without_its_when(nlp):
    causes = found(nlp, "The disks filled because a log retention policy had been disabled during a migration "
                        "two weeks earlier and never turned back on.").get("RootCause", set())
    assert "log retention policy had been disabled" in causes, causes


def test_a_reason_that_is_a_missing_safeguard_or_for_what_was_made_worse_is_a_factor(nlp):
    roles = found(nlp, "Nobody saw it coming because the database servers had no monitoring of memory.")
    assert not any("monitoring" in text for text in roles.get("RootCause", set())), roles
    roles = found(nlp, "The effect was amplified because the scanning engine closed the mail flow.")
    assert any("engine closed the mail flow" in text for text in roles.get("ContributingFactor", set())), roles
    assert not roles.get("RootCause"), roles


def test_a_relative_clause_says_what_failed(nlp):
    """"the name servers that were offline": the symptom is the servers being offline, not a bare
    "were offline"; an aside after a comma ("the site, which was down") says something else."""
    roles = found(nlp, "Resolving those names meant asking the very name servers that were offline.")
    assert any(m.endswith("name servers that were offline") for m in roles.get("Symptom", ())), roles
    aside = found(nlp, "New hosts fetched code from the version endpoint, which was unavailable.")
    assert not any("endpoint" in m for m in aside.get("Symptom", ())), aside


def test_a_shared_organisation_name_does_not_link_a_product(nlp):
    """"Google Search" shares only the vendor's name with "Google Kubernetes Engine": its own
    entity, not that product."""
    components = found(nlp, "Google Search and Google Workspace returned errors for an hour.", "id_").get("Component", set())
    assert components == {"google search", "google workspace"}, components


def test_a_negated_clause_name_keeps_its_auxiliary(nlp):
    """"the alert did not fire", not "the alert not fire": a name a reader can read."""
    assert core_name(nlp, "The quality evaluations didn't detect the degradation.") \
        == "quality evaluations did not detect the degradation"
    assert core_name(nlp, "Other load balancers couldn't be changed.") == "load balancers could not be changed"
    assert core_name(nlp, "The mobile clients can't connect.") == "mobile clients can not connect"
    assert core_name(nlp, "The command had not been qualified on the device type.") == "command had not been qualified"
    assert core_name(nlp, "The cache went down after the deploy.") == "cache went down"  # no auxiliary added


def test_what_users_could_still_do_is_no_symptom_and_what_they_could_not_is_every_action(nlp):
    """"users could read their projects but could not post, edit or change anything": the symptom
    is every action they could not take, said of the first verb's subject; what still worked is
    none."""
    text = "Basecamp users could read their projects but could not post, edit or change anything."
    mentions = found(nlp, text).get("Symptom", set())
    assert "could not post, edit or change anything" in mentions, mentions
    assert not any("read their projects" in m for m in mentions), mentions
    assert "user unable to post" in names(nlp, text).get("Symptom", set())
    # A joined clause with a subject of its own is another statement; when is left out.
    mentions = found(nlp, "Customers could not check out and new connections failed.").get("Symptom", set())
    assert "Customers could not check out" in mentions, mentions
    mentions = found(nlp, "Users could not open or retrieve their diagrams during that time.").get("Symptom", set())
    assert "Users could not open or retrieve their diagrams" in mentions, mentions


def test_refusing_to_not_coming_back_and_coming_to_a_halt_say_what_failed(nlp):
    """"refused to start" fails as "did not start" does, a negated "come" fails only when it is
    to come back, and what something came to ("a halt", "a crawl") says how it failed."""
    text = "The desktop software refused to start."
    assert "desktop software refused to start" in found(nlp, text).get("Symptom", set())
    assert "software start failure" in names(nlp, text).get("Symptom", set())
    symptoms = found(nlp, "The cluster would not come back up after the patch.").get("Symptom", set())
    assert "cluster would not come back up" in symptoms, symptoms
    assert not found(nlp, "Help did not come.").get("Symptom"), "nothing failed"
    for sentence, mention, name in (("The build queue came to a halt.", "build queue came to a halt", "queue stall"),
                                    ("The checkout service slowed to a crawl.", "checkout service slowed to a crawl",
                                     "service slowdown"),
                                    ("YouTube vanished from most of the internet.", "YouTube vanished", "youtube loss")):
        assert mention in found(nlp, sentence).get("Symptom", set()), sentence
        assert name in names(nlp, sentence).get("Symptom", set()), (sentence, names(nlp, sentence))


def test_sharing_only_how_things_fail_links_no_concept(nlp):
    """"the iOS app refused to start" shares "start" with "VM start failure", but no VM failed:
    a phrase links to a concept that names what failed only when it shares that word too."""
    assert "app start failure" in names(nlp, "The iOS app refused to start.").get("Symptom", set())
    assert "VM start failure" in names(nlp, "New VMs failed to start.").get("Symptom", set())


def test_what_a_failure_verb_did_something_to_names_the_symptom(nlp):
    """"a bug crashed the storage servers": the servers crashed, and the bug is no part of the
    symptom; "the cluster lost quorum" is a loss of quorum, said of the cluster."""
    text = "A bug in the kernel driver crashed the storage servers."
    assert "crashed the storage servers" in found(nlp, text).get("Symptom", set())
    assert "server crash" in names(nlp, text).get("Symptom", set()), names(nlp, text)
    assert "cluster lost quorum" in found(nlp, "The cluster lost quorum.").get("Symptom", set())
    assert "quorum loss" in names(nlp, "The cluster lost quorum.").get("Symptom", set())


def test_what_a_system_could_not_or_would_not_do_is_a_symptom(nlp):
    """"the pods would not terminate", "devices could not enrol": a system's failure whatever the
    verb; not what engineers could not do, a safeguard that did not work, or a counterfactual."""
    for sentence, mention in (("The pods on the drained nodes would not terminate.", "would not terminate"),
                              ("New devices could not enrol.", "devices could not enrol")):
        assert any(mention in text for text in found(nlp, sentence).get("Symptom", set())), sentence
    for sentence in ("Engineers could not reproduce the bug.", "The change would not have affected production.",
                     "The monitoring could not detect the fault."):
        assert not found(nlp, sentence).get("Symptom"), sentence


def test_what_a_cause_did_to_its_object_names_the_symptom(nlp):
    """"brought down the login service" is the service's outage; "overwhelmed the API servers"
    their overload: the object and what the verb did to it."""
    for sentence, name in (("An expired certificate brought down the login service.", "service outage"),
                           ("The retry storm overwhelmed the API servers.", "server overload"),
                           ("A race condition corrupted user sessions.", "session corruption")):
        assert name in names(nlp, sentence).get("Symptom", set()), (sentence, names(nlp, sentence))


def test_a_clause_name_keeps_the_verb_its_verb_goes_on_with(nlp):
    """"the resolver kept serving a stale copy" is named with what it kept doing, not "resolver kept"."""
    for sentence, name in (("The resolver kept serving a stale copy.", "resolver kept serving a stale copy"),
                           ("Pacemaker failed to promote a replica.", "pacemaker failed to promote a replica"),
                           ("The damaged racks had to be inspected.", "damaged racks had to be inspected")):
        assert core_name(nlp, sentence) == name, (sentence, core_name(nlp, sentence))


def test_what_precedes_a_colon_is_a_label_not_the_subject(nlp):
    """A curated summary line, "Mailhub (Initech), 2 May 2018: X caused Y": the parser may take the
    label for the subject of "caused"; the cause is X."""
    causes = found(nlp, "Mailhub (Initech), 2 May 2018: a hurried index rebuild caused an outage of about "
                        "twenty minutes across several Mailhub components.").get("RootCause", set())
    assert any("hurried index rebuild" in text for text in causes), causes
    assert not any("Mailhub" in text or "2018" in text for text in causes), causes


def test_what_the_users_saw_or_reported_is_a_symptom(nlp):
    """What the people the service is for saw, got or reported, when it names a failure."""
    for sentence, said in (("Customers started reporting errors throughout the app.", "errors"),
                           ("Shortly after noon, users began seeing timeouts in the dashboard.", "timeouts")):
        symptoms = found(nlp, sentence).get("Symptom", set())
        assert any(said in text for text in symptoms), (sentence, symptoms)
    assert "Symptom" not in found(nlp, "Customers received their parcels on Monday.")


def test_a_second_failure_of_the_same_subject_is_its_own_phrase(nlp):
    """"The database filled up and stopped answering queries": the second verb's failure is told
    by its own words, named by the subject they share."""
    sentence = "On Tuesday the database filled up and stopped answering queries."
    texts = found(nlp, sentence).get("Symptom", set())
    names = found(nlp, sentence, "id_").get("Symptom", set())
    assert "stopped answering queries" in texts, texts
    assert "database stoppage" in names, names


def test_what_fell_behind_lags(nlp):
    """"Incoming logs fell behind real time": falling behind is a lag; "revenue fell" is none."""
    names = found(nlp, "Incoming logs fell behind real time for two hours.", "id_").get("Symptom", set())
    assert "log lag" in names, names
    assert "log lag" not in found(nlp, "Revenue fell sharply in May.", "id_").get("Symptom", set())
