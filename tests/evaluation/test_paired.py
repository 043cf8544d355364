"""Tests of evaluation.paired and the paired tables of the report.

Replicates are built from tables: each replicate has a component every system
shares (the same games) and a small component of its own.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats
from synthetic_summary import from_tables, replicate, write

from simulator.config import ArenaConfig, RunConfig, SystemSpec
from simulator.evaluation.paired import (
    PAIRED_COLUMNS,
    bootstrap_interval,
    paired_differences,
    t_interval,
)
from simulator.evaluation.paired_tables import flatness
from simulator.evaluation.results import ReplicateResult, combine
from simulator.tasks.run import _combine

SYSTEMS = ("fide", "glicko2", "elo")
PAIRS = ("all", "both rated", "one new", "both new")


def _replicates(
    seed: int, k: int = 10, shared_sd: float = 20.0, noise_sd: float = 0.5
) -> list[ReplicateResult]:
    """RMSE = 80 + shared + (0, 2, 4) + own noise: a gap of 2 per system."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(k):
        shared = rng.normal(0.0, shared_sd)
        rmse = 80.0 + shared + np.array([0.0, 2.0, 4.0]) + rng.normal(0, noise_sd, 3)
        summary = pd.DataFrame({"system": SYSTEMS, "rmse": rmse, "n_newcomers": 9.0})
        out.append(from_tables(summary))
    return out


def _row(
    s_paired: pd.DataFrame, system: str, figure: str, pairs: str = ""
) -> pd.Series:
    hit = s_paired[
        (s_paired["system"] == system)
        & (s_paired["figure"] == figure)
        & (s_paired["pairs"].fillna("") == pairs)
    ]
    assert len(hit) == 1, (system, figure, pairs)
    return hit.iloc[0]


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4])
def test_paired_interval_is_narrower_than_the_unpaired_one(seed: int) -> None:
    """Acceptance: with a large shared component, pairing narrows the interval.

    The unpaired intervals of the two systems overlap (a gap of 2 under a
    shared SD of 20); the paired one is far narrower and excludes 0.
    """
    s = combine(_replicates(seed))
    paired = _row(s.paired, "glicko2", "rmse")
    own = s.summary.set_index("system")
    unpaired_widths = [
        own.loc[x, "rmse_hi"] - own.loc[x, "rmse_lo"] for x in ("fide", "glicko2")
    ]
    width = paired["hi"] - paired["lo"]
    assert width < min(unpaired_widths) / 5.0
    assert paired["lo"] > 0.0
    assert own.loc["glicko2", "rmse_lo"] < own.loc["fide", "rmse_hi"]
    assert paired["method"] == "t" and paired["n_replicates"] == 10
    # Counts are not compared.
    assert not (s.paired["figure"] == "n_newcomers").any()


def test_difference_is_the_mean_of_per_replicate_differences() -> None:
    """Each difference is the mean of x_i(system) - x_i(reference), per pair type."""
    reps = []
    rng = np.random.default_rng(5)
    for _ in range(4):
        summary = pd.DataFrame(
            {
                "system": SYSTEMS,
                "rmse": rng.normal(80, 5, 3),
                "mae": rng.normal(60, 5, 3),
            }
        )
        names = [*SYSTEMS, "oracle", "coin flip"]
        prediction = pd.DataFrame(
            [
                {
                    "system": n,
                    "pairs": p,
                    "n_games": 100,
                    "log_loss": rng.uniform(0.5, 0.7),
                    "brier": rng.uniform(0.15, 0.25),
                    "log_loss_excess": 0.0,
                    "brier_excess": 0.0,
                }
                for p in PAIRS
                for n in names
            ]
        )
        reps.append(from_tables(summary, prediction))
    s = combine(reps)
    assert list(s.prediction.columns[:2]) == ["pairs", "system"]
    assert len(s.prediction) == len(PAIRS) * 5
    for figure in ("rmse", "mae"):
        for system in SYSTEMS[1:]:
            d = [
                r.summary.set_index("system").loc[system, figure]
                - r.summary.set_index("system").loc["fide", figure]
                for r in reps
            ]
            assert _row(s.paired, system, figure)["difference"] == pytest.approx(
                np.mean(d)
            )
    for p in PAIRS:
        for system in ("glicko2", "oracle", "coin flip"):
            d = []
            for r in reps:
                t = r.prediction[r.prediction["pairs"] == p].set_index("system")
                d.append(t.loc[system, "log_loss"] - t.loc["fide", "log_loss"])
            row = _row(s.paired, system, "log_loss", p)
            assert row["difference"] == pytest.approx(np.mean(d))
            assert row["table"] == "prediction" and row["reference"] == "fide"
    # The reference is never compared with itself.
    assert not (s.paired["system"] == "fide").any()


