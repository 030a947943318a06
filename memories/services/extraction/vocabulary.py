"""Vocabularies, en/it/es: the canonical values of the well-known attributes (language,
report frequency, meeting time, contact channel, risk, marital status, one-person roles,
head nouns), the words that make or end a phrase, and the words that carry no fact (one
home for every stopword and filler list).
Like the cue tables (``patterns``), every entry is in folded form.
"""

# One entry per line, like a table: exempt from the line length and the formatter.
# ruff: noqa: E501
from __future__ import annotations

import re

# Canonical values of the well-known attributes: the earliest mention in a clause wins.
# fmt: off
LANGUAGE = re.compile(r"\b(?:in|en|into|speak|speaking|talk|prefer|preferably|parlare|parlo|parliamo|preferisco|hablar|hablo|hablamos|prefiero|lingua|idioma)\s(?:lingua\s)?(english|inglese|ingles|italian|italiano|spanish|spagnolo|espanol|castellano|french|francese|frances|german|tedesco|aleman|portuguese|portoghese|portugues)\b")
LANGUAGE_CODES = {"engl": "en", "ingl": "en", "ital": "it", "span": "es", "spag": "es", "espa": "es", "cast": "es", "fren": "fr", "fran": "fr", "germ": "de", "tede": "de", "alem": "de", "port": "pt"}
REPORTS = re.compile(r"\b(?:reports?|statements?|updates?|summar(?:y|ies)|newsletters?|rendicont[oi]|estratt[oi]|aggiornament[oi]|resocont[oi]|informes?|extractos?|resumen(?:es)?|actualizacion(?:es)?|estados? de cuenta)\b")
FREQUENCIES = {
    r"weekly|every week|once a week|settimanal[ei]|ogni settimana|semanal(?:es)?|cada semana": "weekly",
    r"monthly|every month|once a month|mensil[ei]|ogni mese|una volta al mese|mensual(?:es)?|cada mes|una vez al mes": "monthly",
    r"quarterly|every (?:three|3) months|every quarter|trimestral[ei]|ogni (?:tre|3) mesi|trimestral(?:es)?|cada (?:tres|3) meses": "quarterly",
    r"semi-?annual(?:ly)?|every (?:six|6) months|twice a year|semestral[ei]|ogni (?:sei|6) mesi|semestral(?:es)?|cada (?:seis|6) meses": "semiannual",
    r"yearly|annual(?:ly)?|every year|once a year|annual[ei]|ogni anno|anual(?:es)?|cada ano|una vez al ano": "yearly",
}
DAYPARTS = {
    r"mornings?|mattin[ao]|mattinata|(?:por|de|en) la manana|las mananas": "morning",
    r"lunch ?time|at lunch|pausa pranzo|ora di pranzo|mediodia": "lunchtime",
    r"afternoons?|pomeriggi?o?|(?:por|de|en) la tarde|las tardes": "afternoon",
    r"evenings?|(?:la )?sera|serata|(?:por|de|en) la noche|las noches": "evening",
}
CHANNELS = {  # in order of specificity: "video call" before "call", "whatsapp message" before "message"
    r"video ?calls?|videochiamat[ae]|videollamadas?|zoom|teams": "video",
    r"whats ?app": "whatsapp",
    r"in person|face to face|face-to-face|di persona|in presenza|de persona|en persona|cara a cara": "in_person",
    r"per posta|by post|lettera|correo postal|carta": "post",
    r"e-?mails?|mail|correos?(?: electronicos?)?|posta elettronica": "email",
    r"sms|text messages?|texts?|texting|messaggi?o?|mensajes?": "sms",
    r"phones?|telephone|calls?|calling|ring me|mobile|telefon[oi]|telefonat[ae]|chiamat[ae]|chiamare|chiamarmi|chiamatemi|chiamami|chiamaci|chiamateci|(?:mi|ci) (?:ri)?chiami|cellulare|llamadas?|llamar(?:me)?|llamen|llamame|llameme|llamenme|llamadme|llamanos|llamenos|movil": "phone",
}
RISK_LEVELS = {
    r"low[- ]risk|risk[- ]averse|conservative|cautious|prudent|defensive|basso rischio|rischio basso|prudente|conservativ[oa]|conservat(?:ore|rice)|difensiv[oa]|caut[oa]|bajo riesgo|riesgo bajo|conservador(?:a)?|defensiv[oa]|cautelos[oa]": "low",
    r"medium[- ]risk|moderate|balanced|medio rischio|rischio medio|moderat[oa]|bilanciat[oa]|equilibrat[oa]|riesgo medio|moderad[oa]|equilibrad[oa]": "medium",
    r"high[- ]risk|risky|aggressive|dynamic|alto rischio|rischio alto|rischios[oaie]|aggressiv[oa]|dinamic[oa]|alto riesgo|riesgo alto|arriesgad[oa]s?|agresiv[oa]": "high",
}
# A risk word counts when the clause is about investing, or when it can only mean risk.
RISK_CONTEXT = re.compile(r"\b(?:risk\w*|invest\w*|portfolio|profile|approach|strateg\w*|allocation|products?|rischi?o?|investitor\w*|portafoglio|profilo|approccio|prodotti|persona|riesgos?|inversor\w*|inversi\w*|invertir|cartera|perfil|enfoque|estrategia|productos)\b")
RISK_ONLY = re.compile(r"\b(?:(?:low|high)[- ]risk|risk[- ]averse|conservative|aggressive|conservativ[oa]|aggressiv[oa]|conservador(?:a)?|agresiv[oa])\b")
MARITAL_STATUSES = {
    r"married|sposat[oaie]|casad[oa]s?|me case|nos casamos": "married",
    r"divorced|divorziat[oaie]|ho divorziato|divorciad[oa]s?|me divorcie": "divorced",
    r"widowed|a widow(?:er)?|vedov[oaie]|viud[oa]s?": "widowed",
    r"separated|separat[oaie]|separad[oa]s?|me separe": "separated",
    r"engaged|fidanzat[oaie]|comprometid[oa]s?": "engaged",
    r"single|celibe|nubile|solter[oa]s?": "single",
}
# One-person roles: a new name for the same role contradicts the old one.
# The roles that make a marriage: saying one is married, however else the statement goes.
SPOUSE_ROLES = frozenset({"wife", "husband"})
# How many children a statement says one has ("I have two kids", "non ho figli", "tengo un
# hijo"): the count is a fact of its own, so a new count supersedes the old one.
CHILDREN = re.compile(
    r"\b(?:i|we)\s(?:have|'ve got|have got|ve got)\s(?P<n>no|\w+)\s(?:\w+\s)?(?:children|kids|child|kid|sons?|daughters?)\b"
    r"|\b(?:i|we)\s(?:don't|do not|dont)\shave\s(?:any\s)?(?P<none_en>children|kids)\b"
    r"|\b(?:ho|abbiamo)\s(?P<n_it>\w+)\s(?:figli[oe]?|figlia|bambin[ie])\b"
    r"|\bnon\s(?:ho|abbiamo)\s(?P<none_it>figli|bambini)\b"
    r"|\b(?:tengo|tenemos)\s(?P<n_es>\w+)\s(?:hij[oa]s?|nin[oa]s?)\b"
    r"|\bno\s(?:tengo|tenemos)\s(?P<none_es>hijos|ninos)\b"
)
ONE_PERSON_ROLES = {
    "wife": "wife", "moglie": "wife", "esposa": "wife", "mujer": "wife",
    "husband": "husband", "marito": "husband", "esposo": "husband", "marido": "husband",
    "partner": "partner", "compagno": "partner", "compagna": "partner", "pareja": "partner",
    "accountant": "accountant", "commercialista": "accountant", "contador": "accountant", "contadora": "accountant", "contable": "accountant", "gestor": "accountant", "gestora": "accountant", "asesor fiscal": "accountant", "asesora fiscal": "accountant", "tax adviser": "accountant", "tax advisor": "accountant",
    "lawyer": "lawyer", "attorney": "lawyer", "solicitor": "lawyer", "avvocato": "lawyer", "avvocata": "lawyer", "abogado": "lawyer", "abogada": "lawyer",
    "notary": "notary", "notaio": "notary", "notario": "notary", "banker": "banker", "doctor": "doctor", "medico": "doctor",
}
# Head nouns named alike across languages, so that "crypto" and "criptomonedas" meet.
HEAD_NOUNS = {
    "crypto": "crypto cryptos cryptocurrency cryptocurrencies bitcoin criptovalute criptovaluta cripto criptomonedas criptomoneda",
    "bonds": "bond bonds obbligazioni obbligazione bonos bono btp btps",
    "stocks": "stock stocks shares equities equity azioni acciones",
    "funds": "fund funds fondi fondo fondos",
    "etf": "etf etfs",
    "real_estate": "estate property properties immobili inmuebles",
    "gold": "gold oro",
    "risk": "risk risks rischio rischi riesgo riesgos",
    "cash": "cash liquidita liquidez",
}
# Words skipped before a noun phrase (articles, possessives, adverbs, prepositions) and words
# that end one; stop words do not count as content ("Tomorrow works" says nothing).
FILLERS = (
    "it them the a an any some my our your his her their this that these those more less much many all most really very always never also just only even too quite to in on at with by for of about into from "
    "il lo la i gli le un uno una del dello della dei degli delle al allo alla ai agli alle nel nello nella nei negli nelle sul sulla mio mia miei mie nostro nostra suo sua piu meno molto molti molte tanto sempre mai anche solo di a con per da su tra fra "
    "el los las unos unas mi mis sus nuestro nuestra mas menos muy mucho mucha muchos muchas todo toda todos todas siempre nunca tambien de en por para sobre entre me esto eso questo quello cio"
)
PHRASE_BREAKS = (
    "in on at with by for of about into from to than over and or but because since when if that which who while as "
    "due despite although though unless without instead rather versus vs except so also too "
    "di a con per da su tra fra e o ma che perche quando se come nel nella sul sulla dal dalla del della dei degli delle al alla piuttosto invece "
    "nonostante malgrado senza tranne anche "
    "de en por para sobre entre y pero que porque cuando si como "
    "aunque pese sin excepto tambien"
)
STOPWORDS = (
    "i i'm im you we he she they it me us them is are am was were be been have has had do does it's that's there ok okay thanks hi hello please today tonight tomorrow next week month year this "
    "io noi lui lei sono e ho ha hanno abbiamo siamo ci si grazie ciao oggi domani prossima prossimo settimana mese anno "
    "yo nosotros el ella soy es estoy esta tengo tiene hemos he gracias hola favor hoy manana semana que viene proxima"
)
# Capitalised words that are not names: possessives, articles, conjunctions, titles.
NOT_NAMES = "i i'm my our the and also mio mia miei mie nostro nostra nostri il la lo e anche el los las mi mis nuestro nuestra y tambien dr mr mrs ms dott dottor dottoressa sig sr sra don dona avvocato ingegner"
# fmt: on


