"""Tests of probes (newcomers of known strength) and convergence by group.

Probes are drawn by ``make_population``, kept at their strength by ``advance``
and measured by the recorder's groups. Stochastic tests take the ``seed``
fixture; they assert only what holds for every seed.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from simulator.config import ConfigError, parse_config
from simulator.engine import run_replicate
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.report import write_report
from simulator.evaluation.results import combine
from simulator.evaluation.settings import MetricsConfig, threshold_name
from simulator.world.development import DevelopmentConfig
from simulator.world.population import PlayerKind, Population, make_population
from simulator.world.population_config import PopulationConfig
from simulator.world.strengths import DAYS_PER_YEAR, Strengths, advance

#: Two probe levels in a small Swiss world rated by two systems.
PROBES = """
years = 1
replicates = 2

[population]
n_players = 150
probe_levels = [1500, 2100]
probes_per_level = 15
probe_arrival_years = 0.2

[[arena]]
systems = ["fide", "glicko2"]
"""

START = 19723.0  # 2024-01-01


def _probe_population(seed: int, **kwargs: object) -> Population:
    config = PopulationConfig(
        n_players=200,
        probe_levels=(1500.0, 2150.5),
        probes_per_level=30,
        probe_arrival_years=0.5,
        **kwargs,  # type: ignore[arg-type]
    )
    return make_population(
        config, np.random.default_rng(seed), start_day=START, n_days=2 * DAYS_PER_YEAR
    )


# --------------------------------------------------------------------------
# The population


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"probes_per_level": 0}, "probes_per_level"),
        ({"probe_age": 2.0}, "probe_age"),
        ({"probe_arrival_years": -1.0}, "probe_arrival_years"),
        ({"probe_levels": (1500.0, math.nan)}, "probe_levels"),
        ({"probe_levels": ("strong",)}, "probe_levels"),
    ],
)
def test_probe_settings_are_validated(kwargs: dict[str, object], name: str) -> None:
    """Bad probe settings are a ValueError naming the parameter."""
    with pytest.raises(ValueError, match=name):
        PopulationConfig(**kwargs)  # type: ignore[arg-type]


def test_no_probes_by_default(seed: int) -> None:
    """Without probe levels nobody is a probe."""
    pop = make_population(
        PopulationConfig(n_players=100),
        np.random.default_rng(seed),
        start_day=START,
        n_days=DAYS_PER_YEAR,
    )
    assert not np.any(pop.kind == PlayerKind.PROBE)


def test_probes_have_exact_strengths_and_kind(seed: int) -> None:
    """Each level has probes_per_level probes of exactly that strength, last."""
    pop = _probe_population(seed)
    probe = pop.kind == PlayerKind.PROBE
    assert probe.sum() == 60
    # Appended after everyone else.
    assert np.all(probe[-60:]) and not np.any(probe[:-60])
    assert np.all(pop.kind[:200] == PlayerKind.INITIAL)
    levels = pop.true_strength[probe]
    assert np.array_equal(levels, np.repeat([1500.0, 2150.5], 30))
    assert np.all(pop.growth[probe] == 0.0)
    assert np.all(np.isinf(pop.departure_day[probe]))
    assert not pop.newcomer[probe].any()


def test_probes_arrive_within_four_weeks_at_their_age(seed: int) -> None:
    """Arrival in [start + years, + 28 days), aged probe_age on arrival."""
    pop = _probe_population(seed, probe_age=27.5)
    probe = pop.kind == PlayerKind.PROBE
    first = START + 0.5 * DAYS_PER_YEAR
    arrival = pop.arrival_day[probe]
    assert np.all(arrival >= first) and np.all(arrival < first + 28)
    assert np.ptp(arrival) > 0  # spread over the window, not one day
    np.testing.assert_allclose(
        (arrival - pop.birth_day[probe]) / DAYS_PER_YEAR, 27.5, rtol=0, atol=1e-9
    )


def test_probe_activity_is_the_curve_mean(seed: int) -> None:
    """A probe's games a month are the activity curve at its level over 12."""
    pop = _probe_population(seed)
    probe = pop.kind == PlayerKind.PROBE
    config = pop.config
    expected = (
        np.interp(
            pop.true_strength[probe], config.activity_strengths, config.games_per_year
        )
        / 12.0
    )
    np.testing.assert_allclose(pop.activity[probe], expected, rtol=1e-12)
    # 1500 is between the knots 1400 (15.5) and 1800 (17.3) of the default curve.
    np.testing.assert_allclose(pop.activity[probe][0], (15.5 + 0.25 * 1.8) / 12)


