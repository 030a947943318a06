"""Realistic client-conversation events in English, Italian and Spanish, generated from
templates with a fixed seed: statements worth remembering, restatements, changes of
mind, and small talk in the proportions of a real advisor's day."""

from __future__ import annotations

import random

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
