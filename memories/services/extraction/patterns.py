"""Cue tables of the heuristic extractor, per language (English, Italian, Spanish).

Every pattern runs on *folded* text (``normalise.match_form``: lower case, no accents, plain
apostrophes), so ``perché``/``perche`` are one case. In each table the first rule that
matches decides, so the order is the precedence (see ``heuristic``). Verbs are in the first
person (the client speaking) or, flagged ``3rd``, reported by someone else about the client.

Rule flags: ``neg`` the cue is negative (hate, don't want, non posso); ``3rd`` third person;
``verb`` the object opens with a verb (please always *send*…); ``before`` the object precedes
the cue (mornings *work best for me*); ``noun`` only with a noun object (voglio + noun; voglio
sapere is a request); ``ask`` an object opening with a request verb makes it a request;
``obj`` needs an object ("I've decided." alone says nothing); ``free`` keyed by no attribute,
its scope being in its words: a standing instruction to the assistant ("Always include the
version numbers when I ask about deployment"), a priority ("I prioritize battery life over
graphics"); ``@name`` the attribute the object names (residence, employer, occupation).
"""

# The rule tables below keep one rule per line, like a table, so they are exempt from the
# line length and from the formatter (``fmt: off``); everything else follows both.
# ruff: noqa: E501
from __future__ import annotations

import re
from dataclasses import dataclass

from memories.services.extraction.normalise import AMOUNT, NUMBER


@dataclass(frozen=True)
class Rule:
    """One cue; the flags are described in the module docstring."""

    category: str  # decision, relationship, constraint, goal, preference, fact
    pattern: re.Pattern[str]
    negated: bool = False
    third_person: bool = False
    hint: str = ""
    verb_first: bool = False
    object_before: bool = False
    noun_object: bool = False
    not_request: bool = False
    needs_object: bool = False
    unkeyed: bool = False


def _r(category: str, regex: str, flags: str = "") -> Rule:
    given = set(flags.split())
    return Rule(
        category,
        re.compile(regex, re.IGNORECASE),
        negated="neg" in given,
        third_person="3rd" in given,
        hint=next((flag[1:] for flag in given if flag.startswith("@")), ""),
        verb_first="verb" in given,
        object_before="before" in given,
        noun_object="noun" in given,
        not_request="ask" in given,
        needs_object="obj" in given,
        unkeyed="free" in given,
    )


def _any(text: str) -> str:
    """An alternation of the words of ``text``, longest first."""
    return "(?:" + "|".join(sorted(text.split(), key=len, reverse=True)) + ")"


def words_of(text: str) -> frozenset[str]:
    return frozenset(text.split())


# --- English --------------------------------------------------------------------------------
_I = r"\b(?:i|we)"
_IM = r"\b(?:i'm|im|i am|we're|we are)"
_ADV = _any(
    "really also still definitely generally usually actually just strongly much both "
    "personally certainly absolutely truly honestly always very now do would 'd"
)
_ADVS = rf"(?:\s{_ADV})*"
_DONT = r"(?:don't|do not|dont|never|no longer|didn't|did not)"
_ROLE_ADJ = _any("late ex eldest youngest older younger elder oldest new current nuovo nuova nuevo")
_ROLE_ADJS = rf"(?:{_ROLE_ADJ}\s)?"
_ROLES_EN = _any(
    "wife husband partner spouse fiance fiancee son sons daughter daughters kids children child "
    "brother sister father mother dad mum mom parents grandson granddaughter grandchildren "
    "grandkids nephew niece accountant lawyer attorney solicitor notary doctor banker assistant "
    "secretary boyfriend girlfriend son-in-law daughter-in-law ex-wife ex-husband"
)
_SERVICE_VERBS = _any("send call contact email text write copy cc use share schedule book put")
# A standing instruction opens with "always" or "never" and a verb, not a report ("always
# been a fan", "never had a car"), or says from when it holds ("from now on", "whenever I ask
# about…, always…"): how the assistant should answer, a preference.
_NOT_AN_ORDER_EN = _any("been had have has was were is are am the a an my our this that it")
_FROM_NOW_EN = r"(?:from now on|going forward|moving forward|in (?:the )?future)"
_MAKE_SURE_EN = r"make sure\s(?:(?:that\s)?you\s|to\s)?"
_WHEN_I_ASK_EN = r"\bwhen(?:ever)?\s(?:i|we)\s(?:ask|talk|write)\b[^,]*,\s(?:please\s)?"
_HOLDINGS_EN = _any(
    "kids children sons daughters grandchildren grandkids properties houses homes apartments "
    "flats cars companies businesses accounts boats"
)
_ABOUT = r"(?:(?:about|around|roughly|over|more than|almost|nearly|some)\s)?"
_MY_DATA_EN = (
    r"(?:birthday|date of birth|birth date|email(?: address)?|e-mail|phone number|mobile"
    r"(?: number)?|address|salary|income|pension|net worth|tax residence|nationality)"
)
_CAN_T = r"(?:can't|cannot|can not|cant)"
_GOAL_VERBS_EN = _any(
    "plan planning intend intending aim aiming hope hoping expect expecting trying looking "
    "saving preparing"
)
_NOT_A_DUTY_EN = _any(
    "go run leave say admit confess ask check think know talk speak see understand"
)
_STATUS_EN = _any(
    "retired self-employed unemployed pregnant vegetarian vegan diabetic allergic from"
)

