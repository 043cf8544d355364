"""The report's tables as text: cells with intervals, terminal and Markdown tables.

A cell shows a figure of a :class:`~simulator.evaluation.results.Summary`
with the half-width of its confidence interval across replicates
(``value ± half-width``; no ``±`` with one replicate). :func:`format_summary_table`
prints a run's headline table, :func:`format_sweep_table` a sweep's; the
Markdown tables of ``report.md`` and ``sweep.md``
(:mod:`~simulator.evaluation.markdown`) are built from the same cells.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from simulator.evaluation.results import Summary
from simulator.evaluation.settings import threshold_name

__all__ = ["format_summary_table", "format_sweep_table"]

#: A column of a summary table: its name, its digits and whether a positive
#: value shows its sign.
_Column = tuple[str, int, bool]
#: The headline columns of the terminal table, after N*t*.
_HEADLINE_COLUMNS: tuple[_Column, ...] = (
    ("rmse", 1, False),
    ("log_loss", 4, False),
    ("log_loss_excess", 4, True),
    ("offset", 1, True),
)
#: The headline with the common support: RMSE over the players every system
#: rates, then over each system's own; log loss between rated players, then
#: over all games.
_HEADLINE_COMMON: tuple[_Column, ...] = (
    ("rmse_common", 1, False),
    ("rmse", 1, False),
    ("log_loss_common", 4, False),
    ("log_loss", 4, False),
    ("offset", 1, True),
)
#: The header of a sweep's table; each row is the point, arena and system
#: followed by the figures of _SWEEP_CELLS (column, digits).
_SWEEP_HEADER = ("point", "arena", "system", "N50", "RMSE", "log loss", "offset")
_SWEEP_CELLS = (("n50_median", 0), ("rmse", 1), ("log_loss", 4), ("offset", 1))


def _arenas(summary: Summary | Mapping[str, Summary]) -> dict[str, Summary]:
    if isinstance(summary, Summary):
        return {"": summary}
    out = dict(summary)
    if not out or not all(isinstance(s, Summary) for s in out.values()):
        raise TypeError(
            "summary must be a Summary or a non-empty mapping of arena name to "
            f"Summary. Got {summary!r} instead."
        )
    return out


def _number(value: float, digits: int) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:.{digits}f}"


def _with_interval(
    row: pd.Series, column: str, digits: int, *, sign: bool = False
) -> str:
    """``value ± half-width`` of a summary column (no ± where the interval is NaN)."""
    value = float(row[column])
    text = _number(value, digits)
    if sign and math.isfinite(value) and value >= 0:
        text = "+" + text
    lo, hi = row.get(f"{column}_lo"), row.get(f"{column}_hi")
    if lo is None or hi is None:
        return text
    half = (float(hi) - float(lo)) / 2.0
    if math.isfinite(value) and math.isfinite(half):
        text += f" ± {half:.{digits}f}"
    return text


def _share(row: pd.Series, column: str) -> str:
    """A share as a percentage, with the interval's half-width in points."""
    value = float(row[column])
    if not math.isfinite(value):
        return "n/a"
    text = f"{100.0 * value:.0f}%"
    lo, hi = row.get(f"{column}_lo"), row.get(f"{column}_hi")
    if lo is not None and hi is not None:
        half = 50.0 * (float(hi) - float(lo))
        if math.isfinite(half):
            text += f" ± {half:.0f}"
    return text


def _km(row: pd.Series, column: str, digits: int) -> str:
    """A Kaplan-Meier figure with its interval, or how often it was not reached.

    Where no replicate is ``inf``: ``mean ± half-width`` (:func:`_with_interval`).
    Where some are (``column_inf`` > 0, see
    :class:`~simulator.evaluation.results.Summary`): the median across
    replicates with its interval in brackets and the count not reached, or
    "not reached" when the median is ``inf``.
    """
    value = float(row[column])
    n_inf = float(row.get(f"{column}_inf", 0.0))
    of = row.get("n_replicates")
    counted = f"{n_inf:.0f} of {of:.0f}" if of is not None else f"{n_inf:.0f}"
    if math.isinf(value):
        return f"not reached ({counted})" if n_inf > 0 else "not reached"
    if not n_inf > 0:
        return _with_interval(row, column, digits)
    lo, hi = float(row[f"{column}_lo"]), float(row[f"{column}_hi"])
    bounds = (
        f" [{_number(lo, digits)}, {_number(hi, digits)}]"
        if not (math.isnan(lo) or math.isnan(hi))
        else ""
    )
    return f"{_number(value, digits)}{bounds} (median; {counted} not reached)"


