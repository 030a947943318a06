"""The conditions a search's filters put on the memories it reads (``m``), with their
parameters: the vector and the full-text candidates both apply them."""

from __future__ import annotations

from datetime import datetime

from memories.models import LIVE_STATUSES, Status, unexpired_sql
from memories.selectors.filters import Filters
from memories.services.retrieval.sql import Sql, sql

# When it happened: the day the text gives, else the day it was said (in UTC).
HAPPENED = Sql("coalesce(m.occurred_on, (m.observed_at AT TIME ZONE 'UTC')::date)")


def filter_sql(filters: Filters, now: datetime) -> Sql:
    """WHERE conditions on ``m`` (memories_memory) for ``filters``."""
    conditions = _status(filters, now)
    if filters.tier:
        conditions.append(sql("m.tier = ANY({tier})", tier=list(filters.tier)))
    if filters.kind:
        conditions.append(sql("m.kind = ANY({kind})", kind=list(filters.kind)))
    if filters.tags:
        conditions.append(sql("m.tags && {tags}::varchar[]", tags=list(filters.tags)))
    if filters.since is not None:
        conditions.append(sql("m.observed_at >= {since}", since=filters.since))
    if filters.until is not None:
        conditions.append(sql("m.observed_at <= {until}", until=filters.until))
    if filters.speakers:
        speakers = list(filters.speakers)
        conditions.append(sql("lower(m.speaker) = ANY({speakers}::text[])", speakers=speakers))
    if filters.happened_since is not None:
        day = filters.happened_since
        conditions.append(sql("{happened} >= {day}", happened=HAPPENED, day=day))
    if filters.happened_until is not None:
        day = filters.happened_until
        conditions.append(sql("{happened} <= {day}", happened=HAPPENED, day=day))
    return Sql(" AND ").join(conditions)


def _status(filters: Filters, now: datetime) -> list[Sql]:
    """As of a time: what existed then and was not invalidated nor expired by then, in the
    statuses asked for (any but deleted). Else the statuses asked for (the live ones by
    default), a live status meaning live now: an operational memory past its expiry is
    expired from that moment, whether or not the TTL sweep has marked it yet."""
    if filters.as_of is not None:
        at = filters.as_of
        return [
            sql(
                "m.created_at <= {at} AND (m.invalidated_at IS NULL OR m.invalidated_at > {at})",
                at=at,
            ),
            Sql(unexpired_sql("m"), (at,)),
            sql("m.status = ANY({status})", status=list(filters.status))
            if filters.status
            else Sql("m.status <> 'deleted'"),
        ]
    wanted = filters.status or LIVE_STATUSES
    live = [status for status in wanted if status in LIVE_STATUSES]
    others = [status for status in wanted if status not in LIVE_STATUSES]
    unexpired = Sql(unexpired_sql("m"), (now,))
    either = [sql("(m.status = ANY({live}) AND {unexpired})", live=live, unexpired=unexpired)]
    if others:
        either.append(sql("m.status = ANY({others})", others=others))
    if Status.EXPIRED in others:
        either.append(
            sql(
                "(m.status = ANY({live}) AND NOT {unexpired})",
                live=list(LIVE_STATUSES),
                unexpired=unexpired,
            )
        )
    return [sql("({either})", either=Sql(" OR ").join(either))]
