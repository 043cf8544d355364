"""Tests of simulator.evaluation.figures: the PNG and SVG figures of a folder."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from synthetic_summary import three_replicates, write

from simulator._style import SYSTEM_STYLES
from simulator.evaluation import figures
from simulator.evaluation.figures import FIGURES, FORMATS
from simulator.evaluation.report import sweep_table

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One results folder, written once for the tests that only read it."""
    return write(tmp_path_factory.mktemp("report") / "results", three_replicates())


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_figures_are_valid_pngs_and_svgs(written: Path) -> None:
    """Every figure is a PNG of a readable size, not blank, and an SVG."""
    assert FORMATS == ("png", "svg")
    for stem in FIGURES:
        path = written / f"{stem}.png"
        width, height = _png_size(path)
        assert width >= 500 and height >= 400
        assert path.stat().st_size > 20_000, stem
        svg = (written / f"{stem}.svg").read_text(encoding="utf-8")
        assert "<svg" in svg and "</svg>" in svg


def test_each_system_is_drawn_in_its_registry_colour(written: Path) -> None:
    """The registry colour of every system appears in the vector figure."""
    svg = (written / "rmse_over_time.svg").read_text(encoding="utf-8").lower()
    for name in ("fide", "glicko2", "lichess"):
        assert SYSTEM_STYLES[name].colour.lower() in svg, name


def test_sweep_figure_is_drawn(tmp_path: Path) -> None:
    """A sweep's table gives one figure of its headline figures against the points."""
    s = three_replicates()
    table = sweep_table(["a", "b"], [{"": s}, {"": s}])
    assert figures._draw_sweep_figure(tmp_path, table)
    for ext in FORMATS:
        assert (tmp_path / f"sweep.{ext}").stat().st_size > 10_000
    assert not figures._draw_sweep_figure(tmp_path / "none", table.iloc[:0])


def test_conversion_figure_has_both_fits(tmp_path: Path) -> None:
    """The conversion names both systems and draws the simulated and published fits."""
    s = three_replicates()
    rng = np.random.default_rng(5)
    y = rng.normal(1500.0, 300.0, 400)
    x = 0.8 * y + 250.0 + rng.normal(0.0, 50.0, 400)
    from simulator.evaluation.comparison import compare_ratings

    table = compare_ratings(
        "otb/fide vs online/lichess", x, y, y, np.ones(400, dtype=bool)
    )
    fig = figures._conversion(
        s.__class__(**{**s.__dict__, "comparison": table}),
        figures._with(None, ["fide", "lichess"]),
        "Conversion",
    )
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("simulated fit: FIDE 2025 (otb) = 0.8") for t in labels)
    assert any("published fit: FIDE = 0.84 x Lichess blitz + 180" in t for t in labels)
    assert ax.get_xlabel().startswith("Lichess (online)")
    assert ax.get_ylabel().startswith("FIDE 2025 (otb)")


def test_convergence_by_level_skips_nothing(tmp_path: Path) -> None:
    """Groups by strength give a figure with a point per level and system."""
    s = three_replicates()
    levels = (1200.0, 1600.0, 2000.0)
    rows = [
        {
            "group": f"probes at {level:g}",
            "system": name,
            "n": 40.0,
            "n50_median": 10.0 + k + level / 100.0,
            "final_error": 30.0,
        }
        for level in levels
        for k, name in enumerate(s.systems)
    ]
    groups = pd.DataFrame(rows)
    s2 = s.__class__(**{**s.__dict__, "groups": groups, "thresholds": (50.0,)})
    fig = figures._convergence_by_level(s2, figures._with(None, s.systems), "t")
    lines = [c for c in fig.axes[0].get_children() if hasattr(c, "get_xydata")]
    assert len(lines) >= len(s.systems)
    assert "probes of each true strength" in fig.get_suptitle()
