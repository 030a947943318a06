"""The language of the pages (memories/pages/language.py): the person's own choice, then
their client's language on a client's or an heir's own pages, then the browser's, then the
tenant's; the API in English whatever is asked. And the header's picker: any signed-in
person sets their own language and nobody else's; a language the pages lack is refused
with nothing changed."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memories.models import Memory, Tenant, UserSettings
from memories.services.tenancy.members import user_language_set
from tests.support import factories

pytestmark = pytest.mark.django_db

PERSONAS = ["advisor", "advisor2", "outsider", "supervisor", "admin", "client_user", "heir"]
HOME = {"en": "Review queue", "it": "Coda di revisione", "es": "Cola de revisión"}
MINE = {"en": "My memory", "it": "La mia memoria", "es": "Mi memoria"}


def _language(response) -> str:
    assert response.status_code == 200
    return response["Content-Language"]


def test_the_login_page_speaks_the_browsers_language(client):
    assert _language(client.get("/login/")) == "en"
    response = client.get("/login/", HTTP_ACCEPT_LANGUAGE="it-IT,it;q=0.9,en;q=0.5")
    assert _language(response) == "it"
    page = response.content.decode()
    assert '<html lang="it">' in page
    assert "Nome utente" in page and "Username" not in page
    spanish = client.get("/login/", HTTP_ACCEPT_LANGUAGE="es-ES").content.decode()
    assert "Iniciar sesión" in spanish
    # A language the pages do not have: the next one the browser accepts, else English.
    assert _language(client.get("/login/", HTTP_ACCEPT_LANGUAGE="fr, es;q=0.8")) == "es"
    assert _language(client.get("/login/", HTTP_ACCEPT_LANGUAGE="de")) == "en"


def test_without_a_choice_the_browser_then_the_tenant_decides(client, personas):
    client.force_login(personas.supervisor)
    assert _language(client.get("/")) == "en"
    assert _language(client.get("/", HTTP_ACCEPT_LANGUAGE="es")) == "es"
    Tenant.objects.filter(pk=personas.tenant.pk).update(language="italian")
    response = client.get("/")
    assert _language(response) == "it"
    assert HOME["it"] in response.content.decode()
    assert _language(client.get("/", HTTP_ACCEPT_LANGUAGE="es")) == "es"  # browser first


def test_the_persons_choice_comes_before_the_browser_and_the_tenant(client, personas):
    Tenant.objects.filter(pk=personas.tenant.pk).update(language="italian")
    user_language_set(user=personas.supervisor, language="es")
    client.force_login(personas.supervisor)
    response = client.get("/", HTTP_ACCEPT_LANGUAGE="it")
    assert _language(response) == "es"
    assert HOME["es"] in response.content.decode()
    user_language_set(user=personas.supervisor, language="")  # automatic again
    assert _language(client.get("/", HTTP_ACCEPT_LANGUAGE="en")) == "en"


def test_a_client_reads_their_own_page_in_their_language(client, personas):
    personas.client.language = "es"
    personas.client.save()
    client.force_login(personas.client_user)
    response = client.get("/me/", HTTP_ACCEPT_LANGUAGE="it")
    assert _language(response) == "es"
    assert MINE["es"] in response.content.decode()
    user_language_set(user=personas.client_user, language="it")  # their own choice wins
    assert _language(client.get("/me/", HTTP_ACCEPT_LANGUAGE="en")) == "it"


@pytest.mark.parametrize("spelled", ["it", "IT", "it-IT", "it_it", "italian"])
def test_an_heir_reads_in_the_familys_language_when_they_have_none(client, personas, spelled):
    personas.parent.language = spelled
    personas.parent.save()
    client.force_login(personas.heir)
    response = client.get("/me/", HTTP_ACCEPT_LANGUAGE="es")
    assert _language(response) == "it"
    assert MINE["it"] in response.content.decode()
    personas.heir_client.language = "es"  # the heir's own language comes first
    personas.heir_client.save()
    assert _language(client.get("/me/")) == "es"


def test_an_advisor_reads_a_clients_page_in_their_own_language(client, personas):
    personas.client.language = "it"
    personas.client.save()
    client.force_login(personas.advisor)
    english = client.get(f"/clients/{personas.client.pk}/")
    assert _language(english) == "en"
    assert "speaks Italian" in english.content.decode()
    spanish = client.get(f"/clients/{personas.client.pk}/", HTTP_ACCEPT_LANGUAGE="es")
    assert "habla italiano" in spanish.content.decode()


def test_a_language_the_pages_lack_shows_as_given(client, personas):
    personas.client.language = "fr"
    personas.client.save()
    client.force_login(personas.advisor)
    page = client.get(f"/clients/{personas.client.pk}/").content.decode()
    assert "speaks French" in page
    personas.client.language = "klingon"
    personas.client.save()
    assert "speaks klingon" in client.get(f"/clients/{personas.client.pk}/").content.decode()


def test_numbers_and_dates_follow_the_language(client, personas):
    memory = factories.MemoryFactory.create(
        client=personas.client,
        content="Prefers calls.",
        confidence=0.9,
        observed_at=datetime(2026, 12, 3, 9, 30, tzinfo=UTC),
    )
    client.force_login(personas.advisor)
    english = client.get(f"/memories/{memory.pk}/").content.decode()
    assert "0.90" in english and "3 Dec 2026, 09:30" in english
    italian = client.get(f"/memories/{memory.pk}/", HTTP_ACCEPT_LANGUAGE="it").content.decode()
    assert "0,90" in italian and "0.90" not in italian
    assert "3 Dic 2026, 09:30" in italian  # Django's Italian month abbreviations
    assert '<meter min="0" max="1" value="0.9">' in italian  # attributes stay unlocalized


def test_the_api_answers_in_english_whatever_is_asked(client, personas, api_client):
    response = api_client.get("/api/v1/clients/", HTTP_ACCEPT_LANGUAGE="it")
    assert response.status_code in (401, 403)
    assert response["Content-Language"] == "en"
    assert "credentials were not provided" in response.json()["error"]["message"]
    user_language_set(user=personas.advisor, language="es")
    api_client.force_authenticate(personas.advisor)
    answer = api_client.post("/api/v1/events/", {}, format="json", HTTP_ACCEPT_LANGUAGE="es")
    assert answer.status_code == 400
    assert answer["Content-Language"] == "en"
    assert "This field is required." in str(answer.json())


# --- The picker ------------------------------------------------------------------------


@pytest.mark.parametrize("persona", PERSONAS)
def test_anyone_signed_in_sets_their_own_language_and_nobody_elses(client, personas, persona):
    user = getattr(personas, persona)
    user_language_set(
        user=personas.advisor2 if persona != "advisor2" else personas.advisor, language="es"
    )
    before = dict(UserSettings.objects.exclude(user=user).values_list("user_id", "language"))
    client.force_login(user)
    response = client.post("/language/", {"language": "it", "next": "/me/"})
    assert response.status_code == 302
    assert response["Location"] == "/me/"
    assert UserSettings.objects.get(user=user).language == "it"
    assert (
        dict(UserSettings.objects.exclude(user=user).values_list("user_id", "language")) == before
    )
    assert _language(client.get("/", HTTP_ACCEPT_LANGUAGE="es")) == "it"


def test_signed_out_the_picker_sets_nothing(client, personas):
    response = client.post("/language/", {"language": "it"})
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")
    assert not UserSettings.objects.exists()


@pytest.mark.parametrize("code", ["xx", "fr", "it-IT<script>", "e" * 50])
def test_a_language_the_pages_lack_is_refused_and_nothing_changes(client, personas, code):
    user_language_set(user=personas.advisor, language="en")
    client.force_login(personas.advisor)
    response = client.post("/language/", {"language": code})
    assert response.status_code == 400
    assert response.content.decode() == "Choose one of the languages of the list."
    assert UserSettings.objects.get(user=personas.advisor).language == "en"
    assert UserSettings.objects.count() == 1


def test_the_refusal_speaks_the_persons_language(client, personas):
    user_language_set(user=personas.advisor, language="it")
    client.force_login(personas.advisor)
    response = client.post("/language/", {"language": "xx"})
    assert response.status_code == 400
    assert response.content.decode() == "Scelga una delle lingue dell'elenco."


def test_the_picker_only_takes_a_post_with_the_csrf_token(personas):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    strict.force_login(personas.advisor)
    assert strict.get("/language/").status_code == 405
    assert strict.post("/language/", {"language": "it"}).status_code == 403
    assert not UserSettings.objects.exists()


def test_htmx_reloads_the_page_and_an_outside_next_goes_home(client, personas):
    client.force_login(personas.advisor)
    answer = client.post("/language/", {"language": "es"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 204
    assert answer["HX-Refresh"] == "true"
    assert UserSettings.objects.get(user=personas.advisor).language == "es"
    away = client.post("/language/", {"language": "", "next": "https://evil.example/"})
    assert away["Location"] == "/"
    assert UserSettings.objects.get(user=personas.advisor).language == ""


def test_the_header_offers_the_languages_by_their_own_names(client, personas):
    user_language_set(user=personas.advisor, language="es")
    client.force_login(personas.advisor)
    page = client.get("/").content.decode()
    assert '<option value="es" lang="es" selected>Español</option>' in page
    assert '<option value="it" lang="it">Italiano</option>' in page
    assert '<option value="">Automático</option>' in page


def test_a_refused_change_is_explained_in_the_persons_language(client, personas):
    memory = factories.MemoryFactory.create(
        client=personas.client, content="Prefers calls.", status="superseded"
    )
    user_language_set(user=personas.advisor, language="it")
    client.force_login(personas.advisor)
    before = Memory.objects.count()
    response = client.post(
        f"/memories/{memory.pk}/correct/", {"content": "Prefers email.", "reason": "Said so."}
    )
    assert response.status_code == 409
    assert (
        "Non è stato modificato nulla: Questa memoria è sostituita: si può correggere solo ciò "
        "che la memoria contiene ora." in response.content.decode()
    )
    assert Memory.objects.count() == before
    memory.refresh_from_db()
    assert (memory.status, memory.content) == ("superseded", "Prefers calls.")


def test_the_server_error_page_speaks_the_language(rf):
    from django.utils import translation

    from memories.api.errors import server_error

    with translation.override("es"):
        response = server_error(rf.get("/clients/"))
    page = response.content.decode()
    assert response.status_code == 500
    assert '<html lang="es">' in page
    assert "<h1>Se ha producido un error</h1>" in page
    with translation.override("en"):
        assert "<h1>Something went wrong</h1>" in server_error(rf.get("/")).content.decode()


def test_memoryhubs_own_work_is_named_in_the_language(client, personas):
    user_language_set(user=personas.supervisor, language="es")
    client.force_login(personas.supervisor)
    page = client.get(f"/clients/{personas.client.pk}/audit/").content.decode()
    assert '<strong class="audit-actor">sistema</strong>' in page  # the advisor's assignment
    assert ">system<" not in page
