"""Profile + context in one call: what an agent puts in its prompt for this message."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from curation.selectors import open_disputes
from memories import permissions
from memories.models import Kind, Memory
from memories.selectors.when import AHEAD, HAPPENED, PAST, When, when_told
from memories.services.extraction.heuristic import speaker_role
from memories.services.retrieval import Filters, memories_search
from profiles.services.profile import profile_for


def core_memories(client) -> list[Memory]:
    """The client's core tier, as always true: a plan whose day has gone by is left out."""
    return list(
        Memory.objects.current()
        .filter(client=client, tier="core")
        .exclude(expires_at__lte=timezone.now())
        .order_by("-importance", "-confidence", "created_at")
    )


# How far ahead the context looks for what the client said will happen or must be done, and
# how many such memories it shows (nearest first).
COMING_UP_DAYS = 21
COMING_UP_LIMIT = 5


def coming_up(client, now=None) -> list[Memory]:
    """What the client said will happen, or must be done, within ``COMING_UP_DAYS``: plans,
    deadlines, appointments whose day is ahead and not yet gone by (``expires_at``), nearest
    first, so that an agent can raise them unasked (seed 003's proactive layer)."""
    now = now or timezone.now()
    horizon = timezone.localdate(now) + timedelta(days=COMING_UP_DAYS)
    return list(
        Memory.objects.current(now)
        .filter(client=client, expires_at__gt=now, occurred_on__lte=horizon)
        .exclude(kind=Kind.OPERATIONAL)
        .order_by("occurred_on", "expires_at", "-importance", "created_at")[:COMING_UP_LIMIT]
    )


def client_profile(*, user, client) -> dict:
    """The client's profile (static and dynamic) and core memories, as ``user`` may read
    them: clients, prospects and heirs get their own core tier and no profile. One side of
    each open conflict, as the context shows it (``Disputes``)."""
    core = core_memories(client)
    if permissions.readable_tiers(user, client) == ("core",):
        return {"profile": {"static": [], "dynamic": []}, "core": core, "disputed_by": {}}
    profile = profile_for(client)
    disputes = Disputes(open_disputes(client))
    core = [m for m in core if disputes.keeps(str(m.pk))]  # core first, as the context reads
    static = [e for e in profile.static if disputes.keeps(e["memory"])]
    dynamic = [e for e in profile.dynamic if disputes.keeps(e["memory"])]
    return {
        "profile": {"static": static, "dynamic": dynamic},
        "core": core,
        "disputed_by": disputes.shown_rivals(),
    }


def context_build(
    *,
    user,
    client,
    message: str,
    budget_chars: int = 2000,
    k: int = 8,
    with_evidence: bool = False,
    record_access: bool = True,
) -> dict:
    """Core, profile, the ``k`` memories most relevant to ``message`` (with their evidence
    when asked) and the prompt-ready ``text`` within ``budget_chars``. ``record_access``
    off: a person previewing what the agent would read is not the agent using memory."""
    core = core_memories(client)
    if permissions.readable_tiers(user, client) == ("core",):
        # Clients, prospects and heirs: their own core tier, nothing else.
        return {
            "profile": {"static": [], "dynamic": []},
            "core": core,
            "hits": [],
            "coming_up": [],
            "disputed_by": {},
            "text": render_text(core=core, static=[], hits=[], dynamic=[], budget=budget_chars),
        }
    profile = profile_for(client)
    core_ids = {str(m.pk) for m in core}
    hits = [
        h
        for h in memories_search(
            client=client,
            query=message,
            k=k + len(core),
            filters=Filters(),
            with_evidence=with_evidence,
            record_access=record_access,
        )
        if str(h.memory.pk) not in core_ids
    ][:k]
    disputes = Disputes(open_disputes(client))
    core = [m for m in core if disputes.keeps(str(m.pk))]
    hits = [h for h in hits if disputes.keeps(str(h.memory.pk))]
    ahead = [m for m in coming_up(client) if disputes.keeps(str(m.pk))]
    static = [e for e in profile.static if disputes.keeps(e["memory"])]
    dynamic = [e for e in profile.dynamic if disputes.keeps(e["memory"])]
    return {
        "profile": {"static": static, "dynamic": dynamic},
        "core": core,
        "hits": hits,
        "coming_up": ahead,
        "disputed_by": disputes.shown_rivals(),
        "text": render_text(
            core=core,
            static=static,
            hits=hits,
            dynamic=dynamic,
            coming_up=ahead,
            budget=budget_chars,
            notes=disputes.notes(),
        ),
    }


