"""The figures of a results folder, each as PNG and as SVG.

:func:`_draw_figures` draws, for each arena, the figures of :data:`FIGURES`
(``error_vs_games``, ``rmse_over_time``, ``calibration``,
``offset_over_time``, ``cohort_drift``; with several arenas
``error_vs_games-<arena>`` and so on), ``convergence_by_level`` where the run
recorded groups of newcomers, and ``conversion`` for an experiment that
compares two arenas' systems; :func:`_draw_sweep_figure` draws a sweep's
``sweep`` figure: each headline figure against the sweep's points.

Each system is drawn in its :class:`~simulator._style.Style` (by label, from
the run; the registry's by default), so a system looks the same in every
figure of every report. Figures are drawn on matplotlib ``Figure`` objects
with the Agg canvas, never through ``pyplot``, so the global backend is left
alone; the drawing itself is :mod:`~simulator.evaluation.plots`'.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simulator._style import Style, default_styles
from simulator.evaluation.plots import (
    CURVE_MIN_PLAYERS,
    coincident,
    legend_outside,
    plot_calibration,
    plot_error_vs_games,
    plot_over_time,
)
from simulator.evaluation.results import Summary
from simulator.evaluation.settings import threshold_name

__all__ = [
    "CURVE_MIN_PLAYERS",
    "FIGURES",
    "FORMATS",
    "PUBLISHED_CONVERSION",
    "SWEEP_FIGURES",
    "draw_conversion_table",
]

#: The figures of every arena of a results folder, by file stem.
FIGURES = (
    "error_vs_games",
    "rmse_over_time",
    "calibration",
    "offset_over_time",
    "cohort_drift",
)
#: Each figure is written in these formats: a raster and a vector one.
FORMATS = ("png", "svg")
#: The published cross-sectional fit of FIDE on Lichess blitz ratings,
#: FIDE = slope x Lichess + intercept (docs/world.md, Lichess-FIDE conversions).
PUBLISHED_CONVERSION = (0.84, 180.0)
#: The sweep figure's panels: summary column and axis label.
SWEEP_FIGURES = (
    ("rmse_common", "RMSE, common support (points)"),
    ("rmse", "RMSE, own players (points)"),
    ("log_loss", "log loss"),
    ("n50_median", "N50, KM median (games)"),
    ("offset", "offset (points)"),
    ("drift_per_year", "cohort drift (points / year)"),
    ("slope", "conversion slope"),
    ("gap", "conversion gap (points)"),
)
_DPI = 120


def _suffix(arena: str, arenas: Mapping[str, Summary]) -> str:
    """The end of an arena's figure names: none with one arena, else ``-<arena>``."""
    if len(arenas) == 1:
        return ""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", arena).strip("-") or "arena"
    return f"-{slug}"


def _figure(size: tuple[float, float] = (9.0, 5.0)) -> Figure:
    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _axes(fig: Figure, title: str) -> Axes:
    ax = fig.add_subplot()
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    return ax


def _save(fig: Figure, folder: Path, stem: str) -> None:
    """The figure in every format, byte for byte the same on a rerun.

    No creation date in the files, and the SVG's element ids from a fixed salt.
    The canvas grows to what is drawn, so that a legend right of the axes is
    never cut off.
    """
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": "ratingsim"}):
        for ext in FORMATS:
            metadata = {"Date": None} if ext == "svg" else {"Software": None}
            fig.savefig(
                folder / f"{stem}.{ext}",
                dpi=_DPI,
                metadata=metadata,
                bbox_inches="tight",
            )


def _with(
    styles: Mapping[str, Style] | None, labels: Sequence[str]
) -> dict[str, Style]:
    out = default_styles(labels)
    out.update({k: v for k, v in (styles or {}).items() if k in out})
    return out