def test_probes_keep_their_strength_under_advance(seed: int) -> None:
    """Over two years of steps probes never move; the other players do."""
    rng = np.random.default_rng(seed)
    # A wide random walk for everyone (the default world's walk is by age).
    wide = DevelopmentConfig(noise_ages=(10.0,), noise_sds=(80.0,))
    pop = _probe_population(seed, development=wide)
    probe = pop.kind == PlayerKind.PROBE
    first = pop.true_strength.copy()
    for day in np.arange(START + 7, START + 2 * DAYS_PER_YEAR, 7):
        pop = advance(pop, float(day), rng)
        assert np.array_equal(pop.true_strength[probe], first[probe])
    moved = pop.true_strength[~probe] != first[~probe]
    assert moved.mean() > 0.9


@pytest.mark.parametrize("years", [2.0, 2.5])
def test_probes_after_the_end_are_an_error(seed: int, years: float) -> None:
    """Probes due at or after the end of the horizon are a ValueError."""
    config = PopulationConfig(
        n_players=50, probe_levels=(1500.0,), probe_arrival_years=years
    )
    with pytest.raises(ValueError, match="after the run's end"):
        make_population(
            config,
            np.random.default_rng(seed),
            start_day=START,
            n_days=2 * DAYS_PER_YEAR,
        )


def test_run_with_late_probes_is_an_error() -> None:
    """A config whose probes would arrive after its end is refused when read."""
    with pytest.raises(ConfigError, match="probe_arrival_years below years"):
        parse_config(
            PROBES.replace("probe_arrival_years = 0.2", "probe_arrival_years = 1.5")
        )