# fmt: off
EN: tuple[Rule, ...] = (
    _r("decision", rf"{_I}(?:'ve| have)?(?:\s(?:just|finally|now|already|both|all))?\sdecided\b", "obj"),
    _r("decision", rf"{_I}(?:'ve| have)?\s(?:chosen|opted|settled on|made up (?:my|our) minds?)\b", "obj"),
    _r("decision", r"\blet's\s(?:go with|go ahead|proceed|do it|stick with|keep|opt for|choose)\b"),
    _r("decision", rf"{_I}(?:'ll| will)\s(?:go with|go ahead|proceed with|stick with)\b"),
    _r("decision", rf"{_I}(?:\swill not|\swon't|\swont|'ll never|\swill never)\s(?!be\b)", "neg"),
    _r("relationship", rf"(?:^|,\s)(?:and\s|also\s)?(?:my|our)\s{_ROLE_ADJS}(?P<role>{_ROLES_EN})\b(?P<obj>\W*\w.*)"),
    _r("relationship", rf"\b(?:is|are)\s(?:my|our)\s{_ROLE_ADJS}(?P<role>{_ROLES_EN})\b"),
    _r("decision", r"\b(?:has|have|had)\sdecided\b|\bdecided\b", "3rd obj"),
    _r("constraint", rf"{_I}\s(?:really\s|simply\s|just\s)?{_CAN_T}\s(?!stand\b|wait\b|believe\b|thank\b|complain\b)", "neg"),
    _r("constraint", rf"{_IM}\snot\s(?:allowed|permitted|authori[sz]ed|able)\b", "neg"),
    _r("constraint", rf"{_I}\s(?:must(?:n't| not| never)|shouldn't|should never)\b", "neg"),
    _r("constraint", rf"{_I}\s(?:must|have to|need to|'ve got to|have got to|am required to)\s(?!{_NOT_A_DUTY_EN}\b)"),
    _r("constraint", r"\b(?:he|she|they|client)\s(?:can't|cannot|can not|isn't allowed|mustn't|must not)\b", "neg 3rd"),
    _r("constraint", r"\b(?:he|she|they|client)\s(?:must|has to|needs to)\b", "3rd"),
    _r("preference", rf"{_I}(?:'d| would)?(?:\sreally)?\s(?:like|prefer|love|want)\sto\s(?:receive|get|have|be contacted|be called|be reached|hear from)\b"),
    _r("goal", rf"{_I}(?:\sreally|\salso|\sstill)?\s(?:want|wanna|wish)\sto\s(?P<obj>.*)", "ask"),
    _r("goal", rf"{_I}(?:'d| would)(?:\sreally|\salso)?\s(?:like|love)\sto\s(?P<obj>.*)", "ask"),
    _r("goal", rf"{_I}(?:'re|'m| are| am)?(?:\salso|\sstill)?\s{_GOAL_VERBS_EN}\s(?:to|for|on)\s(?P<obj>.*)", "ask"),
    _r("goal", rf"{_IM}\s(?:also\s)?planning\b"),
    _r("goal", r"\b(?:my|our)\s(?:main\s|long-term\s|big\s|biggest\s|first\s|top\s)?(?:goal|objective|aim|plan|dream|priority|target|ambition)s?\s(?:is|are|would be|for)\b"),
    _r("goal", rf"{_IM}\s(?:also\s)?(?:thinking|considering)\s(?:(?:of|about)\s)?(?P<obj>\w+ing\b.*)"),
    _r("goal", r"\b(?:wants|plans|intends|hopes|aims|wishes)\sto\s(?P<obj>.*)", "3rd ask"),
    _r("goal", r"\b(?:his|her|their|client's)\s(?:main\s)?(?:goal|objective|aim|plan|dream|priority)\s(?:is|are)\b", "3rd"),
    _r("preference", rf"{_I}(?:'d)?{_ADVS}\s(?:prefer|favou?r)\b"),
    # "I prioritize battery life over graphics", "I've prioritized…", "I'm prioritizing…",
    # "I've been prioritizing…": what comes first for them.
    _r("preference", rf"{_I}(?:'ve|\shave)?(?:\sbeen)?(?:'m|'re|\sam|\sare)?{_ADVS}\s(?:prioriti[sz]e[ds]?|prioriti[sz]ing)\b", "obj free"),
    # "I've set a preference for…", "I have a strong preference for…", "my preference is…".
    _r("preference", rf"{_I}(?:'ve|\shave)?(?:\s(?:set|got|expressed|stated))?\s(?:an?\s)?(?:strong\s|clear\s|slight\s)?preference\sfor\b|\b(?:my|our)\s(?:strong\s)?preference\s(?:is|would be|goes to)(?:\sfor)?\b|\b(?:my|our)\s(?:strong\s|clear\s)?preference\sfor\b"),
    _r("preference", rf"{_I}(?:'d| would)\s(?:much\s|definitely\s)?rather\b", "verb"),
    _r("preference", rf"{_I}{_ADVS}\s{_DONT}\s(?:really\s|particularly\s)?(?:like|love|enjoy|want|trust|care for|need)\b", "neg"),
    _r("preference", rf"{_I}{_ADVS}\s(?:hate|dislike|detest|loathe|can't stand|cannot stand|avoid|distrust)\b", "neg"),
    _r("preference", rf"{_IM}\snot\s(?:a\s(?:big\s|huge\s)?fan of|interested in|keen on|comfortable with|into)\b", "neg"),
    _r("preference", rf"{_IM}\s(?:very\s|really\s|quite\s)?(?:a\s(?:big\s|huge\s)?fan of|interested in|keen on|comfortable with|passionate about)\b"),
    _r("preference", rf"{_I}{_ADVS}\s(?:like|love|enjoy|adore|appreciate|trust)\b"),
    _r("preference", rf"{_I}{_ADVS}\swant\s(?!to\b)"),
    _r("preference", rf"{_I}\snever\s(?!been\b|had\b|said\b|thought\b)", "neg verb"),
    _r("preference", rf"{_I}\s(?:always|only)\s(?!been\b|had\b|said\b|thought\b)", "verb"),
    _r("preference", r"\bplease\b,?\s(?:always|make sure(?:\s(?:to|you))?)\s", "verb"),
    _r("preference", r"\bplease\b,?\s(?:never|don't|do not|avoid)\s(?!hesitate\b|worry\b|forget\b)", "neg verb"),
    _r("preference", rf"^always\s(?={_SERVICE_VERBS}\b)", "verb"),
    _r("preference", rf"^never\s(?={_SERVICE_VERBS}\b)", "neg verb"),
    _r("preference", rf"^(?:please,?\s)?always\s(?:{_MAKE_SURE_EN})?(?!{_NOT_AN_ORDER_EN}\b)(?=[a-z])", "verb free"),
    _r("preference", rf"^(?:please,?\s)?never\s(?!{_NOT_AN_ORDER_EN}\b|mind\b)(?=[a-z])", "neg verb free"),
    _r("preference", rf"^{_FROM_NOW_EN},?\s(?:please\s)?(?:always\s)?(?:{_MAKE_SURE_EN})?(?=[a-z])", "verb free"),
    _r("preference", rf"{_WHEN_I_ASK_EN}always\s(?:{_MAKE_SURE_EN})?", "verb free"),
    _r("preference", rf"{_WHEN_I_ASK_EN}(?:never|don't|do not)\s", "neg verb free"),
    _r("preference", r"\b(?:works?|is|are)\s(?:best|better)\sfor\s(?:me|us)\b|\bsuits?\s(?:me|us)\s(?:best|better)\b", "before"),
    _r("preference", r"\b(?:doesn't|does not|doesnt)\s(?:really\s)?(?:like|want|trust|enjoy)\b", "neg 3rd"),
    _r("preference", r"\b(?:hates|dislikes|detests|avoids|distrusts)\b|\bis not (?:interested in|a fan of|keen on)\b", "neg 3rd"),
    _r("preference", r"\b(?:prefers|favou?rs|likes|loves|enjoys|trusts)\b|\bis (?:interested in|a fan of|keen on)\b", "3rd"),
    _r("preference", r"\bwants\s(?!to\b)", "3rd"),
    _r("fact", rf"{_I}{_ADVS}\s(?:live|reside)\s(?:in|near)\s", "@residence"),
    _r("fact", rf"{_I}(?:'ve| have)?(?:\sjust|\srecently)?\s(?:moved|relocated)\s(?:back\s)?to\s", "@residence"),
    _r("fact", rf"{_IM}\s(?:now\s)?(?:based|living|resident)\sin\s", "@residence"),
    _r("fact", rf"{_I}{_ADVS}\swork\s(?:freelance\s|part[- ]time\s|full[- ]time\s)?as\s(?:an?\s)?", "@occupation"),
    _r("fact", rf"{_I}{_ADVS}\swork\s(?:at|for|with)\s(?!home\b)", "@employer"),
    _r("fact", rf"{_IM}\s(?:employed|working)\s(?:at|by|for)\s", "@employer"),
    # a new job taken: "I've taken a post at a private hospital", "I've accepted a job with"
    _r("fact", rf"{_I}(?:'ve| have)?(?:\sjust|\snow)?\s(?:taken|accepted|started|got)\s(?:a|the)\s(?:new\s)?(?:job|post|position|role)\s(?:at|with|in)\s", "@employer"),
    _r("fact", rf"{_IM}\s(?:not\s|no longer\s)?(?:now\s|recently\s|happily\s)?(?:married|divorced|widowed|separated|single|engaged|a widow(?:er)?)\b"),
    _r("fact", rf"{_I}(?:'ve| have)?\s(?:been|got)\s(?:married|divorced|separated|engaged)\b"),
    # told as it happened: "I separated from my husband in January", "we married in June"
    _r("fact", rf"{_I}\s(?:just\s|recently\s|finally\s)?(?:married|divorced|separated)\b"),
    _r("fact", rf"{_IM}\s(?:now\s|recently\s|already\s|originally\s)?{_STATUS_EN}\b"),
    _r("fact", rf"{_IM}\san?\s(?!bit\b|little\b|lot\b|fan\b|big fan\b|client\b|customer\b)", "@occupation"),
    _r("fact", rf"{_IM}\s\d{{1,3}}\s(?:years old|years of age)\b|{_I}\swas\sborn\b"),
    _r("fact", rf"\bmy\s{_MY_DATA_EN}\s(?:is|are)\b"),
    _r("fact", rf"{_I}(?:\s(?:have|have got|ve got)|'ve got)\s(?:{NUMBER})\s{_HOLDINGS_EN}\b"),
    _r("fact", rf"{_I}(?:\s(?:have|own|hold|have got|earn|make)|'ve got)\s{_ABOUT}(?:{AMOUNT})|{_I}\s(?:own|co-own)\b"),
    _r("fact", r"\b(?:lives|resides)\s(?:in|near)\s|\b(?:has\s)?(?:moved|relocated)\sto\s", "3rd @residence"),
    _r("fact", r"\bworks\s(?:at|for)\s(?!home\b)", "3rd @employer"),
    _r("fact", r"\b(?:is|was)\s(?:now\s)?(?:married|divorced|widowed|separated|single|retired)\b", "3rd"),
)
# fmt: on

