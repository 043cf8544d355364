"""The text of a sweep's ``sweep.md``: every point's headline figures and findings.

``sweep.md`` holds the headline figures of every point, arena and system
(:func:`~simulator.evaluation.report.sweep_table`) with their intervals
across replicates, a sentence per point and arena saying which system leads,
the fit of each cross-arena comparison per point (slope, intercept, gap)
against the published FIDE-Lichess fit, the sweep figure, a glossary of the
columns, the failed tasks and how to rerun the sweep.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from simulator._style import Style
from simulator.evaluation.figures import PUBLISHED_CONVERSION
from simulator.evaluation.formatting import _markdown_table, _with_interval

__all__ = ["sweep_markdown"]

#: The columns of the sweep's table: column, header, digits, signed.
_COLUMNS = (
    ("n50_median", "N50 (KM games)", 1, False),
    ("rmse_common", "RMSE, common", 1, False),
    ("rmse", "RMSE, own", 1, False),
    ("log_loss", "log loss", 4, False),
    ("brier", "Brier", 4, False),
    ("offset", "offset", 1, True),
    ("drift_per_year", "drift / year", 2, True),
)
_FITS = (
    ("slope", "slope", 3, False),
    ("intercept", "intercept", 0, False),
    ("gap", "gap (y - x)", 1, True),
    ("correlation", "correlation", 3, False),
)
_GLOSSARY = (
    (
        "N50 (KM games)",
        "Kaplan-Meier median of the games after which a "
        "newcomer's aligned error stays below 50 points",
    ),
    (
        "RMSE, common / own",
        "steady-state root mean square aligned error of "
        "the players every system rates / of the system's own rated players",
    ),
    (
        "log loss, Brier",
        "of each system's pre-game expected score for White "
        "(natural log; lower is better)",
    ),
    ("offset", "mean(rating - true), rating points"),
    ("drift / year", "slope of a fixed adult cohort's mean(rating - true)"),
    (
        "slope, intercept",
        "the cross-sectional fit x = slope y + intercept of "
        "a comparison's two systems over the players both rate",
    ),
    ("gap (y - x)", "mean difference of the two ratings"),
    ("±", "half-width of the Student-t interval of the mean over replicates"),
)


def _name(system: str, styles: Mapping[str, Style] | None) -> str:
    return styles[system].name if styles and system in styles else system


def _leads(rows: pd.DataFrame, styles: Mapping[str, Style] | None) -> str:
    """Per point and arena: which system has the lowest RMSE and log loss."""
    out = []
    for (point, arena), part in rows.groupby(["point", "arena"], sort=False):
        where = f"**{point}**" + (f" (arena {arena})" if arena else "")
        said = []
        for column, what, digits in (
            ("rmse_common" if "rmse_common" in part else "rmse", "RMSE", 1),
            ("log_loss", "log loss", 4),
        ):
            if column not in part:
                continue
            values = part[["system", column]].dropna()
            values = values[values[column].map(math.isfinite)]
            if len(values) < 2:
                continue
            values = values.sort_values(column)
            first, second = values.iloc[0], values.iloc[1]
            said.append(
                f"lowest {what} {_name(str(first['system']), styles)} "
                f"({float(first[column]):.{digits}f}, ahead of "
                f"{_name(str(second['system']), styles)} by "
                f"{float(second[column]) - float(first[column]):.{digits}f}, "
                "unpaired)"
            )
        if said:
            out.append(f"- {where}: " + "; ".join(said) + ".")
    return "\n".join(out)


def _fits(fits: pd.DataFrame) -> list[str]:
    """The comparisons' fit per point, and the slope's range against the published."""
    header = ["point", "comparison", *(h for _, h, _, _ in _FITS)]
    rows = [
        [
            str(r["point"]),
            str(r["system"]),
            *(
                _with_interval(r, c, d, sign=s) if c in r else "n/a"
                for c, _, d, s in _FITS
            ),
        ]
        for _, r in fits.iterrows()
    ]
    a, b = PUBLISHED_CONVERSION
    slopes = fits[["point", "slope"]].dropna()
    text = ""
    if not slopes.empty:
        ordered = slopes.sort_values("slope")
        low, high = ordered.iloc[0], ordered.iloc[-1]
        text = (
            f"The slope runs from {float(low['slope']):.3f} ({low['point']}) to "
            f"{float(high['slope']):.3f} ({high['point']}); the published fit of "
            f"FIDE on Lichess blitz is FIDE = {a:g} x Lichess + {b:g} "
            "(docs/world.md)."
        )
    return [_markdown_table(header, rows), "", *([text, ""] if text else [])]


#: The paired figures ``sweep.md`` shows: figure, header, digits.
_PAIRED = (
    ("rmse_common", "Δ RMSE, common", 1),
    ("log_loss", "Δ log loss", 4),
    ("offset", "Δ offset", 1),
    ("drift_per_year", "Δ drift / year", 2),
    ("slope", "Δ slope", 3),
    ("gap", "Δ gap", 1),
    ("residual_sd", "Δ residual SD", 1),
)


def _paired_section(paired: pd.DataFrame) -> list[str]:
    """Each point against the first, paired replicate by replicate."""
    reference = str(paired["reference"].iloc[0])
    shown = [f for f in _PAIRED if f[0] in set(paired["figure"])]
    header = ["point", "system or comparison", *(h for _, h, _ in shown)]
    body = []
    for (point, table), part in paired.groupby(["pairs", "table"], sort=False):
        by_figure = part.set_index("figure")
        cells = []
        for figure, _, digits in shown:
            if figure not in by_figure.index:
                cells.append("")
                continue
            r = by_figure.loc[figure]
            cells.append(
                f"{r['difference']:+.{digits}f} [{r['lo']:+.{digits}f}, "
                f"{r['hi']:+.{digits}f}]".replace("+nan", "n/a")
            )
        if any(cells):
            body.append([str(point), str(table), *cells])
    return [
        f"## Paired against {reference}",
        "",
        f"Every point runs the same replicate seeds as {reference}: each cell "
        f"is the mean over replicates of the point's figure minus "
        f"{reference}'s in the same replicate, with its 95 % interval (all "
        "of them in `sweep_paired.csv`). A difference is resolved where its "
        "interval excludes 0.",
        "",
        _markdown_table(header, body),
        "",
    ]


def sweep_markdown(
    table: pd.DataFrame,
    failures: Sequence[Mapping[str, object]],
    *,
    title: str,
    n_points: int,
    seed: int,
    reproduce: str,
    styles: Mapping[str, Style] | None = None,
    figure: bool = False,
    paired: pd.DataFrame | None = None,
) -> str:
    """``sweep.md``: every point's headline figures, findings, fits and failures.

    ``paired`` (:func:`~simulator.evaluation.paired.paired_points`) adds each
    point's paired differences to the first point.
    """
    is_fit = (
        table["arena"].astype(str) == "comparison"
        if "arena" in table
        else pd.Series(False, index=table.index)
    )
    rows, fits = table[~is_fit], table[is_fit]
    columns = [c for c in _COLUMNS if c[0] in rows and rows[c[0]].notna().any()]
    header = ["point", "arena", "system", *(h for _, h, _, _ in columns)]
    body = [
        [
            str(r["point"]),
            str(r["arena"]),
            _name(str(r["system"]), styles),
            *(_with_interval(r, c, d, sign=s) for c, _, d, s in columns),
        ]
        for _, r in rows.iterrows()
    ]
    lines = [
        f"# {title}",
        "",
        f"A sweep of {n_points} points; every point runs the same replicate "
        "seeds, so the points differ by their settings, not by their streams.",
        "",
        "## Headline figures",
        "",
        _markdown_table(header, body),
        "",
    ]
    leads = _leads(rows, styles) if len(rows) else ""
    if leads:
        lines += [leads, ""]
    if len(fits):
        lines += ["## Conversion fits", "", *_fits(fits)]
    if paired is not None and len(paired):
        lines += _paired_section(paired)
    if figure:
        lines += [
            "## Figure",
            "",
            "![Headline figures against the points of the sweep](sweep.png)",
            "",
            "Also as `sweep.svg`.",
            "",
        ]
    lines += ["## Columns", ""]
    lines += [f"- **{k}**: {v}." for k, v in _GLOSSARY]
    lines.append("")
    if failures:
        lines += ["## Failed tasks", ""]
        lines += [
            f"- point `{f['point']}`, replicate {f['replicate']}, seed "
            f"`{f['seed']}`: {f['error']}"
            for f in failures
        ]
        lines.append("")
    lines += [
        "## Reproduce",
        "",
        f"    {reproduce}",
        "",
        f"Seed: {seed}. Each point's report is in `points/<name>/`.",
        "",
    ]
    return "\n".join(lines)
