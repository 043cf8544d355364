"""Tests of cross-arena comparison and participation by strength.

``compare_ratings`` is checked on constructed data with known answers; the
engine's comparisons and ``_Arena``'s participation on small runs with the
``seed`` fixture, asserting only what holds for every seed.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from simulator import engine
from simulator.config import (
    ArenaConfig,
    Comparison,
    ConfigError,
    RunConfig,
    ScheduleConfig,
    SystemSpec,
    parse_config,
)
from simulator.engine import run_replicate
from simulator.evaluation.comparison import compare_ratings
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.report import write_report
from simulator.evaluation.results import ReplicateResult, combine
from simulator.world.population import active, make_population
from simulator.world.strengths import DAYS_PER_YEAR

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: OTB (the stronger players more likely) and online (everyone), compared both
#: ways: FIDE on Lichess, and Lichess on Glicko-2 in bands of 50.
TWO_ARENAS = """
years = 1
replicates = 2

[population]
n_players = 150

[[arena]]
name = "otb"
systems = ["fide", "glicko2"]

[arena.schedule]
participation_midpoint = 1700.0

[[arena]]
name = "online"
systems = ["lichess"]
outcomes = "online"

[arena.schedule]
kind = "online"
activity_scale = 2.0
rounds_per_day = 2

[[comparison]]
x = "otb/fide"
y = "online/lichess"

