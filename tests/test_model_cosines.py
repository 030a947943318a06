"""Cosine thresholds follow the model whose vectors are compared: the default model's are
the defaults, another model's differ where measured, and a configured value holds for all."""

from __future__ import annotations

from memories.conf import DEFAULTS, MODEL_COSINES, cosine_setting
from memories.models import Client, Kind, Memory
from memories.services.embedding.providers import CATALOGUE
from memories.services.retrieval.floor import Floor
from memories.services.write.relate import Judgement, LiveIndex, judge


def test_the_default_model_takes_the_defaults():
    for name in ("EXTEND_THRESHOLD", "EXTEND_CANDIDATE_FLOOR", "SEARCH_FLOOR_SEMANTIC_WHETHER"):
        assert cosine_setting(name, "multilingual-e5-small") == DEFAULTS[name]
        assert cosine_setting(name, None) == DEFAULTS[name]


def test_minilm_and_the_remote_models_take_the_designs_values():
    for model in ("all-MiniLM-L6-v2", "voyage-3-large", "text-embedding-3-small", "unknown-9"):
        assert cosine_setting("EXTEND_THRESHOLD", model) == 0.80
        assert cosine_setting("EXTEND_CANDIDATE_FLOOR", model) == 0.5
        assert cosine_setting("SEARCH_FLOOR_SEMANTIC", model) == 0.35
        assert cosine_setting("SEARCH_FLOOR_SEMANTIC_WHETHER", model) == 0.5
        assert cosine_setting("DEDUP_THRESHOLD", model) == DEFAULTS["DEDUP_THRESHOLD"]


def test_every_model_in_the_catalogue_has_its_thresholds_named():
    assert {spec.model for spec in CATALOGUE.values()} == set(MODEL_COSINES)


def test_a_configured_value_holds_for_every_model(settings, monkeypatch):
    settings.MEMORYHUB = {"EXTEND_THRESHOLD": 0.75}
    monkeypatch.setenv("MEMORYHUB_SEARCH_FLOOR_SEMANTIC_WHETHER", "0.2")
    for model in ("multilingual-e5-small", "all-MiniLM-L6-v2", None):
        assert cosine_setting("EXTEND_THRESHOLD", model) == 0.75
        assert cosine_setting("SEARCH_FLOOR_SEMANTIC_WHETHER", model) == 0.2
    assert Floor.configured("all-MiniLM-L6-v2").semantic_whether == 0.2


def test_an_extension_is_judged_by_the_models_threshold():
    """The same pair at cosine 0.75 extends in the default model's space (0.70) and is a new
    statement in all-MiniLM-L6-v2's (0.80)."""
    older = Memory(
        content="My daughter Sofia starts university in Bologna next year.",
        kind=Kind.SEMANTIC,
        subject="client",
    )

    def verdict(model):
        return judge(
            index=LiveIndex(),
            client=Client(),
            content_hash="not-stored",
            content="My daughter Sofia is studying medicine in Bologna.",
            kind=Kind.SEMANTIC,
            attribute="",
            value="",
            negated=False,
            neighbours=lambda: [(older, 0.75)],
            subject="client",
            model=model,
        ).action

    assert verdict("multilingual-e5-small") == Judgement.EXTENSION
    assert verdict(None) == Judgement.EXTENSION
    assert verdict("all-MiniLM-L6-v2") == Judgement.NEW
