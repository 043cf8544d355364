"""The package's layers: no import reaches up, every large module says why it is one.

The table of layers is the one in ``simulator/__init__.py``'s docstring; each
package's docstring names, after ``Imports:``, the layers it may import.
Imports are read from the source with :mod:`ast`, including those made inside
functions (the CLI imports its tasks lazily).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import simulator

ROOT = Path(simulator.__file__).parent

#: Each layer and the layers it may import (its own included).
ALLOWED: dict[str, frozenset[str]] = {
    "base": frozenset({"base"}),
    "systems": frozenset({"base", "systems"}),
    "world": frozenset({"base", "world"}),
    "evaluation": frozenset({"base", "evaluation"}),
    "data": frozenset({"base", "systems", "data"}),
    "config": frozenset({"base", "systems", "world", "evaluation", "config"}),
    # docs/config.md generated from the config's dataclasses; nothing imports it.
    "config_reference": frozenset(
        {"base", "systems", "world", "evaluation", "config", "config_reference"}
    ),
    "engine": frozenset({"base", "systems", "world", "evaluation", "config", "engine"}),
    "tasks": frozenset(
        {
            "base",
            "systems",
            "world",
            "evaluation",
            "data",
            "config",
            "engine",
            "tasks",
        }
    ),
    "cli": frozenset(
        {
            "base",
            "systems",
            "world",
            "evaluation",
            "data",
            "config",
            "engine",
            "tasks",
            "cli",
        }
    ),
    # The notebook API (simulator/api.py): beside the CLI, on the tasks.
    "api": frozenset(
        {
            "base",
            "systems",
            "world",
            "evaluation",
            "data",
            "config",
            "engine",
            "tasks",
            "api",
        }
    ),
}

#: Modules above this many lines must say in their docstring why they are one.
MAX_LINES = 800
#: The phrase that opens that paragraph.
WHY_ONE = "Why one module:"


def layer_of(module: str) -> str:
    """The layer of a dotted module name under ``simulator``."""
    parts = module.split(".")
    if parts[0] != "simulator":
        raise ValueError(f"{module!r} is not a module of simulator")
    if len(parts) > 1 and parts[1] == "__main__":
        return "cli"  # ``python -m simulator`` is the command line
    if len(parts) == 1 or parts[1].startswith("_"):
        return "base"
    if parts[1] not in ALLOWED:
        raise ValueError(f"{module!r} is in no layer: add it to ALLOWED")
    return parts[1]


def module_name(path: Path) -> str:
    """The dotted name of a source file of the package."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, module: str) -> set[str]:
    """The ``simulator`` modules that ``source`` (the text of ``module``) imports."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise ValueError(f"{module}: relative import (the project bans them)")
            base = node.module or ""
            if base == "simulator":
                # ``from simulator import engine`` imports simulator.engine.
                out.update(f"{base}.{a.name}" for a in node.names)
            else:
                out.add(base)
    return {m for m in out if m == "simulator" or m.startswith("simulator.")}


def violations(source: str, module: str) -> list[str]:
    """Each import of ``module`` that reaches a layer it may not import."""
    own = layer_of(module)
    bad = []
    for target in sorted(imported(source, module)):
        layer = layer_of(target)
        if layer not in ALLOWED[own]:
            bad.append(f"{module} ({own}) imports {target} ({layer})")
    return bad


SOURCES = sorted(ROOT.rglob("*.py"))


def test_every_module_has_a_layer() -> None:
    """Every source file of the package belongs to a layer of the table."""
    assert SOURCES
    for path in SOURCES:
        assert layer_of(module_name(path)) in ALLOWED


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_import_reaches_a_layer_above(path: Path) -> None:
    """No module imports from a layer its own may not import."""
    module = module_name(path)
    assert violations(path.read_text(encoding="utf-8"), module) == []


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("simulator.systems.elo", "from simulator.engine import x", 1),
        ("simulator.world.pairing", "import simulator.systems.fide", 1),
        ("simulator.evaluation.recorder", "def f():\n from simulator import cli", 1),
        ("simulator.data.trf", "from simulator.tasks.rate import x", 1),
        ("simulator.engine", "from simulator.tasks import run", 1),
        ("simulator.tasks.rate", "from simulator.cli import main", 1),
        ("simulator.data.trf", "from simulator.systems._common import Games", 0),
        ("simulator.cli", "from simulator.tasks import rate, replay", 0),
        ("simulator._jit", "from simulator import __version__", 0),
    ],
)
def test_the_check_finds_an_upward_import(
    module: str, source: str, expected: int
) -> None:
    """The checker flags an upward import, including one inside a function."""
    assert len(violations(source, module)) == expected


@pytest.mark.parametrize(
    "package",
    sorted(p.parent for p in ROOT.glob("*/__init__.py")),
    ids=lambda p: p.name,
)
def test_package_docstrings_name_what_they_may_import(package: Path) -> None:
    """Each package's docstring has an ``Imports:`` paragraph naming its layers."""
    doc = ast.get_docstring(ast.parse((package / "__init__.py").read_text()))
    assert doc is not None
    assert "Imports:" in doc
    paragraph = doc.split("Imports:", 1)[1].split("\n\n", 1)[0]
    for layer in ALLOWED[package.name] - {package.name}:
        assert layer in paragraph, f"{package.name}: {layer} not named"


def test_the_table_in_the_package_docstring_matches() -> None:
    """``simulator/__init__.py`` names every layer of :data:`ALLOWED`."""
    doc = simulator.__doc__ or ""
    for layer in ALLOWED:
        assert layer in doc


def unexplained_length(text: str) -> bool:
    """Whether a module is above MAX_LINES lines without saying why it is one."""
    if text.count("\n") <= MAX_LINES:
        return False
    return WHY_ONE not in (ast.get_docstring(ast.parse(text)) or "")


def test_a_large_module_says_why_it_is_one() -> None:
    """Every module above MAX_LINES lines has a 'Why one module:' paragraph."""
    long = [
        f"{path.relative_to(ROOT)} ({path.read_text().count(chr(10))} lines)"
        for path in SOURCES
        if unexplained_length(path.read_text(encoding="utf-8"))
    ]
    assert long == []


def test_the_length_check_can_fail() -> None:
    """A long module without the paragraph is flagged; with it, it is not."""
    body = "x = 1\n" * (MAX_LINES + 1)
    assert unexplained_length(f'"""A module."""\n{body}')
    assert not unexplained_length(f'"""A module.\n\n{WHY_ONE} because."""\n{body}')
    assert not unexplained_length('"""A module."""\nx = 1\n')
