"""memory_eval runs the metrics on a dataset and leaves nothing behind."""

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from memories.models import Event, Memory, Tenant

pytestmark = pytest.mark.django_db

SMALL = Path(__file__).parent / "data" / "eval_small.json"


def test_memory_eval_scores_memoryhub_beside_both_baselines():
    out = io.StringIO()
    call_command("memory_eval", dataset=SMALL, k=3, json=True, stdout=out)
    result = json.loads(out.getvalue())
    systems = result["systems"]
    assert set(systems) == {"memoryhub", "bm25", "dense"}
    hub = systems["memoryhub"]
    assert hub["questions"] == 4
    assert hub["recall@k"] == 1.0
    assert hub["stale_rate"] == 0.0  # changed facts were superseded
    assert hub["conflict_rate"] == 0.0
    assert hub["duplicate_rate"] == 0.0
    # the raw events still hold the old statement, and dense retrieval hands it over
    assert systems["dense"]["stale_rate"] == 0.5
    assert systems["dense"]["conflict_rate"] == 0.5
    assert hub["recall@k"] >= max(systems["bm25"]["recall@k"], systems["dense"]["recall@k"])
    assert set(hub["by_language"]) == {"en", "it"}
    assert Tenant.objects.count() == 0
    assert Event.objects.count() == Memory.objects.count() == 0


def test_memory_eval_prints_a_table_and_compares_weightings():
    out = io.StringIO()
    call_command("memory_eval", dataset=SMALL, k=3, compare_weightings=True, quiet=True, stdout=out)
    text = out.getvalue()
    assert "k = 3, 4 questions" in text
    for name in ("memoryhub ", "memoryhub[seed-000]", "memoryhub[seed-004]", "bm25", "dense"):
        assert name in text
