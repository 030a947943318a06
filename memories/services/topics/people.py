"""Whom a statement or a question is about: the client, or someone the client speaks of.

"We moved to Turin" is the client's residence; "my sister is moving to Sardinia" is the
sister's, and must not supersede the client's. A statement is about another person when
its clause opens with that person, named by their role ("mio marito", "my daughter", "mi
hermana", "la madre di Lorenza") or by their name followed by what they do ("Matilde vuole
fare veterinaria", "Claire trabaja como traductora"); "my wife and I", "io e Paolo", "mi
marido y yo" are the client. A question is about another person when it names one: "What
does her husband do?", "¿En qué trabaja el marido de Lorenza?", "Che cosa vuole studiare
Matilde?".

A role is named alike in the three languages (``husband`` for marito, marido, husband), so
a statement said in Italian and a question asked in English meet. Read on folded text
(``normalise.match_form``).
"""

from __future__ import annotations

import re
import unicodedata

from memories.services.extraction import patterns as cues
from memories.services.extraction.normalise import match_form
from memories.services.extraction.vocabulary import GRAMMAR_WORDS, REACTION_WORDS
from memories.text import fold

# Each role's words, en / it / es, folded.
ROLES: dict[str, str] = {
    "wife": "wife moglie esposa mujer",
    "husband": "husband marito esposo marido",
    "partner": "partner boyfriend girlfriend fiance fiancee compagno compagna fidanzato "
    "fidanzata pareja novio novia prometido prometida",
    "son": "son figlio hijo",
    "daughter": "daughter figlia hija",
    "children": "children kids sons daughters figli figlie ragazzi bambini hijos hijas ninos",
    "mother": "mother mum mom mummy mamma madre mama",
    "father": "father dad daddy papa padre",
    "parents": "parents genitori padres",
    "brother": "brother fratello hermano",
    "sister": "sister sorella hermana",
    "grandchild": "grandson granddaughter grandchild grandchildren grandkids nipote nipoti "
    "nipotino nipotina nieto nieta nietos nietas",
    "grandparent": "grandmother grandfather grandma grandpa nonna nonno abuela abuelo",
    "mother_in_law": "mother-in-law suocera suegra",
    "father_in_law": "father-in-law suocero suegro",
    "son_in_law": "son-in-law genero yerno",
    "daughter_in_law": "daughter-in-law nuora nuera",
    "sibling_in_law": "brother-in-law sister-in-law cognato cognata cunado cunada",
    "uncle_aunt": "uncle aunt zio zia tio tia",
    "cousin": "cousin cugino cugina primo prima",
    "friend": "friend amico amica",
    "business_partner": "socio socia",
}
ROLE_OF: dict[str, str] = {word: role for role, words in ROLES.items() for word in words.split()}
_ROLE = "|".join(sorted((re.escape(w) for w in ROLE_OF), key=len, reverse=True))
_ADJECTIVES = (
    r"(?:(?:late|ex|eldest|youngest|older|younger|elder|oldest|little|big|new|current"
    r"|grande|piccol[oa]|maggiore|minore|nuov[oa]|mayor|pequen[oa]|nuev[oa])\s)?"
)
_POSSESSIVE = (
    r"(?:my|our|his|her|their|(?:il |la |i |le |lo |gli )?(?:mio|mia|miei|mie|nostro|nostra"
    r"|nostri|nostre|suo|sua|suoi|sue)|mi|mis|nuestro|nuestra|nuestros|nuestras|su|sus)"
)
_FILLER = (
    r"(?:(?:well|so|oh|and|also|then|but|anyway|actually|e|ma|poi|allora|comunque|anche|y|pero"
    r"|pues|bueno|ademas|tambien|mire|guardi)\W+)*"
)
# The client with another person: "my wife and I", "io e mio marito", "Paolo y yo".
_WITH_THE_CLIENT = re.compile(r"\b(?:and i|and me|e io|io e|y yo|yo y|and myself)\b")
# A clause that opens with a role: "my daughter wants…", "mia sorella Elisa vuole…".
_OPENS_WITH_ROLE = re.compile(rf"^\W*{_FILLER}{_POSSESSIVE}\s{_ADJECTIVES}(?P<role>{_ROLE})\b")
# A question that names a role: "her husband", "Oliver's wife", "il marito di Lorenza",
# "el marido de Lorenza", "su hija".
_ASKS_OF_ROLE = re.compile(
    rf"\b(?:{_POSSESSIVE}\s|\w+'s\s|(?:the|il|la|lo|i|le|gli|el|los|las)\s)?{_ADJECTIVES}"
    rf"(?P<role>{_ROLE})\b"
)
# What a person named at the start does: a third-person verb within a few words.
_THIRD_PERSON = (
    r"(?:is|was|has|had|does|did|wants|works|lives|studies|moved|got|started|left|will|plans"
    r"|e|era|ha|aveva|vuole|lavora|vive|abita|studia|fa|fara|sta|si|sara|va|trabaja|es|esta"
    r"|tiene|quiere|estudia|hace|hara|se|va|sera|vive)"
)
_OPENS_WITH_NAME = re.compile(
    rf"^\W*(?P<name>(?-i:[A-ZÀ-Þ][a-zà-ÿ'-]+))(?:\s(?-i:[A-ZÀ-Þ][a-zà-ÿ'-]+))?"
    rf"(?:,[^,]{{0,40}},)?\s(?:\w+\s){{0,2}}?{_THIRD_PERSON}\b"
)
# Capitalised words that open sentences without naming anyone.
_NOT_NAME_WORDS = (
    "i we you he she they it this that there here the a an my our your his her their "
    "io noi lei lui loro questo questa quello quella qui qua il la lo le gli un una "
    "yo nosotros usted ella el ellos esto eso esta este aqui alli los las mi su "
    "also then but and so well yes no ok e ma poi si y pero pues bueno "
    # Interjections and words that open a sentence as a name would ("Eh, Roma è Roma").
    "eh ah oh beh mah boh uh hmm ecco guarda guardi senti senta dai vabbe insomma allora "
    "mira mire oye oiga vale venga hombre claro vaya jaja haha hey look right sure "
    "anyway honestly actually still now ora adesso ahora ya"
)
_NOT_NAMES = frozenset(_NOT_NAME_WORDS.split()) | GRAMMAR_WORDS | REACTION_WORDS


