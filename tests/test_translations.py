"""The catalogues: every string the pages mark has an Italian and a Spanish translation,
none empty or fuzzy, each keeps its placeholders, and the committed ``.mo`` files are the
``.po`` files compiled (``make messages`` writes both).

Extraction and compiling need GNU gettext (``xgettext``, ``msgfmt``): tools/test.sh installs
Debian's ``gettext`` where it runs as root, as CI does."""

from __future__ import annotations

import gettext
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

LOCALE = Path(settings.BASE_DIR) / "locale"
LANGUAGES = ("it", "es")
# What ``make messages`` leaves out: code that puts no words on a page.
IGNORED = ["bench/*", "tests/*", "clients/*", "tools/*", "static/*", "docs/*", "locale/*"]


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing: tools/test.sh installs Debian's gettext")
        pytest.skip(f"{tool} is missing: apt-get install gettext")
    return path


def _statistics(po: Path) -> str:
    """msgfmt's count of translated, fuzzy and untranslated messages; it also fails on a
    translation whose placeholders differ from its msgid's (``--check-format``)."""
    done = subprocess.run(  # noqa: S603 (our own tool and files)
        [_need("msgfmt"), "--check", "--statistics", "-o", os.devnull, str(po)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr.strip()


@pytest.fixture(scope="module")
def extracted(tmp_path_factory) -> Path:
    """The catalogues as ``makemessages`` leaves them after reading today's code and
    templates: a string with no translation yet is added with an empty one, a changed one
    is marked fuzzy."""
    _need("xgettext")
    _need("msgmerge")
    copy = tmp_path_factory.mktemp("locale") / "locale"
    shutil.copytree(LOCALE, copy)
    here = Path.cwd()
    os.chdir(settings.BASE_DIR)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(settings, "LOCALE_PATHS", [copy])
            # makemessages also writes to a ./locale it finds, the shipped catalogues: the
            # copy alone is to change.
            isdir = os.path.isdir
            patch.setattr(os.path, "isdir", lambda path: path != "locale" and isdir(path))
            call_command(
                "makemessages",
                locale=list(LANGUAGES),
                ignore_patterns=IGNORED,
                no_obsolete=True,
                verbosity=0,
                stdout=io.StringIO(),
            )
    finally:
        os.chdir(here)
    return copy


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_marked_string_has_a_translation(extracted, language):
    stats = _statistics(extracted / language / "LC_MESSAGES" / "django.po")
    assert re.fullmatch(r"\d+ translated messages\.", stats), stats


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_catalogue_is_complete(language):
    po = LOCALE / language / "LC_MESSAGES" / "django.po"
    stats = _statistics(po)
    assert re.fullmatch(r"\d+ translated messages\.", stats), stats
    assert "#, fuzzy" not in po.read_text()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_mo_file_is_the_po_file_compiled(tmp_path, language):
    po = LOCALE / language / "LC_MESSAGES" / "django.po"
    fresh = tmp_path / "django.mo"
    subprocess.run([_need("msgfmt"), "--check", "-o", str(fresh), str(po)], check=True)  # noqa: S603
    with fresh.open("rb") as compiled, (po.with_suffix(".mo")).open("rb") as committed:
        expected = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
        shipped = gettext.GNUTranslations(committed)._catalog  # type: ignore[attr-defined]
    assert shipped == expected, "run `make messages` and commit locale/"


def test_the_extraction_sees_the_pages_strings(extracted):
    """The check above would pass on an empty extraction: it must find the pages' words."""
    po = (extracted / "it" / "LC_MESSAGES" / "django.po").read_text()
    for msgid in ("Review queue", "Search this client's memory", "Keep the more recent"):
        assert f'msgid "{msgid}"' in po