class Disputes:
    """Conflicts waiting for a person (``rivals``: memory id → the memories it contradicts).
    Until someone decides, the agent reads one answer: the first side it meets, in the
    order the context is read (core, then relevance to the message, then the profile's
    own order), marked as disputed and naming the other side, which is left out."""

    def __init__(self, rivals: dict[str, list[Memory]]):
        self.rivals = rivals
        self.kept: set[str] = set()

    def keeps(self, memory_id: str) -> bool:
        """Whether to show ``memory_id``: not when a side it contradicts is shown already."""
        if any(str(r.pk) in self.kept for r in self.rivals.get(memory_id, ())):
            return False
        self.kept.add(memory_id)
        return True

    def shown_rivals(self) -> dict[str, list[str]]:
        """Memory id → the ids of the memories disputing it, for the memories shown."""
        return {
            memory_id: [str(r.pk) for r in self.rivals.get(memory_id, ())]
            for memory_id in self.kept
        }

    def notes(self) -> dict[str, str]:
        """What the agent reads after a disputed memory's line."""
        return {
            memory_id: _dispute_note([r.content for r in rivals])
            for memory_id in self.kept
            if (rivals := self.rivals.get(memory_id))
        }


def _dispute_note(texts: list[str]) -> str:
    quoted = [f"“{text}”" for text in texts]
    if len(quoted) == 1:
        return f" (disputed: a conflicting statement, {quoted[0]}, waits for review)"
    listed = ", ".join(quoted[:-1]) + f" and {quoted[-1]}"
    return f" (disputed: conflicting statements, {listed}, wait for review)"


def memory_line(memory: Memory, now=None) -> str:
    """A memory as the agent reads it: the day it was said, who said it when that is not
    the client, what, and when what it tells of happens, against today:
    ``2026-11-26 · Abbiamo un appuntamento dal notaio giovedì prossimo. (planned for
    2026-12-03: past)``, ``2022-12-22 · Maria: I donated my old car… (happened 2022-12-21)``."""
    when = when_told(memory, now)
    who = memory.speaker if speaker_role(memory.speaker) != "client" else ""
    said = f"{when.said.isoformat()} · {who}: " if who else f"{when.said.isoformat()} · "
    return f"{said}{memory.content}{_when_note(when)}"


def _when_note(when: When) -> str:
    if when.state == HAPPENED and when.day != when.said:
        return f" (happened {when.day_text})"
    if when.state == PAST:
        return f" (planned for {when.day_text}: past)"
    if when.state == AHEAD:
        return f" (planned for {when.day_text}: {_days_ahead(when.days_ahead)})"
    return ""


def _days_ahead(days: int | None) -> str:
    if not days:
        return "today"
    return "tomorrow" if days == 1 else f"in {days} days"


def render_text(
    *, core, static, hits, dynamic, budget: int, coming_up=(), notes=None, now=None
) -> str:
    """Today's date first (what is past and what is ahead are told against it), then
    sections in order of importance, each line added only while the whole fits in
    ``budget`` characters; a memory already shown is not repeated. ``notes``: memory id →
    what follows its line (a dispute)."""
    notes = notes or {}
    now = now or timezone.now()
    sections = [
        ("Core memories", [(str(m.pk), m.content) for m in core]),
        (
            "Relevant to this message",
            [(str(h.memory.pk), memory_line(h.memory, now)) for h in hits],
        ),
        ("Coming up", [(str(m.pk), memory_line(m, now)) for m in coming_up]),
        ("Client profile", [(e["memory"], e["text"]) for e in static]),
        ("Recent activity", [(e["memory"], e["text"]) for e in dynamic]),
    ]
    shown: set[str] = set()
    out: list[str] = [f"Today is {timezone.localdate(now).isoformat()}."]
    for title, lines in sections:
        block: list[str] = []
        for memory_id, text in lines:
            if memory_id in shown:
                continue
            head = block or ([""] if out else []) + [f"{title}:"]
            line = f"- {text}{notes.get(memory_id, '')}"
            trial = [*out, *head, line]
            if len("\n".join(trial)) > budget:
                continue
            block = [*head, line]
            shown.add(memory_id)
        out.extend(block)
    return "\n".join(out)