# A word of a reference shorter than this is not taken for a name ("adv", "id", "c1").
_SHORTEST_NAME = 3


# Greetings and farewells said with the name of the one greeted: "Buongiorno Lorenza",
# "Hi Mrs Hollis", "Bye Álvaro", "Gracias, Inma", "Egun on, Inma".
_GREETING = (
    r"(?:good (?:morning|afternoon|evening)|morning|afternoon|evening|hi|hello|hey|dear|bye"
    r"|goodbye|thanks|thank you|cheers|welcome|buongiorno|buonasera|buon pomeriggio|ciao"
    r"|salve|gentile|caro|cara|carissim[oa]|arrivederci|grazie|bentornat[oa]|benvenut[oa]"
    r"|hola|buenos dias|buenas tardes|buenas noches|buenas|estimad[oa]|querid[oa]|adios"
    r"|hasta luego|gracias|bienvenid[oa]|egun on|bon dia)"
)
_TITLE_WORDS = "mr|mrs|ms|miss|dr|signor|signora|signorina|dottor|dottoressa|don|dona|senor|senora"
_CALLED = re.compile(
    rf"^\W*{_GREETING},?\s+(?:(?:{_TITLE_WORDS})\.?\s+)?(?P<name>(?-i:[A-ZÀ-Þ])[\w'-]+)"
    rf"(?:\s(?P<surname>(?-i:[A-ZÀ-Þ])[\w'-]+))?\s*(?:[,!.?;]|$)"
    rf"|^\W*(?:(?:{_TITLE_WORDS})\.?\s+)?(?P<first>(?-i:[A-ZÀ-Þ])[\w'-]+),\s+{_GREETING}\b",
    re.IGNORECASE,
)