# --- Italian --------------------------------------------------------------------------------
IT_INFINITIVE = r"[a-z]{2,}(?:are|ere|ire|rre)(?:mi|ti|ci|vi|si|lo|la|li|le|ne|gli|glielo)?\b"
_MIO = r"(?:(?:il|la|i|le|lo|gli)\s)?(?:mio|mia|miei|mie|nostro|nostra|nostri|nostre)"
_ROLES_IT = _any(
    "moglie marito compagno compagna coniuge fidanzato fidanzata figlio figlia figli figlie "
    "fratello sorella fratelli sorelle padre madre papa mamma genitori nipote nipoti nonno nonna "
    "suocero suocera genero nuora cognato cognata commercialista avvocato avvocata notaio medico "
    "consulente socio socia segretaria segretario"
)
_PROFESSIONS_IT = _any(
    "medico avvocato avvocata ingegnere architetto imprenditore imprenditrice insegnante "
    "professore professoressa notaio commercialista dentista farmacista pensionato pensionata "
    "dirigente manager consulente infermiere infermiera giornalista artigiano commerciante "
    "agricoltore chirurgo ricercatore ricercatrice programmatore impiegato impiegata pilota"
)
_FUTURE_IT = _any(
    "vendero comprero investiro firmero rinnovero accettero faro tocchero venderemo compreremo "
    "investiremo firmeremo rinnoveremo accetteremo faremo"
)
_WANT_IT = _any("vorrei vorremmo voglio vogliamo desidero desideriamo")
_LIKE_IT = _any("piace piacciono interessa interessano convince convincono fido")
_HOLDINGS_IT = _any(
    "figli figlie figlio figlia nipoti case appartamenti immobili societa aziende conti"
)
_MARITAL_IT = r"(?:sposat|divorziat|vedov|separat|fidanzat)[oaie]|single|celibe|nubile"
_STATUS_IT = (
    r"in pensione|pensionat[oaie]|liber[oi] professionist[ai]|disoccupat[oaie]|nat[oaie]"
    r"|originari[oa] di|cittadin[oaie]|resident[ei]"
)
_PLEASE_IT = r"\bper\s(?:favore|cortesia|piacere)\b,?"
# What an assistant is told to do when it answers, as a standing instruction opens:
# "includi sempre…", "dammi sempre…" (the imperative); "non usare mai…", "non scrivermi
# mai…" (the infinitive, without its last vowel). Not "da sempre lavoro in banca".
_ANSWER_IT = _any(
    "usa includi aggiungi dammi dacci fornisci rispondi scrivi mostra metti spiega indica "
    "elenca ricorda inserisci manda invia cita riporta"
)
_ANSWER_IT_INF = _any(
    "usar includer aggiunger dar fornir risponder scriver mostrar metter spiegar indicar "
    "elencar ricordar inserir mandar inviar citar riportar"
)
# "Quando ti chiedo dei fondi, indica sempre le commissioni": the scope first, as in English.
_WHEN_I_ASK_IT = (
    r"\b(?:quando|ogni volta che)\s(?:ti\s)?(?:chiedo|chiediamo|domando|parlo|parliamo|scrivo)"
    rf"\b[^,]*,\s(?:{_PLEASE_IT}\s)?"
)
_MY_DATA_IT = _any("compleanno indirizzo numero stipendio reddito email mail pensione patrimonio")
_NOT_A_DUTY_IT = _any("andare scappare dire ammettere chiedere chiederle pensarci riattaccare")
_PLAN_IT = _any(
    "penso pensiamo contiamo conto speriamo spero progettiamo prevediamo prevedo miriamo"
)

