"""Sweep points paired replicate by replicate against the first point.

Every point of a sweep runs the same replicate seeds, so a point that changes
nothing must differ from the first by exactly zero in every figure, and one
that changes something by a difference with an interval; the sweep's folder
carries them (``sweep_paired.csv`` and a section of ``sweep.md``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from small_configs import TWO_ARENAS

from simulator.config import parse_config
from simulator.evaluation.paired import (
    COMPARISON_FIGURES,
    POINT_FIGURES,
    paired_points,
)
from simulator.tasks.run import run_experiment, run_sweep

SWEEP = (
    TWO_ARENAS.replace("replicates = 2", "replicates = 3").replace(
        "n_players = 100", "n_players = 300"
    )
    + """
[[comparison]]
x = "otb/fide"
y = "online/lichess"

[[variant]]
name = "base"

[[variant]]
name = "unchanged"
set = { "population.n_players" = 300 }

[[variant]]
name = "one strength"
set = { "arena.1.strength_offset_sd" = 0.0 }
"""
)


@pytest.fixture(scope="module")
def sweep():  # type: ignore[no-untyped-def]
    return run_sweep(parse_config(SWEEP), seed=11, jobs=1, progress=False)


def test_an_unchanged_point_differs_by_exactly_zero(sweep) -> None:  # type: ignore[no-untyped-def]
    names = [p.name for p in sweep.points]
    paired = paired_points(names, [r.replicates for r in sweep.results])
    same = paired[paired["pairs"] == "unchanged"]
    assert set(same["table"]) == {
        "otb/fide",
        "otb/glicko2",
        "online/lichess",
        "otb/fide vs online/lichess",
    }
    assert set(same["figure"]) == set(POINT_FIGURES) | set(COMPARISON_FIGURES)
    finite = same[np.isfinite(same["difference"])]
    assert len(finite) > 0
    assert (finite["difference"] == 0.0).all()
    assert (finite["lo"] == 0.0).all() and (finite["hi"] == 0.0).all()
    assert (same["reference"] == "base").all()


def test_a_changed_point_is_paired_against_the_first(sweep) -> None:  # type: ignore[no-untyped-def]
    """The online offset goes: the fit's residual SD changes, per replicate."""
    names = [p.name for p in sweep.points]
    results = [r.replicates for r in sweep.results]
    paired = paired_points(names, results)
    row = paired[
        (paired["pairs"] == "one strength")
        & (paired["table"] == "otb/fide vs online/lichess")
        & (paired["figure"] == "residual_sd")
    ].iloc[0]
    fits = [
        [
            r.comparison.query("kind == 'fit'")["residual_sd"].iloc[0]
            for r in point["otb"]
        ]
        for point in (results[0], results[2])
    ]
    expected = np.mean(np.subtract(fits[1], fits[0]))
    assert row["difference"] == pytest.approx(expected, rel=1e-12)
    assert row["lo"] <= row["difference"] <= row["hi"]
    assert row["n_replicates"] == 3


def test_no_reference_gives_an_empty_table() -> None:
    assert paired_points(["only"], [None]).empty
    assert paired_points(["a", "b"], [None, None]).empty


def test_the_sweep_folder_carries_them(tmp_path: Path) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    done = run_experiment(
        str(config),
        seed=11,
        out=tmp_path / "out",
        jobs=1,
        figures=False,
        progress=False,
        show=lambda _: None,
        say=lambda _: None,
    )
    assert done.path is not None
    assert (done.path / "sweep_paired.csv").is_file()
    text = (done.path / "sweep.md").read_text(encoding="utf-8")
    assert "## Paired against base" in text
    assert "| one strength | otb/fide vs online/lichess |" in text
