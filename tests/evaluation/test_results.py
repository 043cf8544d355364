"""Tests of evaluation.results: drift slopes and replicates combined.

Replicates are made by a recorder over a pool of known true strengths.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from simulator.evaluation.accuracy import drift_per_year
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.results import ReplicateResult, combine

N = 200


def _drift_run(slope: float, offset: float = 0.0, n_cp: int = 37) -> ReplicateResult:
    """A cohort whose ratings drift by ``slope`` points a year over three years."""
    true = np.linspace(1000.0, 2600.0, N)
    cohort = np.zeros(N, bool)
    cohort[::3] = True
    rec = Recorder(["x"], N)
    everyone, nobody = np.ones(N, bool), np.zeros(N, bool)
    for day in np.linspace(0.0, 3 * 365.2425, n_cp):
        rating = true + offset
        rating[cohort] += slope * day / 365.2425
        rec.checkpoint(
            float(day),
            {"x": rating},
            true,
            everyone,
            np.zeros(N, np.intp),
            nobody,
            cohort,
        )
    return rec.result()


def test_drift_slope_of_linear_drift() -> None:
    """A cohort drifting 12 points a year has drift_per_year 12."""
    res = _drift_run(12.0)
    assert res.summary.iloc[0]["drift_per_year"] == pytest.approx(12.0)
    # NaN checkpoints (no rated cohort member) are left out of the fit.
    assert drift_per_year(
        [0.0, 365.2425, 730.485], [0.0, np.nan, 4.0]
    ) == pytest.approx(2.0)
    assert math.isnan(drift_per_year([5.0, 5.0], [1.0, 2.0]))


def test_combine_mean_and_t_interval() -> None:
    """Offsets 90, 100, 110 combine to 100 +- t(0.975, 2) * 10 / sqrt(3)."""
    results = [_drift_run(0.0, offset=o, n_cp=5) for o in (90.0, 100.0, 110.0)]
    s = combine(results)
    row = s.summary.iloc[0]
    half = stats.t.ppf(0.975, 2) * 10.0 / math.sqrt(3.0)
    assert row["offset"] == pytest.approx(100.0)
    assert row["offset_lo"] == pytest.approx(100.0 - half)
    assert row["offset_hi"] == pytest.approx(100.0 + half)
    assert row["n_replicates"] == 3
    assert s.n_replicates == 3
    # The time series is averaged day by day, with the same interval.
    ts = s.timeseries
    assert len(ts) == 5
    assert_allclose(ts["offset"], 100.0)
    assert_allclose(ts["offset_hi"] - ts["offset"], half)


def test_combine_confidence_level_widens_interval() -> None:
    """A 99 % interval is wider than a 90 % one."""
    results = [_drift_run(0.0, offset=o, n_cp=3) for o in (1.0, 4.0, 9.0, 2.0)]
    wide = combine(results, confidence=0.99).summary.iloc[0]
    narrow = combine(results, confidence=0.90).summary.iloc[0]
    assert (
        wide["offset_hi"] - wide["offset_lo"]
        > narrow["offset_hi"] - narrow["offset_lo"]
    )


def test_combine_one_replicate_has_nan_interval() -> None:
    """With one replicate every interval is NaN and the mean is the value."""
    s = combine([_drift_run(3.0, offset=7.0)])
    row = combine([_drift_run(0.0, offset=7.0)]).summary.iloc[0]
    assert row["offset"] == pytest.approx(7.0)
    assert math.isnan(row["offset_lo"]) and math.isnan(row["offset_hi"])
    row = s.summary.iloc[0]
    assert math.isnan(row["offset_lo"]) and math.isnan(row["offset_hi"])
    assert row["drift_per_year"] == pytest.approx(3.0)


def test_combine_drift_slopes_across_replicates() -> None:
    """Drift slopes 4, 5, 6 points a year combine to 5 +- t(0.975, 2) / sqrt(3)."""
    s = combine([_drift_run(v) for v in (4.0, 5.0, 6.0)])
    row = s.summary.iloc[0]
    half = stats.t.ppf(0.975, 2) / math.sqrt(3.0)
    assert row["drift_per_year"] == pytest.approx(5.0)
    assert row["drift_per_year_hi"] - row["drift_per_year"] == pytest.approx(half)


def test_combine_rejects_mismatched_replicates() -> None:
    """Replicates of different systems cannot be combined; nor can none."""
    a = Recorder(["a"], 2).result()
    b = Recorder(["b"], 2).result()
    with pytest.raises(ValueError, match="share systems"):
        combine([a, b])
    with pytest.raises(ValueError, match="at least one"):
        combine([])
    with pytest.raises(ValueError, match="'confidence' parameter"):
        combine([a], confidence=1.0)


def test_repr_names_systems_and_shapes_not_tables() -> None:
    """Repr of a result is one line: systems, replicates and table shapes."""
    from synthetic_summary import three_replicates

    summary = three_replicates()
    text = repr(summary)
    assert "\n" not in text and len(text) < 400
    assert text.startswith("Summary(fide, glicko2, lichess; 3 replicates")
    assert f"summary {summary.summary.shape[0]}x{summary.summary.shape[1]}" in text
