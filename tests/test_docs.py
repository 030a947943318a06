"""The documentation holds together: a README a user reads to the end, links that lead
somewhere, one record per decision and an index that lists each of them, and no command
naming a benchmark that is not there."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DECISIONS = DOCS / "decisions"
LINK = re.compile(r"\]\(([^)\s]+)\)")
RECORD = re.compile(r"^(\d{4})-[a-z0-9-]+\.md$")


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def _anchors(page: Path) -> set[str]:
    """The anchors GitHub gives the page's headings."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            heading = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower())
            found.add(heading.replace(" ", "-"))
    return found


def test_the_readme_is_read_to_the_end():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 450
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[:3] == ["## Quick start", "## Connecting agents", "## The web app"]
    for heading in ("## Who sees what", "## Configuration", "## Operating it"):
        assert heading in headings
    # How to get a key is on the first screen.
    assert any("create_api_key" in line for line in lines[:40])


def test_every_relative_link_leads_to_a_file_and_its_heading():
    broken = []
    for page in _pages():
        for target in LINK.findall(page.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
            elif anchor and linked.suffix == ".md" and anchor not in _anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert broken == []


def test_each_decision_is_a_record_the_index_lists():
    records = sorted(p.name for p in DECISIONS.iterdir() if RECORD.match(p.name))
    numbers = [int(RECORD.match(name).group(1)) for name in records]  # type: ignore[union-attr]
    assert numbers == list(range(1, len(records) + 1))
    index = (DECISIONS / "README.md").read_text(encoding="utf-8")
    listed = re.findall(r"(?m)^- \[\d{4}\]\((\d{4}-[a-z0-9-]+\.md)\)", index)
    assert sorted(listed) == records
    for name in records:
        text = (DECISIONS / name).read_text(encoding="utf-8")
        assert text.startswith(f"# {name[:4]}. "), name
        for field in ("- **Date**: ", "- **Part**: ", "- **Status**: "):
            assert field in text, (name, field)
        assert "\n## Context\n" in text, name


def test_the_decisions_left_no_copy_behind():
    assert len((DOCS / "decisions.md").read_text(encoding="utf-8").splitlines()) <= 3


def test_every_benchmark_the_docs_name_is_there():
    named = set()
    for page in _pages():
        if page.parent == DECISIONS:
            continue  # records cite removed scripts, with the commit that still has them
        named |= set(re.findall(r"bench/([a-z_]+)\.py", page.read_text(encoding="utf-8")))
    missing = sorted(name for name in named if not (ROOT / "bench" / f"{name}.py").exists())
    assert missing == []
