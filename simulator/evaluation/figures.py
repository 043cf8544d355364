"""The figures of a results folder: PNGs drawn with matplotlib.

:func:`_draw_figures` draws, for each arena, the figures of :data:`FIGURES`
(``error_vs_games.png``, ``rmse_over_time.png``, ``calibration.png``,
``offset_over_time.png``; with several arenas ``error_vs_games-<arena>.png``
and so on) and, for an experiment that compares two arenas' systems,
``conversion.png``.

Figures are drawn on matplotlib ``Figure`` objects with the Agg canvas, never
through ``pyplot``, so the global backend is left alone. Each system keeps one
colour, line style and marker in every figure, all three different from the
next system's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from matplotlib.figure import Figure
from numpy.typing import NDArray

from simulator.evaluation.results import Summary

__all__ = ["CURVE_MIN_PLAYERS", "FIGURES"]

#: The figures of a results folder, by file stem.
FIGURES = ("error_vs_games", "rmse_over_time", "calibration", "offset_over_time")
#: The error-vs-games figure stops where fewer newcomers (per replicate, on
#: average) have played that many games.
CURVE_MIN_PLAYERS = 20
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


def _suffix(arena: str, arenas: Mapping[str, Summary]) -> str:
    """The end of an arena's figure names: none with one arena, else ``-<arena>``."""
    if len(arenas) == 1:
        return ""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", arena).strip("-") or "arena"
    return f"-{slug}"


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


def _band_and_line(
    ax: Axes,
    i: int,
    x: NDArray[np.float64] | NDArray[np.datetime64],
    y: pd.Series,
    label: str,
    band: tuple[pd.Series, pd.Series] | None,
) -> None:
    """The ``i``-th system's line, a marker every twelfth of it, over its band."""
    colour, linestyle, marker = _style(i)
    if band is not None:
        ax.fill_between(x, _finite(band[0]), _finite(band[1]), color=colour, alpha=0.12)
    ax.plot(
        x,
        _finite(y),
        label=label,
        markevery=_every(len(x)),
        markersize=5,
        color=colour,
        linestyle=linestyle,
        marker=marker,
    )


def _plot_error_vs_games(s: Summary, path: Path, label: str) -> None:
    fig, ax = _new_figure(f"Newcomers: error against games played{label}")
    for i, name in enumerate(s.systems):
        c = s.convergence[s.convergence["system"] == name]
        # Where few newcomers have played that many games the median is noise.
        c = c[c["n"] >= CURVE_MIN_PLAYERS]
        _band_and_line(
            ax,
            i,
            c["games"].to_numpy(dtype=np.float64),
            c["median_error"],
            f"{name} (median; band: quartiles)",
            (c["q25"], c["q75"]),
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
        interval = (
            (t[f"{column}_lo"], t[f"{column}_hi"]) if f"{column}_lo" in t else None
        )
        _band_and_line(ax, i, _dates(t["day"]), t[column], name, interval)
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


def _draw_figures(folder: Path, arenas: Mapping[str, Summary]) -> None:
    """Draw every figure of every arena into ``folder``."""
    plots = _figure_functions()
    for arena, s in arenas.items():
        suffix = _suffix(arena, arenas)
        label = f" (arena {arena})" if arena and len(arenas) > 1 else ""
        for stem in FIGURES:
            plots[stem](s, folder / f"{stem}{suffix}.png", label)
        if not s.comparison.empty:
            _plot_conversion(s, folder / f"conversion{suffix}.png", label)
