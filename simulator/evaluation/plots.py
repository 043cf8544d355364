"""Plot functions for a notebook: each draws on a matplotlib ``Axes`` and returns it.

Every function takes a table (a pandas DataFrame, as in a results folder or
a :class:`~simulator.evaluation.results.Summary`), an optional ``ax`` to draw
on (a new figure otherwise) and optional ``styles`` (label ->
:class:`~simulator._style.Style`); systems without a given style get the
registry's (:func:`~simulator._style.default_styles`: a label that is a
registry name is drawn in that system's colour, marker and line style, so
Lichess looks the same in every figure). The results folder's figures
(:mod:`~simulator.evaluation.figures`) are drawn by these functions.

- :func:`plot_history`: rating histories (``player``, ``date``, ``rating``,
  ``system``);
- :func:`plot_error_vs_games`: newcomers' median error against games played,
  with quartile bands (``convergence.csv``);
- :func:`plot_calibration`: expected against observed score
  (``calibration.csv``);
- :func:`plot_offset` and :func:`plot_over_time`: a figure of
  ``timeseries.csv`` against the date (the offset; RMSE, cohort drift ...).

Curves that coincide (equal to 1e-9 relative) are named in the legend
("= FIDE 2025") and their markers staggered, so neither hides the other.
Legends sit outside the data, right of the axes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
from numpy.typing import NDArray

from simulator._style import Style, default_styles

__all__ = [
    "BAND_SMOOTHING",
    "CURVE_MIN_PLAYERS",
    "coincident",
    "plot_calibration",
    "plot_error_vs_games",
    "plot_history",
    "plot_offset",
    "plot_over_time",
]

#: The error-vs-games curve stops where fewer newcomers (per replicate, on
#: average) have played that many games: there the median is noise.
CURVE_MIN_PLAYERS = 20
#: Game counts over which a quartile band is smoothed (a running median).
BAND_SMOOTHING = 5
#: Markers per curve: about a dozen, whatever its length.
_MARKS = 12
_EPOCH = np.datetime64("1970-01-01", "D")
#: Curves within this share of the largest value of each other everywhere
#: are drawn as one on screen: the legend says "≈" and draws them apart.
NEAR = 0.005


def _axes(ax: Axes | None, size: tuple[float, float] = (8.0, 5.0)) -> Axes:
    """``ax``, or the axes of a new figure (Agg canvas: no pyplot, no window)."""
    if ax is not None:
        return ax
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    new = fig.add_subplot()
    new.grid(True, alpha=0.3)
    return new


def _styles(
    labels: Sequence[str], styles: Mapping[str, Style] | None
) -> dict[str, Style]:
    """Every label's style: the given ones, the registry's for the rest."""
    out = default_styles(labels)
    if styles:
        out.update({k: v for k, v in styles.items() if k in out})
    return out


def _labels(table: pd.DataFrame, systems: Sequence[str] | None) -> list[str]:
    if systems is not None:
        return list(systems)
    return [str(s) for s in dict.fromkeys(table["system"])]


def _finite(values: Any) -> NDArray[np.float64]:
    a = np.asarray(values, dtype=np.float64)
    return np.where(np.isfinite(a), a, np.nan)


def day_dates(day: Any) -> NDArray[np.datetime64]:
    """Day numbers (days since 1970-01-01) as calendar dates."""
    days = np.rint(np.asarray(day, dtype=np.float64)).astype(np.int64)
    return np.asarray(_EPOCH + days.astype("timedelta64[D]"), dtype="datetime64[D]")


def _same_x(a: NDArray[Any], b: NDArray[Any], rtol: float) -> bool:
    """Equal x values: numbers within ``rtol`` of the largest, others exactly."""
    if a.dtype.kind in "fiu" and b.dtype.kind in "fiu":
        fa, fb = a.astype(np.float64), b.astype(np.float64)
        scale = float(np.nanmax(np.abs(fb), initial=0.0)) or 1.0
        return bool(np.all(np.abs(fa - fb) <= rtol * scale))
    return bool(np.all(a == b))


def coincident(
    curves: Mapping[str, tuple[Any, Any]], rtol: float = 1e-9
) -> dict[str, str]:
    """The curves equal to an earlier one: label -> the earlier label.

    Two curves coincide when their x values (numbers within ``rtol`` of the
    largest) and their y values agree within ``rtol`` relative to the
    largest ``|y|`` (NaN where the other is NaN).

    >>> coincident({"a": ([1, 2], [3.0, 4.0]), "b": ([1, 2], [3.0, 4.0])})
    {'b': 'a'}
    """
    out: dict[str, str] = {}
    seen: list[tuple[str, NDArray[Any], NDArray[np.float64]]] = []
    for label, (x, y) in curves.items():
        xa, ya = np.asarray(x), _finite(y)
        for other, ox, oy in seen:
            if (
                xa.shape == ox.shape
                and ya.size > 0
                and _same_x(xa, ox, rtol)
                and bool(np.all(np.isnan(ya) == np.isnan(oy)))
            ):
                scale = float(np.nanmax(np.abs(oy), initial=0.0)) or 1.0
                if bool(np.nanmax(np.abs(ya - oy), initial=0.0) <= rtol * scale):
                    out[label] = out.get(other, other)
                    break
        seen.append((label, xa, ya))
    return out


def _curves(
    ax: Axes,
    curves: Mapping[str, tuple[Any, Any]],
    styles: Mapping[str, Style],
    *,
    bands: Mapping[str, tuple[Any, Any]] | None = None,
    suffixes: Mapping[str, str] | None = None,
    bars: bool = False,
    dodge: float = 0.0,
) -> None:
    """Each curve in its style, markers staggered and named where curves coincide.

    ``bands`` are shaded, or drawn as error bars at the markers with ``bars``.
    """
    same = coincident(curves)
    near = coincident(curves, NEAR)
    for k, (label, (x0, y)) in enumerate(curves.items()):
        st = styles[label]
        x = x0 + (k - (len(curves) - 1) / 2.0) * dodge if dodge else x0
        n = len(np.asarray(x))
        every = max(1, n // _MARKS)
        # Stagger each curve's markers, so coinciding curves show both.
        start = (k * max(1, every // 3)) % every
        name = st.name + (suffixes or {}).get(label, "")
        if label in same:
            name += f" (= {styles[same[label]].name})"
        elif label in near:
            name += f" (≈ {styles[near[label]].name})"
        # A curve on top of an earlier one is drawn under it, wider and with
        # hollow markers, so that both show.
        under = label in near
        if bands is not None and label in bands:
            lo, hi = _finite(bands[label][0]), _finite(bands[label][1])
            if bars:
                # Error bars at the markers: shaded intervals of several
                # curves would overlap into one wash.
                at = np.arange(start, n, every)
                ya = _finite(y)
                ax.errorbar(
                    np.asarray(x)[at],
                    ya[at],
                    yerr=np.abs(np.vstack([ya[at] - lo[at], hi[at] - ya[at]])),
                    color=st.colour,
                    linestyle="none",
                    capsize=2,
                    linewidth=0.8,
                )
            else:
                ax.fill_between(x, lo, hi, color=st.colour, alpha=0.15)
        ax.plot(
            x,
            _finite(y),
            label=name,
            color=st.colour,
            linestyle=st.linestyle,
            marker=st.marker,
            markevery=(start, every),
            markersize=8 if under else 5,
            markerfacecolor="none" if under else st.colour,
            linewidth=3.2 if under else 1.6,
            alpha=0.8 if under else 1.0,
            zorder=1.9 if under else 2.0,
        )


def legend_outside(ax: Axes, title: str | None = None) -> None:
    """The legend right of the axes, never over the data."""
    handles, _ = ax.get_legend_handles_labels()
    if not handles:
        return
    ax.legend(
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        fontsize="small",
        title=title,
        title_fontsize="small",
        frameon=False,
    )


def _date_axis(ax: Axes) -> None:
    locator = AutoDateLocator()  # type: ignore[no-untyped-call]
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))  # type: ignore[no-untyped-call]


def plot_history(
    history: pd.DataFrame,
    *,
    players: Sequence[Any] | None = None,
    ax: Axes | None = None,
    styles: Mapping[str, Style] | None = None,
) -> Axes:
    """Rating histories: one line per player and system, against the date.

    Parameters
    ----------
    history : pandas.DataFrame
        Columns ``player``, ``date`` (dates, or anything matplotlib puts on
        an axis), ``rating`` and ``system``; one row per rating change.
    players : sequence, optional
        The players to draw; by default all (a handful reads best).
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; by default a new figure's.
    styles : mapping of str to Style, optional
        Style by system label; by default the registry's.

    Returns
    -------
    matplotlib.axes.Axes
        Systems differ in colour (and line style), players in marker.

    Raises
    ------
    ValueError
        If a column is missing.
    """
    missing = {"player", "date", "rating", "system"} - set(history.columns)
    if missing:
        raise ValueError(
            f"The 'history' parameter of plot_history needs the columns player, "
            f"date, rating and system. Missing: {sorted(missing)}."
        )
    ax = _axes(ax)
    h = history if players is None else history[history["player"].isin(players)]
    labels = _labels(h, None)
    st = _styles(labels, styles)
    markers = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
    for i, player in enumerate(dict.fromkeys(h["player"])):
        for label in labels:
            part = h[(h["player"] == player) & (h["system"] == label)]
            if part.empty:
                continue
            part = part.sort_values("date")
            ax.plot(
                part["date"],
                part["rating"],
                color=st[label].colour,
                linestyle=st[label].linestyle,
                marker=markers[i % len(markers)],
                markersize=4,
                drawstyle="steps-post",
                label=f"{player}, {st[label].name}",
            )
    ax.set_xlabel("Date")
    ax.set_ylabel("Rating (rating points)")
    legend_outside(ax)
    return ax


def plot_error_vs_games(
    convergence: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
    styles: Mapping[str, Style] | None = None,
    bands: bool | None = None,
    min_players: float = CURVE_MIN_PLAYERS,
) -> Axes:
    """Newcomers' median aligned error against games played.

    Parameters
    ----------
    convergence : pandas.DataFrame
        ``convergence.csv``: ``system``, ``games``, ``median_error``,
        ``q25``, ``q75``, ``n``.
    systems : sequence of str, optional
        The systems to draw, in order; by default every one.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; by default a new figure's.
    styles : mapping of str to Style, optional
        Style by system label; by default the registry's.
    bands : bool, optional
        Shade each curve's quartiles; by default only when one system is
        drawn (the bands of several overlap into one wash).
    min_players : float, default 20
        Stop each curve where fewer newcomers have played that many games.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    labels = _labels(convergence, systems)
    st = _styles(labels, styles)
    curves, quartiles = {}, {}
    for label in labels:
        c = convergence[
            (convergence["system"] == label) & (convergence["n"] >= min_players)
        ]
        x = c["games"].to_numpy(dtype=np.float64)
        curves[label] = (x, c["median_error"])
        # The quartiles at single game counts jump with the few newcomers
        # whose events end there; a running median over BAND_SMOOTHING counts
        # shows the spread without a saw-tooth of spikes.
        lo, hi = (
            c[q].rolling(BAND_SMOOTHING, center=True, min_periods=1).median()
            for q in ("q25", "q75")
        )
        quartiles[label] = (lo, hi)
    shade = len(labels) == 1 if bands is None else bands
    _curves(ax, curves, st, bands=quartiles if shade else None)
    ax.set_xlabel(f"Games played (while at least {min_players:g} newcomers have)")
    ax.set_ylabel("Median |rating - true - offset| (points)")
    ax.set_ylim(bottom=0)
    band = f"; band: quartiles (running median of {BAND_SMOOTHING})"
    legend_outside(ax, "median" + (band if shade else ""))
    return ax


