"""The config reference, ``docs/config.md``, generated from the config's dataclasses.

Every key a run config accepts is a field of a frozen dataclass reached from
:class:`~simulator.config.RunConfig` (its sections ``[population]``,
``[metrics]``, ``[[arena]]`` with ``[arena.schedule]`` and ``[arena.seeding]``,
``[[comparison]]``, ``[[variant]]``, ``[[grid]]``), or a parameter of a
registered rating system (the fields of its dataclass, in
:data:`~simulator.systems.SYSTEMS`). So the reference is read from the code:
each key's type from its annotation, its default from the dataclass, and its
unit and meaning from the class's numpydoc ``Parameters`` section, where a
sentence ``Unit: ...`` gives the unit. A field added to any of these classes
appears in the reference when it is regenerated::

    python -m simulator.config_reference            # writes docs/config.md
    python -m simulator.config_reference -          # prints it

``tests/test_docs.py`` fails when ``docs/config.md`` differs from what this
module renders.

Imports: base, systems, world, evaluation and config (the layer of the
config it documents); nothing imports it.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import re
import sys
import types
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

from simulator.config import ArenaConfig, RunConfig, SystemSpec
from simulator.systems import SYSTEMS

__all__ = [
    "Key",
    "config_keys",
    "default_text",
    "field_docs",
    "main",
    "render",
    "type_text",
]

#: Where :func:`main` writes by default (relative to the working directory).
DEFAULT_PATH = Path("docs") / "config.md"
#: The command that regenerates the reference (quoted by the staleness test).
COMMAND = "python -m simulator.config_reference"


@dataclass(frozen=True)
class Key:
    """One row of the reference.

    Parameters
    ----------
    section : str
        The TOML table the key belongs to: ``""`` (top level), ``"[population]"``,
        ``"[[arena]]"``, ``"[arena.schedule]"``, or ``"system fide"`` for a
        parameter of a rating system.
    key : str
        The key as written in that table.
    type : str
        Its TOML type in words.
    default : str
        Its default as TOML text (``"none"`` stands for None).
    unit : str
        Its unit, from the docstring's ``Unit:`` sentence; empty if none.
    meaning : str
        Its docstring description, on one line.
    """

    section: str
    key: str
    type: str
    default: str
    unit: str
    meaning: str


# --- docstrings ----------------------------------------------------------------

_UNIT = re.compile(r"\s*\bUnit:\s*([^.]*(?:\.\d[^.]*)*)\.")


def field_docs(cls: type) -> dict[str, tuple[str, str]]:
    """Each documented parameter of ``cls``: name -> (type line, description).

    Read from the numpydoc ``Parameters`` section of the class docstring; an
    entry ``a, b : float`` documents both ``a`` and ``b``.
    """
    doc = inspect.getdoc(cls) or ""
    lines = doc.splitlines()
    out: dict[str, tuple[str, str]] = {}
    try:
        start = next(
            i
            for i in range(len(lines) - 1)
            if lines[i].strip() == "Parameters" and set(lines[i + 1].strip()) == {"-"}
        )
    except StopIteration:
        return out
    names: list[str] = []
    type_line = ""
    text: list[str] = []

    def flush() -> None:
        for name in names:
            out[name] = (type_line, " ".join(" ".join(text).split()))

    i = start + 2
    while i < len(lines):
        line = lines[i]
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line and not line[0].isspace() and set(following.strip()) == {"-"}:
            break  # the next section
        if line and not line[0].isspace():
            flush()
            head, _, type_line = line.partition(" : ")
            names = [n.strip() for n in head.split(",") if n.strip()]
            type_line = type_line.strip()
            text = []
        elif line.strip():
            text.append(line.strip())
        i += 1
    flush()
    return out


def _unit_and_meaning(description: str) -> tuple[str, str]:
    """Split the ``Unit: ...`` sentence from a description."""
    match = _UNIT.search(description)
    if match is None:
        return "", description
    meaning = (description[: match.start()] + description[match.end() :]).strip()
    return match.group(1).strip(), meaning


# --- types and values ----------------------------------------------------------


def type_text(tp: Any, doc_type: str = "") -> str:
    """An annotation as words: ``float | None`` -> ``float or "none"``.

    A string whose docstring type lists its choices (``{"a", "b"}``) shows
    them.
    """
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        inner = " or ".join(type_text(a, doc_type) for a in args)
        return f'{inner} or "none"' if type(None) in get_args(tp) else inner
    if tp is str:
        choices = re.match(r"\s*(\{[^}]*\})", doc_type)
        return f"string, one of {choices.group(1)}" if choices else "string"
    if tp is bool:
        return "bool"
    if tp is int:
        return "int"
    if tp is float:
        return "float"
    if origin is tuple:
        items = get_args(tp)
        if items and get_origin(items[0]) is tuple:
            return "table of dotted keys and values"
        if items and dataclasses.is_dataclass(items[0]):
            return "array of tables"
        item = type_text(items[0]) if items else "any"
        return f"list of {item}"
    if dataclasses.is_dataclass(tp):
        return "table"
    return "any"


def default_text(value: Any) -> str:
    """A default value as TOML text."""
    if value is None:
        return '"none"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else str(value)
    if isinstance(value, SystemSpec):
        return f'"{value.label}"'
    if isinstance(value, tuple):
        if value and all(isinstance(v, tuple) and len(v) == 2 for v in value):
            return "{" + ", ".join(f"{k} = {default_text(v)}" for k, v in value) + "}"
        if any(dataclasses.is_dataclass(v) for v in value):
            if all(isinstance(v, SystemSpec) for v in value):
                return "[" + ", ".join(default_text(v) for v in value) + "]"
            return f"{len(value)} table{'s' * (len(value) != 1)} (see below)"
        return "[" + ", ".join(default_text(v) for v in value) + "]"
    if dataclasses.is_dataclass(value):
        return "(see below)"
    return str(value)


def _default(f: dataclasses.Field[Any], instance: Any) -> str:
    if instance is not None:
        return default_text(getattr(instance, f.name))
    if f.default is not dataclasses.MISSING:
        return default_text(f.default)
    if f.default_factory is not dataclasses.MISSING:
        return default_text(f.default_factory())
    return "required"


# --- walking the dataclasses ---------------------------------------------------


def _item_type(tp: Any) -> Any:
    """The dataclass of ``tuple[Cls, ...]``, else None."""
    if get_origin(tp) is tuple:
        args = get_args(tp)
        if args and dataclasses.is_dataclass(args[0]):
            return args[0]
    return None


def _rows(cls: type, section: str, instance: Any = None) -> Iterator[Key]:
    """The rows of one dataclass's keys (the nested tables' keys not included)."""
    hints = get_type_hints(cls)
    docs = field_docs(cls)
    for f in dataclasses.fields(cls):
        if not f.init or f.name.startswith("_"):
            continue
        doc_type, description = docs.get(f.name, ("", ""))
        unit, meaning = _unit_and_meaning(description)
        tp = hints[f.name]
        text = type_text(tp, doc_type)
        if cls is ArenaConfig and f.name == "systems":
            text = "list of system names or tables"
        yield Key(section, f.name, text, _default(f, instance), unit, meaning)


def _sections(cls: type, section: str, path: str) -> Iterator[tuple[str, type]]:
    """``cls`` and every dataclass below it, as (section, class), depth first."""
    yield section, cls
    hints = get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        tp = hints[f.name]
        name = f"{path}.{f.name}" if path else f.name
        if dataclasses.is_dataclass(tp) and isinstance(tp, type):
            yield from _sections(tp, f"[{name}]", name)
        item = _item_type(tp)
        if item is not None and item is not SystemSpec:
            yield from _sections(item, f"[[{name}]]", name)


def config_keys() -> list[Key]:
    """Every key of a run config and every rating system's parameters."""
    out: list[Key] = []
    for section, cls in _sections(RunConfig, "", ""):
        out.extend(_rows(cls, section))
    out.extend(_rows(SystemSpec, "[[arena]] systems"))
    out = [k for k in out if not (k.section.endswith("systems") and k.key == "params")]
    for name, factory in SYSTEMS.items():
        out.extend(_rows(type(factory()), f"system {name}", factory()))
    return out


