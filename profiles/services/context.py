"""Profile + context in one call: what an agent puts in its prompt for this message."""

from __future__ import annotations

from memories import permissions
from memories.models import Memory, Precision
from memories.services.extraction.heuristic import speaker_role
from memories.services.retrieval import Filters, memories_search
from profiles.services.profile import profile_for


def core_memories(client) -> list[Memory]:
    return list(
        Memory.objects.current()
        .filter(client=client, tier="core")
        .order_by("-importance", "-confidence", "created_at")
    )


def client_profile(*, user, client) -> dict:
    """The client's profile (static and dynamic) and core memories, as ``user`` may read
    them: clients, prospects and heirs get their own core tier and no profile."""
    core = core_memories(client)
    if permissions.readable_tiers(user, client) == ("core",):
        return {"profile": {"static": [], "dynamic": []}, "core": core}
    profile = profile_for(client)
    return {"profile": {"static": profile.static, "dynamic": profile.dynamic}, "core": core}


def context_build(
    *,
    user,
    client,
    message: str,
    budget_chars: int = 2000,
    k: int = 8,
    with_evidence: bool = False,
) -> dict:
    """Core, profile, the ``k`` memories most relevant to ``message`` (with their evidence
    when asked) and the prompt-ready ``text`` within ``budget_chars``."""
    held = client_profile(user=user, client=client)
    core, static, dynamic = held["core"], held["profile"]["static"], held["profile"]["dynamic"]
    if permissions.readable_tiers(user, client) == ("core",):
        # Clients, prospects and heirs: their own core tier, nothing else.
        return {
            **held,
            "hits": [],
            "text": render_text(core=core, static=[], hits=[], dynamic=[], budget=budget_chars),
        }
    core_ids = {str(m.pk) for m in core}
    hits = [
        h
        for h in memories_search(
            client=client,
            query=message,
            k=k + len(core),
            filters=Filters(),
            with_evidence=with_evidence,
        )
        if str(h.memory.pk) not in core_ids
    ][:k]
    return {
        **held,
        "hits": hits,
        "text": render_text(
            core=core, static=static, hits=hits, dynamic=dynamic, budget=budget_chars
        ),
    }


def memory_line(memory: Memory) -> str:
    """A memory as the agent reads it: when it happened (or was said), who said it when
    that is not the client, and what: ``2022-12-21 · Maria: I donated my old car…``."""
    who = memory.speaker if speaker_role(memory.speaker) != "client" else ""
    head = " · ".join(part for part in (when_of(memory), who) if part)
    return f"{head}: {memory.content}" if who else f"{head} · {memory.content}"


def when_of(memory: Memory) -> str:
    """``occurred_on`` at its precision (2022-12-21, week of 2022-12-12, 2022-11, 2019),
    else the day it was said."""
    day = memory.occurred_on
    if day is None:
        return memory.observed_at.date().isoformat()
    spans: dict[str, str] = {
        Precision.WEEK: f"week of {day.isoformat()}",
        Precision.MONTH: day.strftime("%Y-%m"),
        Precision.YEAR: str(day.year),
    }
    return spans.get(memory.occurred_precision, day.isoformat())


def render_text(*, core, static, hits, dynamic, budget: int) -> str:
    """Sections in order of importance, each line added only while the whole fits in
    ``budget`` characters; a memory already shown is not repeated."""
    sections = [
        ("Core memories", [(str(m.pk), m.content) for m in core]),
        ("Relevant to this message", [(str(h.memory.pk), memory_line(h.memory)) for h in hits]),
        ("Client profile", [(e["memory"], e["text"]) for e in static]),
        ("Recent activity", [(e["memory"], e["text"]) for e in dynamic]),
    ]
    shown: set[str] = set()
    out: list[str] = []
    for title, lines in sections:
        block: list[str] = []
        for memory_id, text in lines:
            if memory_id in shown:
                continue
            head = block or ([""] if out else []) + [f"{title}:"]
            trial = [*out, *head, f"- {text}"]
            if len("\n".join(trial)) > budget:
                continue
            block = [*head, f"- {text}"]
            shown.add(memory_id)
        out.extend(block)
    return "\n".join(out)
