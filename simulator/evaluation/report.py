"""Tables and figures of a finished run: terminal, Markdown, CSV and PNG.

:func:`format_summary_table` prints the headline table; :func:`write_report`
writes a results folder::

    report.md          title, tables, figures, seed, versions, how to reproduce
    summary.csv  timeseries.csv  prediction.csv  calibration.csv  convergence.csv
    error_vs_games.png  rmse_over_time.png  calibration.png  offset_over_time.png
    config.toml  seed.txt  versions.json

Both take one :class:`~simulator.evaluation.results.Summary` or a mapping of arena name
to summary (an experiment with several arenas); with several arenas the CSV
tables gain a leading ``arena`` column and each figure is drawn per arena
(``error_vs_games-<arena>.png``).

The folder appears whole or not at all: everything is written into a hidden
temporary folder beside it, which is renamed into place at the end and removed
if anything fails. Figures are drawn on matplotlib ``Figure`` objects with the
Agg canvas, never through ``pyplot``, so the global backend is left alone.
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from numpy.typing import NDArray

from simulator.evaluation.results import Summary
from simulator.evaluation.settings import COIN_FLIP, ORACLE, threshold_name

__all__ = [
    "CURVE_MIN_PLAYERS",
    "FIGURES",
    "TABLES",
    "format_summary_table",
    "write_report",
]

#: The CSV tables of a results folder (attributes of :class:`Summary`).
TABLES = ("summary", "timeseries", "prediction", "calibration", "convergence")
#: The figures of a results folder, by file stem.
FIGURES = ("error_vs_games", "rmse_over_time", "calibration", "offset_over_time")

#: Games at which the report tabulates the newcomers' median error.
#: The error-vs-games figure stops where fewer newcomers (per replicate, on
#: average) have played that many games.
CURVE_MIN_PLAYERS = 20
_CURVE_GAMES = (0, 5, 10, 20, 30, 50, 100, 150)
_COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
_LINESTYLES = ("-", "--", "-.", ":")
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_EPOCH = np.datetime64("1970-01-01", "D")
_DPI = 120


# --- formatting -------------------------------------------------------------------


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


def _games(row: pd.Series, stem: str) -> str:
    """N_t median with its interval and the converged share."""
    value = float(row[f"{stem}_median"])
    if math.isinf(value):
        text = "not reached"
    else:
        text = _with_interval(row, f"{stem}_median", 1)
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


def _headline_rows(summary: Summary) -> tuple[list[str], list[list[str]]]:
    stem = _headline_threshold(summary)
    header = [
        "system",
        f"{stem.upper()} median (games)",
        "RMSE (points)",
        "log loss",
        "excess over oracle",
        "offset (points)",
    ]
    rows = []
    for _, row in summary.summary.iterrows():
        rows.append(
            [
                str(row["system"]),
                _games(row, stem),
                _with_interval(row, "rmse", 1),
                _with_interval(row, "log_loss", 4),
                _with_interval(row, "log_loss_excess", 4, sign=True),
                _with_interval(row, "offset", 1, sign=True),
            ]
        )
    return header, rows


def format_summary_table(summary: Summary | Mapping[str, Summary]) -> str:
    """The terminal summary: one row per system.

    Columns: the median games to stay within 50 points (N50, or the middle
    threshold when 50 is not measured) with the share of newcomers who got
    there; the steady-state RMSE after removing the offset; the log loss of
    the system's predictions and its excess over the oracle's; the offset
    ``mean(rating - true)``. ``±`` gives the half-width of the confidence
    interval across replicates (absent with one replicate).

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


# --- Markdown ---------------------------------------------------------------------


def _summary_markdown(s: Summary) -> str:
    stems = [threshold_name(t) for t in s.thresholds]
    header = [
        "system",
        *(f"{st.upper()} (games)" for st in stems),
        "RMSE",
        "MAE",
        "Spearman",
        "spread",
        "offset",
        "drift / year",
        "log loss",
        "Brier",
    ]
    rows = []
    for _, row in s.summary.iterrows():
        rows.append(
            [
                str(row["system"]),
                *(_games(row, st) for st in stems),
                _with_interval(row, "rmse", 1),
                _with_interval(row, "mae", 1),
                _with_interval(row, "spearman", 3),
                _with_interval(row, "spread", 3),
                _with_interval(row, "offset", 1, sign=True),
                _with_interval(row, "drift_per_year", 2, sign=True),
                _with_interval(row, "log_loss", 4),
                _with_interval(row, "brier", 4),
            ]
        )
    return _markdown_table(header, rows)


