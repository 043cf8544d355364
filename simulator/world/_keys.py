"""Checks of the world's sequence keys, shared by its config dataclasses.

Each check raises a one-line ``ValueError`` in scikit-learn's style naming the
owner, the key and the value (``simulator._validate`` for scalars).
"""

from __future__ import annotations

import itertools
from typing import Any, Literal

import numpy as np

from simulator._validate import check_interval

__all__: list[str] = []


def floats(
    owner: str, name: str, value: Any, *, empty: bool = False
) -> tuple[float, ...]:
    """``value`` as a tuple of finite floats (empty only if ``empty``)."""
    try:
        items = tuple(value)
    except TypeError:
        items = None
    ok = items is not None and (empty or len(items) > 0)
    ok = ok and all(
        isinstance(v, int | float | np.integer | np.floating)
        and not isinstance(v, bool)
        and np.isfinite(float(v))
        for v in items or ()
    )
    if not ok:
        what = "a sequence" if empty else "a non-empty sequence"
        raise ValueError(
            f"The {name!r} parameter of {owner} must be {what} of finite floats. "
            f"Got {value!r} instead."
        )
    return tuple(float(v) for v in items or ())


def each(
    owner: str,
    name: str,
    values: tuple[float, ...],
    low: float,
    high: float,
    closed: Literal["both", "left", "right", "neither"] = "both",
) -> None:
    """Check every entry of a sequence key, naming the entry."""
    for i, v in enumerate(values):
        check_interval(owner, f"{name}[{i}]", v, low, high, closed=closed)


def same_length(owner: str, **named: tuple[float, ...]) -> None:
    """Equal lengths of the named sequences, or a ValueError naming them."""
    if len({len(v) for v in named.values()}) > 1:
        listed = ", ".join(f"{n!r} ({len(v)})" for n, v in named.items())
        raise ValueError(f"The parameters {listed} of {owner} must have equal lengths.")


def increasing(owner: str, name: str, values: tuple[float, ...]) -> None:
    """Strictly increasing entries, or a ValueError naming the key."""
    if any(b <= a for a, b in itertools.pairwise(values)):
        raise ValueError(
            f"The {name!r} parameter of {owner} must be strictly increasing. "
            f"Got {values!r} instead."
        )


def weights(owner: str, name: str, values: tuple[float, ...]) -> None:
    """Non-negative weights with a positive sum."""
    each(owner, name, values, 0, np.inf, "left")
    if sum(values) <= 0:
        raise ValueError(
            f"The {name!r} parameter of {owner} must have a positive sum. "
            f"Got {values!r} instead."
        )


def choice(owner: str, name: str, value: Any, options: tuple[str, ...]) -> None:
    """One of ``options``, or a ValueError listing them."""
    if not (isinstance(value, str) and value in options):
        listed = ", ".join(repr(o) for o in options)
        raise ValueError(
            f"The {name!r} parameter of {owner} must be one of {listed}. "
            f"Got {value!r} instead."
        )


def knots(
    owner: str, x_name: str, x: Any, y_name: str, y: Any, *, empty: bool = True
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """A piecewise-linear table: increasing knots and their values, same length."""
    xs = floats(owner, x_name, x, empty=empty)
    ys = floats(owner, y_name, y, empty=empty)
    same_length(owner, **{x_name: xs, y_name: ys})
    increasing(owner, x_name, xs)
    return xs, ys