def test_probes_stay_put_during_a_run(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whenever the engine moves players on, the probes keep exactly their levels."""
    seen: list[np.ndarray] = []
    everyone: list[float] = []
    real = Strengths.advance

    def spy(
        self: Strengths, day: float, rng: np.random.Generator, *, players: Any = None
    ) -> None:
        real(self, day, rng, players=players)
        moved = self.population()
        seen.append(moved.true_strength[moved.kind == PlayerKind.PROBE])
        if players is None:
            everyone.append(day)

    monkeypatch.setattr(Strengths, "advance", spy)
    config = parse_config(PROBES.replace("years = 1", "years = 0.4"))
    run_replicate(config, np.random.default_rng(seed))
    # Everyone moves at each checkpoint (weekly and on the last day); the
    # players of each round in between.
    n_days = round(0.4 * DAYS_PER_YEAR)
    assert len(everyone) == n_days // 7 + (n_days % 7 != 0)
    assert len(seen) > 2 * len(everyone)
    expected = np.repeat([1500.0, 2100.0], 15)
    for strengths in seen:
        assert np.array_equal(strengths, expected)


# --------------------------------------------------------------------------
# The recorder's groups


def _grouped_recorder(config: MetricsConfig) -> Recorder:
    """Five newcomers in two groups and an empty one, read at two checkpoints.

    Aligned errors (the offset is 0): players 0 and 1 stay at 10; players 2 and
    3 go from 300 to 40 (entering the 50 and 100 bands at 10 games); player 4
    is never rated.
    """
    groups = {
        "g1": [True, True, False, False, False],
        "g2": [False, False, True, True, True],
        "empty": [False] * 5,
    }
    rec = Recorder(["a"], 5, config, groups=groups)
    true = np.array([1500.0, 1600.0, 1700.0, 1800.0, 1900.0])
    ones = np.ones(5, dtype=bool)
    for day, games, d in (
        (7.0, 5, [10.0, -10.0, 300.0, -300.0, np.nan]),
        (14.0, 10, [10.0, -10.0, 40.0, -40.0, np.nan]),
    ):
        rec.checkpoint(
            day,
            {"a": true + np.array(d)},
            true,
            ones,
            np.full(5, games),
            ones,
            np.zeros(5, dtype=bool),
        )
    return rec


def test_groups_table_known_answers() -> None:
    """Per-group Kaplan-Meier N_t, converged shares and final errors by hand."""
    table = _grouped_recorder(MetricsConfig(min_at_risk=1)).result().groups
    table = table[~table["group"].str.startswith("true ")]
    assert list(table["group"]) == ["g1", "g2", "empty"]
    assert list(table["system"]) == ["a"] * 3
    g1, g2, empty = (table.iloc[i] for i in range(3))
    assert g1["n"] == 2 and g2["n"] == 3 and empty["n"] == 0
    for t in ("n25", "n50", "n100"):
        assert g1[f"{t}_median"] == 5 and g1[f"{t}_converged"] == 1.0
        assert math.isnan(empty[f"{t}_median"]) and math.isnan(empty[f"{t}_converged"])
    assert g1["final_error"] == 10.0
    assert g2["n25_median"] == math.inf and g2["n25_converged"] == 0.0
    assert g2["n50_median"] == 10 and g2["n50_q25"] == 10 and g2["n50_q75"] == math.inf
    assert g2["n50_converged"] == pytest.approx(2 / 3)
    assert g2["n100_converged"] == pytest.approx(2 / 3)
    assert g2["final_error"] == 40.0  # the median of 40, 40 and unrated (inf)
    assert math.isnan(empty["final_error"])


def test_groups_quantiles_need_min_at_risk() -> None:
    """With fewer newcomers at risk than min_at_risk, no quantile is read."""
    table = _grouped_recorder(MetricsConfig()).result().groups
    g1 = table.iloc[0]
    assert g1["n50_median"] == math.inf and g1["n50_q25"] == math.inf
    assert g1["n50_converged"] == 1.0  # the share does not depend on it
    with pytest.raises(ValueError, match="min_at_risk"):
        MetricsConfig(min_at_risk=0)


def test_groups_are_validated() -> None:
    """A group mask of the wrong shape is a ValueError naming the group."""
    with pytest.raises(ValueError, match="g1"):
        Recorder(["a"], 3, groups={"g1": [True, False]})


def test_no_groups_no_table() -> None:
    """A recorder without groups gives an empty groups table."""
    assert Recorder(["a"], 3).result().groups.empty


# --------------------------------------------------------------------------
# Groups in a run


def _check_groups(groups: pd.DataFrame, summary: pd.DataFrame) -> None:
    """Invariants of one replicate's groups table."""
    levels = groups["group"].str.startswith("true ")
    _check_levels(groups[levels], summary)
    groups = groups[~levels]
    names = ["probes at 1500", "probes at 2100", "other newcomers"]
    assert list(groups["group"]) == [g for g in names for _ in ("fide", "glicko2")]
    assert list(groups["system"]) == ["fide", "glicko2"] * 3
    probes = groups[groups["group"] != "other newcomers"]
    assert (probes["n"] <= 15).all() and (groups["n"] >= 0).all()
    # The groups split the newcomers the summary measures.
    for system in ("fide", "glicko2"):
        n_groups = groups.loc[groups["system"] == system, "n"].sum()
        row = summary[summary["system"] == system].iloc[0]
        assert n_groups == row["n_newcomers"]
    stems = [threshold_name(t) for t in (25.0, 50.0, 100.0)]
    for _, row in groups[groups["n"] > 0].iterrows():
        shares = [row[f"{s}_converged"] for s in stems]
        assert all(0.0 <= s <= 1.0 for s in shares)
        # Inside 25 points is inside 50 and 100: the shares cannot fall.
        assert shares[0] <= shares[1] <= shares[2]
        for s in stems:
            assert row[f"{s}_q25"] <= row[f"{s}_median"] <= row[f"{s}_q75"]
        assert row["final_error"] >= 0.0


def _check_levels(levels: pd.DataFrame, summary: pd.DataFrame) -> None:
    """The per-level groups: every band of MetricsConfig, splitting the newcomers."""
    edges = MetricsConfig().band_edges
    names = [f"true <{edges[0]:g}"]
    names += [f"true {a:g}-{b:g}" for a, b in itertools.pairwise(edges)]
    names += [f"true {edges[-1]:g}+"]
    systems = list(summary["system"])
    assert list(levels["group"]) == [g for g in names for _ in systems]
    for system in systems:
        n = levels.loc[levels["system"] == system, "n"].sum()
        assert n == summary.loc[summary["system"] == system, "n_newcomers"].iloc[0]


def test_run_groups_by_probe_level(seed: int) -> None:
    """A run with probes has a group per level and one of other newcomers."""
    config = parse_config(PROBES)
    rngs = np.random.default_rng(seed).spawn(2)
    results = [run_replicate(config, rng)["otb"] for rng in rngs]
    for r in results:
        _check_groups(r.groups, r.summary)
        # Probes arrive within the first quarter and play: most are measured.
        probes = r.groups[r.groups["group"].str.startswith("probes")]
        assert (probes["n"] >= 8).all()
    combined = combine(results)
    g = combined.groups
    assert list(g["group"]) == list(results[0].groups["group"])
    assert (g["n_replicates"] == 2).all()
    for col in ("n", "n100_converged"):
        # A figure undefined (NaN) in one replicate is the other one's.
        both = np.vstack([r.groups[col].to_numpy(np.float64) for r in results])
        known = ~np.isnan(both)
        with np.errstate(invalid="ignore"):
            mean = np.where(known, both, 0.0).sum(axis=0) / known.sum(axis=0)
        np.testing.assert_allclose(g[col], mean)
    assert {"n100_converged_lo", "n100_converged_hi", "final_error_lo"} <= set(
        g.columns
    )


def test_run_without_probes_has_no_groups(seed: int) -> None:
    """Without probes there are only the per-level groups, no 'other newcomers'."""
    lines = [
        line for line in PROBES.splitlines() if not line.startswith(("probe", "years"))
    ]
    config = parse_config("years = 0.3\n" + "\n".join(lines))
    result = run_replicate(config, np.random.default_rng(seed))["otb"]
    if result.groups.empty:  # no newcomer played: no band either
        assert (result.summary["n_newcomers"] == 0).all()
    else:
        assert result.groups["group"].str.startswith("true ").all()
        _check_levels(result.groups, result.summary)


def test_report_shows_convergence_by_group(seed: int, tmp_path: Path) -> None:
    """report.md has the 'Convergence by group' section and groups.csv its rows."""
    out = tmp_path / "out"
    config = parse_config(PROBES.replace("years = 1", "years = 0.5"))
    result = run_replicate(config, np.random.default_rng(seed))["otb"]
    write_report(
        out,
        combine([result]),
        config_text="",
        seed=seed,
        versions={},
        title="probes",
        figures=False,
    )
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "Convergence by group" in report
    assert "| probes at 1500 | fide |" in report
    assert "| other newcomers | glicko2 |" in report
    table = pd.read_csv(out / "groups.csv")
    assert list(table["group"]) == list(result.groups["group"])


def test_groups_and_bands_are_paired_to_the_reference(seed: int) -> None:
    """Each group's figure is compared with the reference's in the same group."""
    config = parse_config(PROBES)
    rngs = np.random.default_rng(seed).spawn(2)
    results = [run_replicate(config, rng)["otb"] for rng in rngs]
    reference = results[0].systems[0]
    other = results[0].systems[1]
    paired = combine(results, reference=reference).paired
    groups = paired[paired["table"] == "groups"].set_index(
        ["pairs", "system", "figure"]
    )
    group = str(results[0].groups["group"].iloc[0])
    diffs = []
    for r in results:
        g = r.groups.set_index(["group", "system"])["n100_so_far"]
        diffs.append(g[(group, other)] - g[(group, reference)])
    got = groups.loc[(group, other, "n100_so_far"), "difference"]
    assert got == pytest.approx(float(np.mean(diffs)))
    bands = paired[paired["table"] == "bands"]
    assert not bands.empty
    assert set(bands["figure"]) >= {"rmse", "bias", "rmse_common", "bias_common"}
