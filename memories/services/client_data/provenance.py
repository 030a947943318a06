"""Whose ids an export document holds, and fresh ones for a document that is not ours.

An export vouches for its ids (``ids_seal``: a keyed digest of the tenant and every id in
the document, under the installation's secret key). An import keeps the document's ids
only when the seal is the importing tenant's own: a client exported here and imported
back (after an erasure, say) comes back as it was. Any other document (another tenant's,
another installation's, an edited one) gets fresh ids throughout, references followed.
So what an import does never depends on which ids exist in other tenants: a tenant
learns nothing of another's ids by importing (docs/decisions/0011).
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from django.conf import settings
from django.utils.crypto import constant_time_compare, salted_hmac

_SALT = "memoryhub.client-export.ids"
# Where a document may mention an id in free text: a memory's provenance ("event:<id>",
# "merged into <id>"), the profile's entries, the audit trail.
_CANONICAL_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
OWNED = ("sessions", "events", "memories", "review_items")  # the lists whose rows have ids


def document_ids(doc: dict) -> list[str]:
    """Every id the document gives a row of its own, in canonical form, sorted."""
    ids = [str(doc["client"]["id"])] + [str(row["id"]) for name in OWNED for row in doc[name]]
    return sorted(ids)


def ids_seal(tenant_id, ids: list[str], *, secret: str | None = None) -> str:
    value = f"{tenant_id}:{','.join(ids)}"
    return salted_hmac(_SALT, value, secret=secret, algorithm="sha256").hexdigest()


def sealed_here(tenant, seal: Any, doc: dict) -> bool:
    """Whether ``seal`` is the one this installation gives ``tenant``'s export of these ids
    (the secret key, or one it still accepts: ``SECRET_KEY_FALLBACKS``)."""
    if not isinstance(seal, str):
        return False
    ids = document_ids(doc)
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    return any(constant_time_compare(seal, ids_seal(tenant.pk, ids, secret=s)) for s in secrets)


def with_fresh_ids(doc: dict) -> dict:
    """The parsed document with a new random id for each of its rows, every reference to
    one (ids, and ids written out in provenance, profile and audit text) following it."""
    fresh = {old: uuid.uuid4() for old in map(uuid.UUID, document_ids(doc))}
    text = {str(old): str(new) for old, new in fresh.items()}

    def swap(value):
        return fresh.get(value, value) if isinstance(value, uuid.UUID) else value

    def swap_text(value: str) -> str:
        return _CANONICAL_ID.sub(lambda m: text.get(m.group(0), m.group(0)), value)

    out = dict(doc)
    out["client"] = {**doc["client"], "id": swap(doc["client"]["id"])}
    out["sessions"] = [{**s, "id": swap(s["id"])} for s in doc["sessions"]]
    out["events"] = [
        {**e, "id": swap(e["id"]), "session": swap(e["session"])} for e in doc["events"]
    ]
    out["memories"] = [
        {
            **m,
            "id": swap(m["id"]),
            "session": swap(m["session"]),
            "source_ref": swap_text(m["source_ref"]),
            "status_reason": swap_text(m["status_reason"]),
            "evidence": [{**ev, "event": swap(ev["event"])} for ev in m["evidence"]],
        }
        for m in doc["memories"]
    ]
    out["relations"] = [
        {**r, "source": swap(r["source"]), "target": swap(r["target"])} for r in doc["relations"]
    ]
    out["review_items"] = [
        {
            **r,
            "id": swap(r["id"]),
            "memory": swap(r["memory"]),
            "other_memory": swap(r["other_memory"]),
        }
        for r in doc["review_items"]
    ]
    out["audit"] = [{**a, "object_id": swap_text(a["object_id"])} for a in doc["audit"]]
    if "profile" in doc:
        profile = doc["profile"]
        out["profile"] = {
            **profile,
            **{
                part: json.loads(swap_text(json.dumps(profile[part])))
                for part in ("static", "dynamic")
            },
        }
    return out
