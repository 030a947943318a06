"""The team's parity set (bench/data/parity.json, read by bench/parity.py): each statement
said in the three languages, about a topic the product reads."""

from __future__ import annotations

import json
from pathlib import Path

from memories.services.topics.taxonomy import MEMORY_TOPICS

PARITY = Path(__file__).resolve().parent.parent / "bench" / "data" / "parity.json"


def test_each_statement_is_said_in_three_languages_about_a_known_topic():
    statements = json.loads(PARITY.read_text(encoding="utf-8"))["statements"]
    assert len(statements) >= 60
    assert len({s["id"] for s in statements}) == len(statements)
    for statement in statements:
        versions = [statement[language].strip() for language in ("en", "it", "es")]
        assert all(versions) and len(set(versions)) == 3, statement["id"]
        assert statement["topic"] in MEMORY_TOPICS, statement["id"]