def _prediction_markdown(s: Summary) -> str:
    header = [
        "predictor",
        "games per replicate",
        "log loss",
        "excess over oracle",
        "Brier",
    ]
    rows = []
    for _, row in s.prediction.iterrows():
        name = str(row["system"])
        if name == ORACLE:
            name = "oracle (true strengths)"
        elif name == COIN_FLIP:
            name = "coin flip (E = 0.5)"
        rows.append(
            [
                name,
                _number(float(row["n_games"]), 0),
                _with_interval(row, "log_loss", 4),
                _with_interval(row, "log_loss_excess", 4, sign=True),
                _with_interval(row, "brier", 4),
            ]
        )
    return _markdown_table(header, rows)


def _convergence_markdown(s: Summary) -> str:
    stems = [threshold_name(t) for t in s.thresholds]
    header = ["system"]
    for st in stems:
        header += [f"{st.upper()} median", "quartiles", "converged"]
    rows = []
    for _, row in s.summary.iterrows():
        cells = [str(row["system"])]
        for st in stems:
            median = float(row[f"{st}_median"])
            cells += [
                "not reached"
                if math.isinf(median)
                else _with_interval(row, f"{st}_median", 1),
                f"{_number(float(row[f'{st}_q25']), 1)} - "
                f"{_number(float(row[f'{st}_q75']), 1)}",
                _share(row, f"{st}_converged"),
            ]
        rows.append(cells)
    return _markdown_table(header, rows)


def _curve_markdown(s: Summary) -> str:
    curve = s.convergence
    max_games = int(curve["games"].max()) if len(curve) else 0
    games = [g for g in _CURVE_GAMES if g <= max_games]
    if max_games not in games:
        games.append(max_games)
    header = ["games played", *s.systems]
    rows = []
    for g in games:
        at = curve[curve["games"] == g]
        cells = [str(g)]
        for name in s.systems:
            hit = at[at["system"] == name]
            cells.append(
                _with_interval(hit.iloc[0], "median_error", 1) if len(hit) else "n/a"
            )
        rows.append(cells)
    return _markdown_table(header, rows)


def _drift_markdown(s: Summary) -> str:
    header = ["system", "drift (points / year)"]
    rows = [
        [str(row["system"]), _with_interval(row, "drift_per_year", 2, sign=True)]
        for _, row in s.summary.iterrows()
    ]
    return _markdown_table(header, rows)


