"""Labelled systems of a replay: several variants of one system side by side.

A replay names each system by a label, the column of its ratings and the row
of its metrics. By default the label is the registry name (``"elo"``), so a
system can be replayed once; with a label, two Elo systems with different K
share one replay. The spellings:

* from Python, a mapping ``{"elo-k20": make_system("elo", k_factor=20),
  "elo-k40": "elo"}``, or a sequence of names, built systems and
  ``(label, system)`` pairs;
* as text (the command line's ``--systems``), ``LABEL=NAME:KEY=VALUE:...``,
  e.g. ``elo-k20=elo:k_factor=20``; the label and the parameters may be left
  out (``elo``, ``elo:k_factor=20`` is labelled ``elo:k_factor=20``).

A value is read as ``none`` (None), ``true``/``false``, a whole number, a
number, or else text; an unknown parameter is an error naming the closest
one (:func:`simulator.systems.make_system`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simulator.systems import RatingSystem, make_system

__all__ = ["SystemsSpec", "labelled_systems", "parse_system"]

#: What :func:`labelled_systems` accepts.
SystemsSpec = (
    Mapping[str, str | RatingSystem]
    | Sequence[str | RatingSystem | tuple[str, str | RatingSystem]]
)


def _value(text: str) -> Any:
    """A parameter's value from its text (module docstring)."""
    low = text.strip().lower()
    if low == "none":
        return None
    if low in ("true", "false"):
        return low == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip()


def parse_system(spec: str) -> tuple[str, RatingSystem]:
    """``LABEL=NAME:KEY=VALUE:...`` as a label and a built system.

    Raises
    ------
    ValueError
        An empty label or name, a parameter without ``=``, an unknown system
        or parameter, or a bad value (the system's own message).

    Examples
    --------
    >>> label, system = parse_system("elo-k20=elo:k_factor=20")
    >>> label, system.k_factor
    ('elo-k20', 20)
    >>> parse_system("glicko2")[0]
    'glicko2'
    """
    text = spec.strip()
    label, sep, rest = text.partition("=")
    if not sep or ":" in label:
        # No label: the whole text is NAME[:KEY=VALUE...].
        label, rest = text, text
    label = label.strip()
    name, *pairs = rest.split(":")
    name = name.strip()
    if not label or not name:
        raise ValueError(f"A system must be LABEL=NAME:KEY=VALUE... Got {spec!r}.")
    params: dict[str, Any] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key.strip():
            raise ValueError(
                f"A system parameter must be KEY=VALUE. Got {pair!r} in {spec!r}."
            )
        params[key.strip()] = _value(value)
    return label, make_system(name, **params)


def labelled_systems(systems: SystemsSpec) -> list[tuple[str, RatingSystem]]:
    """Each system with its label, in order (module docstring).

    Raises
    ------
    ValueError
        No system, or a label given twice (naming it).
    """
    items: list[tuple[str, RatingSystem]] = []
    if isinstance(systems, Mapping):
        entries: list[Any] = list(systems.items())
    else:
        entries = list(systems)
    for entry in entries:
        if isinstance(entry, tuple):
            label, system = entry
            built = parse_system(system)[1] if isinstance(system, str) else system
            items.append((str(label), built))
        elif isinstance(entry, str):
            items.append(parse_system(entry))
        else:
            items.append((entry.name, entry))
    labels = [label for label, _ in items]
    if not labels:
        raise ValueError("replay needs at least one system.")
    twice = sorted({label for label in labels if labels.count(label) > 1})
    if twice:
        raise ValueError(
            f"Each system label can be used once; {', '.join(twice)} is given more "
            "than once (label them: {'elo-k20': make_system('elo', k_factor=20)} "
            "or elo-k20=elo:k_factor=20)."
        )
    return items
