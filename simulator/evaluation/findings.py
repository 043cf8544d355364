"""The sentences that follow each table of a report: what the table found.

Each function reads a :class:`~simulator.evaluation.results.Summary` and says
which system leads on a figure, by how much, with the paired interval to the
reference where the comparison involves it
(:attr:`~simulator.evaluation.results.Summary.paired`), and whether the
difference is *resolved*: its interval excludes 0. A difference between two
systems neither of which is the reference has no paired interval in the
tables; it is then given as the difference of means, "unpaired".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from simulator.evaluation.paired_tables import paired_index
from simulator.evaluation.results import Summary
from simulator.evaluation.settings import COIN_FLIP, ORACLE

__all__ = ["drift_finding", "lead_finding", "resolved"]


def _fmt(value: float, digits: int, sign: bool = False) -> str:
    if not math.isfinite(value):
        return "inf" if value == math.inf else ("-inf" if value < 0 else "n/a")
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def resolved(lo: float, hi: float) -> bool | None:
    """Whether an interval excludes 0; None without an interval."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return lo > 0.0 or hi < 0.0


def _verdict(lo: float, hi: float) -> str:
    r = resolved(lo, hi)
    if r is None:
        return "no interval"
    return (
        "resolved: the interval excludes 0"
        if r
        else "not resolved: the interval contains 0"
    )


def _paired(
    s: Summary,
    index: Mapping[tuple[str, str, str, str], pd.Series],
    key: tuple[str, str, str, str],
) -> tuple[float, float, float] | None:
    row = index.get(key)
    if row is None:
        return None
    return float(row["difference"]), float(row["lo"]), float(row["hi"])


def lead_finding(
    s: Summary,
    rows: pd.DataFrame,
    column: str,
    what: str,
    *,
    digits: int,
    unit: str = "",
    lower: bool = True,
    table: str = "summary",
    pairs: str = "",
) -> str:
    """One sentence: which system leads on ``column`` and by how much.

    Parameters
    ----------
    s : Summary
        The arena's summary (its paired table and reference).
    rows : pandas.DataFrame
        One row per system with ``column`` (the oracle and the coin flip of
        a prediction table are left out).
    column : str
        The figure compared.
    what : str
        Its name in the sentence ("RMSE on the common support").
    digits : int
        Digits shown.
    unit : str
        Unit after numbers (" points").
    lower : bool
        Whether lower is better.
    table, pairs : str
        The key of ``column`` in the paired table.

    Returns
    -------
    str
        The sentence, or "" with fewer than two systems with a finite figure.
    """
    if column not in rows:
        return ""
    values = {
        str(r["system"]): float(r[column])
        for _, r in rows.iterrows()
        if str(r["system"]) not in (ORACLE, COIN_FLIP)
        and math.isfinite(float(r[column]))
    }
    if len(values) < 2:
        return ""
    order = sorted(values, key=lambda k: values[k], reverse=not lower)
    leader, runner = order[0], order[1]
    best = "lowest" if lower else "highest"
    text = f"**{leader}** has the {best} {what}, {_fmt(values[leader], digits)}{unit}"
    index = paired_index(s)
    ref = s.reference
    if ref in (leader, runner):
        other = runner if leader == ref else leader
        p = _paired(s, index, (table, pairs, other, column))
        if p is not None and math.isfinite(p[0]):
            d, lo, hi = p
            text += (
                f"; {runner} is next, {other} - {ref} = {_fmt(d, digits, True)}"
                f" [{_fmt(lo, digits, True)}, {_fmt(hi, digits, True)}]{unit} "
                f"(paired; {_verdict(lo, hi)})"
            )
            return text + "."
    margin = abs(values[runner] - values[leader])
    text += f", ahead of {runner} by {_fmt(margin, digits)}{unit} (unpaired)"
    p = _paired(s, index, (table, pairs, leader, column)) if ref else None
    if p is not None and math.isfinite(p[0]) and ref in values:
        d, lo, hi = p
        text += (
            f"; against the reference {ref}: {_fmt(d, digits, True)} "
            f"[{_fmt(lo, digits, True)}, {_fmt(hi, digits, True)}]{unit} "
            f"({_verdict(lo, hi)})"
        )
    return text + "."


def drift_finding(s: Summary) -> str:
    """Which systems drift (interval of the slope excludes 0), by how much a year."""
    moving, still, unknown = [], [], []
    for _, r in s.summary.iterrows():
        v = float(r["drift_per_year"])
        lo = float(r.get("drift_per_year_lo", math.nan))
        hi = float(r.get("drift_per_year_hi", math.nan))
        name = str(r["system"])
        if not math.isfinite(v):
            continue
        text = f"{name} {_fmt(v, 2, True)}"
        r_ = resolved(lo, hi)
        if r_ is None:
            unknown.append(text)
        elif r_:
            moving.append(f"{text} [{_fmt(lo, 2, True)}, {_fmt(hi, 2, True)}]")
        else:
            still.append(name)
    parts = []
    if moving:
        parts.append(
            "Resolved drift of the adult cohort (points a year; the interval "
            "excludes 0): " + "; ".join(moving) + "."
        )
    if still:
        parts.append(
            "No resolved drift (the interval contains 0): " + ", ".join(still) + "."
        )
    if unknown:
        parts.append(
            "Drift without an interval (one replicate): " + "; ".join(unknown) + "."
        )
    drifts = s.summary.assign(size=s.summary["drift_per_year"].abs())
    drifts = drifts[drifts["size"].map(math.isfinite)].sort_values("size")
    if len(drifts):
        biggest = drifts.iloc[-1]
        parts.append(
            f"The largest is {biggest['system']}'s, "
            f"{_fmt(float(biggest['drift_per_year']), 2, True)} points a year."
        )
    return " ".join(parts)


def join(sentences: Sequence[str]) -> str:
    """The non-empty sentences as one paragraph."""
    return " ".join(x for x in sentences if x)