def _error_vs_games(s: Summary, st: Mapping[str, Style], title: str) -> Figure:
    """One panel per system, its quartile band alone; the others' medians in grey.

    Bands of several systems in one panel overlap into a wash: each system
    gets its own panel, all on the same axes' scales.
    """
    n = len(s.systems)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = _figure((4.0 * cols + 1.0, 3.0 * rows + 0.8))
    axes = fig.subplots(rows, cols, sharex=True, sharey=True, squeeze=False)
    c = s.convergence[s.convergence["n"] >= CURVE_MIN_PLAYERS]
    for i, ax in enumerate(axes.flat):
        if i >= n:
            ax.set_visible(False)
            continue
        name = s.systems[i]
        for other in s.systems:
            if other != name:
                o = c[c["system"] == other]
                ax.plot(o["games"], o["median_error"], color="0.8", linewidth=0.8)
        plot_error_vs_games(s.convergence, systems=[name], ax=ax, styles=st, bands=True)
        same = coincident({k: _median_curve(c, k) for k in s.systems[: i + 1]}).get(
            name
        )
        note = f" (= {st[same].name}: same curve)" if same else ""
        # A long label and its note would run into the next panel's title.
        heading = textwrap.fill(st[name].name + note, width=44)
        ax.set_title(heading, fontsize="medium", color=st[name].colour)
        own = c[c["system"] == name]["median_error"].to_numpy(dtype=np.float64)
        if np.isfinite(own).sum() < own.size / 2:
            # Not a hidden curve: the median newcomer has no rating to err with.
            ax.text(
                0.5,
                0.92,
                "the median newcomer is unrated\n(no error) at most game counts",
                transform=ax.transAxes,
                ha="center",
                va="top",
                fontsize="small",
                color=st[name].colour,
            )
        legend = ax.get_legend()
        if legend is not None:
            legend.remove()
        ax.grid(True, alpha=0.3)
        ax.set_xlabel("games played" if i >= n - cols else "")
        ax.set_ylabel("median error (points)" if i % cols == 0 else "")
    fig.suptitle(
        f"{title}\nmedian |rating - true - offset| with quartile band; grey: the "
        f"other systems' medians; while at least {CURVE_MIN_PLAYERS} newcomers "
        "have played that many games",
        fontsize="medium",
    )
    return fig


def _median_curve(c: pd.DataFrame, name: str) -> tuple[Any, Any]:
    part = c[c["system"] == name]
    return part["games"].to_numpy(), part["median_error"].to_numpy()


def _over_time(
    s: Summary,
    st: Mapping[str, Style],
    column: str,
    title: str,
    ylabel: str,
    *,
    zero: bool,
    suffixes: Mapping[str, str] | None = None,
) -> Figure:
    fig = _figure()
    ax = _axes(fig, title)
    plot_over_time(
        s.timeseries,
        column,
        systems=s.systems,
        ax=ax,
        styles=st,
        zero=zero,
        suffixes=suffixes,
    )
    ax.set_ylabel(ylabel)
    legend = ax.get_legend()
    if s.n_replicates > 1 and legend is not None:
        legend.set_title(f"bars: {s.confidence:.0%} interval")
    return fig


def _drift_suffixes(s: Summary) -> dict[str, str]:
    """Each system's fitted drift a year, as its table reports it."""
    out = {}
    for _, r in s.summary.iterrows():
        v = float(r["drift_per_year"])
        text = f": {v:+.1f}/yr" if math.isfinite(v) else ""
        lo, hi = (
            float(r.get("drift_per_year_lo", math.nan)),
            float(r.get("drift_per_year_hi", math.nan)),
        )
        if text and math.isfinite(lo) and math.isfinite(hi):
            text = f": {v:+.1f} [{lo:+.1f}, {hi:+.1f}]/yr"
        out[str(r["system"])] = text
    return out


def _calibration(s: Summary, st: Mapping[str, Style], title: str) -> Figure:
    fig = _figure((8.5, 6.0))
    ax = _axes(fig, title)
    plot_calibration(s.calibration, systems=s.systems, ax=ax, styles=st)
    return fig