# fmt: off
IT: tuple[Rule, ...] = (
    _r("decision", r"\b(?:ho|abbiamo)\s(?:gia\s|finalmente\s|ormai\s)?(?:deciso|scelto|optato|stabilito)\b", "obj"),
    _r("decision", r"\b(?:decido|decidiamo)\sdi\b|\b(?:andiamo|procediamo|optiamo|restiamo)\s(?:con|per|sul|sulla|avanti)\b|^procediamo\W*$"),
    _r("decision", rf"\bnon\s{_FUTURE_IT}\b", "neg"),
    _r("relationship", rf"(?:^|,\s)(?:e\s|anche\s|poi\s)?{_MIO}\s{_ROLE_ADJS}(?P<role>{_ROLES_IT})\b(?P<obj>\W*\w.*)"),
    _r("relationship", rf"\be\s(?:(?:il|la)\s)?(?:mio|mia|nostro|nostra)\s(?P<role>{_ROLES_IT})\b"),
    _r("decision", r"\b(?:ha|hanno)\s(?:gia\s)?(?:deciso|scelto|optato)\b", "3rd obj"),
    _r("constraint", r"\bnon\s(?:posso|possiamo|riesco a|riusciamo a|devo|dobbiamo|mi e (?:permesso|consentito))\b", "neg"),
    _r("constraint", rf"\b(?:devo|dobbiamo|sono obbligat[oa]|ho bisogno di|abbiamo bisogno di)\s(?!{_NOT_A_DUTY_IT}\b)"),
    _r("constraint", r"\bnon\s(?:puo|possono|deve|devono)\b", "neg 3rd"),
    _r("constraint", r"\b(?:deve|devono)\s(?!andare\b)", "3rd"),
    _r("preference", rf"\b(?:{_WANT_IT}|preferirei|mi piacerebbe)\s(?:che\s(?:mi|ci)\b|ricever[a-z]*|essere\s(?:contattat|chiamat|aggiornat)[a-z]*|aver[a-z]*)\b"),
    _r("goal", rf"(?<!\bnon )\b(?:{_WANT_IT}|mi piacerebbe|ci piacerebbe)\s(?:tanto\s|molto\s|davvero\s|anche\s)?(?P<obj>{IT_INFINITIVE}.*)", "ask"),
    _r("goal", r"\b(?:ho|abbiamo)\s(?:intenzione|in programma|in mente)\sdi\b"),
    _r("goal", r"\b(?:il|la)\s(?:mio|mia|nostro|nostra)\s(?:principale\s|grande\s)?(?:obiettivo|scopo|sogno|piano|priorita|progetto|traguardo)\b"),
    _r("goal", rf"\b(?:sto|stiamo)\s(?:pensando|valutando|progettando|pianificando)\s(?:di|a)\s(?P<obj>{IT_INFINITIVE}.*)|\b(?:sto|stiamo)\s(?:risparmiando|mettendo da parte)\b"),
    _r("goal", rf"\b{_PLAN_IT}\s(?:di|a)\s(?P<obj>{IT_INFINITIVE}.*)", "ask"),
    _r("goal", rf"\b(?:vuole|vorrebbe|desidera|intende|pensa di|spera di|ha intenzione di)\s(?P<obj>{IT_INFINITIVE}.*)", "3rd ask"),
    _r("preference", r"\b(?:preferisco|preferiamo|preferirei|preferiremmo|preferire)\b"),
    _r("preference", r"\b(?:do|diamo|ho dato|abbiamo dato)\s(?:la\s)?(?:precedenza|priorita)\s(?:a|al|alla|ai|agli|alle|allo)\b|\b(?:privilegio|privilegiamo)\b", "free"),
    _r("preference", r"\b(?:ho|abbiamo)\s(?:una\s)?(?:forte\s|netta\s)?preferenza\sper\b|\b(?:la\s)?(?:mia|nostra)\spreferenza\s(?:e|va)(?:\sper|\sa|\sal|\salla)?\b|\b(?:la\s)?(?:mia|nostra)\spreferenza\sper\b"),
    _r("preference", r"\bnon\s[a-z]+o\smai\b", "neg"),
    _r("preference", rf"\bnon\s(?:mi|ci)\s{_LIKE_IT}\b", "neg"),
    _r("preference", rf"\b(?:mi|ci)\s{_LIKE_IT}\b"),
    _r("preference", r"\b(?:mi|ci)\s(?:va|vanno|viene|vengono|conviene|trovo)\s(?:meglio|bene|benissimo)\b", "before"),
    _r("preference", r"\b(?:amo|adoro|apprezzo)\b"),
    _r("preference", r"\b(?:odio|detesto|evito|non sopporto)\b|\bnon\s(?:voglio|vogliamo|desidero|desideriamo)\b", "neg"),
    _r("preference", r"(?<!\bnon )\b(?:voglio|vogliamo)\s(?P<obj>.*)", "noun"),
    _r("preference", r"\bnon\s(?:sono|siamo)\s(?:molto\s)?interessat[oaie]\b", "neg"),
    _r("preference", r"\b(?:sono|siamo)\s(?:molto\s)?interessat[oaie]\b"),
    _r("preference", rf"{_PLEASE_IT}\s(?:non|mai)\b|{_PLEASE_IT}(?=.*?\bmai\b)", "neg verb"),
    _r("preference", rf"{_PLEASE_IT}(?=.*?\bsempre\b)", "verb"),
    _r("preference", rf"^(?:{_PLEASE_IT}\s)?{_ANSWER_IT}(?:mi|ci)?\ssempre\b", "verb free"),
    _r("preference", rf"^(?:{_PLEASE_IT}\s)?non\s{_ANSWER_IT_INF}(?:e|mi|ci)\smai\b", "neg verb free"),
    _r("preference", rf"{_WHEN_I_ASK_IT}(?:sempre\s(?={_ANSWER_IT})|{_ANSWER_IT}(?:mi|ci)?\ssempre\b)", "verb free"),
    _r("preference", rf"{_WHEN_I_ASK_IT}non\s{_ANSWER_IT_INF}(?:e|mi|ci)\smai\b", "neg verb free"),
    _r("preference", r"^(?:d'ora|da ora|da adesso)\sin\s(?:poi|avanti),?\s", "verb free"),
    _r("preference", rf"\bnon\s(?:gli|le)\s{_LIKE_IT}\b|\b(?:odia|detesta|non sopporta)\b|\bnon\s(?:vuole|vogliono)\b", "neg 3rd"),
    _r("preference", rf"\b(?:preferisce|preferiscono)\b|\b(?:gli|le)\s{_LIKE_IT}\b", "3rd"),
    _r("fact", r"\b(?:vivo|viviamo|abito|abitiamo|risiedo|risiediamo)\s(?:a|ad|in|nel|nella|vicino a)\s", "@residence"),
    _r("fact", r"\b(?:mi sono|ci siamo)\s(?:appena\s)?(?:trasferit|spostat)[oaie]\s(?:a|ad|in|nel|nella)\s|\b(?:sono|siamo)\s(?:andat[oaie])\sa vivere\s(?:a|ad|in|nel|nella)\s", "@residence"),
    _r("fact", r"\b(?:lavoro|lavoriamo)\scome\s", "@occupation"),
    _r("fact", r"\b(?:lavoro|lavoriamo)\s(?:presso|per|in|da|alla|al|nella|nel)\s(?!casa\b|proprio\b)", "@employer"),
    _r("fact", r"\bho\s(?:appena\s)?(?:accettato|preso|iniziato)\s(?:un|il)\s(?:nuovo\s)?(?:posto|lavoro|ruolo|incarico)\s(?:in|da|presso|alla|al|nella|nel|con)\s", "@employer"),
    _r("fact", rf"\b(?:sono|siamo)\s(?:felicemente\s)?(?:{_MARITAL_IT})\b"),
    _r("fact", r"\b(?:mi sono|ci siamo)\s(?:sposat[oaie]|separat[oaie])\b|\bho divorziato\b"),
    _r("fact", rf"\b(?:sono|siamo)\s(?:{_STATUS_IT})\b"),
    _r("fact", r"\b(?:sono|siamo)\s(?:un|una|uno)\s(?!po'?\b)", "@occupation"),
    _r("fact", rf"\b(?:sono|faccio il|faccio la)\s(?={_PROFESSIONS_IT}\b)", "@occupation"),
    _r("fact", rf"\b(?:ho|abbiamo)\s(?:{NUMBER})\s{_HOLDINGS_IT}\b|\bho\s\d{{1,3}}\sanni\b"),
    _r("fact", rf"\b(?:ho|abbiamo)\s(?:circa\s|quasi\s|oltre\s|piu di\s)?(?:{AMOUNT})"),
    _r("fact", r"\b(?:possiedo|possediamo|guadagno|guadagniamo)\b"),
    _r("fact", rf"\b(?:il mio|la mia)\s(?:{_MY_DATA_IT}|data di nascita)\s(?:e|sono)\b"),
    _r("fact", r"\b(?:vive|abita|risiede)\s(?:a|ad|in)\s|\bsi e\strasferit[oa]\s(?:a|ad|in)\s", "3rd @residence"),
    _r("fact", r"\blavora\s(?:presso|per|in|da)\s(?!casa\b)", "3rd @employer"),
)
# fmt: on

