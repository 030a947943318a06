"""Every page a person reaches, in Chromium, in Italian and in Spanish: the login, the
advisor's client list, client page, search, memory page, correction form, a page not found
and a refusal; the supervisor's review queue (after choosing the language in the header),
client page with who advises the client, client list and audit trail; the client's and the
heir's own pages (in the client's language, whatever the browser says). Each page's visible
text, memories and names taken out, holds no English: no phrase of the catalogue's msgids,
no single word of them, and none of English's commonest words. A screenshot of each page
in each language is saved under the system's temporary folder for a person to look at."""

from __future__ import annotations

import re
import tempfile
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from curation.models import ReviewItem
from memories.models import Client, Event, Memory, Session, Tenant
from tests import test_e2e_browser as e2e
from tests.support import browser as browser_support
from tests.support import factories

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

browser, emma, candidate = browser_support.browser, e2e.emma, e2e.candidate
PASSWORD = browser_support.PASSWORD
SHOTS = Path(tempfile.gettempdir()) / "memoryhub-language-screenshots"
CATALOGUE = str(Path(settings.BASE_DIR) / "locale" / "{}" / "LC_MESSAGES" / "django.po")
# English's commonest words: none of them is an Italian or a Spanish word.
ENGLISH_WORDS = {
    "the",
    "and",
    "of",
    "to",
    "is",
    "with",
    "your",
    "this",
    "by",
    "for",
    "are",
    "system",
}
# What shows memories, events and the agent's own context, as said: left out of the check.
AS_SAID = [
    ".memory-content",
    ".memory-title",
    ".event-text",
    ".node-text",
    ".side-content",
    ".core-card p:first-child",
    "pre.prompt",
    "a[href^='/memories/']",
    "#page-language",  # each language by its own name
    "code",  # paths and API calls
]
VISIBLE_TEXT = """(selectors) => {
    const hidden = [];
    for (const el of document.querySelectorAll(selectors.join(','))) {
        hidden.push([el, el.style.display]);
        el.style.display = 'none';
    }
    const text = document.body.innerText;
    for (const [el, display] of hidden) el.style.display = display;
    return text;
}"""


def _strings(po: str) -> list[tuple[str, str]]:
    """(msgid, its translation) for each message of a catalogue, plural forms as messages."""
    pairs = []
    for block in po.split("\n\n")[1:]:
        fields: dict[str, str] = {}
        key = ""
        for line in block.splitlines():
            if match := re.match(r'^(msgid_plural|msgid|msgstr(?:\[\d\])?) "(.*)"$', line):
                key = match.group(1)
                fields[key] = match.group(2)
            elif line.startswith('"') and key:
                fields[key] += line[1:-1]
        translations = " ".join(v for k, v in fields.items() if k.startswith("msgstr"))
        for english in (fields.get("msgid"), fields.get("msgid_plural")):
            if english:
                pairs.append((english.replace('\\"', '"'), translations.replace('\\"', '"')))
    return pairs


def english_phrases(language: str) -> tuple[set[str], set[str]]:
    """The pieces of the catalogue's English, between placeholders and tags, that the
    translation does not keep as they are (code, paths, "Password"): phrases of two words or
    more, and single words of four letters or more."""
    phrases, words = set(), set()
    for english, translation in _strings(Path(CATALOGUE.format(language)).read_text()):
        for piece in re.split(r"%\(\w+\)[sd]|<[^>]+>|[“”«»()·:;]", english):
            piece = piece.strip(" .,?!…→←")
            if piece in translation:
                continue
            if len(piece.split()) >= 2:
                phrases.add(piece)
            elif re.fullmatch(r"[A-Za-z]{4,}", piece) and piece.lower() not in translation.lower():
                words.add(piece)
    return phrases, words


def _as_said() -> list[str]:
    """Memories, events, names and references, longest first: shown as they are."""
    texts = [
        *Memory.objects.values_list("content", flat=True),
        *Event.objects.values_list("content", flat=True),
        *Event.objects.values_list("speaker", flat=True),
        *User.objects.values_list("username", flat=True),
        *Client.objects.values_list("display_name", flat=True),
        *Client.objects.values_list("external_ref", flat=True),
        *Tenant.objects.values_list("name", flat=True),
        *Session.objects.values_list("external_ref", flat=True),
        *Session.objects.values_list("agent", flat=True),
        *ReviewItem.objects.values_list("reason", flat=True),
    ]
    return sorted({t for t in texts if t}, key=len, reverse=True)


def check(page, language: str, name: str) -> str:
    """The page's visible text holds no English; a screenshot of it is saved."""
    page.wait_for_load_state("networkidle")
    text = page.title() + "\n" + page.evaluate(VISIBLE_TEXT, AS_SAID)
    for said in _as_said():
        text = re.sub(rf"(?<!\w){re.escape(said)}(?!\w)", " ", text)
    phrases, single = english_phrases(language)
    found = {p for p in phrases if p in text}
    english = ENGLISH_WORDS | {word.lower() for word in single}
    words = {word for word in re.findall(r"[A-Za-z]+", text) if word.lower() in english}
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{language}-{name}.png"), full_page=True)
    assert (found, words) == (set(), set()), f"{name} in {language}: {text}"
    assert page.locator("html").get_attribute("lang") == language
    return text