# --- Words that carry no fact, for comparing statements -----------------------------------
# The batch jobs (fusion, consolidation, summaries) and relate's quantity test compare two
# statements on the words that are left once these are set aside.
def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Grammar, not meaning. Pronouns and possessives are not here: "I prefer" and "she prefers"
# are about different people.
GRAMMAR_WORDS = _word_set(
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
# What two statements about one thing may differ by: grammar, emphasis, and the words
# that say when or to whom rather than what.
FILLER_WORDS = (
    GRAMMAR_WORDS | WEAK_WORDS | _word_set("you your our today anymore ormai instead invece")
)
# Reactions and chat words that tell no fact on their own ("That's great!", "Wow, so
# cool", "Davvero? Bellissimo!", "¡Qué bien!"): a sentence made only of these, grammar and
# formulas is not kept by the episodic layer.
REACTION_WORDS = _word_set(
    """
    great awesome amazing cool nice wonderful fantastic lovely good fine glad wow yay yeah
    yep yes no nope sure definitely absolutely totally exactly true right agree agreed
    sounds sound seems looks hear heard see know mean guess hope think thought feel
    really so such much lot lots thing things stuff something anything everything nothing
    sorry congratulations congrats welcome bye lol haha hahaha omg oh ah hmm um okay ok
    thanks thank well too also same indeed incredible awesome cute sweet super brilliant
    bello bella bellissimo bellissima fantastico ottimo perfetto grande bravo brava davvero
    vero giusto certo esatto sicuro capisco immagino penso spero sento cosa cose tanto
    niente qualcosa congratulazioni complimenti dai wow mamma mia beh boh
    genial increible bueno buena buenisimo perfecto claro cierto exacto verdad seguro
    entiendo imagino creo pienso espero siento cosas mucho nada algo felicidades
    enhorabuena vaya guau bien
    perfect excellent splendid terrific marvellous marvelous fabulous superb neat alright
    understood noted interesting
    eccellente splendido splendida benissimo bene va magnifico magnifica meraviglioso
    interessante capito
    excelente estupendo estupenda magnifico maravilloso fenomenal interesante entendido vale
    """
)
# Liking and disliking: telling with an object ("I love hiking"), a reaction without one.
SENTIMENT_WORDS = _word_set(
    """
    love loved loves like liked likes enjoy enjoyed adore hate hated miss missed
    amo adoro piace piaciuto piacciono odio adoro manca encanta encantado gusta gustado
    odio echo
    """
)
