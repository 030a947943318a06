"""The words that name a secret in English, Italian and Spanish, and the words around a
name that lead to its value or say there is none: the vocabulary ``named`` reads with.

A name is strong ("password", "PIN", "CVV", "codice segreto") or weak: a word that names a
secret only sometimes ("la clave es diversificar", "the key is to start early", "pass",
"token")."""

from __future__ import annotations

import re

from memories.services.secret_detectors.values import vocabulary

# (kind, strength, names). Each name is a phrase (regular expression) of whole words; at a
# place where two names start, the longer is taken.
NAMES: list[tuple[str, str, str]] = [
    (
        "password",
        "strong",
        r"passwords?|passwd|pwd|pw|pass ?code|pass ?phrase|memorable word|secret word|"
        r"access code|login code|seed phrase|recovery phrase|mnemonic(?: phrase)?|"
        r"parola d'ordine|parola segreta|codice (?:di |d')accesso|codice segreto|"
        r"frase (?:di recupero|segreta)|contrase(?:ñ|n)as?|clave (?:de acceso|secreta)|"
        r"c(?:ó|o)digo (?:de acceso|secreto)|palabra (?:secreta|de paso)|"
        r"frase de recuperaci(?:ó|o)n",
    ),
    (
        "pin",
        "strong",
        r"pins?(?: code| number)?|(?:codice|numero|c(?:ó|o)digo|n(?:ú|u)mero) pin",
    ),
    (
        "security_code",
        "strong",
        r"cvv2?|cvc2?|security code|card security code|"
        r"(?:code|digits|numbers) on the back(?: of (?:the|my) card)?|"
        r"codice di sicurezza|codice (?:dietro|sul retro)(?: (?:la|della) carta)?|"
        r"(?:tre )?cifre (?:dietro|sul retro)|c(?:ó|o)digo de seguridad|"
        r"c(?:ó|o)digo (?:de (?:atr(?:á|a)s|detr(?:á|a)s)|del reverso)|"
        r"(?:tres )?d(?:í|i)gitos (?:de (?:atr(?:á|a)s|detr(?:á|a)s)|del reverso)",
    ),
    (
        "code",
        "strong",
        r"otp|one[- ]time (?:code|password|passcode)|verification code|sms code|"
        r"(?:alarm|door|gate|safe) code|codice (?:otp|sms|di verifica|dispositivo)|"
        r"codice (?:dell'allarme|del cancello|della porta|della cassaforte)|"
        r"c(?:ó|o)digo (?:otp|sms|de verificaci(?:ó|o)n|de (?:la )?(?:alarma|puerta|caja fuerte))",
    ),
    (
        "api_key",
        "weak",
        r"(?:secret )?access key|secret key|api[ -]?(?:key|token)|(?:access|refresh|auth) token|"
        r"client secret|bearer|tokens?|keys?|secret|secreta|"
        r"chiave(?: api| segreta| di accesso)?|clave api|token (?:api|di accesso|de acceso)",
    ),
    ("password", "weak", r"pass|clave|login(?: details)?|credentials|credenziali|credenciales"),
]
PLURALS = ("passwords", "contraseñas", "contrasenas")
NAME = re.compile(
    "|".join(rf"(?P<n{i}>(?<![\w'’])(?:{names})(?![\w]))" for i, (_, _, names) in enumerate(NAMES)),
    re.IGNORECASE,
)