def test_t_interval_matches_scipy() -> None:
    """The paired t interval is scipy's t interval of the differences' mean."""
    d = np.array([1.2, -0.4, 2.5, 0.9, 1.7, 0.3])
    mean, lo, hi = t_interval(d, 0.9)
    want = stats.t.interval(0.9, d.size - 1, loc=d.mean(), scale=stats.sem(d))
    assert mean == pytest.approx(d.mean())
    assert_allclose([lo, hi], want)
    assert all(math.isnan(x) for x in t_interval(d[:1])[1:])


def _lognormal_quantiles(n: int = 40) -> np.ndarray:
    """A deterministic right-skewed sample: lognormal quantiles (mean ~ e^0.5)."""
    return np.exp(stats.norm.ppf((np.arange(n) + 0.5) / n))


def test_bootstrap_is_reproducible_and_covers_a_skewed_mean() -> None:
    """Skewed differences take a reproducible bootstrap covering the mean.

    The interval is asymmetric, covers the population mean, and is the same on
    every call.
    """
    d = _lognormal_quantiles()
    frames = [pd.DataFrame({"system": ["a", "b"], "rmse": [0.0, x]}) for x in d]
    first = paired_differences(frames, "a", table="summary")
    again = paired_differences(frames, "a", table="summary")
    pd.testing.assert_frame_equal(first, again)
    row = first.iloc[0]
    assert row["method"] == "bootstrap"
    true_mean = math.exp(0.5)
    assert row["lo"] < true_mean < row["hi"]
    assert row["hi"] - row["difference"] > row["difference"] - row["lo"]
    # Narrower than the whole range, wider than nothing.
    assert d.min() < row["lo"] < row["difference"] < row["hi"] < d.max()
    assert bootstrap_interval(d, name="x") == bootstrap_interval(d, name="x")
    # A symmetric sample keeps the t interval.
    sym = [pd.DataFrame({"system": ["a", "b"], "rmse": [0.0, x]}) for x in np.log(d)]
    assert paired_differences(sym, "a", table="summary").iloc[0]["method"] == "t"


def test_nearly_equal_differences_keep_the_t_interval() -> None:
    """Differences equal up to rounding take the t interval, without a warning.

    Two systems whose ratings coincide (FIDE 2025 and FIDE 2024 in the
    default world) differ by rounding only; their skewness is meaningless.
    """
    d = 0.25 + np.array([0.0, 1.0, -1.0, 2.0, 0.0, 3.0, -2.0, 1.0]) * 1e-16
    frames = [pd.DataFrame({"system": ["a", "b"], "rmse": [0.0, x]}) for x in d]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        row = paired_differences(frames, "a", table="summary").iloc[0]
    assert row["method"] == "t"


def test_medians_with_inf_use_the_bootstrap() -> None:
    """A median that is inf in one replicate: Δ inf, upper bound inf.

    A replicate where both are inf is left out.
    """
    values = [(10.0, 12.0), (11.0, math.inf), (math.inf, math.inf), (9.0, 10.0)]
    frames = [
        pd.DataFrame({"system": ["a", "b"], "n50_median": list(v)}) for v in values
    ]
    row = paired_differences(frames, "a", table="summary").iloc[0]
    assert row["method"] == "bootstrap" and row["n_replicates"] == 3
    assert row["difference"] == math.inf and row["hi"] == math.inf
    assert row["lo"] == pytest.approx(1.0)


