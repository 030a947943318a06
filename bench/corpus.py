"""Realistic client-conversation events in English, Italian and Spanish, generated from
templates with a fixed seed: statements worth remembering, restatements, changes of
mind, and small talk in the proportions of a real advisor's day."""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

    import numpy as np

NAMES = ["Emma", "James", "Giulia", "Marco", "Carlos", "Lucía", "Sofia", "Luca", "Hannah"]
CITIES = ["Bristol", "Leeds", "Milano", "Torino", "Madrid", "Sevilla", "Zurich", "Lugano"]
EMPLOYERS = ["Lloyds Bank", "Banca Sella", "Banco Santander", "Nestlé", "Siemens AG"]
CHANNELS_EN = ["email", "phone", "text message", "WhatsApp"]

EN = [
    "I prefer to be contacted by {channel}.",
    "I live in {city}.",
    "I work at {employer}.",
    "My daughter {name} starts university next year.",
    "I want to buy a house in {city} within two years.",
    "I'd rather meet in the afternoons.",
    "I have decided not to invest in crypto.",
    "I don't like high-risk investments.",
    "We're planning to retire in ten years.",
    "My accountant {name} handles the tax return.",
    "I can't travel before March.",
    "The pension transfer should complete next week.",
]
IT = [
    "Preferisco essere contattata via {channel_it}.",
    "Vivo a {city}.",
    "Lavoro presso {employer}.",
    "Mio figlio {name} inizierà l'università a settembre.",
    "Vorrei comprare una casa a {city} entro due anni.",
    "Ho deciso di non investire in criptovalute.",
    "Non mi piacciono gli investimenti rischiosi.",
    "Il rogito è fissato per la prossima settimana.",
]
ES = [
    "Prefiero que me llames por {channel_es}.",
    "Vivo en {city}.",
    "Trabajo en {employer}.",
    "Mi hija {name} empieza la universidad el año que viene.",
    "Quiero comprar una casa en {city} dentro de dos años.",
    "He decidido no invertir en criptomonedas.",
    "No me gustan las inversiones de alto riesgo.",
    "Estoy pensando en jubilarme dentro de cinco años.",
]
SMALL_TALK = [
    "Hi, how are you?",
    "Thanks a lot!",
    "Buongiorno!",
    "Grazie mille.",
    "Hola, ¿qué tal?",
    "Ok, see you soon.",
    "Perfect, thank you.",
    "Ciao, a presto!",
]


