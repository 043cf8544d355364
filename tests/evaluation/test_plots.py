"""Tests of simulator.evaluation.plots: notebook plots on Axes, coincidence, legends."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from simulator._style import SYSTEM_STYLES
from simulator.evaluation.plots import (
    coincident,
    plot_calibration,
    plot_error_vs_games,
    plot_history,
    plot_offset,
    plot_over_time,
)


def _timeseries(equal: bool) -> pd.DataFrame:
    days = np.arange(19_800.0, 19_900.0, 7.0)
    rows = []
    for name in ("fide", "fide-2024", "lichess"):
        base = 0.0 if name != "lichess" else 40.0
        bump = 0.0 if equal or name != "fide-2024" else 5.0
        rows += [
            {"day": d, "system": name, "offset": base + bump + 0.1 * i}
            for i, d in enumerate(days)
        ]
    return pd.DataFrame(rows)


def _legend(ax: Axes) -> list[str]:
    legend = ax.get_legend()
    assert legend is not None
    return [t.get_text() for t in legend.get_texts()]


def test_coinciding_curves_are_named_in_the_legend() -> None:
    """fide-2024 exactly on fide: the legend says so; apart, it does not."""
    ax = plot_offset(_timeseries(equal=True))
    assert "FIDE 2024 (= FIDE 2025)" in _legend(ax)
    ax = plot_offset(_timeseries(equal=False))
    assert "FIDE 2024" in _legend(ax)


def test_coincident_finds_equal_and_near_curves() -> None:
    """Equal curves are found; a curve 1 % away is not, unless the tolerance allows."""
    x = np.arange(5.0)
    curves = {"a": (x, x), "b": (x, x.copy()), "c": (x, x * 1.01)}
    assert coincident(curves) == {"b": "a"}
    assert coincident(curves, rtol=0.05) == {"b": "a", "c": "a"}


def test_legend_is_outside_the_axes() -> None:
    """The legend's box starts right of the axes' box: it covers no data."""
    ax = plot_offset(_timeseries(equal=False))
    fig = ax.get_figure()
    assert isinstance(fig, Figure)
    fig.canvas.draw()
    legend = ax.get_legend()
    assert legend is not None
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    assert legend.get_window_extent(renderer).x0 >= ax.get_window_extent(renderer).x1


def test_plots_draw_on_a_given_axes_in_registry_colours() -> None:
    """Each function returns the Axes it was given, Lichess in Lichess's colour."""
    fig = Figure()
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    assert plot_over_time(_timeseries(False), "offset", ax=ax) is ax
    colours = {line.get_label(): line.get_color() for line in ax.get_lines()}
    assert colours["Lichess"] == SYSTEM_STYLES["lichess"].colour


def test_error_vs_games_and_calibration() -> None:
    """The convergence curve stops where few newcomers remain; calibration draws."""
    games = np.arange(30.0)
    conv = pd.DataFrame(
        {
            "system": "glicko2",
            "games": games,
            "median_error": 200.0 / np.sqrt(games + 1.0),
            "q25": 100.0 / np.sqrt(games + 1.0),
            "q75": 300.0 / np.sqrt(games + 1.0),
            "n": np.where(games < 20, 50.0, 5.0),
        }
    )
    ax = plot_error_vs_games(conv)
    (line,) = ax.get_lines()
    assert len(line.get_xdata()) == 20
    assert ax.collections  # one system: its quartile band is shaded
    cal = pd.DataFrame(
        {
            "system": "elo",
            "mean_expected": [0.2, 0.5, 0.8],
            "mean_observed": [0.25, 0.5, 0.75],
            "n": [10, 10, 10],
        }
    )
    ax = plot_calibration(cal)
    assert "Elo" in _legend(ax)


def test_history_needs_its_columns() -> None:
    """A rating history draws a line per player and system; missing columns raise."""
    h = pd.DataFrame(
        {
            "player": ["a", "a", "b", "b"],
            "date": pd.to_datetime(["2024-01-01", "2024-02-01"] * 2),
            "rating": [1500.0, 1520.0, 1600.0, 1590.0],
            "system": ["elo"] * 4,
        }
    )
    ax = plot_history(h)
    assert len(ax.get_lines()) == 2
    assert "a, Elo" in _legend(ax)
    with pytest.raises(ValueError, match="Missing: \\['system'\\]"):
        plot_history(h.drop(columns="system"))