def _arena_markdown(s: Summary, suffix: str, figures: bool, h: str) -> list[str]:
    interval = (
        f"`±` is the half-width of the {s.confidence:.0%} Student-t interval of "
        f"the mean over {s.n_replicates} replicates."
        if s.n_replicates > 1
        else "One replicate: no confidence intervals."
    )
    parts = [
        f"{h} Summary",
        "",
        "Accuracy figures (RMSE, MAE, Spearman, spread, offset) are steady-state "
        "means over the last checkpoints, among active rated players. Each "
        "system's ratings are aligned with the true strengths by removing its "
        "offset, mean(rating - true), before errors are measured. N*t* is the "
        "median number of games after which a newcomer's aligned error stays "
        "below *t* rating points, by the Kaplan-Meier estimator (a newcomer not "
        "yet inside at the end counts as censored at the games played so far), "
        "averaged over replicates (percentage: newcomers who got there by the "
        "end; 'not reached': the estimate never fell to one half while enough "
        "newcomers remained at risk, in at least one replicate). Drift is the "
        "least-squares "
        "slope of a fixed cohort's mean(rating - true) in points per year. " + interval,
        "",
        _summary_markdown(s),
        "",
        f"{h} Prediction",
        "",
        "Log loss (natural log) and Brier score of each system's pre-game expected "
        "score for White, beside the oracle that knows the true strengths (the "
        "floor) and a coin flip. Excess is the difference from the oracle on the "
        "same games.",
        "",
        _prediction_markdown(s),
        "",
        f"{h} Convergence of newcomers",
        "",
        "Games until the aligned error stays below each threshold: median and "
        "quartiles across newcomers (inf: decided by newcomers not converged by "
        "the end), and the converged share (± in percentage points).",
        "",
        _convergence_markdown(s),
        "",
        "Median aligned error |rating - true - offset| of newcomers, in rating "
        "points, by games played, with the error of the rating each carried into "
        "the next game (inf: the median falls among unrated newcomers, or beyond "
        "the error histogram's range, in at least one replicate).",
        "",
        _curve_markdown(s),
        "",
        f"{h} Drift",
        "",
        _drift_markdown(s),
        "",
    ]
    if not s.bands.empty:
        parts += [
            f"{h} Error by strength band",
            "",
            "Steady-state RMSE and bias (mean of rating - true - offset) of active "
            "rated players by band of true strength, in rating points: positive "
            "bias at the bottom and negative at the top mean a compressed scale.",
            "",
            _bands_markdown(s),
            "",
        ]
    if not s.groups.empty:
        parts += [
            f"{h} Convergence by group",
            "",
            "Games until the aligned error stays below each threshold (Kaplan-Meier "
            "median, quartiles), the converged share, and the median aligned error "
            "at the end (rating points), for each group of newcomers.",
            "",
            _groups_markdown(s),
            "",
        ]
    if not s.comparison.empty:
        parts += [
            f"{h} Cross-arena comparison",
            "",
            "Players active in both arenas and rated by both systems. Bands of the "
            "first system's rating: mean ratings in both systems and mean true "
            "strength. The fit is the cross-sectional regression of the first "
            "system's rating on the second's, the method of published conversion "
            "tables; gap = mean(second - first).",
            "",
            _comparison_markdown(s),
            "",
        ]
    if figures:
        captions = {
            "error_vs_games": "Newcomers' error against games played",
            "rmse_over_time": "RMSE over time",
            "calibration": "Calibration",
            "offset_over_time": "Offset over time",
        }
        parts += [f"{h} Figures", ""]
        for stem in FIGURES:
            parts += [f"![{captions[stem]}]({stem}{suffix}.png)", ""]
        if not s.comparison.empty:
            parts += [f"![Conversion between systems](conversion{suffix}.png)", ""]
    return parts


def _bands_markdown(s: Summary) -> str:
    b = s.bands
    bands = sorted(b["band"].unique())
    finite = [x for x in bands if math.isfinite(x)]
    first = f"<{min(finite):.0f}" if finite else "all"
    header = ["system"] + [f"{x:.0f}+" if math.isfinite(x) else first for x in bands]
    rows = []
    for name in s.systems:
        part = b[b["system"] == name].set_index("band")
        row = [name]
        for x in bands:
            if x in part.index:
                r = part.loc[x]
                row.append(
                    f"{_number(r['rmse'], 0)} / {_number(r['bias'], 0)} "
                    f"(n {_number(r['n'], 0)})"
                )
            else:
                row.append("")
        rows.append(row)
    return "RMSE / bias (n) per band\n\n" + _markdown_table(header, rows)


def _groups_markdown(s: Summary) -> str:
    g = s.groups
    stems = [threshold_name(t) for t in s.thresholds]
    header = ["group", "system", "newcomers"]
    header += [f"N{t:g} (q25-q75)" for t in s.thresholds]
    header += ["final error"]
    rows = []
    for _, r in g.iterrows():
        row = [str(r["group"]), str(r["system"]), _number(r["n"], 0)]
        for stem in stems:
            row.append(
                f"{_with_interval(r, f'{stem}_median', 0)} "
                f"({_number(r[f'{stem}_q25'], 0)}-{_number(r[f'{stem}_q75'], 0)}; "
                f"{_share(r, f'{stem}_converged')})"
            )
        row.append(_with_interval(r, "final_error", 1))
        rows.append(row)
    return _markdown_table(header, rows)


def _comparison_markdown(s: Summary) -> str:
    c = s.comparison
    out = []
    for name in c["comparison"].unique():
        part = c[c["comparison"] == name]
        x_name, y_name = str(name).split(" vs ")
        fit = part[part["kind"] == "fit"].iloc[0]
        out += [
            f"**{name}**: {x_name} = {_with_interval(fit, 'slope', 3)} x {y_name} "
            f"+ {_with_interval(fit, 'intercept', 0)} (residual SD "
            f"{_with_interval(fit, 'residual_sd', 0)}, correlation "
            f"{_with_interval(fit, 'correlation', 3)}, n {_number(fit['n'], 0)}); "
            f"gap {y_name} - {x_name}: {_with_interval(fit, 'gap', 1, sign=True)}.",
            "",
        ]
        rows = [
            [
                f"{r['bin']:.0f}",
                _number(r["n"], 0),
                _with_interval(r, "mean_x", 0),
                _with_interval(r, "mean_y", 0),
                _with_interval(r, "mean_true", 0),
            ]
            for _, r in part[part["kind"] == "bin"].sort_values("bin").iterrows()
        ]
        out.append(
            _markdown_table(
                [f"{x_name} band", "players", x_name, y_name, "true strength"], rows
            )
        )
        out.append("")
    return "\n".join(out)


