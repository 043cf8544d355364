"""Parameter validation shared by every configurable part of the package.

Messages follow scikit-learn's parameter validation, naming the owner, the
parameter and the bad value.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

__all__ = ["check_choice", "check_interval"]


def check_interval(
    owner: str,
    name: str,
    value: object,
    low: float,
    high: float,
    *,
    closed: Literal["both", "left", "right", "neither"] = "both",
    kind: str = "a float",
) -> None:
    """Raise ``ValueError`` unless ``low <(=) value <(=) high``.

    The message follows scikit-learn's parameter validation, e.g. ``The 'k' parameter
    of Elo must be a float in (0, inf). Got -3 instead.`` With ``kind="an int"``
    the value must also be an integer type.
    """
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(
        value, bool
    )
    if ok and kind == "an int":
        # A whole number is asked for: 2.5 is refused, 3.0 too (say 3).
        ok = isinstance(value, int | np.integer)
    if ok:
        v = float(value)  # type: ignore[arg-type]
        ok = not np.isnan(v)
        if ok:
            left_ok = v >= low if closed in ("both", "left") else v > low
            right_ok = v <= high if closed in ("both", "right") else v < high
            ok = left_ok and right_ok
    if not ok:
        lb = "[" if closed in ("both", "left") else "("
        rb = "]" if closed in ("both", "right") else ")"
        lo = "-inf" if low == -np.inf else f"{low:g}"
        hi = "inf" if high == np.inf else f"{high:g}"
        raise ValueError(
            f"The {name!r} parameter of {owner} must be {kind} in "
            f"{lb}{lo}, {hi}{rb}. Got {value!r} instead."
        )


def check_choice(
    owner: str, name: str, value: object, choices: tuple[Any, ...]
) -> None:
    """Raise ``ValueError`` unless ``value`` is one of ``choices``."""
    if not any(type(value) is type(c) and value == c for c in choices):
        options = ", ".join(repr(c) for c in choices)
        raise ValueError(
            f"The {name!r} parameter of {owner} must be one of {options}. "
            f"Got {value!r} instead."
        )