def plot_calibration(
    calibration: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
    styles: Mapping[str, Style] | None = None,
) -> Axes:
    """Observed against expected score of White, by bin of the expected score.

    Parameters
    ----------
    calibration : pandas.DataFrame
        ``calibration.csv``: ``system``, ``mean_expected``,
        ``mean_observed``, ``n`` (and ``mean_observed_lo``/``_hi``: error
        bars).
    systems : sequence of str, optional
        The systems to draw; by default every one.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; by default a new figure's.
    styles : mapping of str to Style, optional
        Style by system label; by default the registry's.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax, (7.5, 6.0))
    ax.plot(
        [0.0, 1.0],
        [0.0, 1.0],
        color="black",
        linewidth=0.8,
        linestyle=(0, (1, 2)),
        label="perfect calibration",
    )
    labels = _labels(calibration, systems)
    st = _styles(labels, styles)
    curves = {}
    bars = {}
    for label in labels:
        c = calibration[(calibration["system"] == label) & (calibration["n"] > 0)]
        curves[label] = (_finite(c["mean_expected"]), _finite(c["mean_observed"]))
        if "mean_observed_lo" in c:
            bars[label] = (c["mean_observed_lo"], c["mean_observed_hi"])
    # A small horizontal offset per system keeps equal points apart.
    _curves(ax, curves, st, bands=bars, bars=True, dodge=0.004)
    ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    ax.set_aspect("equal")
    ax.set_xlabel("Expected score of White (points per game)")
    ax.set_ylabel("Observed score of White (points per game)")
    legend_outside(ax)
    return ax


def plot_over_time(
    timeseries: pd.DataFrame,
    column: str,
    *,
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
    styles: Mapping[str, Style] | None = None,
    zero: bool = False,
    suffixes: Mapping[str, str] | None = None,
) -> Axes:
    """A column of ``timeseries.csv`` against the date, per system.

    Parameters
    ----------
    timeseries : pandas.DataFrame
        ``day`` (days since 1970-01-01) or ``date``, ``system`` and
        ``column`` (with ``column_lo``/``_hi``: a shaded interval).
    column : str
        The figure to draw (``offset``, ``rmse``, ``cohort_drift`` ...).
    systems : sequence of str, optional
        The systems to draw; by default every one.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; by default a new figure's.
    styles : mapping of str to Style, optional
        Style by system label; by default the registry's.
    zero : bool, default False
        Draw the line y = 0.
    suffixes : mapping of str to str, optional
        Text after a system's name in the legend (e.g. its slope).

    Returns
    -------
    matplotlib.axes.Axes
    """
    if column not in timeseries.columns:
        raise ValueError(
            f"The 'column' parameter of plot_over_time must be a column of the "
            f"table. Got {column!r} instead."
        )
    ax = _axes(ax)
    labels = _labels(timeseries, systems)
    st = _styles(labels, styles)
    curves, intervals = {}, {}
    for label in labels:
        t = timeseries[timeseries["system"] == label]
        x = t["date"].to_numpy() if "date" in t else day_dates(t["day"])
        curves[label] = (x, t[column])
        if f"{column}_lo" in t:
            intervals[label] = (t[f"{column}_lo"], t[f"{column}_hi"])
    _curves(ax, curves, st, bands=intervals, suffixes=suffixes, bars=len(curves) > 2)
    _fit_limits(ax, curves)
    if zero:
        ax.axhline(0.0, color="black", linewidth=0.8)
    _date_axis(ax)
    ax.set_xlabel("Date (simulated calendar)")
    legend_outside(ax, "band: interval" if intervals else None)
    return ax


def _fit_limits(ax: Axes, curves: Mapping[str, tuple[Any, Any]]) -> None:
    """Vertical limits around the curves, not their intervals' widest reach.

    With few replicates an interval can be many times the curve's range; the
    limits then keep the curves readable and the bars run off the edge.
    """
    ys = [_finite(y) for _, y in curves.values()]
    values = np.concatenate(ys) if ys else np.empty(0)
    if not np.isfinite(values).any():
        return
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    span = max(high - low, 1e-9)
    bottom, top = ax.get_ylim()
    ax.set_ylim(max(bottom, low - 0.5 * span), min(top, high + 0.5 * span))


def plot_offset(
    timeseries: pd.DataFrame,
    *,
    systems: Sequence[str] | None = None,
    ax: Axes | None = None,
    styles: Mapping[str, Style] | None = None,
) -> Axes:
    """Each system's offset, mean(rating - true), against the date.

    Parameters
    ----------
    timeseries : pandas.DataFrame
        ``timeseries.csv``: ``day`` or ``date``, ``system``, ``offset``.
    systems : sequence of str, optional
        The systems to draw; by default every one.
    ax : matplotlib.axes.Axes, optional
        The axes to draw on; by default a new figure's.
    styles : mapping of str to Style, optional
        Style by system label; by default the registry's.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = plot_over_time(
        timeseries, "offset", systems=systems, ax=ax, styles=styles, zero=True
    )
    ax.set_ylabel("Offset: mean(rating - true) (points)")
    return ax
