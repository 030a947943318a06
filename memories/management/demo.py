"""The demo tenant: one user per persona and a few clients with real-sounding history."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from memories.models import Client, Kind, Memory, Relation, RelationType, Role, Tier
from memories.services.tenancy.members import (
    client_assign_advisor,
    member_ensure,
    tenant_get_or_create,
)
from memories.services.write.lifecycle import memory_set_tier
from memories.services.write.records import event_record, memory_add, session_get_or_create

DEMO_TENANT = "demo"
DEMO_USERS = [
    ("admin", Role.ADMIN),
    ("supervisor", Role.SUPERVISOR),
    ("advisor", Role.ADVISOR),
    ("advisor2", Role.ADVISOR),
    ("client", Role.CLIENT),
    ("heir", Role.NEXTGEN_HEIR),
]


@dataclass
class DemoClient:
    ref: str
    name: str
    language: str
    advisor: str
    login: str | None = None
    parent: str | None = None
    sessions: list[list[tuple[str, str]]] = field(default_factory=list)
    # kind, category, tier, and the client's words it keeps, as ingest keeps them (the
    # greeting or "yes, and" before them set aside): the turn that holds them is its evidence,
    # and when it was said is when it was observed
    memories: list[tuple[str, str, str, str]] = field(default_factory=list)
    # text → (times restated, times read): history that makes it a promotion candidate
    history: dict[str, tuple[int, int]] = field(default_factory=dict)
    # (new text, the memory it contradicts): waits in the review queue for a supervisor
    conflicts: list[tuple[str, str]] = field(default_factory=list)


CLIENTS = [
    DemoClient(
        ref="giulia-rossi",
        name="Giulia Rossi",
        language="it",
        advisor="advisor",
        sessions=[
            [
                ("client", "Buongiorno, preferisco essere contattata via email, non al telefono."),
                ("advisor", "Certo. Come procede la vendita dell'immobile a Milano?"),
                ("client", "Il rogito è fissato per marzo. Vorrei reinvestire metà del ricavato."),
                ("client", "Mio figlio Marco inizierà l'università a Zurigo a settembre."),
            ],
            [
                ("client", "Ho deciso di non investire in criptovalute, troppo volatili per me."),
                ("advisor", "Annotato. Rivediamo il portafoglio obbligazionario entro venerdì?"),
                ("client", "Sì, e preferisco i report trimestrali in italiano."),
            ],
        ],
        memories=[
            (
                "semantic",
                "preference",
                "core",
                "preferisco essere contattata via email, non al telefono.",
            ),
            ("semantic", "preference", "core", "preferisco i report trimestrali in italiano."),
            (
                "decision",
                "",
                "recall",
                "Ho deciso di non investire in criptovalute, troppo volatili per me.",
            ),
            ("semantic", "goal", "recall", "Vorrei reinvestire metà del ricavato."),
            (
                "semantic",
                "relationship",
                "recall",
                "Mio figlio Marco inizierà l'università a Zurigo a settembre.",
            ),
        ],
        history={"Vorrei reinvestire metà del ricavato.": (4, 12)},
    ),
    DemoClient(
        ref="marco-rossi",
        name="Marco Rossi",
        language="it",
        advisor="advisor",
        login="heir",
        parent="giulia-rossi",
        sessions=[
            [
                ("client", "Ciao, vorrei capire come funziona un piano di accumulo."),
                ("client", "Mi interessano gli ETF sostenibili."),
            ]
        ],
        memories=[
            ("semantic", "preference", "core", "Mi interessano gli ETF sostenibili."),
            ("semantic", "goal", "recall", "vorrei capire come funziona un piano di accumulo."),
        ],
    ),
    DemoClient(
        ref="emma-clarke",
        name="Emma Clarke",
        language="en",
        advisor="advisor",
        login="client",
        sessions=[
            [
                ("client", "I'd rather meet in the afternoons; mornings are school runs."),
                ("advisor", "Noted. Any news on the pension transfer?"),
                ("client", "The transfer from my old employer should complete next week."),
            ],
            [
                ("client", "We're planning to buy a house in Bristol within two years."),
                ("client", "My husband James handles the joint account."),
            ],
            [
                ("client", "Mornings suit me better now: the children take the school bus."),
            ],
        ],
        memories=[
            (
                "semantic",
                "preference",
                "core",
                "I'd rather meet in the afternoons; mornings are school runs.",
            ),
            (
                "semantic",
                "goal",
                "recall",
                "We're planning to buy a house in Bristol within two years.",
            ),
            ("semantic", "relationship", "recall", "My husband James handles the joint account."),
            (
                "operational",
                "",
                "recall",
                "The transfer from my old employer should complete next week.",
            ),
        ],
        history={"My husband James handles the joint account.": (3, 5)},
        conflicts=[
            (
                "Mornings suit me better now: the children take the school bus.",
                "I'd rather meet in the afternoons; mornings are school runs.",
            )
        ],
    ),
    DemoClient(
        ref="carlos-mendez",
        name="Carlos Méndez",
        language="es",
        advisor="advisor2",
        sessions=[
            [
                ("client", "Prefiero que me llames los martes por la mañana."),
                ("client", "Estoy pensando en jubilarme dentro de cinco años."),
                ("advisor", "Perfecto, preparamos una simulación para la próxima semana."),
            ]
        ],
        memories=[
            ("semantic", "preference", "core", "Prefiero que me llames los martes por la mañana."),
            ("semantic", "goal", "recall", "Estoy pensando en jubilarme dentro de cinco años."),
        ],
    ),
]


@transaction.atomic
def seed_demo(*, password: str) -> dict:
    """Create or complete the demo tenant. Safe to run any number of times."""
    tenant = tenant_get_or_create(slug=DEMO_TENANT, name="Demo Wealth Partners")
    users = {
        name: member_ensure(tenant=tenant, username=name, role=role, password=password)
        for name, role in DEMO_USERS
    }
    now = timezone.now()
    clients: dict[str, Client] = {}
    counts = {"clients": 0, "events": 0, "memories": 0}
    for spec in CLIENTS:
        client, created = Client.objects.get_or_create(
            tenant=tenant,
            external_ref=spec.ref,
            defaults={
                "display_name": spec.name,
                "language": spec.language,
                "user": users[spec.login] if spec.login else None,
                "family_parent": clients.get(spec.parent) if spec.parent else None,
            },
        )
        clients[spec.ref] = client
        counts["clients"] += created
        client_assign_advisor(client=client, advisor=users[spec.advisor])
        said = {}  # what the client said → its event: each memory's evidence
        for number, utterances in enumerate(spec.sessions, start=1):
            # Three weeks apart, the last a week ago: what the promotion scoring reads as
            # known for a while.
            started = now - timedelta(days=21 * (len(spec.sessions) - number) + 7)
            session = session_get_or_create(
                client=client,
                external_ref=f"{spec.ref}-s{number}",
                user=users[spec.advisor],
                agent="advisor-copilot",
                started_at=started,
            )
            for turn, (speaker, text) in enumerate(utterances, start=1):
                event, added = event_record(
                    client=client,
                    session=session,
                    source="chat",
                    speaker=speaker,
                    content=text,
                    external_id=f"{spec.ref}-s{number}-t{turn}",
                    observed_at=started + timedelta(minutes=turn),
                )
                counts["events"] += added
                if speaker == "client":
                    said[text] = event
        existing = {m.content: m for m in client.memories.all()}
        for kind, category, tier, said_as in spec.memories:
            text = said_as[0].upper() + said_as[1:]
            if text in existing:
                continue
            event = _said(said, said_as)
            existing[text] = memory_add(
                client=client,
                kind=Kind(kind),
                category=category,
                tier=Tier(tier),
                content=text,
                confidence=0.85,
                importance=0.6,
                observed_at=event.observed_at,
                source_kind="import",
                evidence=[event],
            )
            counts["memories"] += 1
            if tier == Tier.CORE:  # the advisor put it there: the tier job leaves it alone
                memory_set_tier(
                    memory=existing[text],
                    tier=Tier.CORE,
                    actor=users[spec.advisor],
                    pin=True,
                    reason="demo: chosen by the advisor",
                )
            if text in spec.history:
                restated, reads = spec.history[text]
                Memory.objects.filter(pk=existing[text].pk).update(
                    dup_count=restated, usage_count=reads
                )
        for text, contradicted in spec.conflicts:
            if text in existing:
                continue
            event = _said(said, text)
            new = memory_add(
                client=client,
                kind=Kind.SEMANTIC,
                category="preference",
                content=text,
                confidence=0.7,
                observed_at=event.observed_at,
                source_kind="import",
                evidence=[event],
            )
            Relation.objects.create(
                tenant_id=tenant.pk,
                source=new,
                target=existing[contradicted],
                type=RelationType.CONFLICTS_WITH,
            )
            counts["memories"] += 1
    from memories.services.embedding.reembed import memories_reembed

    counts["embedded"] = memories_reembed(tenant_id=tenant.pk)["embedded"]
    return counts


def _said(said: dict, words: str):
    """The client's turn that holds ``words``."""
    [event] = [event for text, event in said.items() if words in text]
    return event