# --- Spanish --------------------------------------------------------------------------------
ES_INFINITIVE = r"[a-z]{2,}(?:ar|er|ir)(?:me|te|se|nos|lo|la|los|las|le|les)?\b"
_MI = r"(?:mi|mis|nuestro|nuestra|nuestros|nuestras)"
_ROLES_ES = _any(
    "esposa esposo marido mujer pareja novio novia prometido prometida hijo hija hijos hijas "
    "hermano hermana hermanos hermanas padre madre papa mama padres nieto nieta nietos nietas "
    "abuelo abuela suegro suegra yerno nuera contador contadora contable gestor gestora abogado abogada notario "
    "notaria medico medica asesor asesora socio socia secretaria secretario gestor gestora"
)
_PROFESSIONS_ES = _any(
    "medico medica abogado abogada ingeniero ingeniera arquitecto arquitecta empresario "
    "empresaria profesor profesora maestro maestra notario notaria contador contadora dentista "
    "farmaceutico farmaceutica directivo directiva gerente consultor consultora enfermero "
    "enfermera periodista funcionario funcionaria piloto cirujano cirujana investigador "
    "investigadora programador programadora comerciante agricultor"
)
_FUTURE_ES = _any(
    "vendere venderemos comprare compraremos invertire invertiremos firmare firmaremos renovare "
    "renovaremos aceptare aceptaremos hare haremos tocare tocaremos"
)
_WANT_ES = _any("quiero queremos quisiera quisieramos deseo deseamos")
_LIKE_ES = _any("gusta gustan encanta encantan interesa interesan convence convencen")
_PLAN_ES = (
    r"(?:planeo|planeamos|pienso|pensamos|tengo pensado|tenemos pensado|pretendo|pretendemos"
    r"|espero|esperamos|aspiro a|aspiramos a)"
)
_HOLDINGS_ES = _any(
    "hijos hijas hijo hija nietos nietas casas pisos propiedades inmuebles empresas cuentas"
)
_MARITAL_ES = r"(?:casad|divorciad|viud|separad|solter|comprometid)[oa]s?"
_STATUS_ES = r"jubilad[oa]s?|autonom[oa]s?|pensionista|residente|ciudadan[oa]"
_MY_DATA_ES = _any("cumpleanos correo email telefono numero direccion sueldo salario pension")
_NOT_A_DUTY_ES = _any("irme ir decir admitir preguntar colgar pensarlo irnos")
_DUTY_ES = _any("debo debemos necesito necesitamos")