def _figure_functions() -> dict[
    str, Callable[[Summary, Mapping[str, Style], str], Figure]
]:
    # Looked up at call time, so tests can replace one with monkeypatch.
    return {
        "error_vs_games": lambda s, st, label: _error_vs_games(
            s, st, f"Newcomers: error against games played{label}"
        ),
        "rmse_over_time": lambda s, st, label: _over_time(
            s,
            st,
            "rmse",
            f"RMSE of ratings against true strength{label}",
            "RMSE of rating - true - offset (points)",
            zero=False,
        ),
        "calibration": lambda s, st, label: _calibration(
            s, st, f"Calibration of expected scores{label}"
        ),
        "offset_over_time": lambda s, st, label: _over_time(
            s,
            st,
            "offset",
            f"Offset of each system's scale, all rated players{label}",
            "offset: mean(rating - true) (points)",
            zero=True,
        ),
        "cohort_drift": lambda s, st, label: _over_time(
            s,
            st,
            "cohort_drift",
            f"Drift of a fixed cohort: mean(rating - true) (legend: fitted slope)"
            f"{label}",
            "cohort mean(rating - true) (points)",
            zero=True,
            suffixes=_drift_suffixes(s),
        ),
    }


def _level(group: str) -> float:
    """The strength a group is named by: its probe level or its band's middle."""
    numbers = [float(x) for x in re.findall(r"\d+(?:\.\d+)?", group)]
    if not numbers:
        return math.nan
    if "<" in group:
        return numbers[0] - 100.0
    if group.endswith("+"):
        return numbers[0] + 100.0
    return float(np.mean(numbers))