def _plot_conversion(s: Summary, path: Path, label: str) -> None:
    fig, ax = _new_figure(f"Conversion between systems{label}")
    c = s.comparison
    for i, name in enumerate(c["comparison"].unique()):
        part = c[(c["comparison"] == name) & (c["kind"] == "bin")].sort_values("bin")
        part = part[part["n"] >= 3]
        colour, linestyle, marker = _style(i)
        x_name, y_name = str(name).split(" vs ")
        ax.plot(
            part["mean_x"],
            part["mean_y"],
            color=colour,
            linestyle=linestyle,
            marker=marker,
            label=f"mean {y_name} by band of {x_name}",
        )
        ax.plot(
            part["mean_x"],
            part["mean_true"],
            color=colour,
            linestyle=":",
            marker=None,
            label=f"mean true strength by band of {x_name}",
        )
    lo = float(np.nanmin(c["mean_x"])) if len(c) else 0.0
    hi = float(np.nanmax(c["mean_x"])) if len(c) else 1.0
    ax.plot([lo, hi], [lo, hi], color="grey", linewidth=0.8, label="equal ratings")
    ax.set_xlabel("Rating in the first system (rating points)")
    ax.set_ylabel("Rating in the second system (rating points)")
    ax.legend()
    fig.savefig(path, dpi=_DPI)


def _report_markdown(
    arenas: Mapping[str, Summary],
    *,
    title: str,
    seed: int,
    versions: Mapping[str, str],
    reproduce: str,
    figures: bool,
) -> str:
    parts = [f"# {title}", "", f"Seed: `{seed}`", ""]
    for arena, s in arenas.items():
        if arena:
            parts += [f"## Arena {arena}", ""]
        level = "###" if arena else "##"
        parts += _arena_markdown(s, _suffix(arena, arenas), figures, level)
    files = ", ".join(f"`{t}.csv`" for t in TABLES)
    parts += [
        "## Reproduce",
        "",
        "```sh",
        reproduce,
        "```",
        "",
        f"`config.toml` is the resolved config, `seed.txt` the root seed ({seed}), "
        "`versions.json` the versions below. Same config, seed and versions give "
        "the same numbers, serially or in parallel.",
        "",
        f"Tables: {files}.",
        "",
        _markdown_table(
            ["package", "version"], [[k, str(versions[k])] for k in sorted(versions)]
        ),
        "",
    ]
    return "\n".join(parts)


# --- figures ----------------------------------------------------------------------


def _style(i: int) -> tuple[str, str, str]:
    """Colour, line style and marker of the ``i``-th system: all three differ."""
    return (
        _COLOURS[i % len(_COLOURS)],
        _LINESTYLES[i % len(_LINESTYLES)],
        _MARKERS[i % len(_MARKERS)],
    )


def _finite(values: pd.Series) -> np.ndarray:
    a = values.to_numpy(dtype=np.float64)
    return np.where(np.isfinite(a), a, np.nan)


def _dates(day: pd.Series) -> NDArray[np.datetime64]:
    """Day numbers (days since 1970-01-01) as calendar dates."""
    days = np.rint(day.to_numpy(dtype=np.float64)).astype(np.int64)
    return np.asarray(_EPOCH + days.astype("timedelta64[D]"), dtype="datetime64[D]")


