"""Secrets as people say them, in English, Italian and Spanish: the value before or after
its name, in quotes, spelled out or in several words, under the names and abbreviations
people use; card numbers in any grouping; keys and tokens whole; and a secret said over
the two events of a question and its answer. Talk of passwords, keys and codes that gives
none is kept as said. Measured on the labelled set in memories/evaluation/data/secrets.json."""

from __future__ import annotations

import pytest

from memories.evaluation import secrets as evaluation
from memories.services.secrets import only_a_secret, withheld

PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEowIBAAKCAQEA7Vj1pQx3dLqW9kFz2N8yXcV0bT5rUeK4hP6sJmA1oGiC3nZw\n"
    "-----END RSA PRIVATE KEY-----"
)
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJlbW1hIiwiaWF0IjoxNzE2MjM5MDIyfQ"
    ".3q2x7wEXAMPLEsigNATURExx9Kf0aZ"
)


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        # Before the name, after it, in quotes, abbreviated.
        (
            "I set it to 'S3cretPass!' as the password.",
            "I set it to '[password withheld]' as the password.",
        ),
        ("It's Tulip#8832, that's my password.", "It's [password withheld], that's my password."),
        (
            "The login for the bank site: user emma, pw Zebra2024!",
            "The login for the bank site: user emma, pw [password withheld]",
        ),
        ("my pass is Tr0ub4dor&3", "my pass is [password withheld]"),
        ("pwd: Wint3r!sComing", "pwd: [password withheld]"),
        (
            "Honestly the password is just sunshine.",
            "Honestly the password is just [password withheld].",
        ),
        (
            "Il codice di accesso all home banking è Tr0ub4dor&3",
            "Il codice di accesso all home banking è [password withheld]",
        ),
        ("Tramonto_2023, questa è la password.", "[password withheld], questa è la password."),
        (
            "Ho messo 'Margherita#77' come password.",
            "Ho messo '[password withheld]' come password.",
        ),
        ("contraseña Perro1234", "contraseña [password withheld]"),
        (
            "Mi clave de la banca online es Tr0ub4dor&3",
            "Mi clave de la banca online es [password withheld]",
        ),
        ("Toro#Bravo55, esa es mi contraseña.", "[password withheld], esa es mi contraseña."),
        # Several words, spelled out.
        (
            "My debit card PIN is four four seven one.",
            "My debit card PIN is [PIN withheld].",
        ),
        ("my pin is 4 4 7 1", "my pin is [PIN withheld]"),
        (
            "Password for the trading app: P a s s w o r d 1 2 3",
            "Password for the trading app: [password withheld]",
        ),
        (
            "The passphrase is 'river stone velvet anchor'.",
            "The passphrase is '[password withheld]'.",
        ),
        (
            "si tre volte. ma il pin è giusto, è 9173",
            "si tre volte. ma il pin è giusto, è [PIN withheld]",
        ),
        (
            "Il PIN del bancomat è quattro quattro sette uno.",
            "Il PIN del bancomat è [PIN withheld].",
        ),
        ("El pin es nueve cero dos uno.", "El pin es [PIN withheld]."),
        # Security codes under the names people give them.
        ("The code on the back is 214.", "The code on the back is [security code withheld]."),
        (
            "Il codice dietro la carta è 482.",
            "Il codice dietro la carta è [security code withheld].",
        ),
        (
            "El código de atrás de la tarjeta es 317.",
            "El código de atrás de la tarjeta es [security code withheld].",
        ),
        (
            "Il codice OTP che mi è arrivato è 551902.",
            "Il codice OTP che mi è arrivato è [code withheld].",
        ),
        # Card numbers in any grouping, when a card or a payment is spoken of.
        ("card 4111.1111.1111.1111, expiry 09/28", "card [card number withheld], expiry 09/28"),
        ("Charge it to 4111111111111111 please.", "Charge it to [card number withheld] please."),
        (
            "Addebitate pure sulla 4012-8888-8888-1881.",
            "Addebitate pure sulla [card number withheld].",
        ),
        ("Tarjeta: 3714 496353 98431 (Amex).", "Tarjeta: [card number withheld] (Amex)."),
        # Keys and tokens whole.
        (
            "The AWS access key is AKIAIOSFODNN7EXAMPLE and the secret is "
            "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY.",
            "The AWS access key is [API key withheld] and the secret is [API key withheld].",
        ),
        (f"Here is the key:\n{PEM}\nThanks!", "Here is the key:\n[API key withheld]\nThanks!"),
        (
            "Authorization: Bearer 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d",
            "Authorization: Bearer [API key withheld]",
        ),
        (
            f"The portal gave me this token: {JWT}",
            "The portal gave me this token: [API key withheld]",
        ),
        ("The token is abc123def456ghi789jkl", "The token is [API key withheld]"),
        (
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "aws_secret_access_key = [API key withheld]",
        ),
        # The value in the next sentence, its subject left out.
        (
            "I finally changed the online banking password. It's now Walnut#Creek9, write it down.",
            "I finally changed the online banking password. It's now [password withheld], write "
            "it down.",
        ),
        (
            "Ho cambiato il PIN del bancomat. Adesso è 5521.",
            "Ho cambiato il PIN del bancomat. Adesso è [PIN withheld].",
        ),
        # A card number that fails the Luhn check, printed as a card's and named one.
        (
            "My Visa card is 4000 1234 5678 9010, expiring next year.",
            "My Visa card is [card number withheld], expiring next year.",
        ),
        # A question and its answer said in one event.
        ("Il mio PIN? 4471.", "Il mio PIN? [PIN withheld]."),
        ("¿La contraseña? Perro1234, creo.", "¿La contraseña? [password withheld], creo."),
        (
            "La clave API es 5f4dcc3b5aa765d61d8327deb882cf99.",
            "La clave API es [API key withheld].",
        ),
        # A "no" on the way to the value is not the name's negation.
        (
            "Te dejo la contraseña de la app para no olvidarla: Lavapies_2019",
            "Te dejo la contraseña de la app para no olvidarla: [password withheld]",
        ),
    ],
)
def test_a_secret_as_people_say_it_is_withheld_whole(said, kept):
    assert withheld(said)[0] == kept


