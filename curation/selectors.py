"""The review queue's reads, for its page, its API and the client pages.

One module, because they are one idea: which items are open (filtered, sorted) and which
conflicts still apply; then, for each item a reviewer looks at, what they need to decide
(the evidence, the two sides of a conflict by when each was said, the promotion score's
components) and what each decision will do, said before it is made.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from curation.models import ReviewItem
from memories.conf import setting
from memories.models import LIVE_STATUSES, Client, Evidence, Memory, Tier
from memories.selectors.stable import STATIC_MIN_CONFIDENCE, is_static
from memories.templatetags.words import tier_name

SORTS: dict[str, tuple] = {
    # Recommended promotions first, best score first, then the newest (conflicts have no
    # score: newest first, as the queue always showed them).
    "recommended": ("-recommended", F("score").desc(nulls_last=True), "-created_at", "pk"),
    "score": (F("score").desc(nulls_last=True), "-created_at", "pk"),
    "newest": ("-created_at", "pk"),
    "oldest": ("created_at", "pk"),
}
SORT_LABELS = {
    "recommended": _("Recommended first"),
    "score": _("Highest score"),
    "newest": _("Newest"),
    "oldest": _("Oldest"),
}
DEFAULT_SORT = "recommended"


def open_items(
    scope: QuerySet[ReviewItem],
    *,
    item_type: str | None = None,
    client: Client | None = None,
    kind: str = "",
    min_score: float | None = None,
    sort: str = DEFAULT_SORT,
) -> QuerySet[ReviewItem]:
    """The open items of ``scope`` (a queryset the caller has scoped to the user) that
    match, in the order ``sort`` names."""
    items = scope.filter(state=ReviewItem.State.OPEN)
    if item_type:
        items = items.filter(type=item_type)
    if client is not None:
        items = items.filter(client=client)
    if kind:
        items = items.filter(memory__kind=kind)
    if min_score is not None:
        items = items.filter(score__gte=min_score)
    return items.select_related("client", "memory", "other_memory").order_by(
        *SORTS.get(sort, SORTS[DEFAULT_SORT])
    )


def clients_with_open_items(scope: QuerySet[ReviewItem]) -> list[Client]:
    """The clients that have open items in ``scope``, by name (the queue's client filter)."""
    ids = scope.filter(state=ReviewItem.State.OPEN).values("client_id")
    return list(Client.objects.filter(pk__in=ids).order_by("display_name", "external_ref"))


def _live_conflicts() -> Q:
    """An open conflict whose two memories are both still live: one a decision would
    settle (the others only become obsolete when decided)."""
    return Q(
        state=ReviewItem.State.OPEN,
        type=ReviewItem.Type.CONFLICT,
        memory__status__in=LIVE_STATUSES,
        other_memory__status__in=LIVE_STATUSES,
    )


def open_conflicts(client: Client) -> list[ReviewItem]:
    """``client``'s open conflicts that still apply, oldest first."""
    return list(
        ReviewItem.objects.filter(_live_conflicts(), client=client)
        .select_related("memory", "other_memory")
        .order_by("created_at", "pk")
    )


def open_conflict_count() -> Coalesce:
    """For annotating clients: how many open conflicts of theirs still apply."""
    counted = (
        ReviewItem.objects.filter(_live_conflicts(), client=OuterRef("pk"))
        .order_by()
        .values("client")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return Coalesce(Subquery(counted), 0)


def open_disputes(client) -> dict[str, list[Memory]]:
    """Memory id → the memories it contradicts in a conflict still waiting for a person,
    for ``client``: only pairs whose two memories are both current (one forgotten or
    expired meanwhile disputes nothing)."""
    now = timezone.now()
    items = (
        ReviewItem.objects.filter(
            client_id=client.pk, type=ReviewItem.Type.CONFLICT, state=ReviewItem.State.OPEN
        )
        .select_related("memory", "other_memory")
        .order_by("created_at", "pk")  # the oldest dispute named first
    )
    rivals: dict[str, list[Memory]] = defaultdict(list)
    for item in items:
        pair = (item.memory, item.other_memory)
        if all(m is not None and _current(m, now) for m in pair):
            new, old = pair
            rivals[str(new.pk)].append(old)
            rivals[str(old.pk)].append(new)
    return dict(rivals)


def _current(memory: Memory, now) -> bool:
    return memory.is_current(now)


def decision_effects(item: ReviewItem) -> dict[str, str]:
    """Each of the card's buttons → what it will do, in words."""
    memory = item.memory
    tier = tier_name(memory.tier)
    if item.type == ReviewItem.Type.PROMOTION:
        profile = (
            gettext("the profile keeps it among the stable facts")
            if is_static(memory)
            else gettext(
                "the profile does not change (it lists preferences, facts, relationships "
                "and constraints of confidence %(confidence)s or more)"
            )
            % {"confidence": number_format(STATIC_MIN_CONFIDENCE, 2)}
        )
        return {
            gettext("Approve"): gettext(
                "Status %(status)s → promoted: it ranks first among equals in search and "
                "context. The tier stays %(tier)s (tiers follow use; a supervisor moves them "
                "on the memory's page); %(profile)s."
            )
            % {"status": memory.get_status_display().lower(), "tier": tier, "profile": profile},
            gettext("Reject"): ngettext(
                "Not promoted: it stays in search and context as it ranks now, in the "
                "%(tier)s tier, with your reason in the audit trail; it is not proposed again "
                "for %(days)d day unless new evidence comes.",
                "Not promoted: it stays in search and context as it ranks now, in the "
                "%(tier)s tier, with your reason in the audit trail; it is not proposed again "
                "for %(days)d days unless new evidence comes.",
                setting("PROMOTION_REJECT_COOLDOWN_DAYS"),
            )
            % {"tier": tier, "days": setting("PROMOTION_REJECT_COOLDOWN_DAYS")},
        }
    old = item.other_memory
    assert old is not None  # a conflict always has the memory it contradicts
    takes_core = old.tier == Tier.CORE and memory.tier != Tier.CORE
    # In the words of the card's buttons: by when each side was said (on the same instant,
    # the one recorded last is the more recent, as ``conflict_sides`` has it).
    new_is_later = not memory.observed_at < old.observed_at
    earlier_stays = gettext(
        "The more recent statement becomes superseded and leaves search and context; the "
        "earlier one stays as it is."
    )
    later_stays = gettext(
        "The earlier statement becomes superseded and leaves search and context; the more "
        "recent one stays as it is."
    )
    if takes_core:
        moves = gettext(
            "The %(superseded)s statement becomes superseded and leaves search and context; "
            "the %(kept)s one stays and takes the other's place in the core tier (if there is "
            "room)."
        )
    else:
        moves = gettext(
            "The %(superseded)s statement becomes superseded and leaves search and context; "
            "the %(kept)s one stays in the %(tier)s tier."
        )
    earlier, recent = gettext("earlier"), gettext("more recent")
    if new_is_later:  # keeping the more recent keeps the new memory: it moves
        later_stays = moves % {"superseded": earlier, "kept": recent, "tier": tier}
    else:
        earlier_stays = moves % {"superseded": recent, "kept": earlier, "tier": tier}
    return {
        gettext("Keep the earlier"): earlier_stays,
        gettext("Keep the more recent"): later_stays,
        gettext("Keep both"): gettext("Both stay live: they do not contradict each other."),
        gettext("Merge"): (
            gettext(
                "They say the same thing: the one recorded last is merged into the earlier "
                "one, whose evidence grows by its events."
            )
            if new_is_later
            else gettext(
                "They say the same thing: the one recorded last is merged into the more "
                "recent one, whose evidence grows by its events."
            )
        ),
    }


@dataclass(frozen=True)
class Side:
    """One side of a conflict as the card shows it."""

    memory: Memory
    evidence: list[Evidence]
    label: str
    keep: str  # the decision that keeps this side and supersedes the other

    @property
    def events(self) -> int:
        return len({e.event_id for e in self.evidence})


@dataclass(frozen=True)
class ReviewCard:
    """One item as a reviewer sees it, with what helps to decide it. A value returned
    beside the item, not attributes pasted onto it: the model keeps to what its table
    holds, and needs nothing from this module."""

    item: ReviewItem
    new_evidence: list[Evidence]  # the new memory's (conflict) or the candidate's
    old_evidence: list[Evidence]  # the memory it contradicts (conflict); else empty
    stale: bool  # one of its memories stopped being live: a decision only obsoletes it
    components: list[dict[str, Any]]  # the promotion score's, as rows (score_components)
    earlier: Side | None = None  # a conflict's sides, by when each was said
    later: Side | None = None
    compare: str = ""  # the two sides compared, in a sentence
    effects: dict[str, str] = field(default_factory=dict)  # the queue page's: decision_effects
    outcome: str = ""  # the decide page's, once decided: what the decision did


def review_cards(items: list[ReviewItem]) -> list[ReviewCard]:
    """Each item as a card: its memories' evidence (events, oldest first), whether it
    still applies, its score's components and, for a conflict, its two sides compared.
    The evidence of every item in one query."""
    ids = {i.memory_id for i in items} | {i.other_memory_id for i in items if i.other_memory_id}
    by_memory: dict = defaultdict(list)
    for evidence in (
        Evidence.objects.filter(memory_id__in=ids)
        .select_related("event")
        .order_by("event__observed_at")
    ):
        by_memory[evidence.memory_id].append(evidence)
    return [_card(item, by_memory) for item in items]


def _card(item: ReviewItem, by_memory: dict) -> ReviewCard:
    new_evidence = by_memory[item.memory_id]
    old_evidence = by_memory[item.other_memory_id] if item.other_memory_id else []
    card = ReviewCard(
        item=item,
        new_evidence=new_evidence,
        old_evidence=old_evidence,
        stale=any(
            m is not None and m.status not in LIVE_STATUSES
            for m in (item.memory, item.other_memory)
        ),
        components=score_components(item.score_components),
    )
    if item.type == ReviewItem.Type.CONFLICT and item.other_memory is not None:
        earlier, later = conflict_sides(item, new_evidence, old_evidence)
        card = replace(card, earlier=earlier, later=later, compare=_compare(earlier, later))
    return card


def conflict_sides(
    item: ReviewItem, new_evidence: list[Evidence], old_evidence: list[Evidence]
) -> tuple[Side, Side]:
    """(earlier, more recent) by when each thing was said (``observed_at``), not by when it
    was recorded: an import recorded today of something said in October is the earlier."""
    new, old = item.memory, item.other_memory
    assert old is not None  # a conflict has two sides (review_conflict_has_other)
    keep_new = Side(new, new_evidence, "", ReviewItem.Decision.ACCEPT_NEW)
    keep_old = Side(old, old_evidence, "", ReviewItem.Decision.KEEP_OLD)
    # On the same instant, the one recorded later is the more recent.
    earlier, later = (
        (keep_new, keep_old) if new.observed_at < old.observed_at else (keep_old, keep_new)
    )
    return (
        replace(earlier, label=gettext("Said earlier")),
        replace(later, label=gettext("Said more recently")),
    )


def _compare(earlier: Side, later: Side) -> str:
    days = (later.memory.observed_at - earlier.memory.observed_at).days
    if days >= 1:
        when = ngettext("observed %(n)d day later", "observed %(n)d days later", days) % {"n": days}
    elif later.memory.observed_at > earlier.memory.observed_at:
        when = gettext("observed later the same day")
    else:
        when = gettext("observed at the same time, recorded later")
    words = {"later": later.memory.content, "earlier": earlier.memory.content, "when": when}
    if later.events == earlier.events:
        return ngettext(
            "“%(later)s” is the more recent (%(when)s); both rest on %(n)d event.",
            "“%(later)s” is the more recent (%(when)s); both rest on %(n)d events.",
            later.events,
        ) % {**words, "n": later.events}
    more, fewer = (later, earlier) if later.events > earlier.events else (earlier, later)
    words |= {"more": more.events, "fewer": fewer.events}
    if more is later:
        return (
            ngettext(
                "“%(later)s” is the more recent (%(when)s) and has more evidence (%(more)d event "
                "against %(fewer)d).",
                "“%(later)s” is the more recent (%(when)s) and has more evidence (%(more)d events "
                "against %(fewer)d).",
                more.events,
            )
            % words
        )
    return (
        ngettext(
            "“%(later)s” is the more recent (%(when)s); “%(earlier)s” has more evidence "
            "(%(more)d event against %(fewer)d).",
            "“%(later)s” is the more recent (%(when)s); “%(earlier)s” has more evidence "
            "(%(more)d events against %(fewer)d).",
            more.events,
        )
        % words
    )


def score_components(components: dict) -> list[dict[str, Any]]:
    """A promotion score's components as rows: name, value (0–1, with a bar), the weight
    it has in the score (PROMOTION_WEIGHTS) and its contribution; then the counts the
    scorer kept beside them (restatements, reads, sessions) as plain text."""
    weights = setting("PROMOTION_WEIGHTS")
    scored: list[dict[str, Any]] = []
    counts: list[dict[str, Any]] = []
    for name, raw in (components or {}).items():
        if isinstance(raw, dict):
            value = raw.get("value", raw.get("score"))
            weight = raw.get("weight")
            contribution = raw.get("contribution")
        elif name in weights:
            value, weight, contribution = raw, weights[name], None
        else:
            counts.append({"name": _label(name), "text": str(raw), "bar": None})
            continue
        if not isinstance(value, int | float) or isinstance(value, bool):
            scored.append({"name": _label(name), "text": str(value), "bar": None})
            continue
        if contribution is None and isinstance(weight, int | float):
            contribution = weight * value
        scored.append(
            {
                "name": _label(name),
                "value": float(value),
                "weight": weight,
                "contribution": contribution,
                "bar": round(max(0.0, min(1.0, float(value))) * 100),
            }
        )
    # jsonb keeps its own key order: show the score's components in the weights' order
    order = {_label(name): index for index, name in enumerate(weights)}
    scored.sort(key=lambda row: order.get(row["name"], len(order)))
    return scored + counts


# The promotion score's components (curation.services.promotion_scoring), as the card
# names them; a name not listed shows as it is stored.
COMPONENT_LABELS = {
    "repetition": _("Repetition"),
    "usage": _("Usage"),
    "confidence": _("Confidence"),
    "evidence": _("Evidence"),
    "stability": _("Stability"),
    "impact": _("Impact"),
    "evidence_count": _("Evidence count"),
    "restated": _("Restated"),
    "reads": _("Reads"),
    "sessions": _("Sessions"),
}


def _label(name: str) -> str:
    return str(COMPONENT_LABELS.get(name, str(name).replace("_", " ").capitalize()))