def events(count: int, *, clients: int = 50, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for index in range(count):
        roll = rng.random()
        if roll < 0.25:
            text = rng.choice(SMALL_TALK)
        else:
            template = rng.choice(EN if roll < 0.55 else IT if roll < 0.8 else ES)
            text = template.format(
                channel=rng.choice(CHANNELS_EN),
                channel_it=rng.choice(["email", "telefono"]),
                channel_es=rng.choice(["correo", "teléfono"]),
                city=rng.choice(CITIES),
                employer=rng.choice(EMPLOYERS),
                name=rng.choice(NAMES),
            )
        client = rng.randrange(clients)
        out.append(
            {
                "client": f"bench-client-{client}",
                # a conversation with one client: about 20 events each
                "session": f"bench-client-{client}-session-{index // (20 * clients)}",
                "speaker": "client",
                "content": text,
                "external_id": f"bench-{seed}-{index}",
            }
        )
    return out


# --- Consolidated memories, for the background-job benchmark -------------------------------

FACT_TEMPLATES = [
    "{w}prefers {channel} for {topic} questions, {person} said on {day} {month}.",
    "{w}lives in {city} with {person} and visits {city2} every {season} since {year}.",
    "{w}wants to move {pct}% of the savings into {asset} within {n} years, by {month} {year}.",
    "{w}decided not to invest in {asset} after the {city} meeting with {person} on {day} {month}.",
    "{w}says {person} from {city} handles the family's {topic} questions since {year}.",
    "{w}plans to buy a flat in {city} with {person} for about {amount} euros in {year}.",
    "{w}has {n} grandchildren; {person} is the eldest and lives in {city} since {year}.",
    "{w}works at {employer} in {city} as a {job} since {month} {year}.",
    "{w}asked for a review of {asset} before the trip to {city} on {day} {month} {year}.",
    "{w}says their {relative} {person} is moving to {city} in {month} {year}.",
]
WEAK = ["", "really ", "actually ", "still ", "definitely "]
SLOTS = {
    "channel": ["email", "phone calls", "video meetings", "letters", "text messages"],
    "topic": [
        "pensions",
        "taxes",
        "insurance",
        "school fees",
        "the mortgage",
        "donations",
        "art purchases",
        "the boat",
        "holidays",
        "inheritance",
        "real estate",
        "crypto",
    ],
    "city": [
        *CITIES,
        "Lisbon",
        "Vienna",
        "Lyon",
        "Munich",
        "Dublin",
        "Oslo",
        "Porto",
        "Geneva",
        "Basel",
        "Bern",
        "Turin",
        "Naples",
        "Bilbao",
        "Valencia",
    ],
    "season": ["spring", "summer", "autumn", "winter"],
    "pct": [str(p) for p in range(5, 95, 5)],
    "asset": [
        "index funds",
        "government bonds",
        "gold",
        "private equity",
        "real estate funds",
        "green bonds",
        "emerging markets",
        "tech stocks",
        "a money market fund",
        "corporate bonds",
        "dividend stocks",
        "a pension fund",
    ],
    "n": [str(n) for n in range(2, 12)],
    "month": [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
    ],
    "person": [
        *NAMES,
        "Anna",
        "Paolo",
        "Elena",
        "Tom",
        "Clara",
        "Diego",
        "Marta",
        "Ivan",
        "Noah",
        "Lea",
        "Omar",
        "Rosa",
        "Pietro",
        "Julia",
        "Hugo",
        "Alba",
    ],
    "amount": [f"{n},000" for n in range(150, 950, 10)],
    "employer": [*EMPLOYERS, "UBS", "Novartis", "Ferrero", "Inditex", "ABB", "Roche"],
    "job": [
        "engineer",
        "doctor",
        "teacher",
        "lawyer",
        "architect",
        "nurse",
        "manager",
        "pilot",
        "chef",
        "designer",
    ],
    "year": [str(y) for y in range(2005, 2031)],
    "day": [str(d) for d in range(1, 29)],
    "relative": ["son", "daughter", "brother", "sister", "nephew", "niece", "cousin"],
}


SLOTS["city2"] = SLOTS["city"]


class MemoryRow:
    __slots__ = (
        "category",
        "client",
        "confidence",
        "content",
        "importance",
        "kind",
        "reads",
        "restated",
        "seen",
        "session",
        "vector",
    )
    category: str
    client: int
    confidence: float
    content: str
    importance: float
    kind: str
    reads: int
    restated: int
    seen: datetime
    session: int
    vector: np.ndarray


def memory_rows(
    count: int, *, clients: int, seed: int = 11, dimension: int = 64
) -> list[MemoryRow]:
    """``count`` memories over ``clients`` clients (one of them holds a quarter): distinct
    facts, 3% restatements differing only by emphasis, 3% near misses (one slot changed).
    A prefix of the list has the same make-up as the whole."""
    from datetime import UTC, datetime, timedelta

    import numpy as np

    rng = random.Random(seed)
    weights = [count * 0.25] + [rng.paretovariate(1.5) for _ in range(clients - 1)]
    scale = sum(weights[1:]) / (count * 0.75)
    weights = [weights[0]] + [w / scale for w in weights[1:]]
    now = datetime(2026, 3, 1, tzinfo=UTC)
    facts: dict[int, list] = {}
    per_client: dict[int, int] = {}
    bases: dict[tuple, np.ndarray] = {}
    rows: list[MemoryRow] = []

    def base_of(key) -> np.ndarray:
        if key not in bases:
            digest = hashlib.sha256(repr(key).encode()).digest()
            vector = np.random.default_rng(int.from_bytes(digest[:8])).standard_normal(dimension)
            bases[key] = vector / np.linalg.norm(vector)
        return bases[key]

    for _ in range(count):
        client = rng.choices(range(clients), weights)[0]
        known = facts.setdefault(client, [])
        roll = rng.random()
        if known and roll < 0.03:  # the same fact, other emphasis
            template, values = rng.choice(known)
            values = {**values, "w": rng.choice(WEAK)}
            noise = 0.15
        elif known and roll < 0.06:  # a near miss: one slot changed
            template, values = rng.choice(known)
            slot = rng.choice([s for s in values if s != "w"])
            values = {**values, slot: rng.choice(SLOTS[slot])}
            noise = 0.0
        else:
            template = rng.randrange(len(FACT_TEMPLATES))
            text = FACT_TEMPLATES[template]
            values = {
                slot: rng.choice(options)
                for slot, options in SLOTS.items()
                if "{" + slot + "}" in text
            }
            values["w"] = rng.choice(WEAK[:1] * 4 + WEAK)
            noise = 0.0
        known.append((template, values))
        key = (client, template, tuple(sorted((k, v) for k, v in values.items() if k != "w")))
        vector = base_of(key)
        if noise:
            jitter = np.random.default_rng(rng.randrange(2**32)).standard_normal(dimension)
            vector = vector + noise * jitter / np.linalg.norm(jitter)
        text = FACT_TEMPLATES[template].format(**values)
        row = MemoryRow()
        row.client = client
        per_client[client] = per_client.get(client, 0) + 1
        row.session = per_client[client] // 20
        row.kind = "decision" if template == 3 else "semantic"
        row.category = "" if template == 3 else "fact"
        row.content = text[0].upper() + text[1:]
        row.seen = now - timedelta(seconds=rng.uniform(0, 365 * 86400))
        row.restated = rng.choices([0, 1, 2, 3, 4, 6], [70, 12, 7, 5, 4, 2])[0]
        row.reads = rng.choices([0, 1, 3, 6, 10, 15], [50, 20, 12, 9, 6, 3])[0]
        row.confidence = round(rng.uniform(0.55, 0.9), 2)
        row.importance = round(rng.uniform(0.3, 0.8), 2)
        row.vector = (vector / np.linalg.norm(vector)).astype(np.float32)
        rows.append(row)
    return rows