# What an assistant is told to do when it answers: "siempre incluye…", "usa siempre…".
_ANSWER_ES = _any(
    "usa uses incluye incluyas agrega agregues anade anadas dame des proporciona responde "
    "respondas contesta escribe escribas muestra muestres pon pongas explica indica enumera "
    "recuerdame envia envies manda mandes cita menciona"
)

# "Cuando te pregunte por impuestos, dame siempre la fecha límite": the scope first.
_WHEN_I_ASK_ES = (
    r"\b(?:cuando|cada vez que)\s(?:te\s)?"
    r"(?:pregunte|pregunto|preguntemos|hable|hablo|hablemos|hablamos|escriba|escribo)"
    r"\b[^,]*,\s(?:por favor,?\s)?"
)

# fmt: off
ES: tuple[Rule, ...] = (
    _r("decision", r"\b(?:he|hemos)\s(?:ya\s|finalmente\s)?(?:decidido|elegido|optado)\b", "obj"),
    _r("decision", r"\b(?:decidi|decidimos|elegimos|optamos por|nos quedamos con)\b", "obj"),
    _r("decision", r"\b(?:vamos|seguimos)\s(?:con|adelante)\b"),
    _r("decision", rf"\bno\s{_FUTURE_ES}\b", "neg"),
    _r("relationship", rf"(?:^|,\s)(?:y\s|tambien\s|ademas\s)?{_MI}\s{_ROLE_ADJS}(?P<role>{_ROLES_ES})\b(?P<obj>\W*\w.*)"),
    _r("relationship", rf"\bes\s(?:mi|nuestro|nuestra)\s(?P<role>{_ROLES_ES})\b"),
    _r("decision", r"\b(?:ha|han)\s(?:ya\s)?(?:decidido|elegido|optado)\b|\b(?:decidio|decidieron)\b", "3rd obj"),
    _r("constraint", r"\bno\s(?:puedo|podemos|me (?:permiten|dejan)|tengo permitido|me esta permitido|debo|debemos)\b", "neg"),
    _r("constraint", rf"\b(?:{_DUTY_ES}|tengo que|tenemos que|estoy obligad[oa])\s(?!{_NOT_A_DUTY_ES}\b)"),
    _r("constraint", r"\bno\s(?:puede|pueden|debe|deben)\b", "neg 3rd"),
    _r("constraint", r"\b(?:debe|deben|tiene que|tienen que)\s", "3rd"),
    _r("preference", r"\b(?:quiero|queremos|quisiera|preferiria|me gustaria|nos gustaria)\s(?:recibir[a-z]*|tener[a-z]*|que me (?:llamen|escriban|contacten|envien|manden))\b"),
    _r("goal", rf"(?<!\bno )\b(?:{_WANT_ES}|me gustaria|nos gustaria)\s(?:mucho\s|realmente\s|tambien\s)?(?P<obj>{ES_INFINITIVE}.*)", "ask"),
    _r("goal", rf"\b{_PLAN_ES}\s(?P<obj>{ES_INFINITIVE}.*)", "ask"),
    _r("goal", r"\b(?:tengo|tenemos)\s(?:la\s)?intencion\sde\b|\b(?:estoy|estamos)\s(?:pensando|planeando|ahorrando|considerando)\b"),
    _r("goal", r"\b(?:mi|nuestro|nuestra)\s(?:principal\s|gran\s)?(?:objetivo|meta|sueno|plan|prioridad|proyecto)\b"),
    _r("goal", rf"\b(?:quiere|planea|piensa|pretende|desea)\s(?P<obj>{ES_INFINITIVE}.*)", "3rd ask"),
    _r("preference", r"\b(?:prefiero|preferimos|preferiria|prefeririamos)\b"),
    _r("preference", r"\b(?:priorizo|priorizamos|priorice|doy prioridad a|damos prioridad a)\b", "free"),
    _r("preference", r"\b(?:tengo|tenemos)\s(?:una\s)?(?:clara\s|fuerte\s)?preferencia\spor\b|\b(?:mi|nuestra)\spreferencia\s(?:es|por)\b"),
    _r("preference", r"\bnunca\s(?=[a-z]+o\b)", "neg verb"),
    _r("preference", rf"^(?:por favor,?\s)?(?:siempre\s{_ANSWER_ES}|{_ANSWER_ES}\ssiempre)\b", "verb free"),
    _r("preference", rf"^(?:por favor,?\s)?nunca\s{_ANSWER_ES}\b", "neg verb free"),
    _r("preference", rf"{_WHEN_I_ASK_ES}(?:siempre\s(?={_ANSWER_ES})|{_ANSWER_ES}\ssiempre\b)", "verb free"),
    _r("preference", rf"{_WHEN_I_ASK_ES}nunca\s(?={_ANSWER_ES})", "neg verb free"),
    _r("preference", r"^(?:de ahora en adelante|a partir de ahora|en adelante),?\s", "verb free"),
    _r("preference", r"\b(?:confio|confiamos)\sen\b"),
    _r("preference", rf"\bno\s(?:me|nos)\s(?:{_LIKE_ES}|fio de)\b", "neg"),
    _r("preference", rf"\b(?:me|nos)\s{_LIKE_ES}\b"),
    _r("preference", r"\b(?:me|nos)\s(?:viene|vienen|va|van)\s(?:mejor|bien)\b", "before"),
    _r("preference", r"\b(?:odio|detesto|evito|no soporto)\b|\bno\s(?:quiero|queremos|deseo|deseamos)\b", "neg"),
    _r("preference", r"(?<!\bno )\b(?:quiero|queremos)\s(?P<obj>.*)", "noun"),
    _r("preference", r"\bno\s(?:estoy|estamos)\s(?:muy\s)?interesad[oa]s?\b", "neg"),
    _r("preference", r"\b(?:estoy|estamos)\s(?:muy\s)?interesad[oa]s?\b"),
    _r("preference", r"\bpor\sfavor\b,?\s(?:no|nunca)\b|\bpor\sfavor\b,?(?=.*?\bnunca\b)", "neg verb"),
    _r("preference", r"\bpor\sfavor\b,?(?=.*?\bsiempre\b)", "verb"),
    _r("preference", rf"\bno\sle\s{_LIKE_ES}\b|\b(?:odia|detesta|no soporta)\b|\bno\s(?:quiere|quieren)\b", "neg 3rd"),
    _r("preference", rf"\b(?:prefiere|prefieren)\b|\ble\s{_LIKE_ES}\b", "3rd"),
    _r("fact", r"\b(?:vivo|vivimos|resido|residimos)\s(?:en|cerca de)\s", "@residence"),
    _r("fact", r"\b(?:me mude|nos mudamos|me he mudado|nos hemos mudado|me traslade|nos trasladamos|me he trasladado|nos hemos trasladado)\s(?:a|en)\s|\b(?:me fui|nos fuimos|me he ido|nos hemos ido)\sa vivir\s(?:a|en)\s", "@residence"),
    _r("fact", r"\b(?:trabajo|trabajamos)\scomo\s", "@occupation"),
    _r("fact", r"\b(?:trabajo|trabajamos)\s(?:en|para)\s(?!casa\b)", "@employer"),
    _r("fact", r"\bhe\s(?:aceptado|empezado|conseguido)\s(?:un|el)\s(?:nuevo\s)?(?:puesto|trabajo|empleo)\s(?:en|para|con)\s|\b(?:empece|he empezado)\sa trabajar\s(?:en|para)\s", "@employer"),
    _r("fact", rf"\b(?:estoy|estamos|soy|somos)\s(?:felizmente\s)?{_MARITAL_ES}\b"),
    _r("fact", r"\b(?:me|nos)\s(?:case|casamos|divorcie|divorciamos|separe|separamos)\b"),
    _r("fact", rf"\b(?:estoy|estamos|soy|somos)\s(?:{_STATUS_ES})\b|\bsoy\sde\s|\bnaci\b"),
    _r("fact", r"\b(?:soy|somos)\s(?:un|una)\s", "@occupation"),
    _r("fact", rf"\bsoy\s(?={_PROFESSIONS_ES}\b)", "@occupation"),
    _r("fact", rf"\b(?:tengo|tenemos)\s(?:{NUMBER})\s{_HOLDINGS_ES}\b|\btengo\s\d{{1,3}}\sanos\b"),
    _r("fact", rf"\b(?:tengo|tenemos)\s(?:unos\s|alrededor de\s|casi\s|mas de\s)?(?:{AMOUNT})"),
    _r("fact", r"\b(?:soy|somos)\s(?:duen[oa]s?|propietari[oa]s?)\b|\b(?:poseo|poseemos|gano|ganamos)\b"),
    _r("fact", rf"\bmi\s{_MY_DATA_ES}\s(?:es|son)\b"),
    _r("fact", r"\b(?:vive|reside)\sen\s|\bse\s(?:mudo|ha mudado)\sa\s", "3rd @residence"),
    _r("fact", r"\btrabaja\s(?:en|para)\s(?!casa\b)", "3rd @employer"),
)
# fmt: on