[[comparison]]
x = "online/lichess"
y = "otb/glicko2"
bin_width = 50.0
"""

FIDE_VS_LICHESS = "otb/fide vs online/lichess"
LICHESS_VS_GLICKO = "online/lichess vs otb/glicko2"


def _two_arenas() -> RunConfig:
    return RunConfig(
        arena=(
            ArenaConfig(name="otb", systems=(SystemSpec("fide"),)),
            ArenaConfig(name="online", systems=(SystemSpec("lichess"),)),
        )
    )


# --------------------------------------------------------------------------
# Comparison configs


@pytest.mark.parametrize(
    ("x", "y", "name"),
    [
        ("otbfide", "online/lichess", "'x'"),
        ("otb/fide", "online/lichess/blitz", "'y'"),
        ("otb/fide", 3, "'y'"),
    ],
)
def test_comparison_needs_arena_slash_label(x: Any, y: Any, name: str) -> None:
    """A reference that is not 'arena/label' is a ValueError naming x or y."""
    with pytest.raises(ValueError, match=f"{name} parameter of Comparison"):
        Comparison(x, y)


def test_comparison_bin_width_and_name() -> None:
    """bin_width must be positive; the name is 'x vs y'."""
    with pytest.raises(ValueError, match="bin_width"):
        Comparison("otb/fide", "online/lichess", bin_width=0.0)
    assert Comparison("otb/fide", "online/lichess").name == FIDE_VS_LICHESS


@pytest.mark.parametrize("ref", ["otb/glicko2", "offline/lichess"])
def test_comparison_of_unknown_system_is_refused(ref: str) -> None:
    """A comparison must name an arena/label of the run, listed in the message."""
    config = _two_arenas()
    with pytest.raises(ValueError, match=ref) as info:
        dataclasses.replace(config, comparison=(Comparison("otb/fide", ref),))
    assert "online/lichess" in str(info.value) and "otb/fide" in str(info.value)
    ok = dataclasses.replace(
        config, comparison=(Comparison("otb/fide", "online/lichess"),)
    )
    assert ok.comparison[0].y == "online/lichess"


def test_comparison_errors_from_toml() -> None:
    """In TOML, a bad or unknown reference is a ConfigError naming it."""
    with pytest.raises(ConfigError, match=r"comparison\[2\]"):
        parse_config(TWO_ARENAS + '[[comparison]]\nx = "otb-fide"\ny = "otb/fide"\n')
    with pytest.raises(ConfigError, match="otb/elo"):
        parse_config(TWO_ARENAS + '[[comparison]]\nx = "otb/elo"\ny = "otb/fide"\n')


def test_sweep_point_that_breaks_a_comparison_is_refused() -> None:
    """A variant that renames a compared arena fails when parsed, naming the point."""
    text = (
        TWO_ARENAS + '[[variant]]\nname = "renamed"\nset = {"arena.0.name" = "club"}\n'
    )
    with pytest.raises(ConfigError, match=r"Sweep point 'renamed'.*otb/fide"):
        parse_config(text)


# --------------------------------------------------------------------------
# compare_ratings


def _constructed() -> tuple[np.ndarray, ...]:
    """Players kept have y = 2x + 10; the others would spoil every figure."""
    x = np.array([1405.0, 1450.0, 1510.0, 1620.0, 1699.0, np.nan, 1700.0, 1800.0])
    y = 2.0 * x + 10.0
    y[6] = np.nan  # rated only by x
    y[7] = 0.0  # not active in both arenas
    x[5] = 0.0
    true = x - 20.0
    true[5] = 1500.0
    both = np.array([True] * 7 + [False])
    return x, y, true, both


def test_compare_ratings_exact_line() -> None:
    """An exact y = 2x + 10: slope 0.5, intercept -5, no residual, correlation 1."""
    x, y, true, both = _constructed()
    table = compare_ratings("x vs y", x, y, true, both)
    assert list(table["comparison"]) == ["x vs y"] * 4
    assert list(table["kind"]) == ["bin", "bin", "bin", "fit"]
    fit = table.iloc[-1]
    kept = np.array([1405.0, 1450.0, 1510.0, 1620.0, 1699.0])
    assert math.isnan(fit["bin"]) and fit["n"] == 5
    assert fit["slope"] == pytest.approx(0.5, abs=1e-12)
    assert fit["intercept"] == pytest.approx(-5.0, abs=1e-8)
    assert fit["residual_sd"] == pytest.approx(0.0, abs=1e-8)
    assert fit["correlation"] == pytest.approx(1.0, abs=1e-12)
    assert fit["gap"] == pytest.approx(kept.mean() + 10.0, abs=1e-9)
    assert fit["mean_x"] == pytest.approx(kept.mean())
    assert fit["mean_y"] == pytest.approx(2 * kept.mean() + 10)
    assert fit["mean_true"] == pytest.approx(kept.mean() - 20)


def test_compare_ratings_bins() -> None:
    """Bands of x by their lower edge, with counts and means; only kept players."""
    x, y, true, both = _constructed()
    bins = compare_ratings("c", x, y, true, both).iloc[:-1]
    assert list(bins["bin"]) == [1400.0, 1500.0, 1600.0]
    assert list(bins["n"]) == [2.0, 1.0, 2.0]
    np.testing.assert_allclose(bins["mean_x"], [1427.5, 1510.0, 1659.5])
    np.testing.assert_allclose(bins["mean_y"], [2865.0, 3030.0, 3329.0])
    np.testing.assert_allclose(bins["mean_true"], [1407.5, 1490.0, 1639.5])
    narrow = compare_ratings("c", x, y, true, both, bin_width=50.0).iloc[:-1]
    assert list(narrow["bin"]) == [1400.0, 1450.0, 1500.0, 1600.0, 1650.0]
    assert narrow["n"].sum() == 5


def test_compare_ratings_regresses_x_on_y(seed: int) -> None:
    """With noise the slope is cov(x, y) / var(y), and the gap mean(y - x)."""
    rng = np.random.default_rng(seed)
    x = rng.normal(1800, 200, 500)
    y = 0.8 * x + 300 + rng.normal(0, 50, 500)
    fit = compare_ratings("c", x, y, x, np.ones(500, dtype=bool)).iloc[-1]
    cov = np.cov(x, y)
    assert fit["slope"] == pytest.approx(cov[0, 1] / cov[1, 1], rel=1e-9)
    assert fit["intercept"] == pytest.approx(
        x.mean() - fit["slope"] * y.mean(), rel=1e-9
    )
    assert fit["correlation"] == pytest.approx(np.corrcoef(x, y)[0, 1], rel=1e-12)
    assert fit["gap"] == pytest.approx(np.mean(y - x), rel=1e-12)
    resid = x - (fit["slope"] * y + fit["intercept"])
    assert fit["residual_sd"] == pytest.approx(np.sqrt(np.sum(resid**2) / 498))


@pytest.mark.parametrize(
    ("x", "y", "n"),
    [
        ([1500.0, 1600.0], [1500.0, 1700.0], 2),  # too few for a line
        ([1500.0, 1600.0, 1700.0], [1500.0, 1500.0, 1500.0], 3),  # y constant
        ([np.nan, np.nan, np.nan], [1500.0, 1600.0, 1700.0], 0),  # nobody rated
    ],
)
def test_compare_ratings_without_a_fit(x: list[float], y: list[float], n: int) -> None:
    """Fewer than three players or a constant y: the fit row holds NaN."""
    xs, ys = np.array(x), np.array(y)
    table = compare_ratings("c", xs, ys, ys, np.ones(xs.size, dtype=bool))
    fit = table.iloc[-1]
    assert fit["kind"] == "fit" and fit["n"] == n == table["n"].iloc[:-1].sum()
    for col in ("slope", "intercept", "residual_sd", "correlation", "gap"):
        assert math.isnan(fit[col])


def _with_comparison(table: pd.DataFrame) -> ReplicateResult:
    result = Recorder(["a"], 2).result()
    return dataclasses.replace(result, comparison=table)


def test_combine_keeps_the_fit_row() -> None:
    """Combining replicates keeps the fit row (its bin is NaN) and every bin."""
    x, y, true, both = _constructed()
    first = compare_ratings("c", x, y, true, both)
    x2 = x + 100.0  # bands 1500, 1600 and 1700; x2 = (y2 - 30) / 2
    y2 = np.where(np.isnan(y), np.nan, 2.0 * x2 + 30.0)
    second = compare_ratings("c", x2, y2, true, both)
    combined = combine([_with_comparison(first), _with_comparison(second)]).comparison
    # As in each replicate: the bins in increasing order, then the fit row.
    assert list(combined["kind"]) == ["bin"] * 4 + ["fit"]
    assert list(combined["bin"].iloc[:-1]) == [1400.0, 1500.0, 1600.0, 1700.0]
    fit = combined[combined["kind"] == "fit"]
    assert len(fit) == 1 and math.isnan(fit["bin"].iloc[0])
    assert fit["n_replicates"].iloc[0] == 2
    assert fit["slope"].iloc[0] == pytest.approx(0.5)
    assert fit["intercept"].iloc[0] == pytest.approx((-5.0 - 15.0) / 2)
    assert fit["gap"].iloc[0] == pytest.approx(
        (first["gap"].iloc[-1] + second["gap"].iloc[-1]) / 2
    )
    bins = combined[combined["kind"] == "bin"].set_index("bin")
    assert sorted(bins.index) == [1400.0, 1500.0, 1600.0, 1700.0]
    assert (
        bins.loc[1400.0, "n_replicates"] == 1 and bins.loc[1500.0, "n_replicates"] == 2
    )
    assert bins.loc[1500.0, "n"] == pytest.approx((1 + 2) / 2)
    # Without comparisons the combined table is empty.
    plain = Recorder(["a"], 2).result()
    assert combine([plain, plain]).comparison.empty


# --------------------------------------------------------------------------
# Comparisons in a run


def _check_table(table: pd.DataFrame, name: str, width: float, n_both: int) -> None:
    """Invariants of one comparison's rows."""
    part = table[table["comparison"] == name]
    kinds = list(part["kind"])
    # Bins, then the smoothed conversions both ways, then the fit.
    assert kinds == sorted(kinds, key=["bin", "x_given_y", "y_given_x", "fit"].index)
    assert kinds[-1] == "fit" and kinds.count("fit") == 1
    bins, fit = part[part["kind"] == "bin"], part.iloc[-1]
    assert fit["n"] == n_both == bins["n"].sum() and n_both >= 10
    edges = bins["bin"].to_numpy()
    assert np.all(np.diff(edges) > 0) and np.all(edges % width == 0)
    assert np.all(bins["mean_x"] >= edges) and np.all(bins["mean_x"] < edges + width)
    assert -1.0 <= fit["correlation"] <= 1.0 and fit["residual_sd"] >= 0
    # Both systems rank the same players: the conversion is increasing.
    assert fit["slope"] > 0 and fit["correlation"] > 0.5


