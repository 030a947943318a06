"""What a question says about the conversation rather than about its subject, in English,
Italian and Spanish: "Can you give me a detailed summary of…", "…throughout our
conversations", "the order in which I brought up…", "(mention 7 items in order)", "did I
mention…", "di cui abbiamo parlato", "en nuestras conversaciones".

A person asks an assistant about what they said in those words, and the words are about
talking, not about the plan, the project or the person asked after. In the query's vector
they pull every memory that talks of talking closer; among its words they match such
memories, and they weigh in the share of the query a memory must hold to pass the
relevance floor, so a long request about a real subject could be answered with nothing.
The search reads the question without them (``unframed``): "Can you walk me through the
order in which I brought up the steps of my mortgage application?" is searched as "the
steps of my mortgage application?".
"""

from __future__ import annotations

import re

# Each form is one alternative; the text is matched case-insensitively, accents as said
# or left out ("podrías", "podrias").
_FORMS = (
    # A summary asked for: "can you give me a thorough summary that captures…", "puoi farmi
    # un riassunto del…". Only as a request: "she wants an annual summary of the fees" is
    # what she said, not how she asks.
    r"\b(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?)?(?:give\s+me|provide(?:\s+me\s+with)?)"
    r"\s+(?:a|an)\s+(?:\w+\s+)?(?:summary|overview|recap|rundown)"
    r"(?:\s+that\s+(?:captures|covers))?(?:\s+of)?\b",
    r"\b(?:(?:puoi|potresti)\s+(?:per\s+favore\s+)?)?(?:farmi|darmi)\s+un\s+(?:breve\s+)?"
    r"(?:riassunto|riepilogo|resoconto)(?:\s+(?:di|del|della|dei|delle))?\b",
    r"\b(?:(?:puedes|podr[ií]as)\s+(?:por\s+favor\s+)?)?(?:darme|hacerme)\s+un\s+(?:breve\s+)?"
    r"(?:resumen|repaso)(?:\s+(?:de|del))?\b",
    # A request to list or recall: "can you give me", "could you walk me through",
    # "puoi darmi", "podrías recordarme".
    r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:give\s+me|walk\s+me\s+through"
    r"|list|tell\s+me(?:\s+about)?|remind\s+me(?:\s+of|\s+about)?|summari[sz]e|recap"
    r"|go\s+over)\b",
    r"\bplease\s+(?:summari[sz]e|list|recap|remind\s+me(?:\s+of|\s+about)?)\b",
    r"\b(?:puoi|potresti)\s+(?:per\s+favore\s+)?(?:farmi|darmi|elencarmi|ricordarmi"
    r"|riassumere|riepilogare)\b",
    r"\b(?:puedes|podr[ií]as)\s+(?:por\s+favor\s+)?(?:darme|hacerme|enumerar(?:me)?"
    r"|recordarme|resumir(?:me)?)\b",
    # Where it was said: "throughout our conversations", "nelle nostre conversazioni".
    r"\b(?:throughout|across|in|during|over)\s+(?:all\s+)?(?:of\s+)?our\s+(?:previous\s+"
    r"|past\s+|earlier\s+)?(?:conversations?|chats?|discussions?|sessions?|talks?)\b",
    r"\b(?:nelle|durante\s+le|in\s+tutte\s+le)\s+nostre\s+(?:conversazioni|chiacchierate"
    r"|discussioni|sessioni)\b",
    r"\b(?:en|durante)\s+(?:todas\s+)?nuestras\s+(?:conversaciones|charlas|sesiones)\b",
    r"\b(?:my|our)\s+(?:discussions?|conversations?|talks?)\s+(?:about|on|regarding|of)\b",
    # The saying itself: "I brought up", "did I ever mention", "ho menzionato", "mencioné".
    r"\b(?:did|have|had)\s+(?:I|we)\s+(?:ever\s+)?(?:mention(?:ed)?|bring\s+up|brought\s+up"
    r"|discuss(?:ed)?|say|said|tell\s+you|told\s+you)\b",
    r"\b(?:I|we)\s+(?:have\s+|had\s+)?(?:brought\s+up|mentioned|discussed|talked\s+about"
    r"|told\s+you(?:\s+about)?)\b",
    r"\b(?:ho|avevo|abbiamo)\s+(?:mai\s+)?(?:menzionato|citato|detto|parlato(?:\s+di)?)\b",
    r"\bdi\s+cui\s+(?:ti\s+)?(?:ho|abbiamo)\s+parlato\b",
    r"\b(?:mencion[eé]|te\s+dije|hablamos(?:\s+de)?|coment[eé])\b",
    # How the answer should be laid out: "(mention 7 items in order)", "in the order in which".
    r"\(?\s*(?:please\s+)?(?:mention|list|name)\s+(?:\d+|all\s+the|all)\s+(?:items?|points?"
    r"|things?|steps?)(?:\s+in\s+(?:order|total))?\s*\)?",
    r"\b(?:the\s+)?order\s+in\s+which\b",
    # "In order" as the last words of a clause: "my papers in order before the move" and
    # "in order to" are what is said.
    r"\bin\s+(?:chronological\s+)?order(?=\s*(?:[?.!,;(]|$))",
    r"\bin\s+ordine(?:\s+cronologico)?(?=\s*(?:[?.!,;(]|$))",
    r"\ben\s+orden(?:\s+cronol[oó]gico)?(?=\s*(?:[?.!,;(]|$))",
)
_FRAMING = re.compile("|".join(f"(?:{form})" for form in _FORMS), re.IGNORECASE)
# Fewer content words than this left: the question was all framing; it is searched as said.
_LEAST_LEFT = 2


def unframed(query: str) -> str:
    """``query`` without what it says about the conversation (the module's doc), or as it
    is when that would leave it nearly empty ("What did I mention?")."""
    rest = _FRAMING.sub(" ", query)
    if rest == query:
        return query
    rest = re.sub(r"\s+(?=[?!.,;)]|$)", "", re.sub(r"\s{2,}", " ", rest)).strip(" ,;:")
    rest = re.sub(r"^[,;:]\s*|(?<=[¿¡(])\s+", "", rest)
    return rest if len(re.findall(r"\w{2,}", rest)) >= _LEAST_LEFT else query