RULES: dict[str, tuple[Rule, ...]] = {"en": EN, "it": IT, "es": ES}
INFINITIVE = {"en": r"(?!)", "it": IT_INFINITIVE, "es": ES_INFINITIVE}

# A sentence that says how to do something; checked before clauses are split.
_PROCEDURES = {
    "en": [
        r"^(?:in order\s)?to\s\w+.{0,200}?\b(?:first|start by|begin by)\b.{0,300}?"
        r"\b(?:then|after that|afterwards|next|finally)\b",
        r"\bfirst\b.{0,300}?\b(?:then|after that|afterwards)\b",
        r"\balways\b.{0,200}?\bbefore\b",
        r"\bnever\b.{0,200}?\bwithout\b",
    ],
    "it": [
        r"\bprima\b(?!\sdi\b).{0,300}?\b(?:poi|dopodiche|quindi|infine)\b",
        r"\binnanzitutto\b.{0,300}?\b(?:poi|dopodiche|quindi)\b",
        r"\bsempre\b.{0,200}?\bprima di\b",
        r"\bmai\b.{0,200}?\bsenza\b",
    ],
    "es": [
        r"\bprimero\b.{0,300}?\b(?:luego|despues|entonces|finalmente)\b",
        r"\bsiempre\b.{0,200}?\bantes de\b",
        r"\bnunca\b.{0,200}?\bsin\b",
    ],
}
PROCEDURES = {lang: [re.compile(p) for p in patterns] for lang, patterns in _PROCEDURES.items()}