@pytest.mark.parametrize(
    "said",
    [
        "The password was reset by IT.",
        "The password is changing next week, so don't save it anywhere.",
        "The PIN is 4 digits, not 6.",
        "The key is to keep six months of expenses in cash.",
        "Bearer bonds are not something I want to hold.",
        "My card ending in 4471 was declined at the hotel.",
        "Policy number 88-1234567 is the life cover with Aviva.",
        "We're in room 412 at the Savoy until Friday.",
        "My IBAN is GB82 WEST 1234 5698 7654 32.",
        "codice fiscale RSSMRA80A01H501U",
        "La password è cambiata la settimana scorsa, ora funziona.",
        "La password è troppo corta secondo l'app.",
        "Il codice di sicurezza mi è scaduto prima che lo usassi.",
        "Il numero di conto è 000012345678.",
        "La chiave è diversificare e non farsi prendere dal panico.",
        "La clave es diversificar la cartera.",
        "La clave del éxito es la paciencia.",
        "Mi contraseña es segura, no se preocupe.",
        "La contraseña no es segura, la cambio mañana.",
        "Mi IBAN es ES91 2100 0418 4502 0005 1332.",
        "Estamos en la habitación 305 del hotel.",
        "Le password sono una seccatura, ne ho troppe.",
        "I changed the password in March.",
        "My PIN? I forgot it, sorry.",
        "I reset my PIN yesterday. It's 2025 already and I keep forgetting things.",
        "I forgot my password again. It's Monday, what did you expect.",
        "Cambié la contraseña. Ahora es más segura.",
        "Call me on 0044 7700 9001 2345 about the card.",
    ],
)
def test_talk_of_secrets_that_gives_none_is_kept_as_said(said):
    assert withheld(said) == (said, ())


@pytest.mark.parametrize(
    ("asked", "answer", "kept"),
    [
        ("My password is", "Tr0ub4dor&3", "[password withheld]"),
        ("What's your PIN?", "4471", "[PIN withheld]"),
        ("And the three digits on the back?", "It's 737.", "It's [security code withheld]."),
        (
            "Could you read me the long number on the card?",
            "Sure, 4242424242424242.",
            "Sure, [card number withheld].",
        ),
        ("Qual è il PIN?", "quattro quattro sette uno", "[PIN withheld]"),
        (
            "La password del portale qual è?",
            "Gatto.2024, con il punto.",
            "[password withheld], con il punto.",
        ),
        ("¿Cuál es tu contraseña?", "Perro1234", "[password withheld]"),
        ("¿Me lee el código que le hemos enviado por SMS?", "Sí: 735 201.", "Sí: [code withheld]."),
    ],
)
def test_an_answer_to_a_question_for_a_secret_is_withheld(asked, answer, kept):
    assert withheld(answer, asked=asked)[0] == kept
    assert withheld(answer) == (answer, ())  # alone, it says no secret


@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("What's your PIN?", "I'd rather not say it in a chat."),
        ("What's the card number?", "The one ending in 4471, the Visa."),
        ("My password is", "actually, let me call you instead."),
        ("Qual è il numero della carta?", "Quella che finisce con 1881."),
        ("Mi conferma il numero di conto?", "IT60X0542811101000000123456"),
        ("¿Cuál es tu número de póliza?", "88-1234567"),
        ("¿En qué habitación está?", "En la 305."),
    ],
)
def test_an_answer_that_gives_no_secret_is_kept_as_said(asked, answer):
    assert withheld(answer, asked=asked) == (answer, ())


