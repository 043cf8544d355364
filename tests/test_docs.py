"""The docs in the repository: every citation resolves, the config reference is current.

The code cites its sources as files of the repository, e.g. "docs/world.md,
Draws and White's edge" or "docs/rules.md, section 1". These tests read the
docstrings and comments of every Python file and the text of every Markdown
file of the repository and fail on

* a citation of the project's notes outside the repository (``RULES.md``,
  ``WORLD.md``, ``DESIGN.md``, ``STYLE.md``, the ``seeds/`` folder);
* a path to a file (``simulator/world/outcomes.py``, ``../docs/evaluation.md``)
  that is in the repository neither from its root nor from the citing file;
* a section of a ``docs/*.md`` file, cited as ``section N``, ``"Title"`` or a
  capitalised title after the comma, that is no heading of that file;

and on a ``docs/config.md`` that differs from what
:mod:`simulator.config_reference` generates from the dataclasses.
"""

from __future__ import annotations

import ast
import dataclasses
import fnmatch
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path
from typing import get_type_hints

import pytest

from simulator import config_reference
from simulator.config import RunConfig, SystemSpec
from simulator.systems import SYSTEMS

REPO = Path(__file__).resolve().parent.parent
#: The folders and files whose text is checked.
SCANNED = ("simulator", "tests", "benchmarks", "experiments", "examples", "docs")

#: The project's notes outside the repository, cited by name.
OUTSIDE = re.compile(r"(?<![\w/.-])(RULES|WORLD|DESIGN|STYLE)\.md\b|``seeds/|`seeds/")
#: A path to a file: at least one folder, then a name with a known extension.
PATH = re.compile(
    r"(?<![\w/.-])((?:\.\./|\./)*[\w.*-]+(?:/[\w.*-]+)+\."
    r"(?:md|py|toml|trf|json|pgn|cff))\b"
)
#: A citation of a section: ``docs/NAME.md`` (maybe in backticks), a comma, then
#: ``section(s) N``, a quoted title or a capitalised title.
SECTION = re.compile(
    r"docs/([\w-]+)\.md`?,\s+"
    r"(?:sections?\s+(?P<numbers>\d+(?:\s*(?:,|and|-)\s*\d+)*)"
    r'|"(?P<quoted>[^"]+)"'
    r"|(?P<bare>[A-Z][^\n]*))"
)


def _files() -> list[Path]:
    out = [REPO / "README.md"]
    for name in SCANNED:
        folder = REPO / name
        if folder.is_dir():
            out += sorted(folder.rglob("*.py")) + sorted(folder.rglob("*.md"))
    # This file names the bad citations it looks for.
    return [
        p
        for p in out
        if "results" not in p.relative_to(REPO).parts[:2] and p != Path(__file__)
    ]


def _repo_files() -> list[str]:
    """Every file of the repository, as a path from its root."""
    skip = {".git", ".venv", "__pycache__", "results", ".mypy_cache", ".ruff_cache"}
    return [
        p.relative_to(REPO).as_posix()
        for p in REPO.rglob("*")
        if p.is_file() and not skip & set(p.relative_to(REPO).parts)
    ]


REPO_FILES = _repo_files()


def _exists(token: str, citing: Path) -> bool:
    """Whether ``token`` names a file from the root, the citing file or a package.

    A path such as ``lists/_by_table.py`` in ``tests/systems/lists/`` names
    ``simulator/systems/lists/_by_table.py``: any file of the repository whose
    path ends in the token counts.
    """
    if (citing.parent / token).exists() or list(citing.parent.glob(token)):
        return True
    return any(
        fnmatch.fnmatch(f, token) or fnmatch.fnmatch(f, "*/" + token)
        for f in REPO_FILES
    )


def prose(path: Path) -> str:
    """The text of ``path`` a reader sees as prose: docstrings and comments of Python.

    Lines are joined with single spaces (comment markers dropped), so a
    citation broken over two lines reads as one.
    """
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return " ".join(text.split())
    parts: list[str] = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(
            node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef
        ):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                parts.append(doc)
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):  # attribute docstrings
            parts.append(node.value.value)
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.COMMENT:
            parts.append(tok.string.lstrip("#:").strip())
    return " ".join(" ".join(parts).split())


