"""A secret said over two events of a session: the turn before asks for it ("What's your
PIN?", "¿Cuál es tu contraseña?", "Could you read me the long number on the card?") or
starts to give it ("My password is", "La mia password è"), and the next event is the value
("4471", "Tr0ub4dor&3", "Sure, 4242 4242 4242 4242.", "Sì: cuatro ocho dos…").

Only a short answer is read so (a value, and a few words around it): a longer reply has
moved on. What counts as the value is what would after the name ("the password is …").
"""

from __future__ import annotations

import re

from memories.services.secret_detectors.named import Found, value_at
from memories.services.secret_detectors.names import name_in
from memories.services.secret_detectors.values import (
    Word,
    digits,
    hard,
    key_like,
    run_of,
    vocabulary,
    words_of,
)

# The longest answer read as one: the value and a few words ("Yes, it's 4471, thanks").
ANSWER_WORDS = 10
# A question that asks for a card's number, or for the code just sent.
_CARD_ASKED = re.compile(
    r"\b(?:(?:card|carta|tarjeta)\b.*\b(?:number|numero|número)|"
    r"(?:number|numero|número)\b.*\b(?:card|carta|tarjeta)|"
    r"(?:which|what|quale|che|qu[ée]|con qu[ée]) (?:card|carta|tarjeta))",
    re.IGNORECASE,
)
_CODE_SENT = re.compile(
    r"\b(?:code|codice|c[óo]digo)\b[^?]*\b(?:sent|text|e-?mail|got|receiv|arriv|"
    r"inviat|mandat|ricev|arrivat|envi|mand|recib|lleg)",
    re.IGNORECASE,
)
# A turn that stops where its value would come: "My password is", "la mia password è:".
_DANGLING = re.compile(
    r"(?:\b(?:is|was|è|e'|es|era)|[:=])[\s.…:]*$",
    re.IGNORECASE,
)
# Words that open an answer and are not its value.
_GRAMMAR = vocabulary(
    """
    yes yeah yep sure ok okay of course it's its it is that's the my use try with si sì
    certo ecco è e il la lo mio mia usa prova con sí claro vale es el mi pon usa con
    """
)


def asked_for(turn: str) -> tuple[str, str] | None:
    """The (kind, strength) of secret the end of ``turn`` asks for or starts to give."""
    end = turn.rstrip()[-300:]
    if not end:
        return None
    last = re.split(r"(?<=[.!?])\s+|\n", end)[-1]  # its last sentence, on its last line
    question = "?" in last
    if question and _CARD_ASKED.search(last):
        return "card", "strong"
    if question and _CODE_SENT.search(last):
        return "code", "strong"
    name = name_in(last)
    if name is None:
        return None
    if question or _DANGLING.search(last) or _ends_with_name(last):
        return name
    return None


def _ends_with_name(last: str) -> bool:
    """'the PIN…', 'password' alone: a name with nothing after it."""
    words = words_of(last)
    return bool(words) and name_in(words[-1].core) is not None


def answered(text: str, kind: str, strength: str) -> list[Found]:
    """The value ``text`` gives, read as the answer to a question for a secret of ``kind``
    (cards are the card detector's, told a card is spoken of)."""
    words = words_of(text)
    if not words or len(words) > ANSWER_WORDS or kind == "card":
        return []
    plain = [w for w in words if w.folded not in _GRAMMAR]
    for i, word in enumerate(words):
        if word.folded in _GRAMMAR:
            continue
        value = value_at(words, i, kind, strength, plain=False)
        span = value[:2] if value is not None else None
        if span is None and len(plain) == 1 and kind == "password" and strength == "strong":
            span = _a_word_alone(word)
        if span is not None:
            return [Found(kind, *span)]
    return []


def answered_within(text: str) -> list[Found]:
    """The values ``text`` gives right after a question of its own that asks for them
    ("Il mio PIN? 4471.", "The password? Tr0ub4dor&3"): read as a question and its answer
    said in one event, up to the end of the answer's sentence."""
    found = []
    for m in re.finditer(r"\?+[\"'”’»)]*[ \t]+(?=\S)", text):
        wanted = asked_for(text[: m.start() + 1])
        if wanted is None or wanted[0] == "card":
            continue
        at = m.end()
        end = re.search(r"[.!?…](?:\s|$)|\n|$", text[at:])
        reply = text[at : at + end.start()] if end else text[at:]
        found += [Found(f.kind, at + f.start, at + f.end) for f in answered(reply, *wanted)]
    return found


def could_answer(text: str) -> bool:
    """Short, and holding what could be a value: digits, a string no one writes as a word,
    a value spelled out, or one plain word ("sunshine"). Only such an event is read with
    the turn before it for a secret."""
    words = words_of(text)
    if any(key_like(w.core) for w in words):
        return True  # a key, however long the message: keys() reads it with the turn before
    if not words or len(words) > ANSWER_WORDS:
        return False
    plain = [w for w in words if w.folded not in _GRAMMAR]
    if len(plain) == 1 and plain[0].core.isalpha() and len(plain[0].core) >= 4:
        return True
    return any(
        digits(w.core) >= 3 or hard(w.core) or run_of(words, i) is not None
        for i, w in enumerate(words)
    )


def _a_word_alone(word: Word) -> tuple[int, int] | None:
    """An answer of one word to "what's your password?" is the password ("sunshine")."""
    core = word.core
    if core.isalpha() and len(core) >= 4:
        return word.core_start, word.core_end
    return None