def _new_figure(
    title: str, size: tuple[float, float] = (8.0, 5.0)
) -> tuple[Figure, Axes]:
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _every(n: int) -> int:
    return max(1, n // 12)


def _plot_error_vs_games(s: Summary, path: Path, label: str) -> None:
    fig, ax = _new_figure(f"Newcomers: error against games played{label}")
    for i, name in enumerate(s.systems):
        c = s.convergence[s.convergence["system"] == name]
        # Where few newcomers have played that many games the median is noise.
        c = c[c["n"] >= CURVE_MIN_PLAYERS]
        x = c["games"].to_numpy(dtype=np.float64)
        colour, linestyle, marker = _style(i)
        ax.fill_between(
            x, _finite(c["q25"]), _finite(c["q75"]), color=colour, alpha=0.12
        )
        ax.plot(
            x,
            _finite(c["median_error"]),
            label=f"{name} (median; band: quartiles)",
            markevery=_every(len(x)),
            markersize=5,
            color=colour,
            linestyle=linestyle,
            marker=marker,
        )
    ax.set_xlabel(
        f"Games played (games; shown while at least {CURVE_MIN_PLAYERS} newcomers "
        "have that many)"
    )
    ax.set_ylabel("|rating - true - offset| (rating points)")
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.savefig(path, dpi=_DPI)


def _plot_over_time(
    s: Summary, path: Path, column: str, title: str, ylabel: str, zero: bool
) -> None:
    fig, ax = _new_figure(title)
    ts = s.timeseries
    for i, name in enumerate(s.systems):
        t = ts[ts["system"] == name]
        x = _dates(t["day"])
        colour, linestyle, marker = _style(i)
        if f"{column}_lo" in t:
            ax.fill_between(
                x,
                _finite(t[f"{column}_lo"]),
                _finite(t[f"{column}_hi"]),
                color=colour,
                alpha=0.12,
            )
        ax.plot(
            x,
            _finite(t[column]),
            label=name,
            markevery=_every(len(x)),
            markersize=5,
            color=colour,
            linestyle=linestyle,
            marker=marker,
        )
    low, high = ax.get_ylim()
    if zero and low <= 0.0 <= high:
        ax.axhline(0.0, color="black", linewidth=0.8)
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]
    ax.set_xlabel("Date (simulated calendar)")
    ax.set_ylabel(ylabel)
    band = "" if s.n_replicates < 2 else f" (band: {s.confidence:.0%} interval)"
    ax.legend(title=f"system{band}")
    fig.savefig(path, dpi=_DPI)


def _plot_rmse(s: Summary, path: Path, label: str) -> None:
    _plot_over_time(
        s,
        path,
        "rmse",
        f"RMSE of ratings against true strength{label}",
        "RMSE of rating - true - offset (rating points)",
        zero=False,
    )


def _plot_offset(s: Summary, path: Path, label: str) -> None:
    _plot_over_time(
        s,
        path,
        "offset",
        f"Offset of each system's scale{label}",
        "Offset: mean(rating - true) (rating points)",
        zero=True,
    )


def _plot_calibration(s: Summary, path: Path, label: str) -> None:
    fig, ax = _new_figure(f"Calibration of expected scores{label}", (6.5, 6.0))
    ax.plot(
        [0.0, 1.0],
        [0.0, 1.0],
        color="black",
        linewidth=0.8,
        linestyle=(0, (1, 2)),
        label="perfect calibration",
    )
    cal = s.calibration
    for i, name in enumerate(s.systems):
        c = cal[(cal["system"] == name) & (cal["n"] > 0)]
        x = _finite(c["mean_expected"])
        y = _finite(c["mean_observed"])
        colour, linestyle, marker = _style(i)
        if "mean_observed_lo" in c:
            err = np.abs(
                np.vstack(
                    [
                        y - _finite(c["mean_observed_lo"]),
                        _finite(c["mean_observed_hi"]) - y,
                    ]
                )
            )
            ax.errorbar(x, y, yerr=err, color=colour, linestyle="none", capsize=2)
        ax.plot(
            x,
            y,
            label=name,
            markersize=6,
            color=colour,
            linestyle=linestyle,
            marker=marker,
        )
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_xlabel("Expected score of White (points per game)")
    ax.set_ylabel("Observed score of White (points per game)")
    ax.legend(loc="upper left")
    fig.savefig(path, dpi=_DPI)


def _figure_functions() -> dict[str, Callable[[Summary, Path, str], None]]:
    # Looked up at call time, so tests can replace one with monkeypatch.
    return {
        "error_vs_games": _plot_error_vs_games,
        "rmse_over_time": _plot_rmse,
        "calibration": _plot_calibration,
        "offset_over_time": _plot_offset,
    }


# --- the results folder -------------------------------------------------------------