def _convergence_by_level(s: Summary, st: Mapping[str, Style], title: str) -> Figure:
    """N*t* (KM median) and the final error per strength level, per system."""
    g = s.groups[s.groups["n"] > 0]
    probes = g[g["group"].astype(str).str.startswith("probes at")]
    g = probes if not probes.empty else g[g["group"].astype(str).str.startswith("true")]
    stem = threshold_name(s.thresholds[len(s.thresholds) // 2])
    fig = _figure((11.0, 4.8))
    axes = fig.subplots(1, 2)
    what = "probes of each true strength" if not probes.empty else "newcomers by band"
    fig.suptitle(f"{title}: {what}", fontsize="medium")
    panels = (
        (f"{stem}_median", f"{stem.upper()}: games to stay within (KM median)"),
        ("final_error", "median aligned error at the end (points)"),
    )
    width = 40.0 / max(1, len(s.systems))
    for ax, (column, ylabel) in zip(axes, panels, strict=True):
        ax.grid(True, alpha=0.3)
        for k, name in enumerate(s.systems):
            part = g[g["system"] == name]
            levels = np.array([_level(str(x)) for x in part["group"]])
            order = np.argsort(levels)
            # A small offset per system keeps coinciding points apart.
            x = levels[order] + (k - (len(s.systems) - 1) / 2.0) * width
            y = part[column].to_numpy(dtype=np.float64)[order]
            shown = np.where(np.isfinite(y), y, np.nan)
            err = None
            if f"{column}_lo" in part:
                lo = part[f"{column}_lo"].to_numpy(dtype=np.float64)[order]
                hi = part[f"{column}_hi"].to_numpy(dtype=np.float64)[order]
                err = np.abs(np.vstack([shown - lo, hi - shown]))
                err = np.where(np.isfinite(err), err, 0.0)
            ax.errorbar(
                x,
                shown,
                yerr=err,
                color=st[name].colour,
                linestyle=st[name].linestyle,
                marker=st[name].marker,
                capsize=2,
                label=st[name].name,
            )
            top = ~np.isfinite(y) & ~np.isnan(y)
            if top.any():
                # At the top of the axes (not of the data): "not reached".
                ax.plot(
                    x[top],
                    np.full(int(top.sum()), 0.96),
                    transform=ax.get_xaxis_transform(),
                    linestyle="none",
                    marker=r"$\uparrow$",
                    color=st[name].colour,
                    markersize=10,
                )
        ax.set_xlabel("true strength (points)")
        ax.set_ylabel(ylabel)
        ax.set_ylim(bottom=0)
        if not np.isfinite(g[column].to_numpy(dtype=np.float64)).any():
            ax.set_ylim(0, 1)
            ax.text(
                0.5,
                0.5,
                "not reached anywhere",
                transform=ax.transAxes,
                ha="center",
                va="center",
                color="0.4",
            )
    legend_outside(axes[-1], "arrow: not reached")
    return fig


def _names(side: str, st: Mapping[str, Style]) -> str:
    """``"online/lichess"`` as ``"Lichess (online)"``."""
    arena, _, label = side.partition("/")
    name = st[label].name if label in st else label
    return f"{name} ({arena})" if arena else name


def _conversion(s: Summary, st: Mapping[str, Style], title: str) -> Figure:
    """The conversion: bands, the simulated fit with its band, the published fit.

    The comparison's ``x`` (e.g. FIDE) is on the vertical axis and its ``y``
    (e.g. Lichess) on the horizontal one, as published conversions read:
    FIDE = slope x Lichess + intercept.
    """
    fig = _figure((9.5, 6.0))
    ax = _axes(fig, title)
    c = s.comparison
    names = list(dict.fromkeys(c["comparison"]))
    for name in names:
        x_side, y_side = str(name).split(" vs ")
        x_name, y_name = _names(x_side, st), _names(y_side, st)
        label = x_side.partition("/")[2]
        colour = st[label].colour if label in st else "#0072B2"
        part = c[(c["comparison"] == name) & (c["kind"] == "bin") & (c["n"] >= 3)]
        part = part.sort_values("bin")
        yerr = None
        if "mean_x_lo" in part:
            yerr = np.abs((part["mean_x_hi"] - part["mean_x_lo"]).to_numpy()) / 2.0
            yerr = np.where(np.isfinite(yerr), yerr, 0.0)
        ax.errorbar(
            part["mean_y"],
            part["mean_x"],
            yerr=yerr,
            color=colour,
            linestyle="none",
            marker="o",
            capsize=2,
            label=f"mean of both ratings, by 100-point band of {x_name}",
        )
        ax.plot(
            part["mean_y"],
            part["mean_true"],
            color="0.4",
            linestyle=":",
            marker=".",
            label="mean true strength of the same band",
        )
        fit = c[(c["comparison"] == name) & (c["kind"] == "fit")]
        if not fit.empty and math.isfinite(float(fit["slope"].iloc[0])):
            _fit_line(ax, fit.iloc[0], part, colour, x_name, y_name, s.confidence)
    _published_fit(ax, *ax.get_xlim())
    if names:
        x_side, y_side = str(names[0]).split(" vs ")
        ax.set_xlabel(f"{_names(y_side, st)} rating (points)")
        ax.set_ylabel(f"{_names(x_side, st)} rating (points)")
    legend_outside(ax)
    return fig


def _published_fit(ax: Axes, lo: float, hi: float) -> None:
    """The published fit of FIDE on Lichess blitz and the line of equal ratings."""
    grid = np.linspace(lo, hi, 50)
    a, b = PUBLISHED_CONVERSION
    ax.plot(
        grid,
        a * grid + b,
        color="black",
        linestyle="--",
        label=f"published fit: FIDE = {a:g} x Lichess blitz + {b:g} (n 30, 2020)",
    )
    ax.plot(grid, grid, color="0.6", linewidth=0.8, label="equal ratings")


def _fit_line(
    ax: Axes,
    fit: pd.Series,
    part: pd.DataFrame,
    colour: str,
    x_name: str,
    y_name: str,
    confidence: float,
) -> None:
    """The simulated regression x = slope y + intercept, with its band.

    The line goes through the means (mean y, mean x); its band at ``y``
    combines the interval of mean x and that of the slope times the distance
    from mean y (the centred intercept and the slope of a least-squares fit
    are uncorrelated).
    """
    slope, mx, my = float(fit["slope"]), float(fit["mean_x"]), float(fit["mean_y"])
    intercept = float(fit["intercept"])
    y = np.linspace(
        float(np.nanmin(part["mean_y"])), float(np.nanmax(part["mean_y"])), 50
    )
    line = mx + slope * (y - my)
    ax.plot(
        y,
        line,
        color=colour,
        linewidth=2.0,
        label=f"simulated fit: {x_name} = {slope:.2f} x {y_name} + {intercept:.0f}",
    )
    half_m = (
        float(fit.get("mean_x_hi", math.nan)) - float(fit.get("mean_x_lo", math.nan))
    ) / 2
    half_s = (
        float(fit.get("slope_hi", math.nan)) - float(fit.get("slope_lo", math.nan))
    ) / 2
    if math.isfinite(half_m) and math.isfinite(half_s):
        half = np.sqrt(half_m**2 + (half_s * (y - my)) ** 2)
        ax.fill_between(
            y,
            line - half,
            line + half,
            color=colour,
            alpha=0.2,
            label=f"{confidence:.0%} interval of the simulated fit",
        )


def _draw_figures(
    folder: Path,
    arenas: Mapping[str, Summary],
    styles: Mapping[str, Style] | None = None,
) -> list[str]:
    """Draw every figure of every arena into ``folder``; the stems written."""
    plots = _figure_functions()
    written = []
    for arena, s in arenas.items():
        st = _with(styles, s.systems)
        suffix = _suffix(arena, arenas)
        label = f" (arena {arena})" if arena and len(arenas) > 1 else ""
        for stem in FIGURES:
            _save(plots[stem](s, st, label), folder, f"{stem}{suffix}")
            written.append(f"{stem}{suffix}")
        if not s.groups.empty and (s.groups["n"] > 0).any():
            fig = _convergence_by_level(s, st, f"Convergence by strength{label}")
            _save(fig, folder, f"convergence_by_level{suffix}")
            written.append(f"convergence_by_level{suffix}")
        if not s.comparison.empty:
            sides = [
                side.partition("/")[2]
                for name in dict.fromkeys(s.comparison["comparison"])
                for side in str(name).split(" vs ")
            ]
            fig = _conversion(
                s, _with(styles, sides), f"Conversion between systems{label}"
            )
            _save(fig, folder, f"conversion{suffix}")
            written.append(f"conversion{suffix}")
    return written


def _draw_sweep_figure(
    folder: Path, table: pd.DataFrame, styles: Mapping[str, Style] | None = None
) -> bool:
    """``sweep``: each headline figure against the points, per arena and system.

    Returns whether a figure was drawn (a table without points draws none).
    """
    if table.empty:
        return False
    panels = [(c, t) for c, t in SWEEP_FIGURES if c in table and table[c].notna().any()]
    if "rmse_common" in [c for c, _ in panels]:
        panels = [(c, t) for c, t in panels if c != "rmse"]
    if not panels:
        return False
    points = list(dict.fromkeys(table["point"]))
    series = list(dict.fromkeys(zip(table["arena"], table["system"], strict=True)))
    st = _with(styles, [str(s) for _, s in series])
    cols = min(2, len(panels))
    rows = math.ceil(len(panels) / cols)
    fig = _figure((6.0 * cols + 2.5, 3.4 * rows + 1.0))
    axes = fig.subplots(rows, cols, squeeze=False)
    width = 0.3 / max(1, len(series))
    x0 = np.arange(len(points), dtype=np.float64)
    for i, ax in enumerate(axes.flat):
        if i >= len(panels):
            ax.set_visible(False)
            continue
        column, ylabel = panels[i]
        ax.grid(True, alpha=0.3)
        for k, (arena, system) in enumerate(series):
            part = table[(table["arena"] == arena) & (table["system"] == system)]
            part = part.set_index("point").reindex(points)
            y = part[column].to_numpy(dtype=np.float64)
            if not np.isfinite(y).any():
                continue
            err = None
            if f"{column}_lo" in part:
                err = np.abs(
                    np.vstack(
                        [
                            y - part[f"{column}_lo"].to_numpy(),
                            part[f"{column}_hi"].to_numpy() - y,
                        ]
                    )
                )
                err = np.where(np.isfinite(err), err, 0.0)
            name = st[str(system)].name if system in st else str(system)
            if arena and len({a for a, _ in series}) > 1:
                name = f"{name} ({arena})"
            style = st.get(str(system))
            ax.errorbar(
                x0 + (k - (len(series) - 1) / 2.0) * width,
                np.where(np.isfinite(y), y, np.nan),
                yerr=err,
                color=style.colour if style else None,
                linestyle=style.linestyle if style else "-",
                marker=style.marker if style else "o",
                capsize=2,
                label=name,
            )
        ax.set_ylabel(ylabel)
        ax.set_xticks(
            x0, [str(p) for p in points], rotation=30, ha="right", fontsize="small"
        )
    handles, labels = [], []
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    fig.legend(
        handles, labels, loc="outside right upper", fontsize="small", frameon=False
    )
    fig.suptitle(
        "Headline figures at each point of the sweep (bars: intervals)",
        fontsize="medium",
    )
    _save(fig, folder, "sweep")
    return True


#: The Lichess pools of a conversion table, in their figure's colours.
_POOL_COLOURS = {
    "lichess-blitz": "#D55E00",
    "lichess-rapid": "#0072B2",
    "lichess-classical": "#009E73",
}


def draw_conversion_table(table: Any, folder: Path, stem: str = "conversion") -> None:
    """The conversion table's figure: FIDE expected from each Lichess pool.

    For each pool, the expected FIDE rating of a player with a given Lichess
    rating (the table's smoothed conversion, the mean over replicates) with
    its interval as a band; the cross-sectional regression of FIDE on the
    pool's rating (the table's ``fits``, the method of published conversions,
    which the README reports); and the published fit of FIDE on Lichess blitz
    (:data:`PUBLISHED_CONVERSION`).

    Parameters
    ----------
    table : simulator.tasks.convert.ConversionTable
        The table (its ``directions``, ``fits`` and ``meta``).
    folder : Path
        Where ``<stem>.png`` and ``<stem>.svg`` go.
    stem : str
        The files' name.
    """
    fig = _figure((13.0, 6.5))
    ax = _axes(fig, "A Lichess rating as a FIDE rating: the simulation and a fit")
    lo, hi = math.inf, -math.inf
    for pool, colour in _POOL_COLOURS.items():
        d = table.directions.get(f"{pool}>fide")
        if d is None or not d["rating"]:
            continue
        rating = np.asarray(d["rating"], dtype=float)
        expected = np.asarray(d["expected"], dtype=float)
        name = pool.replace("lichess-", "Lichess ")
        ax.fill_between(rating, expected[:, 1], expected[:, 2], color=colour, alpha=0.2)
        ax.plot(
            rating,
            expected[:, 0],
            color=colour,
            linewidth=2.0,
            label=f"simulated: expected FIDE given {name} (band: 95% interval)",
        )
        lo, hi = min(lo, float(rating[0])), max(hi, float(rating[-1]))
        fit = table.fits.get(pool)
        if fit:
            slope, intercept = fit["slope"][0], fit["intercept"][0]
            ax.plot(
                rating,
                slope * rating + intercept,
                color=colour,
                linestyle=":",
                label=(
                    f"simulated regression: FIDE = {slope:.2f} x {name} + "
                    f"{intercept:.0f} (residual SD {fit['residual_sd'][0]:.0f}, "
                    f"r {fit['correlation'][0]:.2f})"
                ),
            )
    if not math.isfinite(lo):
        raise ValueError("the conversion table has no Lichess-to-FIDE direction")
    _published_fit(ax, lo, hi)
    ax.set_xlabel("Lichess rating (points)")
    ax.set_ylabel("FIDE rating (points)")
    m = table.meta
    ax.text(
        0.01,
        0.99,
        f"{m.get('experiment', '')}, {m.get('replicates', '?')} replicates, "
        f"seed {m.get('seed', '?')}",
        transform=ax.transAxes,
        va="top",
        fontsize=8,
        color="0.3",
    )
    legend_outside(ax)
    _save(fig, folder, stem)
