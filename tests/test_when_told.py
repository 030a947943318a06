"""When a memory was said and when what it tells of happens, against today: what the
agent's context and the client page say of time, and what a correction keeps of it."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memories.models import Memory, Precision
from memories.selectors.when import AHEAD, HAPPENED, PAST, when_told
from memories.services.extraction.time_expressions import Happened
from memories.services.write.corrections import memory_correct
from profiles.services.context import memory_line
from tests.support import factories

SAID = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)


def _memory(content="x", *, occurred_on=None, precision="", expires_at=None, speaker=""):
    return Memory(
        content=content,
        observed_at=SAID,
        occurred_on=occurred_on,
        occurred_precision=precision,
        expires_at=expires_at,
        speaker=speaker,
    )


def _end_of(day: date) -> datetime:
    return datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=UTC)


@pytest.mark.parametrize(
    ("memory", "now", "state", "days"),
    [
        # "I sold the car last week": it happened before it was said.
        (_memory(occurred_on=date(2026, 2, 23), precision=Precision.WEEK), SAID, HAPPENED, None),
        # "The notary on the 12th", read on the 5th, on the 12th, and on the 13th.
        (
            _memory(occurred_on=date(2026, 3, 12), expires_at=_end_of(date(2026, 3, 12))),
            datetime(2026, 3, 5, 8, tzinfo=UTC),
            AHEAD,
            7,
        ),
        (
            _memory(occurred_on=date(2026, 3, 12), expires_at=_end_of(date(2026, 3, 12))),
            datetime(2026, 3, 12, 20, tzinfo=UTC),
            AHEAD,
            0,
        ),
        (
            _memory(occurred_on=date(2026, 3, 12), expires_at=_end_of(date(2026, 3, 12))),
            datetime(2026, 3, 13, 8, tzinfo=UTC),
            PAST,
            None,
        ),
        # A month ahead without an expiry: ahead through its last day, past after it.
        (
            _memory(occurred_on=date(2026, 4, 1), precision=Precision.MONTH),
            datetime(2026, 4, 30, 8, tzinfo=UTC),
            AHEAD,
            0,
        ),
        (
            _memory(occurred_on=date(2026, 4, 1), precision=Precision.MONTH),
            datetime(2026, 5, 1, 8, tzinfo=UTC),
            PAST,
            None,
        ),
        (_memory(), SAID, "", None),  # it names no day
    ],
)
def test_what_a_memory_tells_is_past_ahead_or_happened(memory, now, state, days):
    when = when_told(memory, now)
    assert (when.said, when.state, when.days_ahead) == (SAID.date(), state, days)


def test_the_agent_reads_the_day_said_and_the_day_it_happens():
    now = datetime(2026, 3, 11, 8, tzinfo=UTC)
    plan = _memory(
        "We meet the notary on the 12th.",
        occurred_on=date(2026, 3, 12),
        expires_at=_end_of(date(2026, 3, 12)),
    )
    sold = _memory(
        "I sold the boat last month.",
        occurred_on=date(2026, 2, 1),
        precision=Precision.MONTH,
        speaker="Maria",
    )
    assert memory_line(plan, now) == (
        "2026-03-02 · We meet the notary on the 12th. (planned for 2026-03-12: tomorrow)"
    )
    assert memory_line(sold, now) == (
        "2026-03-02 · Maria: I sold the boat last month. (happened 2026-02)"
    )
    later = datetime(2026, 3, 20, 8, tzinfo=UTC)
    assert memory_line(plan, later).endswith("(planned for 2026-03-12: past)")


@pytest.mark.django_db
def test_a_corrected_plan_keeps_its_day_or_takes_the_one_it_names(personas, post_event):
    said = post_event("We have a meeting with the notary next Thursday.", days_ago=1)
    (plan,) = [Memory.objects.get(pk=m["id"]) for m in said["memories"]]
    assert plan.occurred_on is not None and plan.expires_at is not None

    kept = memory_correct(
        memory=plan,
        content="We have a meeting with the notary and the bank.",
        reason="The bank comes too.",
        actor=personas.advisor,
    )
    assert (kept.occurred_on, kept.expires_at) == (plan.occurred_on, plan.expires_at)
    assert (kept.topic, kept.topics) == (plan.topic, plan.topics)

    moved = memory_correct(
        memory=kept,
        content="We have a meeting with the notary next Friday.",
        reason="Moved a day.",
        actor=personas.advisor,
    )
    # Read as of when the plan was said: the Friday after that day, not after today.
    assert moved.occurred_on == plan.occurred_on + timedelta(days=1)
    assert moved.expires_at == plan.expires_at + timedelta(days=1)
    assert when_told(moved).state == AHEAD


@pytest.mark.django_db
def test_the_client_page_says_what_is_planned_and_what_has_gone_by(client, personas):
    today = timezone.localdate()
    factories.MemoryFactory.create(
        client=personas.client,
        content="We meet the notary next week.",
        occurred=Happened(today + timedelta(days=7), Precision.DAY),
        expires_at=_end_of(today + timedelta(days=7)),
    )
    factories.MemoryFactory.create(
        client=personas.client,
        content="We met the notary on the 3rd.",
        occurred=Happened(today - timedelta(days=40), Precision.DAY),
        expires_at=_end_of(today - timedelta(days=40)),
        observed_at=timezone.now() - timedelta(days=45),
    )
    client.force_login(personas.advisor)
    page = client.get(reverse("profiles:client-memories", args=[personas.client.pk]))
    text = " ".join(page.content.decode().split())
    assert page.status_code == 200
    assert "planned for" in text and ", ahead" in text
    assert '<span class="badge past">past</span>' in text
    assert "said " in text


def _said_of_time(html: str) -> list[str]:
    """What the page says of when each memory happens, in the order shown."""
    text = " ".join(re.sub(r"<(?!/?span)[^>]+>", "", html).split())
    return re.findall(
        r"(happened [^·]+?|planned for [^·]+?, ahead|planned for [^·<]+?"
        r' <span class="badge past">past</span>) ·',
        text,
    )


@pytest.mark.django_db
def test_the_list_its_search_and_the_memory_page_agree_on_when(client, personas):
    """ "Happened" is said of the past only: a plan ahead reads "planned for …, ahead" and
    a plan whose day went by "planned for …" marked past, in the client page's list, in
    its search, and on the memory's own page."""
    today = timezone.localdate()
    ahead, gone = today + timedelta(days=3), today - timedelta(days=40)
    plan = factories.MemoryFactory.create(
        client=personas.client,
        content="We meet the notary about the deed next week.",
        occurred=Happened(ahead, Precision.DAY),
        expires_at=_end_of(ahead),
    )
    old_plan = factories.MemoryFactory.create(
        client=personas.client,
        content="We met the notary about the deed on the 3rd.",
        occurred=Happened(gone, Precision.DAY),
        expires_at=_end_of(gone),
        observed_at=timezone.now() - timedelta(days=45),
    )
    sold = factories.MemoryFactory.create(
        client=personas.client,
        content="I sold the flat about the deed last month.",
        occurred=Happened(today.replace(day=1) - timedelta(days=1), Precision.MONTH),
        observed_at=timezone.now() - timedelta(days=1),
    )
    day = "{:%-d %b %Y}".format
    month = "{:%B %Y}".format
    expected = {
        plan.pk: f"planned for {day(ahead)}, ahead",
        old_plan.pk: f'planned for {day(gone)} <span class="badge past">past</span>',
        sold.pk: f"happened {month(sold.occurred_on)}",
    }
    client.force_login(personas.advisor)
    url = reverse("profiles:client-memories", args=[personas.client.pk])
    listed = _said_of_time(client.get(url).content.decode())
    assert listed == [expected[m.pk] for m in (plan, sold, old_plan)]
    searched = _said_of_time(client.get(url, {"q": "notary deed"}).content.decode())
    assert sorted(searched) == sorted(expected[m.pk] for m in (plan, old_plan))
    for memory in (plan, old_plan, sold):
        page = client.get(reverse("memories:memory", args=[memory.pk])).content.decode()
        text = " ".join(page.split())
        assert f"<dt>When</dt><dd>{expected[memory.pk]}" in re.sub(r"</?time[^>]*>", "", text)
        assert "<dt>Happened</dt>" not in text