def _context(browser, live_server, locale: str):
    context = browser.new_context(
        viewport={"width": 1280, "height": 900}, base_url=live_server.url, locale=locale
    )
    context.set_default_timeout(15_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return context, page, errors


def _login(page, username: str) -> None:
    page.goto("/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill(PASSWORD)
    page.locator("main button[type=submit]").click()
    page.wait_for_url(re.compile(r"/$"))


@pytest.fixture
def conflict(personas):
    c = personas.client
    told = factories.EventFactory.create(client=c, content="Email is the best way to reach me.")
    retold = factories.EventFactory.create(client=c, content="Call me, I never read email.")
    old = factories.MemoryFactory.create(
        client=c, content="Prefers to be reached by email.", evidence=[told], confidence=0.9
    )
    new = factories.MemoryFactory.create(
        client=c, content="Prefers to be reached by phone.", evidence=[retold], confidence=0.75
    )
    factories.RelationFactory.create(source=new, target=old, type="conflicts_with")
    return factories.ReviewItemFactory.create(memory=new, other_memory=old)


@pytest.fixture
def names(personas):
    for client, name in (
        (personas.parent, "Giulia Rossi"),
        (personas.heir_client, "Marco Rossi"),
        (personas.advisor2_client, "Carlos Vega"),
    ):
        client.display_name = name
        client.save()


@pytest.mark.parametrize("language", ["it", "es"])
def test_every_page_speaks_the_language(
    browser, live_server, personas, emma, conflict, candidate, names, language
):
    words = {
        "it": {"home": "Coda di revisione", "client": "Memorie", "queue": "Conflitti"},
        "es": {"home": "Cola de revisión", "client": "Memorias", "queue": "Conflictos"},
    }[language]

    # The advisor, with the browser in the language.
    context, page, errors = _context(browser, live_server, language)
    page.goto("/login/")
    check(page, language, "login")
    _login(page, "advisor")
    check(page, language, "home-advisor")
    page.goto("/clients/")
    check(page, language, "client-list")
    page.goto(f"/clients/{personas.client.pk}/")
    page.get_by_role("heading", name=words["client"], exact=True).wait_for()
    text = check(page, language, "client-page")
    assert {"it": "parla", "es": "habla"}[language] not in text  # Emma has no language yet
    page.goto(f"/clients/{personas.client.pk}/?q=phone")
    page.locator("#memory-results .summary").wait_for()
    check(page, language, "client-search")
    page.goto(f"/memories/{emma['phone'].pk}/")
    page.locator("details.change summary").first.click()
    page.locator("#id_correct_content").wait_for()
    check(page, language, "memory-correction-form")
    page.goto(f"/memories/{uuid.uuid4()}/")
    check(page, language, "not-found")
    page.goto("/review/")
    check(page, language, "not-allowed")
    context.close()
    refused = "Failed to load resource: the server responded with a status of"
    assert errors == [f"{refused} 404 (Not Found)", f"{refused} 403 (Forbidden)"]

    # The supervisor, with the browser in English, chooses the language in the header.
    context, page, errors = _context(browser, live_server, "en-US")
    _login(page, "supervisor")
    page.get_by_text("Review queue").first.wait_for()
    page.locator("#page-language").select_option(language)
    page.get_by_text(words["home"]).first.wait_for()  # htmx reloaded the page
    check(page, language, "home-supervisor")
    page.goto("/review/?type=conflict")
    page.locator(f"#item-{conflict.pk}").wait_for()
    check(page, language, "review-conflicts")
    page.goto("/review/?type=promotion")
    page.locator(f"#item-{candidate.pk}").wait_for()
    check(page, language, "review-promotions")
    page.goto(f"/clients/{personas.client.pk}/")
    page.locator("#advisors-panel").wait_for()  # who advises the client, for supervisors
    check(page, language, "client-page-supervisor")
    page.goto("/clients/?sort=unassigned")
    check(page, language, "client-list-supervisor")
    page.goto(f"/clients/{personas.client.pk}/audit/")
    check(page, language, "audit")
    page.goto(f"/memories/{conflict.memory.pk}/")
    check(page, language, "memory-supervisor")
    context.close()
    assert errors == []

    # The client and the heir, with the browser in English: their family's language.
    Client.objects.filter(pk__in=[personas.client.pk, personas.parent.pk]).update(language=language)
    for username in ("client", "heir"):
        context, page, errors = _context(browser, live_server, "en-US")
        _login(page, username)
        check(page, language, f"home-{username}")
        page.goto("/me/")
        check(page, language, f"my-memory-{username}")
        context.close()
        assert errors == []