# What joins a name to its value after it ("… is", "…: ", "… è", "… es", "sigue siendo"),
# in lower case with accents ("è" is, "e" and).
LINKS = vocabulary(
    """
    is was are be 's ’s = - : it's it’s è e' é era sarebbe sarà sono resta rimane es son
    será sería sigue queda
    """
)
# Links of a plural name, which speak of such secrets in general: "le password sono una
# seccatura", "my PINs are all different" (a value no one takes for a word still counts).
PLURAL_LINKS = vocabulary("are were sono erano son eran")
# Before the value, after the link: "is just sunshine", "è ancora …", "es el 4471".
FILLERS = vocabulary(
    """
    just still now actually only simply currently always already also ancora sempre ora
    adesso solo semplicemente proprio todavia ahora simplemente siempre ya tambien
    siendo diventata diventato stata stato sido
    """
)
ARTICLES = vocabulary("the a an il lo la l' i gli le el los las un una")
# After a name: the verb of setting it, which leads to its value ("come password ho messo
# Girasole88"); "I've changed the password to …" is read from the verb before the name.
SET_AFTER = vocabulary(
    """
    messo usato scelto impostato puesto usado elegido used chose picked
    """
)
SET_BEFORE = re.compile(
    r"\b(?:set|changed?|reset|updated?|cambiat[oa]|impostat[oa]|modificat[oa]|"
    r"cambiad[oa]|cambi(?:é|e)|puesto|actualizad[oa])\b[^.!?\n]{0,24}$",
    re.IGNORECASE,
)
TO = vocabulary("to in a into")
# A verb of setting after the name: "my password used to be …, but I changed it to …".
SETTING = re.compile(
    r"(?:set|changed?|reset|updated?|cambiat[oaie]|impostat[oa]|cambiad[oa]|cambi[ée]|puesto)$"
)
# What may stand between a value and the name after it: "… is my new password", "…, that's
# my password", "… come password", "…, esa es mi contraseña" (lower case, accents kept).
JOINING_BEFORE = vocabulary(
    """
    is was as that's that’s thats it's that this my our your his her the new old current
    temporary è e' la il mia mio nuova nuovo questa questo quella come per es esa ese
    este esta mi su el nueva nuevo como para
    """
)
LINKING_BEFORE = vocabulary("is was as that's that’s thats è e' come es como")
NEGATION = vocabulary("not non no n't isn't wasn't isn’t wasn’t")
CONJUNCTIONS = vocabulary("and but or so e ma o y pero ni")

# Said of a password without giving it: "the password is wrong", "la password è scaduta",
# "mi contraseña es segura".
NOT_VALUES = vocabulary(
    """
    something anything nothing what whatever different new old same wrong right correct
    easy hard long short weak strong secure safe changed expired required needed missing
    forgotten lost set saved stored written fine good bad ok okay important simple valid
    invalid temporary personal private confidential secret unique random obvious mine
    yours his hers ours theirs here there below above attached enclosed unknown known
    blocked locked case sensitive complicated complex tricky useless broken today
    tomorrow letters numbers symbols characters words digits qualcosa niente nulla
    diversa diverso nuova nuovo vecchia vecchio sbagliata sbagliato giusta giusto
    corretta corretto scaduta scaduto uguale stessa stesso sicura sicuro facile
    difficile lunga lungo corta corto debole forte valida valido importante semplice
    personale privata riservata segreta mia tua sua nostra qui li sotto sopra allegata
    bloccata bloccato provvisoria temporanea complicata oggi domani lettere numeri
    simboli caratteri parole cifre algo nada distinta distinto nueva nuevo vieja viejo
    incorrecta incorrecto correcta correcto igual misma mismo segura seguro facil
    dificil larga largo corta corto debil fuerte valida valido importante sencilla
    sencillo personal privada confidencial secreta mia tuya suya nuestra aqui ahi abajo
    arriba adjunta bloqueada bloqueado provisional temporal complicada hoy manana
    caducada caducado letras numeros simbolos caracteres palabras digitos
    """
)
# A participle or a gerund: "the password was reset", "… è cambiata", "… está bloqueada".
INFLECTED = re.compile(r"(?:ed|ing|[aiu]t[oaie]|[ai]d[oa]s?|mente|ly)$")


def name_in(text: str) -> tuple[str, str] | None:
    """The (kind, strength) of the last name of a secret ``text`` holds, or None."""
    last = None
    for last in NAME.finditer(text):  # noqa: B007
        pass
    if last is None:
        return None
    kind, strength, _ = NAMES[int(last.lastgroup[1:])]  # type: ignore[index]
    return kind, strength