def test_a_key_given_after_a_turn_that_speaks_of_it_is_withheld_however_long_the_answer():
    asked = "You'll need an API token from the vendor's dashboard."
    answer = "Done, here it is: Zq8xW2vN4mK7pL1rT5yB, paste it into the form when you can."
    assert withheld(answer, asked=asked)[0] == (
        "Done, here it is: [API key withheld], paste it into the form when you can."
    )
    assert withheld(answer) == (answer, ())  # alone, nothing says it is a key
    reference = "Sure, the reference for the meeting is Q3-2026-BOARD-REVIEW."
    assert withheld(reference, asked=asked) == (reference, ())


@pytest.mark.parametrize(
    "code",
    [
        "ok = bcrypt.checkpw(password, hashed_password)",
        "const { username, password } = req.body;",
        "jwt.sign({ id: user._id }, secretKey, { expiresIn: '1h' })",
        "headers = {'Authorization': 'Bearer YOUR_ACCESS_TOKEN'}",
        "token = 'your_jwt_token_here'",
        "The API call: requests.post('https://graph.instagram.com/v13.0/me/media', token)",
        "model = torch.hub.load('ultralytics/yolov5') # needs no API key",
        '<Field type="password" name="password" />',
        "errors.password = 'Password must be at least 8 characters'",
        "My access key has the ARN policy/AmazonEC2ReadOnlyAccess attached.",
    ],
)
def test_code_that_names_a_secret_but_holds_none_is_kept(code):
    """Messages paste code: names, paths, addresses and placeholders are no secrets."""
    assert withheld(code) == (code, ())


def test_what_is_withheld_is_not_withheld_again():
    """The turn before and the re-embedding job read stored text through the detector."""
    for said in ("password: [password withheld]", "Il PIN è [PIN withheld], non dirlo."):
        assert withheld(said) == (said, ())


@pytest.mark.parametrize(
    ("sentence", "only"),
    [
        ("password: [password withheld]", True),
        ("Il PIN del bancomat è [PIN withheld].", True),
        ("[password withheld], esa es mi contraseña del bróker.", True),
        ("My new password is [password withheld], I changed it yesterday.", False),
        ("Please charge the retainer to my Visa, [card number withheld].", False),
        ("Mi contraseña es [password withheld] y la cambio cada mes.", False),
        ("We are moving to Lugano in May.", False),
    ],
)
def test_a_sentence_that_carried_only_a_secret_is_told_apart(sentence, only):
    assert only_a_secret(sentence) is only


def test_the_labelled_set_holds_both_sides_in_three_languages():
    rows = evaluation.load()
    assert len(rows) >= 300
    assert {r["lang"] for r in rows} == {"en", "it", "es"}
    for lang in ("en", "it", "es"):
        mine = [r for r in rows if r["lang"] == lang]
        assert sum(bool(r["secrets"]) for r in mine) >= 50
        assert sum(not r["secrets"] for r in mine) >= 50
        assert sum(bool(r.get("before")) for r in mine) >= 10
    for row in rows:
        assert all(secret in row["text"] for secret in row["secrets"]), row


def test_the_detector_on_the_labelled_set():
    """The issue's line: 95 % of secrets withheld with nothing of their value left, 97 % of
    the look-alikes kept as said (docs/decisions/0059 has the figures)."""
    result = evaluation.evaluate(evaluation.load())
    overall = result["overall"]
    assert overall["withheld_share"] >= 0.95
    assert overall["kept_share"] >= 0.97
    for scores in result["by_language"].values():
        assert scores["withheld_share"] >= 0.95
        assert scores["kept_share"] >= 0.97


def test_a_secret_partly_withheld_counts_as_missed():
    result = evaluation.evaluate(
        [
            {"lang": "en", "text": "My PIN is 4471.", "secrets": ["4471"]},
            # The value is said as a hint: no detector reads it.
            {
                "lang": "en",
                "text": "My password is my dog's name, Rex2015.",
                "secrets": ["Rex2015"],
            },
            {"lang": "en", "text": "The PIN is on the back of the letter.", "secrets": []},
            {"lang": "en", "before": "What's your PIN?", "text": "4471", "secrets": ["4471"]},
        ]
    )
    assert [r["right"] for r in result["rows"]] == [True, False, True, True]
    assert result["overall"] == {
        "sentences": 4,
        "secrets": 3,
        "withheld": 2,
        "withheld_share": 0.667,
        "look_alikes": 1,
        "kept": 1,
        "kept_share": 1.0,
    }