def names_called(text: str) -> list[str]:
    """The names (folded) a message greets its listener by, when it opens with a greeting
    and a name ("Buongiorno signora Bertolini, si accomodi.") or a name and a greeting
    ("Álvaro, buenos días.")."""
    found = _CALLED.match(_unaccented(text))
    if not found:
        return []
    names = [found["name"] or found["first"], found["surname"]]
    return [n for n in (fold(w) for w in names if w) if n not in _NOT_NAMES]


def _unaccented(text: str) -> str:
    """``text`` without its accents, its case kept ("Buenos días, Álvaro" → "Buenos dias,
    Alvaro")."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def client_names(client) -> frozenset[str]:
    """The client's own names, folded: the words of its display name, and of its
    reference when that is written in letters (``lorenza-bertolini``, ``Marta.Llorente``),
    not a number or a code."""
    names: set[str] = set(getattr(client, "names", None) or ())
    for text in (client.display_name or "", client.external_ref or ""):
        words = [w for w in re.split(r"[\s._@+-]+", fold(text)) if w]
        if any(not w.isalpha() for w in words):
            continue  # "client-00042", "c3f9…": a code, not a name
        names.update(w for w in words if len(w) >= _SHORTEST_NAME)
    return frozenset(names)


# Who someone is to the client: "my accountant is Sarah Cole", "Sarah Cole is my
# accountant", "mio marito è Paolo", "mi marido se llama Juan": the client's relationships.
_COPULA = r"(?:is|e|es|sono|son|si chiama|se llama|is called)"
_NAMES_WHO = re.compile(
    rf"^\W*{_FILLER}{_POSSESSIVE}\s{_ADJECTIVES}(?:{_ROLE})\s{_COPULA}\s"
    rf"|\b{_COPULA}\s{_POSSESSIVE}\s(?:\w+\s){{0,2}}\w+\W*$"
)
# A name said right after a role: "my husband Marcus", "mia sorella Elisa".
_NAME_AFTER = re.compile(r"\s*,?\s*((?-i:[A-ZÀ-Þ])[\w'-]+)")


def statement_about(content: str, *, client_names: frozenset[str] = frozenset()) -> str:
    """The person ``content`` is about: their name when it is said, else their role; ""
    for the client (and for who someone is to the client: a relationship of theirs)."""
    folded = match_form(content)
    if _WITH_THE_CLIENT.search(folded) or _NAMES_WHO.search(folded):
        return ""
    if found := _OPENS_WITH_ROLE.match(folded):
        # Folding keeps the length of these scripts' words: the name is where the role ends.
        name = _NAME_AFTER.match(content, found.end()) if len(folded) == len(content) else None
        named = match_form(name[1]) if name else ""
        if named and named not in _NOT_NAMES and named not in client_names:
            return named
        return ROLE_OF[found["role"]]
    if found := _OPENS_WITH_NAME.match(cues.DISCOURSE.sub("", content.lstrip())):
        called = match_form(found["name"])
        if called not in _NOT_NAMES and called not in client_names:
            return called
    return ""


def question_about(query: str, *, client_names: frozenset[str] = frozenset()) -> str:
    """The role of the person a question asks about, or "" (the client, or no one said)."""
    folded = match_form(query)
    if found := _ASKS_OF_ROLE.search(folded):
        return ROLE_OF[found["role"]]
    return ""


def names_in(query: str) -> frozenset[str]:
    """The (folded) capitalised words of a question after its first: the people it may
    name ("Che cosa vuole studiare Matilde?" → matilde)."""
    words = re.findall(r"(?-i:[A-ZÀ-Þ])[\w'-]+", query)
    return frozenset(match_form(w) for w in words[1:] if match_form(w) not in _NOT_NAMES)
