"""The benchmark harness's honesty checks (benchmarks/run.py; nothing is timed).

The kernel floor must be one pass of ``np.bincount`` over inputs it reads in
place, and an extrapolated horizon must say it is an estimate and not be
judged against its target (issue 22, item 5).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """benchmarks/run.py as a module (it imports its sibling ``_proc``)."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location(
            "bench_run", BENCHMARKS / "run.py"
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        # Its dataclasses look their module up while the module is executed.
        sys.modules["bench_run"] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


def _harness(bench: ModuleType, child: Any) -> Any:
    """The scale scenarios' harness around a fake child (nominal games: 10 a year)."""
    return sys.modules["_scale"].Harness(
        child,
        lambda n, years, seed: (n * years * 10.0, n),
        bench.Row,
        bench.Outcome,
        lambda: "0.00 0.00 0.00",
    )


def test_floor_reads_its_prepared_inputs_in_place(bench: ModuleType) -> None:
    """Prepared from read-only arrays, the floor allocates its output only."""
    rng = np.random.default_rng(5)
    n_players, n_games = 2_000, 200_000
    white = rng.integers(0, n_players, n_games).astype(np.int32)
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    white.flags.writeable = False
    score.flags.writeable = False
    f_white, f_score = bench.floor_inputs(white, score)
    assert f_white.dtype == np.intp and f_score.dtype == np.float64
    assert not np.shares_memory(f_white, white) and not np.shares_memory(f_score, score)
    allocated = bench._floor_allocation(f_white, f_score, n_players)
    assert n_players * 8 <= allocated <= n_players * 8 + 4096
    expected = np.bincount(white, weights=score, minlength=n_players)
    np.testing.assert_array_equal(
        np.bincount(f_white, weights=f_score, minlength=n_players), expected
    )


@pytest.mark.parametrize("bad", ["read-only", "int32"])
def test_floor_check_catches_a_copy(bench: ModuleType, bad: str) -> None:
    """Inputs numpy must copy or convert (n_games x 8 bytes) fail the check."""
    rng = np.random.default_rng(6)
    f_white, f_score = bench.floor_inputs(
        rng.integers(0, 500, 100_000), rng.random(100_000)
    )
    if bad == "read-only":
        f_white.flags.writeable = False
    else:
        f_white = f_white.astype(np.int32)
    with pytest.raises(RuntimeError, match="copied or converted"):
        bench._floor_allocation(f_white, f_score, 500)


def test_an_extrapolated_horizon_is_an_estimate(bench: ModuleType) -> None:
    """It says "estimate" in every cell it fills and is neither pass nor miss."""
    row = bench.horizon_row("10,000 players, ~1.0 M games", 73.0, 12.0, 0.25)
    assert row.status == "estimate"
    for cell in (row.case, row.measured, row.target):
        assert "estimate" in cell
    assert "not judged" in row.target
    text = bench._markdown([row], [], {}, {})
    assert "73 s estimate" in text
    measured = bench.horizon_row("10,000 players, ~1.0 M games", 15.0, 12.0, None)
    assert measured.status == "miss" and "estimate" not in measured.measured
    assert bench.horizon_row("x", 11.0, 12.0, None).status == "pass"


def test_exponent_recovers_a_power_law(bench: ModuleType) -> None:
    """The scale rows' exponent is the slope of log time on log size."""
    scale = sys.modules["_scale"]
    sizes = [1e6, 3e6, 1e7]
    assert scale.exponent(sizes, [2.0 * s**1.2 for s in sizes]) == pytest.approx(
        1.2, abs=1e-12
    )
    assert scale.exponent(sizes, [5.0, 5.0, 5.0]) == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="differ"):
        scale.exponent([2.0, 2.0], [1.0, 3.0])
    with pytest.raises(ValueError, match="positive"):
        scale.exponent([0.0, 2.0], [1.0, 3.0])


def test_horizons_aim_at_the_targets(bench: ModuleType) -> None:
    """Each horizon is where the nominal games (scaled) reach its target."""
    scale = sys.modules["_scale"]
    targets = [2e3, 6e3, 2e4]
    years = scale.horizons(300, targets, 0.5, 20240101)
    assert years == sorted(years) and years[0] > 0
    for target, y in zip(targets, years, strict=True):
        sides, _ = bench._nominal_sides(300, y, 20240101)
        # The run's own draw over a shorter horizon differs a little from
        # the long one the horizons read.
        assert sides * 0.5 == pytest.approx(target, rel=0.15)


