"""What a statement says, word by word, for the batch jobs that compare statements (fusion,
consolidation, summaries): folded tokens, a light stem, and the words that change a
meaning however close two embeddings are (numbers, negations, names, days).

English, Italian and Spanish; a stem is the word without a plural or -ing/-ed ending, cut
to six letters ("contacted" and "contact" meet, "figlio" and "figlia" do not).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memories.services.write.relate import stated_numbers
from memories.text import fold

_TOKEN = re.compile(r"[^\W_]+")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Grammar, not meaning. Pronouns and possessives are not here: "I prefer" and "she prefers"
# are about different people.
STOPWORDS = _word_set(
    """
    a an the of to in on at by for with from about into via per as than then so and or but
    if is am are was were be been being do does did have has had will would shall should can
    could may might must that this these those there here which who whom what it its
    s d m re ve ll
    il lo la l gli le un una uno di da del dello della dei degli delle nel nella nei sul
    sulla con su tra fra e ed o ma che ci si vi ne al allo alla ai agli alle dal dalla
    sono sei siamo siete ho hai ha abbiamo avete hanno essere avere
    el los las unos unas de en con por para y u pero del al lo le les se es son soy
    eres somos esta estoy estan has hemos han ser estar
    """
)
# Words that add emphasis or politeness and change no fact: two statements that differ
# only by these say the same thing.
WEAK_WORDS = _word_set(
    """
    please kindly really actually currently now also just very still definitely indeed
    quite truly totally basically honestly
    favore davvero proprio anche ancora molto ora adesso attualmente veramente
    favor realmente ahora tambien todavia muy actualmente verdad
    """
)
NEGATIONS = {
    **dict.fromkeys(["not", "no", "never", "nor", "cannot", "without", "none", "nothing"], "not"),
    **dict.fromkeys(["non", "mai", "niente", "nulla", "neanche", "nessuno", "nessuna"], "not"),
    **dict.fromkeys(["nunca", "jamas", "tampoco", "ni", "nada", "ninguno", "ninguna"], "not"),
    **dict.fromkeys(["sin", "senza"], "without"),
}
_NUMBER_WORDS = _word_set(
    """
    zero one two three four five six seven eight nine ten eleven twelve
    due tre quattro cinque sei sette otto nove dieci undici dodici
    cero dos cuatro cinco seis siete ocho nueve diez once doce
    """
)
# Days and spans of time: an episode "last Tuesday" and one "on Friday" are the same habit.
TEMPORAL_WORDS = _word_set(
    """
    today yesterday tomorrow tonight morning afternoon evening night week weekend month year
    last next ago monday tuesday wednesday thursday friday saturday sunday january february
    march april may june july august september october november december
    oggi ieri domani stasera mattina pomeriggio sera notte settimana mese anno scorso scorsa
    prossimo prossima fa lunedi martedi mercoledi giovedi venerdi sabato domenica gennaio
    febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre dicembre
    hoy ayer manana tarde noche semana mes ano pasado pasada proximo proxima hace lunes
    martes miercoles jueves viernes sabado domingo enero febrero abril mayo junio julio
    agosto septiembre octubre noviembre diciembre
    """
)


def stem(word: str) -> str:
    for _ in range(2):
        for suffix in ("ing", "ed", "es", "s"):
            if len(word) > len(suffix) + 3 and word.endswith(suffix):
                word = word[: -len(suffix)]
                break
        else:
            break
    return word[:6]


@dataclass(frozen=True)
class Wording:
    words: frozenset[str]  # stems of every meaningful word, weak ones included
    core: frozenset[str]  # stems that carry the fact: no weak word, no number, no negation
    numbers: frozenset[str]  # the quantities stated ("two" and "2" are the same)
    negations: tuple[str, ...]  # the negative markers, normalised

    def overlap(self, other: Wording) -> float:
        """Jaccard of the two statements' words."""
        union = self.words | other.words
        return len(self.words & other.words) / len(union) if union else 0.0


@lru_cache(maxsize=65536)
def wording(text: str) -> Wording:
    tokens = _TOKEN.findall(fold(text).replace("n't", " not "))
    meaningful = [
        t
        for t in tokens
        if t not in STOPWORDS and t not in NEGATIONS and not t.isdigit() and t not in _NUMBER_WORDS
    ]
    return Wording(
        words=frozenset(stem(t) for t in meaningful),
        core=frozenset(stem(t) for t in meaningful if t not in WEAK_WORDS),
        numbers=frozenset(stated_numbers(text)),
        negations=tuple(sorted({NEGATIONS[t] for t in tokens if t in NEGATIONS})),
    )


_DANGLING = re.compile(r"\b(?:on|in|at|the|of|every|il|la|di|de|del|el|este|esta)[.,;:!?]*$")


def without_time(text: str) -> str:
    """``text`` without its day and time words, tidied: "I met James last Tuesday." →
    "I met James." (the pattern an episode repeats)."""
    kept = [
        token
        for token in text.split()
        if fold(token.strip(".,;:!?\"'()")) not in TEMPORAL_WORDS or not token.strip(".,;:!?")
    ]
    tidy = " ".join(kept).strip()
    tidy = re.sub(r"\s+([.,;:!?])", r"\1", tidy)
    tidy = _DANGLING.sub("", tidy).strip(" ,;:")
    if tidy and tidy[-1] not in ".!?":
        tidy += "."
    return tidy or text
