"""Language detection on short memories: accuracy, fallbacks and time per text of the
detectors that are installed, on statements written for this benchmark (5-15 words, the
usual memory; names, amounts and product names included, as advisors write them) and on
fragments of 1-4 words (which should fall back to the tenant's language, not guess).

    .venv/bin/python bench/language_detection.py [--threshold 0.5]

``memoryhub``: what the write path uses (``memories.languages``), threshold included.
Other candidates are measured when importable (``lingua``, ``py3langid``, ``simplemma``),
each restricted to the languages memoryhub indexes.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SENTENCES = {
    "en": [
        "The client wants to retire early and move to Portugal.",
        "She prefers to be contacted by email rather than by phone.",
        "Her son Luca starts university in London next September.",
        "He sold the Tesla shares last week after the earnings report.",
        "They plan to buy a holiday home near Lake Como.",
        "Worried about inflation eating into the cash savings.",
        "Mortgage of 350k with Barclays, fixed rate until 2029.",
        "Does not want any exposure to tobacco or weapons.",
        "Monthly reports are enough, no need for weekly calls.",
        "His wife Anna handles the family budget and the taxes.",
        "Investments should stay liquid until the house sale closes.",
        "Risk profile is balanced, with a ten year horizon.",
        "Meeting moved to Thursday afternoon because of a dentist appointment.",
        "Inherited a flat in Madrid from her grandmother.",
        "Pays school fees for two children at a private school.",
        "Asked about the tax treatment of Swiss pension funds.",
        "Wants to donate part of the bonus to a children's charity.",
        "Uncomfortable with crypto after losing money in 2022.",
        "Prefers morning meetings on Zoom, never after six.",
        "The accountant, Mark Evans, needs the statements by March.",
    ],
    "it": [
        "Il cliente vuole andare in pensione presto e trasferirsi in Portogallo.",
        "Preferisce essere contattata via email piuttosto che per telefono.",
        "Suo figlio Luca inizia l'università a Londra a settembre.",
        "Ha venduto le azioni Tesla la settimana scorsa dopo la trimestrale.",
        "Vogliono comprare una casa per le vacanze vicino al lago di Como.",
        "Preoccupato che l'inflazione eroda i risparmi sul conto.",
        "Mutuo di 350 mila euro con Intesa, tasso fisso fino al 2029.",
        "Non vuole alcuna esposizione a tabacco o armi.",
        "Bastano i report mensili, niente chiamate settimanali.",
        "La moglie Anna gestisce il bilancio familiare e le tasse.",
        "Gli investimenti devono restare liquidi fino alla vendita della casa.",
        "Profilo di rischio bilanciato, orizzonte di dieci anni.",
        "Riunione spostata a giovedì pomeriggio per un appuntamento dal dentista.",
        "Ha ereditato un appartamento a Madrid dalla nonna.",
        "Paga la retta di due figli in una scuola privata.",
        "Ha chiesto del trattamento fiscale dei fondi pensione svizzeri.",
        "Vuole donare parte del bonus a un ente benefico per bambini.",
        "Diffidente verso le criptovalute dopo le perdite del 2022.",
        "Preferisce incontri al mattino su Zoom, mai dopo le sei.",
        "Il commercialista, Marco Bianchi, vuole gli estratti entro marzo.",
    ],
    "es": [
        "El cliente quiere jubilarse pronto y mudarse a Portugal.",
        "Prefiere que la contacten por correo en lugar de por teléfono.",
        "Su hijo Luca empieza la universidad en Londres en septiembre.",
        "Vendió las acciones de Tesla la semana pasada tras los resultados.",
        "Quieren comprar una casa de vacaciones cerca del lago de Como.",
        "Le preocupa que la inflación se coma sus ahorros.",
        "Hipoteca de 350 mil euros con Santander, tipo fijo hasta 2029.",
        "No quiere ninguna exposición al tabaco ni a las armas.",
        "Le bastan los informes mensuales, sin llamadas semanales.",
        "Su mujer Ana lleva el presupuesto familiar y los impuestos.",
        "Las inversiones deben seguir líquidas hasta que se venda la casa.",
        "Perfil de riesgo equilibrado, con un horizonte de diez años.",
        "La reunión pasó al jueves por la tarde por una cita con el dentista.",
        "Heredó un piso en Madrid de su abuela.",
        "Paga el colegio privado de sus dos hijos.",
        "Preguntó por la fiscalidad de los planes de pensiones suizos.",
        "Quiere donar parte del bonus a una fundación infantil.",
        "Desconfía de las criptomonedas desde que perdió dinero en 2022.",
        "Prefiere reuniones por la mañana en Zoom, nunca después de las seis.",
        "Su gestora, Montse Vidal, necesita los extractos antes de marzo.",
    ],
    "fr": [
        "Le client veut prendre sa retraite tôt et partir au Portugal.",
        "Elle préfère être contactée par courriel plutôt que par téléphone.",
        "Son fils commence l'université à Londres en septembre.",
        "Il a vendu ses actions Tesla la semaine dernière.",
        "Ils veulent acheter une maison de vacances près du lac de Côme.",
        "Inquiet que l'inflation ronge son épargne.",
        "Prêt immobilier de 350 000 euros à taux fixe jusqu'en 2029.",
        "Ne veut aucune exposition au tabac ni aux armes.",
        "Des rapports mensuels suffisent, pas d'appels chaque semaine.",
        "Sa femme gère le budget familial et les impôts.",
    ],
    "de": [
        "Der Kunde möchte früh in Rente gehen und nach Portugal ziehen.",
        "Sie möchte lieber per E-Mail als telefonisch kontaktiert werden.",
        "Sein Sohn beginnt im September das Studium in London.",
        "Er hat letzte Woche seine Tesla-Aktien verkauft.",
        "Sie wollen ein Ferienhaus am Comer See kaufen.",
        "Macht sich Sorgen, dass die Inflation seine Ersparnisse auffrisst.",
        "Hypothek von 350.000 Franken, fester Zins bis 2029.",
        "Will keine Anlagen in Tabak oder Waffen.",
        "Monatliche Berichte reichen, keine wöchentlichen Anrufe.",
        "Seine Frau kümmert sich um das Familienbudget und die Steuern.",
    ],
    "pt": [
        "O cliente quer se aposentar cedo e mudar-se para Portugal.",
        "Ela prefere ser contactada por email em vez de telefone.",
        "O filho começa a universidade em Londres em setembro.",
        "Vendeu as ações da Tesla na semana passada.",
        "Querem comprar uma casa de férias perto do lago de Como.",
        "Preocupado que a inflação coma as suas poupanças.",
        "Crédito habitação de 350 mil euros com taxa fixa até 2029.",
        "Não quer nenhuma exposição a tabaco ou armas.",
        "Relatórios mensais chegam, não precisa de chamadas semanais.",
        "A mulher dele trata do orçamento familiar e dos impostos.",
    ],
    "nl": [
        "De klant wil vroeg met pensioen en naar Portugal verhuizen.",
        "Zij wordt liever per e-mail dan telefonisch benaderd.",
        "Zijn zoon begint in september aan de universiteit in Londen.",
        "Hij heeft vorige week zijn Tesla-aandelen verkocht.",
        "Ze willen een vakantiehuis kopen bij het Comomeer.",
        "Maakt zich zorgen dat de inflatie zijn spaargeld opeet.",
        "Hypotheek van 350.000 euro met een vaste rente tot 2029.",
        "Wil geen beleggingen in tabak of wapens.",
        "Maandelijkse rapporten zijn genoeg, geen wekelijkse gesprekken.",
        "Zijn vrouw beheert het gezinsbudget en de belastingen.",
    ],
}
# Too short to say: the tenant's language is the better guess for these.
FRAGMENTS = [
    "Email.",
    "Tesla",
    "ETF",
    "Zoom call",
    "Ok grazie",
    "Sì",
    "Vale",
    "Marco Rossi",
    "350k EUR",
    "Lugano",
    "Bond fund",
    "Fondi pensione",
]
LANGUAGES = tuple(SENTENCES)


def memoryhub(threshold: float | None) -> Callable[[str], str]:
    from memories import languages

    if threshold is not None:
        languages.MIN_CONFIDENCE = threshold
    languages.detected("warm up")
    return lambda text: languages.detected(text) or "?"


def lingua(threshold: float) -> Callable[[str], str]:
    from lingua import IsoCode639_1, LanguageDetectorBuilder

    codes = [getattr(IsoCode639_1, code.upper()) for code in LANGUAGES]
    detector = (
        LanguageDetectorBuilder.from_iso_codes_639_1(*codes)
        .with_preloaded_language_models()
        .build()
    )

    def detect(text: str) -> str:
        best = detector.compute_language_confidence_values(text)[0]
        return best.language.iso_code_639_1.name.lower() if best.value >= threshold else "?"

    return detect


def py3langid(threshold: float) -> Callable[[str], str]:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))

    def detect(text: str) -> str:
        code, probability = identifier.classify(text)
        return code if probability >= threshold else "?"

    return detect


def simplemma(threshold: float) -> Callable[[str], str]:
    from simplemma import langdetect

    def detect(text: str) -> str:
        code, share = langdetect(text, lang=LANGUAGES)[0]
        return code if code != "unk" and share >= threshold else "?"

    return detect


def _conversations() -> list[tuple[str, str]]:
    """Every utterance of memory_eval's conversations, labelled with its client's language
    (written by someone else, for another purpose: greetings and one-word answers too)."""
    path = Path(__file__).resolve().parents[1] / "memories/evaluation/data/conversations.json"
    clients = json.loads(path.read_text())["clients"]
    return [
        (client["language"], event["content"])
        for client in clients
        for session in client["sessions"]
        for event in session["events"]
    ]


def _band(text: str) -> str:
    words = len(text.split())
    return "1-2 words" if words <= 2 else "3-4 words" if words <= 4 else "5+ words"


def measure(name: str, detect: Callable[[str], str], *, verbose: bool) -> None:
    written = [(lang, s) for lang, sentences in SENTENCES.items() for s in sentences]
    started = time.perf_counter()
    found = [detect(text) for _, text in written]
    elapsed = time.perf_counter() - started
    right = sum(f == lang for f, (lang, _) in zip(found, written, strict=True))
    unsure = found.count("?")
    print(
        f"{name:10} written: right {right}/{len(written)}, wrong "
        f"{len(written) - right - unsure}, fell back {unsure}; "
        f"{1e6 * elapsed / len(written):.0f} µs per text"
    )
    guessed = [(f, detect(f)) for f in FRAGMENTS]
    print(f"{'':10} fragments falling back {sum(g == '?' for _, g in guessed)}/{len(FRAGMENTS)}")
    bands: dict[str, list[int]] = {}
    mistakes = []
    for lang, text in _conversations():
        result = detect(text)
        counts = bands.setdefault(_band(text), [0, 0, 0])
        counts[0 if result == lang else 2 if result == "?" else 1] += 1
        if result not in (lang, "?"):
            mistakes.append(f"{lang}→{result} {text}")
    for band, (good, bad, fallback) in sorted(bands.items()):
        print(f"{'':10} conversations, {band}: right {good}, wrong {bad}, fell back {fallback}")
    if verbose:
        for (lang, text), result in zip(written, found, strict=True):
            if result != lang:
                print(f"    {lang}→{result} {text}")
        for fragment, result in guessed:
            if result != "?":
                print(f"    fragment {fragment!r} → {result}")
        for mistake in mistakes:
            print(f"    {mistake}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threshold", type=float, help="memoryhub's MIN_CONFIDENCE instead")
    parser.add_argument("--verbose", action="store_true", help="list every wrong answer")
    args = parser.parse_args()
    for name, make in (("lingua", lingua), ("py3langid", py3langid), ("simplemma", simplemma)):
        try:
            loaded = time.perf_counter()
            detect = make(0.5)
            print(f"{name}: loaded in {time.perf_counter() - loaded:.2f} s")
        except ImportError:
            continue
        measure(name, detect, verbose=args.verbose)
    measure("memoryhub", memoryhub(args.threshold), verbose=args.verbose)


if __name__ == "__main__":
    main()
