"""What full-text ranking needs beside the memories: how many of a client's memories hold
each word, so that a rare word counts for more than a common one (BM25's idf)."""

from __future__ import annotations

from django.db import models


class LexemeCount(models.Model):
    """How many memories hold a lexeme. Lexemes are scoped by client
    (``<12 hex of the client id>:<lexeme>``, migration 0010), so each client has its own
    counts; the row ``<12 hex>:`` (no word) counts the client's memories, and the rows
    ``<12 hex>: <config>`` (a space: no lexeme holds one) those indexed in each text
    search configuration, the configurations a query is read in (``memories.languages``).
    Every memory counts, whatever its status: the counts grow with writes
    (``memories.services.write.records.lexemes_count``) and go with the client at
    erasure."""

    lexeme = models.TextField(primary_key=True)
    documents = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"{self.lexeme}: {self.documents}"