def test_the_games_rows_judge_each_horizons_best_run(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three runs of each horizon, in turn; the rows and the exponent use the best.

    A fake child: time proportional to the games, but the second round of
    the longest horizon a tenth faster and the third three times as slow.
    The first run (the median), the last (the maximum) or a mean would each
    give another value for the row and for the exponent.
    """
    scale = sys.modules["_scale"]
    horizon_years = [1.0, 3.0, 10.0]
    monkeypatch.setattr(scale, "horizons", lambda *args: list(horizon_years))
    seen: dict[tuple[int, float], int] = {}

    def child(spec: dict[str, Any]) -> dict[str, Any]:
        n, years = int(spec["n_players"]), float(spec["years"])
        games = int(n * years * 10)
        k = seen[n, years] = seen.get((n, years), 0) + 1
        slow = {2: 0.9, 3: 3.0}.get(k, 1.0) if (n, years) == (10_000, 10.0) else 1.0
        return {
            "games": games,
            "seconds": games * 1e-5 * slow,
            "n_total": n,
            "peak_rss_mb": 1.0,
            "parts": {"part": 1.0},
        }

    out = scale.scale(False, _harness(bench, child))
    assert seen[10_000, 10.0] == scale.REPEATS == 3
    assert seen[200_000, 10.0] == 1
    rows = {r.case.split(":")[0]: r for r in out.rows if r.scenario == "scale"}
    longest = rows["10,000 players, 10.0 years"]
    # 1,000,000 games x 1e-5 s, a tenth faster in the best round.
    assert longest.value == pytest.approx(9.0)
    assert "best of 3 (9.0 to 30.0 s)" in longest.measured
    b = next(r for r in out.rows if r.case.startswith("exponent of time in games"))
    best = scale.exponent([1e5, 3e5, 1e6], [1.0, 3.0, 9.0])
    assert b.value == pytest.approx(best, abs=1e-12)
    assert abs(best - 1.0) > 0.02
    assert "each round's own" in b.measured


def test_side_by_side_counts_the_short_runs_within_the_long_one(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short runs count only when their timed part lies within the long run's.

    A fake child: the long run (timed from 100 to 150 s of the wall clock,
    1,000,000 games) returns once five short runs have been started; the
    short runs (100,000 games; the pilot 50,000) start at 99 s (before it),
    100 s (6 s long), 110 s (10 s) and 130 s (20 s: ending at 150 s), and
    145 s (ending after it). The exponent is the slope between the mean of
    the three within (12 s) and the long run (50 s): their median (10 s),
    strict bounds, the pilot's games or the runs outside would change it.
    """
    import threading

    scale = sys.modules["_scale"]
    monkeypatch.setattr(scale, "horizons", lambda *args: [1.0, 3.0, 10.0])
    five_started = threading.Event()
    calls: list[float] = []
    starts = {
        1: (99.0, 8.0),
        2: (100.0, 6.0),
        3: (110.0, 10.0),
        4: (130.0, 20.0),
        5: (145.0, 30.0),
    }

    def child(spec: dict[str, Any]) -> dict[str, Any]:
        years = float(spec["years"])
        res: dict[str, Any] = {"n_total": 1, "peak_rss_mb": 1.0, "parts": {}}
        if years == 10.0:
            assert five_started.wait(timeout=30.0)
            return {**res, "games": 1_000_000, "started": 100.0, "seconds": 50.0}
        calls.append(years)
        if len(calls) == 1:  # the pilot (1.0 years, as the shortest horizon)
            return {**res, "games": 50_000, "started": 0.0, "seconds": 1.0}
        k = len(calls) - 1
        if k >= 5:
            five_started.set()
        started, seconds = starts.get(k, (200.0, 10.0))
        return {**res, "games": 100_000, "started": started, "seconds": seconds}

    out = scale.side_by_side(True, _harness(bench, child))
    (row,) = out.rows
    want = scale.exponent([1e5, 1e6], [12.0, 50.0])
    assert row.value == pytest.approx(want, abs=1e-12)
    for other in ([1e5, 1e6], [10.0, 50.0]), ([5e4, 1e6], [12.0, 50.0]):
        assert abs(want - scale.exponent(*other)) > 0.05
    assert row.status == "info"
    assert "| 3 of " in out.sections[0][1]


def test_side_by_side_waits_for_the_long_run_when_a_short_one_fails(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failed short run is raised only once the long run's child has ended."""
    import threading
    import time

    scale = sys.modules["_scale"]
    monkeypatch.setattr(scale, "horizons", lambda *args: [1.0, 3.0, 10.0])
    long_done = threading.Event()
    calls: list[float] = []

    def child(spec: dict[str, Any]) -> dict[str, Any]:
        res: dict[str, Any] = {"n_total": 1, "peak_rss_mb": 1.0, "parts": {}}
        if float(spec["years"]) == 10.0:
            time.sleep(0.5)
            long_done.set()
            return {**res, "games": 1_000_000, "started": 0.0, "seconds": 1.0}
        calls.append(float(spec["years"]))
        if len(calls) == 1:  # the pilot
            return {**res, "games": 50_000, "started": 0.0, "seconds": 1.0}
        return {"error": "exit 1: a short run failed"}

    with pytest.raises(RuntimeError, match="a short run failed"):
        scale.side_by_side(True, _harness(bench, child))
    assert long_done.is_set()
