"""The layout keeps its promises: every module imports, no import circle, services stay
below the API and the pages, ``memories`` imports neither ``curation`` nor ``profiles`` and
names neither in a dotted string, an app's top level stays short, modules stay small, and
every job and schedule names a function that exists.

The import graph is read from the source (every ``import`` statement, those inside
functions and ``if TYPE_CHECKING:`` blocks included: a circle that only the type checker
follows is still two modules that cannot be understood apart): an edge goes to the module
named, the way import-linter and grimp count it, not to the packages above it.
"""

from __future__ import annotations

import ast
import importlib
import io
import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils.module_loading import import_string

ROOT = Path(__file__).resolve().parent.parent
APPS = ("memories", "curation", "profiles", "mcp_server", "memoryhub")
# One table each (cue patterns, schema examples): splitting them would scatter one idea.
TABLES = {"memories/services/extraction/patterns.py", "memories/api/docs.py"}
MAX_LINES = 400


def _modules() -> dict[str, Path]:
    found = {}
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The project modules that module ``name`` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                out.add(submodule if submodule in MODULES else base)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text(), filename=str(path)))
    return {module for module in out if module in MODULES and module != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in graph[node]:
            if other not in index:
                connect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def test_no_import_circle():
    assert _cycles(GRAPH) == []


def test_no_circle_between_apps():
    """memories at the bottom, curation on it, profiles on both, mcp_server on top; the
    project package ``memoryhub`` (settings, serving, observability) is outside."""
    apps: dict[str, set[str]] = {app: set() for app in APPS if app != "memoryhub"}
    for name, imported in GRAPH.items():
        for other in imported:
            a, b = name.split(".")[0], other.split(".")[0]
            if a != b and a in apps and b in apps:
                apps[a].add(b)
    assert _cycles(apps) == []


def test_the_cycle_check_sees_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


@pytest.mark.parametrize("name", sorted(n for n in MODULES if ".migrations." not in n))
def test_every_module_imports(name):
    importlib.import_module(name)


def test_memories_imports_neither_curation_nor_profiles():
    assert {
        (name, other)
        for name, imported in GRAPH.items()
        if name.split(".")[0] == "memories"
        for other in imported
        if other.split(".")[0] in ("curation", "profiles")
    } == set()


# A dotted path into one of the apps ("curation.services.review.open"), not a model label
# ("memories.Client"): the project package ``memoryhub`` wires the apps and may name them.
DOTTED = re.compile(r"^(memories|curation|profiles|mcp_server)(\.[a-z_][a-z0-9_]*)+$")


def _dotted_names(path: Path) -> set[str]:
    return {
        node.value.strip()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path)))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and DOTTED.match(node.value.strip())
    }


def test_no_app_names_another_apps_code_in_a_dotted_string():
    """An app reaches another through imports or registrations (signals, ``job_register``
    in ``AppConfig.ready``), never a dotted name that no import shows."""
    assert {
        (name, dotted)
        for name, path in MODULES.items()
        if name.split(".")[0] != "memoryhub" and ".migrations." not in name
        for dotted in _dotted_names(path)
        if dotted.split(".")[0] != name.split(".")[0]
    } == set()


def test_the_dotted_string_check_sees_one(tmp_path):
    source = tmp_path / "ingest.py"
    source.write_text('OPEN = "curation.services.review.open"\nLABEL = "memories.Client"\n')
    assert _dotted_names(source) == {"curation.services.review.open"}


def test_an_apps_top_level_stays_short():
    """Pages, services, selectors and the API live in packages of their own: the top
    level of ``memories`` is its core (models, settings, text, errors)."""
    plain = sorted(
        path.name for path in (ROOT / "memories").glob("*.py") if path.name != "__init__.py"
    )
    assert len(plain) <= 12, plain


def _is_service(name: str) -> bool:
    parts = name.split(".")
    return "services" in parts or parts[:2] == ["memories", "selectors"]


def _is_interface(name: str) -> bool:
    parts = name.split(".")
    return parts[1:2] in (["api"], ["pages"]) or parts[-1] in (
        "api",
        "views",
        "forms",
        "admin",
        "urls",
    )


def test_services_and_selectors_import_no_view_serializer_or_api():
    assert {
        (name, other)
        for name, imported in GRAPH.items()
        if _is_service(name)
        for other in imported
        if _is_interface(other)
    } == set()


def test_no_module_passes_the_size_limit_unless_it_is_one_table():
    too_long = {
        str(path.relative_to(ROOT)): n
        for name, path in MODULES.items()
        if ".migrations." not in name
        and (n := len(path.read_text().splitlines())) > MAX_LINES
        and str(path.relative_to(ROOT)) not in TABLES
    }
    assert too_long == {}


def test_every_registered_job_and_scheduled_task_imports(db):
    from django_q.models import Schedule

    from memories.services.jobs.runner import JOBS

    for dotted in JOBS.values():
        assert callable(import_string(dotted)), dotted
    call_command("setup_schedules", stdout=io.StringIO())
    for dotted in Schedule.objects.values_list("func", flat=True):
        assert callable(import_string(dotted)), dotted
