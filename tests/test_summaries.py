"""Episode summaries: a quiet session becomes one structured episodic memory, once."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from curation.services.review import conflict_decide
from memories.models import Memory, Relation, Session
from memories.services.jobs.forgetting import ttl_sweep
from memories.services.jobs.summaries import episodes_summarize
from memories.services.write.corrections import memory_correct
from memories.services.write.ingest import EventInput, events_ingest
from memories.services.write.lifecycle import memory_forget
from tests.support import factories
from tests.support.jobs import Crash, crash_on_call, in_parallel, local_space, run

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
CALL = [
    ("client", "Hi, how are you?"),
    ("client", "Can we move my pension to the new provider before the end of March?"),
    ("assistant", "Yes, I will prepare the transfer forms today."),
    ("client", "I moved to Bristol last year. I prefer to be contacted by email."),
    ("client", "I met my accountant James yesterday about the pension."),
    ("assistant", "The pension transfer will complete next week."),
]


@pytest.fixture(autouse=True)
def _local_space(db):
    local_space()


def _call(
    personas, session="call-1", client="emma", *, ended_ago=timedelta(hours=2), lines=CALL, tag=""
):
    start = NOW - ended_ago - timedelta(minutes=len(lines))
    with time_machine.travel(start, tick=False):
        events_ingest(
            user=personas.advisor,
            tenant=personas.tenant,
            items=[
                EventInput(
                    client=client,
                    session=session,
                    speaker=speaker,
                    content=content,
                    observed_at=start + timedelta(minutes=n),
                    external_id=f"{session}-{client}-{tag}{n}",
                )
                for n, (speaker, content) in enumerate(lines, start=1)
            ],
        )
    return Session.objects.get(external_ref=session, client__external_ref=client)


def _summaries():
    return Memory.objects.filter(source_ref="job:summarize_episodes").order_by("created_at")


def test_a_quiet_session_is_summarised_once(personas):
    session = _call(personas)
    _call(personas, "call-2", ended_ago=timedelta(minutes=10))  # still going on
    _call(personas, "call-3", lines=CALL[:2])  # too short
    with time_machine.travel(NOW, tick=False):
        assert run(episodes_summarize) == {"summarized_heuristic": 1}
        assert run(episodes_summarize) == {}
    [summary] = _summaries()
    facts = Memory.objects.filter(session=session).exclude(pk=summary.pk)
    assert summary.metadata["summary"] == {
        "topic": "James, pension",
        "intent": "Can we move my pension to the new provider before the end of March?",
        "outcome": "The pension transfer will complete next week.",
        "key_facts": ["I moved to Bristol last year.", "I prefer to be contacted by email."],
    }
    assert summary.content == (
        "Topic: James, pension. Intent: Can we move my pension to the new provider "
        "before the end of March? Outcome: The pension transfer will complete next week. "
        "Key facts: I moved to Bristol last year; I prefer to be contacted by email."
    )
    assert (summary.kind, summary.category, summary.status, summary.session) == (
        "episodic",
        "event",
        "active",
        session,
    )
    assert summary.evidence_count == len(CALL)
    assert set(
        Relation.objects.filter(source=summary, type="derives").values_list("target", flat=True)
    ) == set(facts.values_list("pk", flat=True))
    assert Session.objects.get(pk=session.pk).summarized_at == NOW


def test_the_summarised_episodes_stay_on_record(personas):
    """A summary does not hold every statement: the episodes it derives from stay live."""
    session = _call(personas)
    with time_machine.travel(NOW, tick=False):
        run(episodes_summarize)
    episodes = Memory.objects.filter(session=session, kind="episodic", source_kind="session")
    assert episodes.exists()
    with time_machine.travel(NOW + timedelta(days=15), tick=False):
        assert run(ttl_sweep) == {}
    assert set(episodes.values_list("status", flat=True)) == {"active"}
    assert _summaries().get().status == "active"


def test_new_events_make_a_new_summary_that_supersedes_the_old(personas):
    _call(personas)
    with time_machine.travel(NOW, tick=False):
        run(episodes_summarize)
    _call(
        personas,
        ended_ago=-timedelta(hours=1),
        lines=[("client", "Please also send me the fees.")],
        tag="later-",
    )
    with time_machine.travel(NOW + timedelta(hours=3), tick=False):
        assert run(episodes_summarize) == {"summarized_heuristic": 1, "superseded": 1}
    old, new = _summaries()
    assert (old.status, new.status) == ("superseded", "active")
    assert Relation.objects.filter(source=new, target=old, type="updates").exists()
    assert new.metadata["summary"]["intent"].startswith("Can we move my pension")


def test_the_llm_summarizer_and_its_fallback(personas, settings, fake_provider):
    settings.MEMORYHUB = {"SUMMARIZER": "llm", "LLM_BASE_URL": fake_provider.base_url}
    fake_provider.chat_reply = {
        "topic": "pension transfer",
        "intent": "Move the pension before March.",
        "outcome": "Transfer next week.",
        "key_facts": ["Lives in Bristol.", "Prefers email."],
    }
    _call(personas)
    fake_provider.script.append("ok")
    _call(personas, "call-9", client="giulia")
    fake_provider.script.append("500")
    with time_machine.travel(NOW, tick=False):
        assert run(episodes_summarize) == {"summarized_llm": 1, "summarized_heuristic": 1}
    made = {m.metadata["summarizer"]: m for m in _summaries()}
    assert made["llm"].metadata["summary"] == fake_provider.chat_reply
    assert made["llm"].content == (
        "Topic: pension transfer. Intent: Move the pension before March. Outcome: Transfer "
        "next week. Key facts: Lives in Bristol; Prefers email."
    )
    assert made["heuristic"].content.startswith("Topic: James, pension. Intent: Can we")
    assert {m.metadata["summarizer"] for m in _summaries()} == {"llm", "heuristic"}
    assert [r["path"] for r in fake_provider.requests].count("/v1/chat/completions") == 2


def test_interrupted_then_rerun_ends_the_same(personas, settings, monkeypatch):
    for n in range(3):
        _call(personas, f"call-{n}")
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 50}  # one session per transaction
    crash_on_call(monkeypatch, "memories.services.jobs.summaries.clients_mark_profile_stale", 2)
    with time_machine.travel(NOW, tick=False):
        with pytest.raises(Crash):
            run(episodes_summarize)
        assert _summaries().count() == 1
        assert run(episodes_summarize) == {"summarized_heuristic": 2}
    assert sorted(_summaries().values_list("session__external_ref", flat=True)) == [
        "call-0",
        "call-1",
        "call-2",
    ]


@pytest.mark.django_db(transaction=True)
def test_two_workers_summarise_each_session_once(personas, settings):
    local_space()
    for n in range(4):
        _call(personas, f"call-{n}")
    settings.MEMORYHUB = {"JOB_BATCH_SIZE": 50}
    with time_machine.travel(NOW, tick=False):
        first, second = in_parallel(
            lambda: run(episodes_summarize), lambda: run(episodes_summarize)
        )
    assert first.get("summarized_heuristic", 0) + second.get("summarized_heuristic", 0) == 4
    assert _summaries().count() == 4


def _accept_new(personas, email):
    newer = factories.MemoryFactory.create(
        client=email.client, content="I prefer to be contacted by phone now."
    )
    item = factories.ReviewItemFactory.create(memory=newer, other_memory=email)
    conflict_decide(item=item, decision="accept_new", actor=personas.supervisor)


@pytest.mark.parametrize(
    "leave",
    [
        lambda personas, email: _accept_new(personas, email),
        lambda personas, email: memory_correct(
            memory=email,
            content="I prefer phone calls.",
            reason="She rang.",
            actor=personas.advisor,
        ),
        lambda personas, email: memory_forget(memory=email, actor=personas.advisor, actor_label=""),
    ],
    ids=["conflict-accept-new", "correction", "forget"],
)
def test_a_summary_leaves_with_a_fact_it_summed_up_and_the_session_is_summarised_again(
    personas, leave
):
    """An agent must not read in a summary what a person has just overruled."""
    session = _call(personas)
    with time_machine.travel(NOW, tick=False):
        run(episodes_summarize)
    email = Memory.objects.get(content="I prefer to be contacted by email.")
    leave(personas, email)
    [old] = _summaries()
    assert (old.status, old.status_reason) == (
        "superseded",
        "outdated: a fact it summed up has left memory",
    )
    assert Session.objects.get(pk=session.pk).summarized_at is None
    with time_machine.travel(NOW + timedelta(hours=1), tick=False):
        assert run(episodes_summarize) == {"summarized_heuristic": 1}
    old, new = _summaries()
    assert new.status == "active"
    assert new.content.endswith("Key facts: I moved to Bristol last year.")


def test_a_fact_superseded_by_what_the_client_says_later_takes_its_summary_too(personas):
    _call(personas)
    with time_machine.travel(NOW, tick=False):
        run(episodes_summarize)
    _call(
        personas,
        "call-2",
        ended_ago=-timedelta(hours=1),
        lines=[("client", "I prefer to be contacted by phone.")],
    )
    assert _summaries().get().status == "superseded"


def test_a_topic_names_something_or_is_left_out(personas):
    _call(
        personas,
        lines=[
            ("client", "Buongiorno! Preferisco essere contattata per telefono, grazie."),
            ("assistant", "Certo, prendo nota."),
            ("client", "Rather than meet on Monday, let us talk on Tuesday afternoon."),
            ("client", "My transfer went through."),
        ],
    )
    with time_machine.travel(NOW, tick=False):
        run(episodes_summarize)
    summary = _summaries().get()
    assert summary.metadata["summary"]["topic"] == ""
    assert not summary.content.startswith("Topic")


def test_the_outcome_is_what_was_said_not_a_courtesy(personas):
    _call(
        personas,
        lines=[
            ("client", "Can we move my pension to the new provider before the end of March?"),
            ("assistant", "Certainly! The pension transfer will complete next week."),
            ("client", "Thanks, bye!"),
        ],
    )
    with time_machine.travel(NOW, tick=False):
        run(episodes_summarize)
    summary = _summaries().get()
    assert summary.metadata["summary"]["outcome"] == (
        "The pension transfer will complete next week."
    )
