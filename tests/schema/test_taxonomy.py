"""The taxonomy loader: files merge into one set of concepts, and every malformed file is refused
with a message that names the file and the concept."""

from __future__ import annotations

from pathlib import Path

import pytest

from incident_graph.schema.taxonomy import TaxonomyError, load_taxonomy


def folder_with(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        (tmp_path / f"{name}.toml").write_text(text, encoding="utf-8")
    return tmp_path


CONCEPT = '[[concept]]\nname = "loss spike"\ntype = "Symptom"\n'


def test_files_merge_by_name_and_keep_everything_said_about_a_concept(tmp_path):
    folder = folder_with(
        tmp_path,
        a='[[concept]]\nname = "GPU failure"\ntype = "RootCause"\nsynonyms = ["GPU fault", " "]\n'
          'signs = ["one rank hangs", " "]\n'
          '[[concept]]\nname = "hardware failure"\ntype = "RootCause"\n',
        b='[[concept]]\nname = "gpu failure"\ntype = "RootCause"\nsynonyms = ["GPU fault", "bad GPU"]\n'
          'broader = "hardware failure"\ndescription = "A GPU stops working."\n'
          'signs = ["one rank hangs", "Xid errors in the kernel log"]\n',
    )
    taxonomy = load_taxonomy(folder)
    concept = taxonomy.get("RootCause", "GPU failure")
    assert concept is not None
    assert concept.synonyms == ("GPU fault", "bad GPU")
    assert (concept.broader, concept.description) == ("hardware failure", "A GPU stops working.")
    assert concept.signs == ("one rank hangs", "Xid errors in the kernel log")
    assert [c.name for c in taxonomy.of_type("RootCause")] == ["GPU failure", "hardware failure"]


def test_the_bundled_taxonomy_loads():
    assert len(load_taxonomy().concepts) > 100


@pytest.mark.parametrize("files, message", [
    ({}, "no taxonomy files (*.toml)"),
    ({"broken": "[[concept]\n"}, "broken.toml: not valid TOML"),
    ({"flat": 'concept = "loss spike"\n'}, "flat.toml: expected [[concept]] tables"),
    ({"nameless": '[[concept]]\ntype = "Symptom"\n'}, "nameless.toml: concept #1: field 'name' is missing or empty"),
    ({"typo": '[[concept]]\nname = "loss spike"\ntype = "Symptoms"\n'},
     "typo.toml: concept 'loss spike': field 'type' is 'Symptoms'; expected one of Organisation, Symptom, RootCause"),
    ({"also": CONCEPT + 'also = ["Vibe"]\n'}, "also.toml: concept 'loss spike': field 'also' names unknown type 'Vibe'"),
    ({"synonyms": CONCEPT + 'synonyms = "loss spikes"\n'},
     "synonyms.toml: concept 'loss spike': field 'synonyms' must be a list of strings"),
    ({"signs": CONCEPT + 'signs = ["loss jumps", 3]\n'},
     "signs.toml: concept 'loss spike': field 'signs' must be a list of strings"),
    ({"broader": CONCEPT + "broader = 3\n"}, "broader.toml: concept 'loss spike': field 'broader' must be a string"),
    ({"a": CONCEPT, "b": '[[concept]]\nname = "Loss Spike"\ntype = "RootCause"\n'},
     "b.toml: concept 'Loss Spike' is a RootCause here and a Symptom elsewhere"),
    ({"orphan": CONCEPT + 'broader = "training trouble"\n'},
     "concept 'loss spike': broader concept 'training trouble' is not a Symptom in the taxonomy"),
])
def test_each_malformed_file_is_refused_with_its_reason(tmp_path, files, message):
    with pytest.raises(TaxonomyError) as refused:
        load_taxonomy(folder_with(tmp_path, **files))
    assert message in str(refused.value)


def test_every_bundled_root_cause_has_a_description():
    # diagnose(text:) can suggest a cause no case of the graph has only through its description.
    assert [c.name for c in load_taxonomy().of_type("RootCause") if not c.description] == []


def test_every_specific_bundled_root_cause_has_signs_that_do_not_just_name_it():
    # diagnose(text:) compares the analyst's words with a cause's signs; a broader concept only groups.
    causes = load_taxonomy().of_type("RootCause")
    broader = {c.broader for c in causes}
    specific = [c for c in causes if c.name not in broader]
    assert [c.name for c in specific if len(c.signs) < 3] == []
    assert [(c.name, sign) for c in specific for sign in c.signs if c.name.lower() in sign.lower()] == []