def test_reference_is_validated_and_chosen() -> None:
    """Combine compares with the first system unless told; a bad name is an error."""
    reps = _replicates(7, k=3)
    with pytest.raises(ValueError, match=r"'reference'.*'glicko'"):
        combine(reps, reference="glicko")
    s = combine(reps, reference="elo")
    assert s.reference == "elo"
    assert set(s.paired["reference"]) == {"elo"}
    assert set(s.paired["system"]) == {"fide", "glicko2"}
    flipped = combine(reps).paired
    assert _row(s.paired, "fide", "rmse")["difference"] == pytest.approx(
        -_row(flipped, "elo", "rmse")["difference"]
    )


def test_run_combines_with_each_arenas_reference() -> None:
    """tasks.run hands each arena's `reference` key to combine."""
    arena = ArenaConfig(systems=tuple(SystemSpec(x) for x in SYSTEMS), reference="elo")
    config = RunConfig(arena=(arena,))
    result = _combine(config, 1, [{"otb": r} for r in _replicates(3, k=3)])
    assert result.summary["otb"].reference == "elo"


def _rich_replicate(rng: np.random.Generator) -> ReplicateResult:
    """A replicate with the common-support, slope and pair-type columns."""
    shared = rng.normal(0.0, 5.0)
    rmse = 80.0 + shared + np.array([0.0, 3.0, 6.0]) + rng.normal(0, 0.3, 3)
    summary = pd.DataFrame(
        {
            "system": SYSTEMS,
            "n50_median": [30.0, 25.0, 40.0],
            "n50_q25": 20.0,
            "n50_q75": 50.0,
            "n50_converged": 0.32,
            "n_newcomers": 50.0,
            "rmse": rmse,
            "mae": rmse * 0.8,
            "spearman": 0.9 + rng.normal(0, 0.01, 3),
            "spread": 1.0 + rng.normal(0, 0.01, 3),
            "offset": rng.normal(0, 3, 3),
            "drift_per_year": rng.normal(0, 1, 3),
            "log_loss": 0.6 + rng.normal(0, 0.01, 3),
            "brier": 0.2,
            "log_loss_excess": 0.01,
            "rmse_common": rmse - 10.0,
            "mae_common": rmse * 0.7,
            "spearman_common": 0.92,
            "spread_common": 1.01,
            "offset_common": 1.0,
            "n_common": 500.0,
            # fide's RMSE rises by 3 a year, the others' are flat.
            "rmse_slope": np.array([3.0, 0.0, 0.0]) + rng.normal(0, 0.2, 3),
            "spearman_slope": rng.normal(0, 0.001, 3),
        }
    )
    prediction = pd.DataFrame(
        [
            {
                "pairs": p,
                "system": n,
                "n_games": 100,
                "log_loss": 0.6 + rng.normal(0, 0.01),
                "brier": 0.2,
                "log_loss_excess": 0.01,
                "brier_excess": 0.0,
            }
            for p in PAIRS
            for n in [*SYSTEMS, "oracle", "coin flip"]
        ]
    )
    return from_tables(summary, prediction)


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rng = np.random.default_rng(11)
    s = combine([_rich_replicate(rng) for _ in range(5)])
    return write(tmp_path_factory.mktemp("paired") / "results", s, figures=False)


def test_report_shows_own_and_common_with_deltas(rich: Path) -> None:
    """The accuracy table has own and common rows, each with Δ to the reference."""
    text = (rich / "report.md").read_text()
    assert "Δ RMSE vs fide [95% CI]" in text
    assert "paired over replicates that rated the same games" in text
    assert "**fide**" in text
    assert "| fide | own |" in text and "| fide | common | 500 |" in text
    line = next(x for x in text.splitlines() if x.startswith("| glicko2 | common |"))
    assert "reference" not in line and "[+" in line  # +3 [lo, hi]


def test_report_shows_pair_types_and_flatness(rich: Path) -> None:
    """Log loss by pair type with Δ; fide's rising RMSE is flagged, others flat."""
    text = (rich / "report.md").read_text()
    assert "log loss, one new" in text and "Δ both new vs fide" in text
    assert "| one new | oracle (true strengths) |" in text
    flat = text[text.index("flatness") :]
    fide = next(x for x in flat.splitlines() if x.startswith("| fide |"))
    rate = float(re.search(r"rising ([0-9.]+)/yr", fide).group(1))  # type: ignore[union-attr]
    assert rate == pytest.approx(3.0, abs=0.5)
    assert "**Not flat**: RMSE of fide (rising" in text
    glicko = next(x for x in flat.splitlines() if x.startswith("| glicko2 |"))
    assert "rising" not in glicko.split("|")[2]