# --- Markdown ------------------------------------------------------------------


_ROLE = re.compile(r":\w+:`(~?)([\w.]+)`")


def _markdown(text: str) -> str:
    """A docstring's reStructuredText as Markdown: roles and literals as code."""
    text = _ROLE.sub(
        lambda m: f"`{m.group(2).split('.')[-1] if m.group(1) else m.group(2)}`", text
    )
    return text.replace("``", "`")


def _cell(text: str) -> str:
    return _markdown(text).replace("|", "\\|") if text else ""


def _table(rows: Sequence[Key]) -> list[str]:
    lines = ["| key | type | default | unit | meaning |", "|---|---|---|---|---|"]
    for k in rows:
        cells = (f"`{k.key}`", k.type, f"`{k.default}`", k.unit, k.meaning)
        lines.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    return lines


_INTRO = f"""\
# Config reference

Every key a run config (TOML) accepts, with its type, default, unit and
meaning. This page is generated from the config's dataclasses and their
docstrings by `{COMMAND}` (`simulator/config_reference.py`): do not edit it by
hand; change the docstring and regenerate. How a config is written and
checked is in `simulator/config.py`; the rules behind the systems' parameters
are in `docs/rules.md`, the sources of the world's defaults in
`docs/world.md`.

A list is a TOML array; `"none"` stands for no value (TOML has no null). A
section `[[name]]` is an array of tables, one per entry; keys of a nested
table may also be written inline.
"""