def _games(row: pd.Series, stem: str) -> str:
    """N_t by both conventions, named, with intervals, and the converged share.

    ``KM``: the Kaplan-Meier median (:func:`_km`); ``so far``: the median of
    the "games so far if not converged" convention.
    """
    text = f"{_km(row, f'{stem}_median', 1)} KM"
    if f"{stem}_so_far" in row.index:
        text += f", {_with_interval(row, f'{stem}_so_far', 1)} so far"
    share = float(row[f"{stem}_converged"])
    if math.isfinite(share):
        text += f" ({share:.0%})"
    return text


def _headline_threshold(summary: Summary) -> str:
    """The N column of the terminal table: N50 if measured, else the middle one."""
    thresholds = summary.thresholds
    t = 50.0 if 50.0 in thresholds else thresholds[len(thresholds) // 2]
    return threshold_name(t)


def _text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        parts = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A GitHub Markdown table, first column left-aligned, the others right."""

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    align = ["---"] + ["---:"] * (len(header) - 1)
    return "\n".join([line(header), "| " + " | ".join(align) + " |", *map(line, rows)])


def _system_rows(
    s: Summary, stems: Sequence[str], columns: Sequence[_Column]
) -> list[list[str]]:
    """A row per system: its name, N*t* of each stem, then each column."""
    return [
        [
            str(row["system"]),
            *(_games(row, stem) for stem in stems),
            *(_with_interval(row, c, digits, sign=sign) for c, digits, sign in columns),
        ]
        for _, row in s.summary.iterrows()
    ]


def _headline_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    stem = _headline_threshold(summary)
    if {"rmse_common", "log_loss_common"} <= set(summary.summary.columns):
        # Like for like first: the players every system rates, the games
        # between players every system rates.
        header = [
            "system",
            f"{stem.upper()} (games)",
            "RMSE, common",
            "RMSE, own",
            "log loss, both rated",
            "log loss, all",
            "offset",
        ]
        columns = _HEADLINE_COMMON
        drift = summary.summary.get("drift_per_year")
        if drift is not None and drift.notna().any():
            # The drift of the fixed cohort: what a deflation study asks.
            header.append("cohort drift / yr")
            columns = (*columns, ("drift_per_year", 2, True))
        return header, _system_rows(summary, [stem], columns)
    header = [
        "system",
        f"{stem.upper()} median (games)",
        "RMSE (points)",
        "log loss",
        "excess over oracle",
        "offset (points)",
    ]
    return header, _system_rows(summary, [stem], _HEADLINE_COLUMNS)


def format_summary_table(summary: Summary | Mapping[str, Summary]) -> str:
    """The terminal summary: one row per system.

    Columns: the median games to stay within 50 points (N50, or the middle
    threshold when 50 is not measured; Kaplan-Meier and "games so far") with
    the share of newcomers who got there; the steady-state RMSE after
    removing the offset, over the players every system rates (common) and
    over the system's own; the log loss of the system's predictions between
    players every system rates and over all games; the offset
    ``mean(rating - true)``; where it was measured, the fixed cohort's drift
    in points a year. A summary without the common support's columns
    gets the RMSE, the log loss and its excess over the oracle's instead.
    ``±`` gives the half-width of the confidence interval across replicates
    (absent with one replicate).

    Parameters
    ----------
    summary : Summary or mapping of str to Summary
        The combined replicates; with a mapping, one table per arena.

    Returns
    -------
    str
        The table, without a trailing newline.
    """
    blocks = []
    for arena, s in _arenas(summary).items():
        header, rows = _headline_rows(s)
        table = _text_table(header, rows)
        note = f"{s.n_replicates} replicate{'s' if s.n_replicates != 1 else ''}" + (
            f", ± = {s.confidence:.0%} interval" if s.n_replicates > 1 else ""
        )
        title = f"arena {arena}: {note}" if arena else note
        blocks.append(f"{title}\n{table}")
    return "\n\n".join(blocks)


def _sweep_rows(
    table: pd.DataFrame, cell: Callable[[pd.Series, str, int], str]
) -> list[list[str]]:
    """A row of a sweep's table per point, arena and system: ``cell`` each figure.

    The rows of cross-arena comparisons' fits (``arena`` ``"comparison"``)
    are left out: ``sweep.md`` tabulates them apart.
    """
    if "arena" in table and len(table):
        table = table[table["arena"].astype(str) != "comparison"]
    return [
        [
            str(r["point"]),
            str(r["arena"]),
            str(r["system"]),
            *(cell(r, column, digits) for column, digits in _SWEEP_CELLS),
        ]
        for _, r in table.iterrows()
    ]


def format_sweep_table(table: pd.DataFrame) -> str:
    """The terminal table of a sweep: N50, RMSE, log loss and offset per row."""
    return _text_table(
        _SWEEP_HEADER,
        _sweep_rows(table, lambda r, column, digits: _number(r[column], digits)),
    )
