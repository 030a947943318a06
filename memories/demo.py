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
    # kind, category, tier, text, and what the client said that it rests on (its evidence)
    memories: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    # text → (times restated, times read): history that makes it a promotion candidate
    history: dict[str, tuple[int, int]] = field(default_factory=dict)
    # (new text, the memory it contradicts, what the client said): waits in the review
    # queue for a supervisor
    conflicts: list[tuple[str, str, str]] = field(default_factory=list)


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
                "Prefers to be contacted by email, not by phone.",
                "Buongiorno, preferisco essere contattata via email, non al telefono.",
            ),
            (
                "semantic",
                "preference",
                "core",
                "Wants quarterly reports in Italian.",
                "Sì, e preferisco i report trimestrali in italiano.",
            ),
            (
                "decision",
                "",
                "recall",
                "Decided not to invest in crypto-assets: too volatile.",
                "Ho deciso di non investire in criptovalute, troppo volatili per me.",
            ),
            (
                "semantic",
                "goal",
                "recall",
                "Plans to reinvest half of the Milan property sale.",
                "Il rogito è fissato per marzo. Vorrei reinvestire metà del ricavato.",
            ),
            (
                "semantic",
                "relationship",
                "recall",
                "Her son Marco starts university in Zurich.",
                "Mio figlio Marco inizierà l'università a Zurigo a settembre.",
            ),
        ],
        history={"Plans to reinvest half of the Milan property sale.": (4, 12)},
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
            (
                "semantic",
                "preference",
                "core",
                "Interested in sustainable ETFs.",
                "Mi interessano gli ETF sostenibili.",
            ),
            (
                "semantic",
                "goal",
                "recall",
                "Wants to understand how a savings plan works.",
                "Ciao, vorrei capire come funziona un piano di accumulo.",
            ),
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
                "Prefers afternoon meetings.",
                "I'd rather meet in the afternoons; mornings are school runs.",
            ),
            (
                "semantic",
                "goal",
                "recall",
                "Plans to buy a house in Bristol within two years.",
                "We're planning to buy a house in Bristol within two years.",
            ),
            (
                "semantic",
                "relationship",
                "recall",
                "Her husband James handles the joint account.",
                "My husband James handles the joint account.",
            ),
            (
                "operational",
                "",
                "recall",
                "Pension transfer from old employer completing.",
                "The transfer from my old employer should complete next week.",
            ),
        ],
        history={"Her husband James handles the joint account.": (3, 4)},
        conflicts=[
            (
                "Prefers morning meetings now.",
                "Prefers afternoon meetings.",
                "Mornings suit me better now: the children take the school bus.",
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
            (
                "semantic",
                "preference",
                "core",
                "Prefers calls on Tuesday mornings.",
                "Prefiero que me llames los martes por la mañana.",
            ),
            (
                "semantic",
                "goal",
                "recall",
                "Considering retirement within five years.",
                "Estoy pensando en jubilarme dentro de cinco años.",
            ),
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
            started = now - timedelta(days=7 * (len(spec.sessions) - number + 1))
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
        first_said = now - timedelta(days=7 * len(spec.sessions) + 30)
        for kind, category, tier, text, source in spec.memories:
            if text in existing:
                continue
            existing[text] = memory_add(
                client=client,
                kind=Kind(kind),
                category=category,
                tier=Tier(tier),
                content=text,
                confidence=0.85,
                importance=0.6,
                observed_at=first_said,
                source_kind="import",
                evidence=[said[source]],
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
        for text, contradicted, source in spec.conflicts:
            if text in existing:
                continue
            new = memory_add(
                client=client,
                kind=Kind.SEMANTIC,
                category="preference",
                content=text,
                confidence=0.7,
                observed_at=said[source].observed_at,
                source_kind="import",
                evidence=[said[source]],
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