def _heading(section: str, cls: type) -> str:
    title = section or "Top level"
    summary = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
    return f"## {title}\n\n{summary}\n"


def render() -> str:
    """The text of ``docs/config.md``."""
    out = [_INTRO]
    all_keys = config_keys()
    for section, cls in _sections(RunConfig, "", ""):
        out.append(_heading(section, cls))
        out.extend(_table([k for k in all_keys if k.section == section]))
        out.append("")
    out.append(
        "## [[arena]] systems\n\n"
        'Each entry of an arena\'s `systems` is a registry name (`"fide"`) or an\n'
        'inline table `{system = "fide", label = "fide no cap", cap = "none"}`: the\n'
        "keys besides `system` and `label` are the system's parameters, below.\n"
    )
    out.extend(_table([k for k in all_keys if k.section == "[[arena]] systems"]))
    out.append("")
    seen: dict[type, str] = {}
    for name, factory in SYSTEMS.items():
        system = factory()
        cls = type(system)
        rows = [k for k in all_keys if k.section == f"system {name}"]
        summary = (inspect.getdoc(cls) or "").split("\n\n")[0].replace("\n", " ")
        out.append(f"### System `{name}`\n\n{summary}\n")
        if cls in seen:
            first = seen[cls]
            base = {
                k.key: k.default for k in all_keys if k.section == f"system {first}"
            }
            changed = [
                f"`{k.key} = {k.default}`" for k in rows if base[k.key] != k.default
            ]
            out.append(
                f"The parameters of `{first}`, with these defaults changed: "
                f"{', '.join(changed) or 'none'}.\n"
            )
            continue
        seen[cls] = name
        out.extend(_table(rows))
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the reference to ``argv[0]`` (default ``docs/config.md``; ``-``: print)."""
    args = list(sys.argv[1:] if argv is None else argv)
    target = args[0] if args else str(DEFAULT_PATH)
    text = render()
    if target == "-":
        sys.stdout.write(text)
        return 0
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path} ({len(config_keys())} keys)")
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    raise SystemExit(main())