def test_report_glossary_and_paired_csv(rich: Path) -> None:
    """The report defines its columns; paired.csv holds the long paired table."""
    text = (rich / "report.md").read_text()
    columns = text[text.index("## Columns") :]
    for name in ("**spread**", "**Brier**", "(32%)", "**pairs**", "**Δ"):
        assert name in columns, name
    assert "`paired.csv`" in text
    table = pd.read_csv(rich / "paired.csv")
    assert list(table.columns) == list(PAIRED_COLUMNS)
    kinds = set(table.loc[table["table"] == "prediction", "pairs"])
    assert kinds == set(PAIRS)
    assert {"rmse_common", "rmse_slope"} <= set(table["figure"])


def test_plain_report_has_deltas_without_optional_columns(tmp_path: Path) -> None:
    """Without common/slope/pair columns the report still has Δ and no empty parts."""
    plain = []
    for seed in (1, 2, 3):
        r = replicate(seed)
        optional = [c for c in r.summary if c.endswith(("_common", "_slope"))]
        plain.append(
            dataclasses.replace(
                r,
                summary=r.summary.drop(columns=optional),
                prediction=r.prediction[r.prediction["pairs"] == "all"].drop(
                    columns="pairs"
                ),
            )
        )
    out = write(tmp_path / "r", combine(plain), figures=False)
    text = (out / "report.md").read_text()
    assert "Δ log loss vs fide [95% CI]" in text and "Δ drift vs fide" in text
    assert "| glicko2 | 2400 |" in text
    assert "flatness" not in text.split("## Columns")[0]
    assert "| common |" not in text
    assert (out / "paired.csv").exists()


@pytest.mark.parametrize(
    ("value", "lo", "hi", "word", "flat"),
    [
        (2.0, 1.0, 3.0, "rising 2.00/yr", False),
        (-2.0, -3.0, -1.0, "falling 2.00/yr", False),
        (0.5, -1.0, 2.0, "flat (+0.50/yr", True),
        (0.5, math.nan, math.nan, "flat (+0.50/yr)", True),
    ],
)
def test_flatness_verdict(
    value: float, lo: float, hi: float, word: str, flat: bool
) -> None:
    """Flat when the interval contains 0, else rising or falling by the slope."""
    row = pd.Series({"x_slope": value, "x_slope_lo": lo, "x_slope_hi": hi})
    text, is_flat = flatness(row, "x_slope", 2)
    assert text.startswith(word) and is_flat is flat


def test_every_two_systems_are_paired(seed: int) -> None:
    """paired_all: each unordered pair once, the earlier system the reference.

    RMSE = 80 + shared + (0, 2, 4): elo minus glicko2 is about 2 in every
    replicate, so its paired interval lies near 2 while the two systems'
    own intervals (SD 20 of the shared part) overlap widely.
    """
    s = combine(_replicates(seed), reference="fide")
    summary = s.paired_all[s.paired_all["table"] == "summary"]
    rmse = summary[summary["figure"] == "rmse"]
    pairs = set(zip(rmse["system"], rmse["reference"], strict=True))
    assert pairs == {("glicko2", "fide"), ("elo", "fide"), ("elo", "glicko2")}
    row = rmse[(rmse["system"] == "elo") & (rmse["reference"] == "glicko2")].iloc[0]
    assert 1.0 < row["lo"] < row["difference"] < row["hi"] < 3.0
    # Against the first system it is exactly the reference table.
    first = rmse[rmse["reference"] == "fide"].set_index("system")
    paired = s.paired[
        (s.paired["table"] == "summary") & (s.paired["figure"] == "rmse")
    ].set_index("system")
    for system in ("glicko2", "elo"):
        for column in ("difference", "lo", "hi"):
            assert first.loc[system, column] == paired.loc[system, column]