# After "I'd like to / vorrei / quisiera" these ask for something: a request, not a goal.
REQUEST_VERBS = words_of(
    "know see check ask talk speak understand thank say tell confirm clarify discuss review "
    "look hear read chat schedule book arrange call get go "
    "sapere vedere chiedere chiederle chiederti parlare parlarle parlarti capire ringraziare "
    "ringraziarla ringraziarti dire dirle confermare controllare verificare sentire sentirla "
    "fissare prenotare discutere rivedere ricevere avere chiamare chiamarla mandare inviare "
    "fijar concertar agendar programar saber ver preguntar preguntarle hablar hablarle "
    "entender agradecer agradecerle decir decirle confirmar revisar consultar comentar "
    "reservar recibir tener llamar llamarle enviar enviarle mandar"
)
HEDGES = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|might|i think|i guess|i suppose|i believe|not sure"
    r"|kind of|sort of|forse|magari|probabilmente|eventualmente|credo|penso che|chissa"
    r"|non sono sicur[oa]|potrei|potremmo|quizas?|tal vez|a lo mejor|probablemente|creo que"
    r"|puede que|no estoy segur[oa]|podria|podriamos)\b"
)
SMALL_TALK = re.compile(
    r"^(?:thanks|thank you|many thanks|grazie|gracias|muchas gracias)\b"
    r"|\b(?:see you|talk (?:to you )?(?:soon|later|tomorrow|next)|speak (?:soon|later|tomorrow)"
    r"|catch you|bye|goodbye|good night|have a (?:nice|good|great)|take care|ci vediamo"
    r"|ci sentiamo|a domani|a presto|alla prossima|buona (?:giornata|serata|settimana|notte)"
    r"|arrivederci|hasta (?:manana|luego|pronto|el|la)|nos vemos|hablamos|buen fin de semana"
    r"|que (?:tengas|tenga) (?:un )?buen|adios|chao)\b"
)
# Formulas of conversation that tell nothing, wherever they stand in a sentence (the
# episodic layer sets them aside before it asks whether anything is left).
FORMULAS = re.compile(
    r"\b(?:thanks?(?: you)?(?: so much| very much| a lot)?|many thanks|thx|cheers"
    r"|(?:good|nice|great|lovely) (?:to|2) (?:see|hear from|meet|talk to|chat with) you"
    r"|(?:nice|pleased) to meet you|long time no (?:see|talk|chat)|how are you(?: doing)?"
    r"|how(?:'s| is| are) (?:it going|things|life|everything)|what's up|good (?:morning|afternoon|evening|night)"
    r"|see you(?: (?:soon|later|tomorrow|then|around))?|talk (?:to you )?(?:soon|later)|bye|goodbye"
    r"|take care|have a (?:nice|good|great|lovely) (?:day|one|evening|weekend|week|time)"
    r"|sounds like a plan|you too|me too|same here|no problem|no worries|you're welcome"
    r"|grazie(?: mille| tante)?|ciao|salve|buon(?:giorno|asera|anotte)|a presto|ci vediamo"
    r"|ci sentiamo|come stai|come va|tutto bene|piacere di (?:conoscerti|conoscerla|sentirti)"
    r"|(?:muchas )?gracias|hola|buenos dias|buenas(?: tardes| noches)?|hasta (?:luego|pronto|manana)"
    r"|(?:vengo|vengo con|traigo|tengo) (?:noticias|novedades)|(?:ho|porto|ci sono) (?:delle |tante )?novita"
    r"|tante novita|(?:i have|i've got|got) (?:some )?news|(?:big|great|some) news"
    r"|speak (?:soon|later)|catch you later"
    r"|nos vemos|como estas|que tal|mucho gusto|de nada|igualmente)\b"
)
# Sentences that only acknowledge or announce ("Thanks for sending the options.", "A quick
# question about the ISA."): what they name is said elsewhere, by the other side or next.
ACKNOWLEDGEMENTS = re.compile(
    r"^\W*(?:thanks?|thank you|many thanks|cheers|grazie|gracias|muchas gracias)\b"
    r"|^\W*(?:i have |i've got |just |one more |another )?(?:a )?(?:quick |small |short )?"
    r"question\b|^\W*(?:ho )?una (?:domanda|piccola domanda)\b|^\W*(?:tengo )?una pregunta\b"
    # Putting the subject off: "let's talk about it next time", "ne parliamo al prossimo
    # incontro", "lo hablamos luego", "let me think about it".
    r"|^\W*(?:let's|lets|we can|we'll|we will)\s(?:talk|discuss|chat)\s(?:about\s)?(?:it|that|this)\b"
    r"|^\W*(?:let me|i'll|i will|i need to)\sthink\s(?:about\s)?(?:it|that)\b"
    r"|^\W*(?:ne|lo|ce ne)\s(?:parliamo|riparliamo|discutiamo|parleremo)\b|^\W*ci (?:penso|pensero)\b"
    r"|^\W*(?:lo|ya lo)\s(?:hablamos|hablaremos|comentamos|pienso|pensare)\b|^\W*ya hablaremos\b"
)
# A sentence that only greets, whoever it greets ("Morning!", "Evening, all.", "Hey there!",
# "Buonasera a tutti!", "Buenas, chicos."): a name after it is set aside before (vocative).
GREETING = re.compile(
    r"^\W*(?:(?:good|buona|buon|buenas|buenos)\s)?(?:morning|afternoon|evening|night|day|hi"
    r"|hello|hey|hiya|howdy|g'day|yo|welcome back|buongiorno|buonasera|sera|giorno|bentornat[oa]"
    r"|hola|buenas|dias|tardes|noches|bienvenid[oa])(?:[\s,]+(?:there|again|all|everyone|everybody"
    r"|guys|folks|team|a tutti|tutti|ragazzi|a todos|todos|chicos))?\W*$"
)
# The parts of a sentence that ends in a question: the statements before it still count
# ("I moved last month, can you update my address?"). A comma before a number does not
# part ("by June 15, 2024, can you…", "3,500 francs"), nor one before a relative clause
# (", which has increased to $220": what it says belongs to the part before it). A dash
# between words (" - ", " — ") sets an aside or a request apart, as a comma does.
QUESTION_PARTS = re.compile(
    r"[;:]|,(?!\s?\d)(?!\s*(?i:which|who|whose|whom)\b)|¿|\s[-\u2013\u2014]\s"
)
QUESTION_START = re.compile(
    r"^\W*(?:can|could|would|will|do|does|did|is|are|am|was|were|have|has|should|shall|may"
    r"|what|how|when|where|why|who|which|whose|whom|puo|puoi|potrebbe|potresti|potete|come"
    r"|quando|dove|perche|chi|cosa|quale|quali|quanto|quanta|quanti|quante|puede|puedes|podria"
    r"|podrias|pueden|como|cuando|donde|por que|quien|quienes|que|cual|cuales|cuanto|cuanta"
    r"|cuantos|cuantas)\b"
)
NEGATION_START = re.compile(
    r"^(?:to\s|di\s|de\s)?(?:not|never|non|no|nunca|mai)\b|^(?:against|contro|en contra de)\b"
)
# Greetings and fillers before a statement ("Thanks, I prefer…", "Hola Ana, …"), dropped from
# the content; only when punctuation follows, so "No quiero…" keeps its negation.
DISCOURSE = re.compile(
    r"^(?:(?:hi|hello|hey|dear|ok|okay|well|so|yes|yeah|no|thanks|thank you|oh|also|anyway|hmm+|um+"
    r"|by the way|btw|actually|honestly|look|listen|as i said|ciao|salve|buongiorno|buonasera"
    r"|allora|dunque|s[iì]|grazie|beh|ecco|comunque|senta|guardi|certo|perfetto|come le dicevo"
    r"|hola|buenos d[ií]as|buenas tardes|bueno|pues|vale|gracias|mira|oiga|oye|claro|perfecto"
    r"|por cierto)(?:\s(?-i:[A-ZÀ-Þ])\w*)?\s*[,!.:;\u2014\u2013-]+\s*)+",
    re.IGNORECASE,
)
# Clause joints: a sentence splits there only when both sides are statements.
CONJUNCTION = re.compile(
    r"\s*[,;:]?\s+(?:and|but|so|because|while|whereas|e|ed|ma|però|pero|quindi|perciò|percio"
    r"|perché|perche|così|mentre|y|así que|porque|ya que|mientras que)\s+|\s*[,:]\s+",
    re.IGNORECASE,
)
