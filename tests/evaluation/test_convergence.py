"""Tests of evaluation.convergence: Kaplan-Meier quantiles, newcomer errors.

Convergence runs and the error-vs-games curve, read through the recorder, are
tested in test_recorder.py.
"""

from __future__ import annotations

import numpy as np

from simulator.evaluation.convergence import kaplan_meier_quantiles, newcomer_errors


def test_kaplan_meier_early_censoring_is_not_failure() -> None:
    """A newcomer censored after few games does not count as never converging."""
    time = np.array([10.0, 3.0, 3.0, 30.0])
    observed = np.array([True, False, False, True])
    # The two censored at 3 games leave the observed 10 and 30 to decide: the
    # median is 10; counting the censored as never converging would give inf.
    assert kaplan_meier_quantiles(time, observed, [0.5]) == [10.0]
    # With at least 3 at risk required, the median at 10 (2 at risk) is not read.
    assert kaplan_meier_quantiles(time, observed, [0.5], min_at_risk=3) == [np.inf]
    time2 = np.array([10.0, 3.0, 3.0, 30.0, 12.0])
    observed2 = np.array([True, False, False, True, True])
    assert kaplan_meier_quantiles(time2, observed2, [0.5]) == [12.0]


def test_newcomer_errors_are_the_formula(seed: int) -> None:
    """|rating - true - offset| of newcomers; infinite if unrated or no offset."""
    rng = np.random.default_rng(seed)
    n = 500
    true = rng.normal(1800.0, 300.0, n)
    rating = np.where(rng.random(n) < 0.2, np.nan, true + rng.normal(0.0, 80.0, n))
    newcomers = np.flatnonzero(rng.random(n) < 0.5)
    out = np.empty(newcomers.size)
    newcomer_errors(rating, true, 3.5, newcomers, out)
    r = rating[newcomers]
    want = np.where(np.isnan(r), np.inf, np.abs(r - true[newcomers] - 3.5))
    assert out.tobytes() == want.tobytes()
    newcomer_errors(rating, true, np.nan, newcomers, out)
    assert np.all(out == np.inf)