def test_run_compares_players_active_in_both_arenas(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Comparisons use the last day's players active in both arenas, under x's arena."""
    arenas: list[Any] = []
    boths: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    class Arena(engine._Arena):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            arenas.append(self)

    def spy(name: str, x: Any, y: Any, true: Any, both: Any, **kw: Any) -> Any:
        boths[name] = (both, x, y)
        return compare_ratings(name, x, y, true, both, **kw)

    worlds: list[Any] = []

    class World(engine.LiveWorld):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            worlds.append(self)

    monkeypatch.setattr(engine, "_Arena", Arena)
    monkeypatch.setattr(engine, "LiveWorld", World)
    monkeypatch.setattr(engine, "compare_ratings", spy)
    config = parse_config(TWO_ARENAS)
    result = run_replicate(config, np.random.default_rng(seed))

    otb, online = arenas
    population = worlds[0].population
    last = population.day
    present = active(population, last)
    for name, (both, x, y) in boths.items():
        assert not np.any(both & ~(otb.in_arena & online.in_arena & present))
        assert not np.any(both & ~(last - otb.last_game <= 365))
        assert not np.any(both & ~(last - online.last_game <= 365))
        boths[name] = (both & ~np.isnan(x) & ~np.isnan(y), x, y)
    assert set(result["otb"].comparison["comparison"]) == {FIDE_VS_LICHESS}
    assert set(result["online"].comparison["comparison"]) == {LICHESS_VS_GLICKO}
    _check_table(
        result["otb"].comparison,
        FIDE_VS_LICHESS,
        100.0,
        int(boths[FIDE_VS_LICHESS][0].sum()),
    )
    _check_table(
        result["online"].comparison,
        LICHESS_VS_GLICKO,
        50.0,
        int(boths[LICHESS_VS_GLICKO][0].sum()),
    )


def test_run_without_comparisons_has_none(seed: int) -> None:
    """Without [[comparison]] tables every arena's comparison table is empty."""
    config = dataclasses.replace(parse_config(TWO_ARENAS), comparison=(), years=0.3)
    result = run_replicate(config, np.random.default_rng(seed))
    assert result["otb"].comparison.empty and result["online"].comparison.empty


def test_report_shows_the_comparison(seed: int, tmp_path: Path) -> None:
    """report.md's 'Cross-arena comparison', comparison.csv and conversion PNGs."""
    config = parse_config(TWO_ARENAS)
    replicates = [
        run_replicate(config, rng) for rng in np.random.default_rng(seed).spawn(2)
    ]
    summaries = {a: combine([r[a] for r in replicates]) for a in ("otb", "online")}
    fit = summaries["otb"].comparison.iloc[-1]
    assert fit["kind"] == "fit" and fit["n_replicates"] == 2
    out = write_report(
        tmp_path / "out",
        summaries,
        config_text="",
        seed=seed,
        versions={},
        title="two arenas",
        figures=True,
    )
    report = (out / "report.md").read_text(encoding="utf-8")
    assert report.count("Cross-arena comparison") == 2
    assert f"**{FIDE_VS_LICHESS}**: otb/fide = " in report
    assert f"**{LICHESS_VS_GLICKO}**: online/lichess = " in report
    assert "| otb/fide band |" in report
    for arena in ("otb", "online"):
        png = out / f"conversion-{arena}.png"
        assert png.read_bytes()[:8] == PNG_SIGNATURE
        assert f"(conversion-{arena}.png)" in report
    table = pd.read_csv(out / "comparison.csv")
    assert list(table.columns[:4]) == ["arena", "comparison", "kind", "bin"]
    fits = table[table["kind"] == "fit"]
    assert list(zip(fits["arena"], fits["comparison"], strict=True)) == [
        ("otb", FIDE_VS_LICHESS),
        ("online", LICHESS_VS_GLICKO),
    ]
    assert fits["bin"].isna().all()


def test_report_without_comparison_or_groups(tmp_path: Path) -> None:
    """Without them the report has neither section, CSV nor conversion figure."""
    rec = Recorder(["a"], 3)
    rec.record_games({"a": [0.5]}, [0.6], [1.0])
    true = np.array([1500.0, 1600.0, 1700.0])
    ones = np.ones(3, dtype=bool)
    # No newcomers: no per-level groups either.
    none = np.zeros(3, dtype=bool)
    rec.checkpoint(7.0, {"a": true}, true, ones, np.array([1, 1, 0]), none, ones)
    out = write_report(
        tmp_path / "out",
        combine([rec.result()]),
        config_text="",
        seed=1,
        versions={},
        title="plain",
        figures=False,
    )
    names = {p.name for p in out.iterdir()}
    assert "comparison.csv" not in names and "groups.csv" not in names
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Cross-arena comparison" not in report
    assert "Convergence by group" not in report


# --------------------------------------------------------------------------
# Participation by strength


def _in_arena(schedule: ScheduleConfig, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Who plays in an arena with ``schedule``, and the players' true strengths."""
    arena = ArenaConfig(name="otb", systems=(SystemSpec("elo"),), schedule=schedule)
    config = dataclasses.replace(
        RunConfig(arena=(arena,)),
        population=dataclasses.replace(RunConfig().population, n_players=3000),
    )
    rng = np.random.default_rng(seed)
    pop = make_population(
        config.population, rng, start_day=19723.0, n_days=DAYS_PER_YEAR
    )
    return engine._Arena(arena, config, pop, 19723, rng).in_arena, pop.true_strength


def test_participation_by_strength(seed: int) -> None:
    """Weak players rarely play in the arena, strong ones mostly."""
    schedule = ScheduleConfig(participation_midpoint=1800.0, participation_width=100.0)
    in_arena, strength = _in_arena(schedule, seed)
    weak, strong = strength < 1500, strength > 2100
    assert weak.sum() > 100 and strong.sum() > 100
    assert in_arena[weak].mean() < 0.15  # chance below 1 / (1 + e^3) = 0.047
    assert in_arena[strong].mean() > 0.85  # chance above 0.953
    chance = 1.0 / (1.0 + np.exp(-(strength - 1800.0) / 100.0))
    np.testing.assert_allclose(in_arena.mean(), chance.mean(), atol=0.04)


def test_participation_scales_the_curve(seed: int) -> None:
    """A participation of 0.5 halves the curve: about half the strong players play."""
    schedule = ScheduleConfig(
        participation=0.5, participation_midpoint=1800.0, participation_width=100.0
    )
    in_arena, strength = _in_arena(schedule, seed)
    assert 0.35 < in_arena[strength > 2100].mean() < 0.65
    assert in_arena[strength < 1500].mean() < 0.1


def test_participation_without_midpoint(seed: int) -> None:
    """Without a midpoint everyone plays at participation 1, and strength is moot."""
    in_arena, _ = _in_arena(ScheduleConfig(), seed)
    assert in_arena.all()
    in_arena, strength = _in_arena(ScheduleConfig(participation=0.5), seed)
    np.testing.assert_allclose(in_arena.mean(), 0.5, atol=0.04)
    np.testing.assert_allclose(
        in_arena[strength < 1700].mean(), in_arena[strength >= 1700].mean(), atol=0.1
    )


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"participation_midpoint": -5.0}, "participation_midpoint"),
        ({"participation_midpoint": 5000.0}, "participation_midpoint"),
        ({"participation_width": 0.0}, "participation_width"),
    ],
)
def test_participation_settings_are_validated(
    kwargs: dict[str, float], name: str
) -> None:
    """Impossible participation settings are a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=name):
        ScheduleConfig(**kwargs)  # type: ignore[arg-type]


def test_participation_midpoint_from_toml() -> None:
    """The midpoint is read from TOML, and 'none' (the default) turns it off."""
    config = parse_config(TWO_ARENAS)
    assert config.arena[0].schedule.participation_midpoint == 1700.0
    assert config.arena[1].schedule.participation_midpoint is None
    text = TWO_ARENAS.replace(
        "participation_midpoint = 1700.0", 'participation_midpoint = "none"'
    )
    assert parse_config(text).arena[0].schedule.participation_midpoint is None


def test_smoothed_conversions_follow_a_known_line() -> None:
    """Both smoothed conversions recover a straight relation, on the common grid.

    ``x = 0.8 y + 180`` exactly (a published fit's form): local linear
    regression reproduces a line, so ``x_given_y`` is on it wherever enough
    players are near, and ``y_given_x`` on its inverse.
    """
    y = np.linspace(1000.0, 2400.0, 701)
    x = 0.8 * y + 180.0
    table = compare_ratings("x vs y", x, y, y, np.ones(y.size, dtype=bool))
    forward = table[table["kind"] == "x_given_y"]
    back = table[table["kind"] == "y_given_x"]
    assert len(forward) > 40 and len(back) > 30
    np.testing.assert_allclose(forward["mean_x"], 0.8 * forward["bin"] + 180.0)
    np.testing.assert_allclose(back["mean_y"], (back["bin"] - 180.0) / 0.8)
    assert (forward["mean_y"] == forward["bin"]).all()
    # Only where the data are: no grid point far outside the players' range.
    assert forward["bin"].min() >= 1000.0 - 50 and forward["bin"].max() <= 2400 + 50
    assert (pd.concat([forward, back])["n"] >= 10).all()


def test_conditional_mean_of_noisy_data(seed: int) -> None:
    """With noise, the smoothed mean is within a few SEs of the true line."""
    rng = np.random.default_rng(seed)
    y = rng.normal(1700.0, 250.0, 4000)
    x = 0.8 * y + 180.0 + rng.normal(0.0, 150.0, y.size)
    from simulator.evaluation.comparison import conditional_mean

    at = np.array([1400.0, 1700.0, 2000.0])
    mean, near = conditional_mean(y, x, at, 50.0)
    # The kernel-weighted count understates the effective sample of a
    # Gaussian kernel (by about 1.4x), so this SE is conservative.
    se = 150.0 / np.sqrt(near)
    # Local linear fits have no bias on a line; 5 SEs is a loose bound.
    assert np.all(np.abs(mean - (0.8 * at + 180.0)) < 5 * se)