def headings(path: Path) -> list[tuple[str, str]]:
    """The headings of a Markdown file: (number or "", title in lower case)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            continue
        title = line.lstrip("#").strip()
        match = re.match(r"(\d+)\.\s+(.*)", title)
        number, title = (match.group(1), match.group(2)) if match else ("", title)
        out.append((number, title.lower()))
    return out


def _title_matches(cited: str, titles: list[str]) -> bool:
    """Whether ``cited`` names one of ``titles``: a whole title, or its start."""
    cited = cited.strip().lower()
    for title in titles:
        core = re.sub(r"\s*\([^)]*\)$", "", title)
        if cited.startswith((title, core)) and core:
            return True
        words = re.split(r"[,;:)]|\.(?:\s|$)", cited)[0].split()
        for n in range(len(words), 0, -1):  # the longest start of the citation
            head = " ".join(words[:n])
            if (title == head or title.startswith(head + " ")) and (
                n == len(words) or n >= 2
            ):
                return True
    return False


def problems(path: Path, text: str) -> Iterator[str]:
    """Each citation in ``text`` (the prose of ``path``) that does not resolve."""
    where = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    for match in OUTSIDE.finditer(text):
        cited = match.group(0).strip("`")
        yield f"{where}: cites {cited}, which is not in the repository"
    for match in PATH.finditer(text):
        token = match.group(1)
        stems = [Path(part).stem for part in token.split("/")]
        if any(s.isupper() for s in stems):
            continue  # a placeholder: experiments/NAME.toml
        if not _exists(token, path):
            yield f"{where}: cites {token}, which is not in the repository"
    for match in SECTION.finditer(text):
        doc = REPO / "docs" / f"{match.group(1)}.md"
        if not doc.exists():
            continue  # reported as a missing path above
        heads = headings(doc)
        if match.group("numbers"):
            wanted = set(re.findall(r"\d+", match.group("numbers")))
            missing = wanted - {n for n, _ in heads}
            if missing:
                yield f"{where}: docs/{doc.name} has no section {sorted(missing)}"
            continue
        cited = match.group("quoted") or match.group("bare")
        if not _title_matches(cited, [t for _, t in heads]):
            shown = cited if len(cited) < 60 else cited[:57] + "..."
            yield f"{where}: docs/{doc.name} has no section {shown!r}"


def test_every_citation_resolves() -> None:
    """No file cites notes outside the repository, a missing file or a section."""
    files = _files()
    assert any(p.name == "outcomes.py" for p in files)
    bad = [line for path in files for line in problems(path, prose(path))]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "text",
    [
        "The rules are in RULES.md, section 1.",
        "See WORLD.md and the seed pages (``seeds/003_x``).",
        "As simulator/world/no_such_module.py says.",
        'docs/world.md, "No such section"',
        "docs/world.md, Draws of the moon",
        "docs/rules.md, section 9",
        "docs/missing.md says so.",
    ],
)
def test_a_bad_citation_is_reported(text: str) -> None:
    """Each kind of bad citation is caught (the check can fail)."""
    assert list(problems(REPO / "simulator" / "x.py", text))


@pytest.mark.parametrize(
    "text",
    [
        "docs/world.md, Draws and White's edge, (L) E14",
        '(docs/world.md, "Draws and White\'s edge": the fit)',
        "docs/rules.md, section 1; docs/rules.md, sections 1 and 2.",
        "docs/rules.md, The PyPI package).",
        "`docs/world.md`, FIDE standard (OTB classical); more",
        'docs/design.md, "Metrics" and simulator/world/outcomes.py',
        "docs/world.md: median 1703; lists/new_players.py (relative to simulator/x)",
    ],
)
def test_a_good_citation_passes(text: str) -> None:
    """Citations of real files and sections, in the forms the code uses, pass."""
    path = REPO / "simulator" / "systems" / "x.py"
    assert list(problems(path, text)) == []


def test_docs_index_links_every_doc() -> None:
    """docs/README.md and README.md link every page of docs/."""
    index = (REPO / "docs" / "README.md").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pages = sorted(
        p.name for p in (REPO / "docs").glob("*.md") if p.name != "README.md"
    )
    assert {"rules.md", "world.md", "design.md", "config.md"} <= set(pages)
    for page in pages:
        assert f"({page})" in index, page
        assert f"docs/{page}" in readme, page


# --- the config reference -------------------------------------------------------


def test_config_reference_is_current() -> None:
    """docs/config.md is what the generator writes from the dataclasses now."""
    path = REPO / "docs" / "config.md"
    current = path.read_text(encoding="utf-8") if path.exists() else ""
    assert current == config_reference.render(), (
        f"docs/config.md is stale: run `{config_reference.COMMAND}` from the "
        "repository root and commit the result"
    )


def _reachable_fields() -> set[tuple[str, str]]:
    """Every (class, field) of the config dataclasses, found without the generator."""
    seen: set[tuple[str, str]] = set()
    todo: list[type] = [RunConfig, SystemSpec]
    done: set[type] = set()
    while todo:
        cls = todo.pop()
        if cls in done:
            continue
        done.add(cls)
        hints = get_type_hints(cls)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if not f.init or (cls is SystemSpec and f.name == "params"):
                continue
            seen.add((cls.__name__, f.name))
            tp = hints[f.name]
            for candidate in (tp, *getattr(tp, "__args__", ())):
                if dataclasses.is_dataclass(candidate) and isinstance(candidate, type):
                    todo.append(candidate)
    for factory in SYSTEMS.values():
        system = factory()
        for f in dataclasses.fields(system):  # type: ignore[arg-type]
            if f.init:
                seen.add((type(system).__name__, f.name))
    return seen


def test_config_reference_lists_every_field() -> None:
    """Every field of every config dataclass and system is a key of the reference."""
    text = config_reference.render()
    listed = {k.key for k in config_reference.config_keys()}
    for cls, name in sorted(_reachable_fields()):
        assert name in listed, f"{cls}.{name} is missing from the reference"
        assert f"| `{name}` |" in text, f"{cls}.{name} is missing from docs/config.md"


def test_every_key_has_a_meaning_and_numbers_a_unit() -> None:
    """Every key's docstring gives its meaning; every number's, a ``Unit:``."""
    for k in config_reference.config_keys():
        where = f"{k.section or 'top level'} {k.key}"
        assert k.meaning, f"{where}: no entry in its class's Parameters docstring"
        if re.match(r"(int|float|list of (int|float))\b", k.type):
            assert k.unit, f"{where}: its docstring needs a 'Unit: ...' sentence"


def test_field_docs_read_a_new_dataclass() -> None:
    """A new dataclass's fields, types, defaults and units are read as documented."""

    @dataclasses.dataclass(frozen=True)
    class Demo:
        """A demo.

        Parameters
        ----------
        low, high : float, default 1, 2
            A range.
            Unit: rating points.
        mode : {"a", "b"}, default "a"
            The mode.

        Notes
        -----
        low : not a parameter
        """

        low: float = 1.0
        high: float = 2.0
        mode: str = "a"
        count: int | None = None

    docs = config_reference.field_docs(Demo)
    assert set(docs) == {"low", "high", "mode"}
    assert docs["high"][1] == "A range. Unit: rating points."
    rows = {k.key: k for k in config_reference._rows(Demo, "[demo]")}
    assert (rows["low"].unit, rows["low"].meaning) == ("rating points", "A range.")
    assert rows["mode"].type == 'string, one of {"a", "b"}'
    assert rows["count"].type == 'int or "none"'
    assert rows["count"].default == '"none"'
    assert rows["count"].meaning == ""


# --- licence, citation, changelog ------------------------------------------------


def test_citation_file_is_valid_cff_with_the_package_version() -> None:
    """CITATION.cff has CFF 1.2.0's required keys and the package's version."""
    import tomllib

    import yaml

    import simulator

    cff = yaml.safe_load((REPO / "CITATION.cff").read_text(encoding="utf-8"))
    assert cff["cff-version"] == "1.2.0"
    for key in ("message", "title", "abstract"):
        assert isinstance(cff[key], str) and cff[key].strip(), key
    assert cff["authors"] == [{"name": "The ratingsim developers"}]
    assert cff["license"] == "MIT"
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert str(cff["version"]) == project["version"] == simulator.__version__
    assert project["license"] == {"text": "MIT"}
    licence = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License")
    assert "Copyright (c) 2026 the ratingsim developers" in licence


def test_changelog_has_an_entry_per_landed_issue() -> None:
    """CHANGELOG.md names every issue that landed, and the version of pyproject."""
    import tomllib

    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert f"## {version} - " in text
    for issue in (2, 3, 4, 5, 6, 7, 15, 16, 21):
        assert f"Issue {issue} (" in text, issue
