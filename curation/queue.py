"""Reads of the review queue that help decide, for the page, the API and the client pages:
open items filtered (client, kind of memory, score) and sorted (recommended first, score,
age); the open conflicts of a client; and what each decision will do, said before it is
made (status, tier, profile)."""

from __future__ import annotations

from django.db.models import Count, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from curation.models import ReviewItem
from memories.conf import setting
from memories.models import LIVE_STATUSES, Client, Tier
from memories.selectors.stable import STATIC_MIN_CONFIDENCE, is_static

SORTS: dict[str, tuple] = {
    # Recommended promotions first, best score first, then the newest (conflicts have no
    # score: newest first, as the queue always showed them).
    "recommended": ("-recommended", F("score").desc(nulls_last=True), "-created_at", "pk"),
    "score": (F("score").desc(nulls_last=True), "-created_at", "pk"),
    "newest": ("-created_at", "pk"),
    "oldest": ("created_at", "pk"),
}
SORT_LABELS = {
    "recommended": "Recommended first",
    "score": "Highest score",
    "newest": "Newest",
    "oldest": "Oldest",
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


def decision_effects(item: ReviewItem) -> dict[str, str]:
    """Each of the card's buttons → what it will do, in words."""
    memory = item.memory
    if item.type == ReviewItem.Type.PROMOTION:
        profile = (
            "the profile keeps it among the stable facts"
            if is_static(memory)
            else "the profile does not change (it lists preferences, facts, relationships "
            f"and constraints of confidence {STATIC_MIN_CONFIDENCE:.2f} or more)"
        )
        return {
            "Approve": f"Status {memory.get_status_display().lower()} → "
            f"promoted: it ranks first among equals in search and context. The tier stays "
            f"{memory.tier} (tiers follow use; a supervisor moves them on the memory's "
            f"page); {profile}.",
            "Reject": f"Not promoted: it stays in search and context "
            f"as it ranks now, in the {memory.tier} tier, with your reason in the audit "
            f"trail; it is not proposed again for "
            f"{setting('PROMOTION_REJECT_COOLDOWN_DAYS')} days unless new evidence comes.",
        }
    old = item.other_memory
    assert old is not None  # a conflict always has the memory it contradicts
    takes_core = old.tier == Tier.CORE and memory.tier != Tier.CORE
    # In the words of the card's buttons: by when each side was said (on the same instant,
    # the one recorded last is the more recent, as ``selectors.conflict_sides`` has it).
    new_is_later = not memory.observed_at < old.observed_at
    stays = {
        ReviewItem.Decision.KEEP_OLD: "stays as it is.",
        ReviewItem.Decision.ACCEPT_NEW: (
            "stays and takes the other's place in the core tier (if there is room)."
            if takes_core
            else f"stays in the {memory.tier} tier."
        ),
    }
    later = ReviewItem.Decision.ACCEPT_NEW if new_is_later else ReviewItem.Decision.KEEP_OLD
    earlier = ReviewItem.Decision.KEEP_OLD if new_is_later else ReviewItem.Decision.ACCEPT_NEW
    merged_into = "earlier" if new_is_later else "more recent"
    return {
        "Keep the earlier": "The more recent statement becomes superseded and leaves search "
        f"and context; the earlier one {stays[earlier]}",
        "Keep the more recent": "The earlier statement becomes superseded and leaves search "
        f"and context; the more recent one {stays[later]}",
        "Keep both": "Both stay live: they do not contradict each other.",
        "Merge": f"They say the same thing: the one recorded last is merged into the "
        f"{merged_into} one, whose evidence grows by its events.",
    }