def _suffix(arena: str, arenas: Mapping[str, Summary]) -> str:
    if len(arenas) == 1:
        return ""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", arena).strip("-") or "arena"
    return f"-{slug}"


def _check_free(out: Path) -> None:
    if out.is_dir():
        if any(out.iterdir()):
            raise FileExistsError(
                f"The results folder '{out}' already exists and is not empty; "
                "choose another folder or remove it first."
            )
    elif out.exists() or out.is_symlink():
        raise FileExistsError(
            f"'{out}' already exists and is not a folder; choose another results "
            "folder."
        )


def _table(arenas: Mapping[str, Summary], name: str) -> pd.DataFrame:
    frames = []
    for arena, s in arenas.items():
        df: pd.DataFrame = getattr(s, name)
        if len(arenas) > 1:
            df = df.copy()
            df.insert(0, "arena", arena)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


@contextmanager
def _atomic_folder(out: Path) -> Iterator[Path]:
    """A temporary folder beside ``out``, renamed to ``out`` only on success.

    ``out`` must be free (absent or an empty folder) before and after; on any
    failure the temporary folder is removed and nothing is left behind.
    """
    _check_free(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        yield tmp
        _check_free(out)
        if out.is_dir():
            out.rmdir()  # empty, checked above
        tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _write_provenance(
    folder: Path, config_text: str, seed: int, versions: Mapping[str, str]
) -> None:
    """The resolved config, the root seed and the package versions."""
    text = config_text if config_text.endswith("\n") else config_text + "\n"
    (folder / "config.toml").write_text(text, encoding="utf-8")
    (folder / "seed.txt").write_text(f"{seed}\n", encoding="utf-8")
    (folder / "versions.json").write_text(
        json.dumps(dict(versions), indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )


def write_report(
    out_dir: str | os.PathLike[str],
    summary: Summary | Mapping[str, Summary],
    *,
    config_text: str,
    seed: int,
    versions: Mapping[str, str],
    title: str,
    figures: bool = True,
    reproduce: str | None = None,
) -> Path:
    """Write a complete results folder, or nothing.

    Parameters
    ----------
    out_dir : path
        The folder to create. It may exist only if it is empty; missing
        parent folders are created.
    summary : Summary or mapping of str to Summary
        The combined replicates, or one summary per arena.
    config_text : str
        The resolved config (TOML), saved as ``config.toml``.
    seed : int
        The root seed, saved as ``seed.txt``.
    versions : mapping of str to str
        Package versions (ratingsim, numpy, ...), saved as ``versions.json``.
    title : str
        The report's title.
    figures : bool, default True
        Draw the PNG figures.
    reproduce : str, optional
        The shell command that reproduces the run, shown in ``report.md``;
        by default ``ratingsim run config.toml --seed SEED``.

    Returns
    -------
    pathlib.Path
        The results folder.

    Raises
    ------
    FileExistsError
        If ``out_dir`` exists and is not an empty folder. Nothing is changed.
    """
    out = Path(out_dir)
    arenas = _arenas(summary)
    command = (
        reproduce
        if reproduce is not None
        else (f"ratingsim run config.toml --seed {seed}")
    )
    with _atomic_folder(out) as tmp:
        for name in (*TABLES, "groups", "comparison", "bands"):
            table = _table(arenas, name)
            if name in TABLES or not table.empty:
                table.to_csv(tmp / f"{name}.csv", index=False, lineterminator="\n")
        if figures:
            plots = _figure_functions()
            for arena, s in arenas.items():
                suffix = _suffix(arena, arenas)
                label = f" (arena {arena})" if arena and len(arenas) > 1 else ""
                for stem in FIGURES:
                    plots[stem](s, tmp / f"{stem}{suffix}.png", label)
                if not s.comparison.empty:
                    _plot_conversion(s, tmp / f"conversion{suffix}.png", label)
        (tmp / "report.md").write_text(
            _report_markdown(
                arenas,
                title=title,
                seed=seed,
                versions=versions,
                reproduce=command,
                figures=figures,
            ),
            encoding="utf-8",
        )
        _write_provenance(tmp, config_text, seed, versions)
    return out


#: The figures of a sweep's table: per point, arena and system.
SWEEP_COLUMNS = (
    "n50_median",
    "rmse",
    "mae",
    "spearman",
    "offset",
    "drift_per_year",
    "log_loss",
    "log_loss_excess",
)


def _slug(name: str) -> str:
    """A folder name for a sweep point."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", name).strip("-.") or "point"


def _slugs(names: Sequence[str]) -> list[str]:
    """Distinct folder names for sweep points: ``-2``, ``-3``, ... on repeats.

    Names that differ only in characters a folder name drops (``"a b"`` and
    ``"a/b"``) or in case would otherwise share a folder.
    """
    out: list[str] = []
    used: set[str] = set()
    for name in names:
        base = slug = _slug(name)
        i = 2
        while slug.lower() in used:
            slug = f"{base}-{i}"
            i += 1
        used.add(slug.lower())
        out.append(slug)
    return out


def sweep_table(
    points: Sequence[str],
    summaries: Sequence[Mapping[str, Summary] | None],
) -> pd.DataFrame:
    """One row per point, arena and system with the headline figures.

    Every figure comes with its interval (``_lo``/``_hi``) across replicates;
    points whose every replicate failed are left out.
    """
    frames = []
    for name, arenas in zip(points, summaries, strict=True):
        if arenas is None:
            continue
        for arena, s in arenas.items():
            cols = ["system"]
            for c in SWEEP_COLUMNS:
                cols += [x for x in (c, f"{c}_lo", f"{c}_hi") if x in s.summary]
            frame = s.summary[cols].copy()
            frame.insert(0, "arena", arena)
            frame.insert(0, "point", name)
            frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["point", "arena", "system", *SWEEP_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def format_sweep_table(table: pd.DataFrame) -> str:
    """The terminal table of a sweep: N50, RMSE, log loss and offset per row."""
    header = ["point", "arena", "system", "N50", "RMSE", "log loss", "offset"]
    rows = [
        [
            str(r["point"]),
            str(r["arena"]),
            str(r["system"]),
            _number(r["n50_median"], 0),
            _number(r["rmse"], 1),
            _number(r["log_loss"], 4),
            _number(r["offset"], 1),
        ]
        for _, r in table.iterrows()
    ]
    return _text_table(header, rows)


def write_sweep_report(
    out_dir: str | os.PathLike[str],
    points: Sequence[str],
    summaries: Sequence[Mapping[str, Summary] | None],
    failures: Sequence[Mapping[str, object]],
    *,
    config_text: str,
    point_configs: Sequence[str],
    seed: int,
    versions: Mapping[str, str],
    title: str,
    figures: bool = True,
    reproduce: str | None = None,
) -> Path:
    """Write a sweep's results folder, or nothing.

    The folder holds ``sweep.md`` and ``sweep.csv`` (every point side by side,
    with intervals), ``failures.csv`` when tasks failed, the sweep's config,
    and one complete results folder per point (see :func:`write_report`) under
    ``points/``.
    """
    out = Path(out_dir)
    command = reproduce or f"ratingsim run config.toml --seed {seed}"
    with _atomic_folder(out) as tmp:
        table = sweep_table(points, summaries)
        table.to_csv(tmp / "sweep.csv", index=False, lineterminator="\n")
        lines = [f"# {title}", "", f"A sweep of {len(points)} points.", ""]
        header = ["point", "arena", "system", "N50", "RMSE", "log loss", "offset"]
        body = [
            [
                str(r["point"]),
                str(r["arena"]),
                str(r["system"]),
                _with_interval(r, "n50_median", 0),
                _with_interval(r, "rmse", 1),
                _with_interval(r, "log_loss", 4),
                _with_interval(r, "offset", 1),
            ]
            for _, r in table.iterrows()
        ]
        lines += [_markdown_table(header, body), ""]
        if failures:
            pd.DataFrame(list(failures)).to_csv(
                tmp / "failures.csv", index=False, lineterminator="\n"
            )
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
            f"    {command}",
            "",
            f"Seed: {seed}. Each point's report is in `points/<name>/`.",
            "",
        ]
        (tmp / "sweep.md").write_text("\n".join(lines), encoding="utf-8")
        _write_provenance(tmp, config_text, seed, versions)
        for name, slug, arenas, point_text in zip(
            points, _slugs(points), summaries, point_configs, strict=True
        ):
            if arenas is None:
                continue
            write_report(
                tmp / "points" / slug,
                arenas,
                config_text=point_text,
                seed=seed,
                versions=versions,
                title=f"{title}: {name}",
                figures=figures,
                reproduce=command,
            )
    return out
