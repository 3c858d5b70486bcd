"""The extraction pipeline's own spaCy components: one per module, each with its factory.

Importing this package registers every factory. Order in the pipeline (see ingest/pipeline.py):
  sentencizer -> incident_sentences -> incident_sections -> (the trained pipeline's pipes)
  -> lemmatizer -> incident_norms -> taxonomy_ruler -> detection_ruler -> incident_loose_matcher
  -> incident_roles
  -> incident_new_entities -> incident_phrases -> incident_entity_classifier -> incident_organisations
  -> incident_narrative -> incident_mention_extent
"""

from incident_graph.ingest.components import (  # noqa: F401  (each import registers a factory)
    entity_classifier,
    loose_matcher,
    mention_extent,
    narrative,
    new_entities,
    norms,
    organisations,
    phrases,
    roles,
    section_tagger,
    sentences,
)
from incident_graph.ingest.components.spans import CANDIDATES, DETECTION, DETECTION_CANDIDATES, MENTIONS
from incident_graph.ingest.components.tokens import make_doc

__all__ = ["CANDIDATES", "DETECTION", "DETECTION_CANDIDATES", "MENTIONS", "make_doc"]
