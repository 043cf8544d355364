"""Tests of evaluation.convergence: Kaplan-Meier quantiles, newcomer errors.

Convergence runs and the error-vs-games curve, read through the recorder, are
tested in test_recorder.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator.evaluation.convergence import (
    DAYS_PER_MONTH,
    _km_by_sorting,
    kaplan_meier_quantiles,
    months_to_converge,
    newcomer_errors,
)


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


def test_kaplan_meier_by_hand_sorted_and_counted() -> None:
    """Events before censorings at a tie, and the at-risk floor, either way.

    Times 0.5, 1.5, 1.5 (censored), 2.5, 3.5 (censored): five at risk, the
    survival 0.8, 0.6 (the event at 1.5 before the censoring), 0.6, 0.3.
    The 0.45 quantile (survival 0.55 or below) is 2.5; were the censoring
    first, the survival at 1.5 would be 0.8 x 2/3 and the quantile 1.5.
    The fractions are sorted; twice them, whole numbers, are counted.
    """
    time = np.array([0.5, 1.5, 1.5, 2.5, 3.5])
    observed = np.array([True, True, False, True, False])
    qs = [0.25, 0.45, 0.5, 0.75]
    assert kaplan_meier_quantiles(time, observed, qs) == [1.5, 2.5, 2.5, np.inf]
    assert kaplan_meier_quantiles(2 * time, observed, qs) == [3.0, 5.0, 5.0, np.inf]
    # 2.5 has two at risk: read with a floor of two, not of three.
    assert kaplan_meier_quantiles(time, observed, qs, min_at_risk=2)[1] == 2.5
    floor3 = [1.5, np.inf, np.inf, np.inf]
    assert kaplan_meier_quantiles(time, observed, qs, min_at_risk=3) == floor3
    assert kaplan_meier_quantiles(2 * time, observed, qs, min_at_risk=3) == [
        3.0,
        np.inf,
        np.inf,
        np.inf,
    ]


def _same(a: list[float], b: list[float]) -> bool:
    """Equal lists of floats, bit for bit (NaN matching NaN, -0.0 not 0.0)."""
    return np.array(a).tobytes() == np.array(b).tobytes()


def test_kaplan_meier_counted_is_the_sorted_estimator(seed: int) -> None:
    """Whole times (counted) give the sorting estimator's bits; others are sorted.

    Many ties, few or many censored, every quantile and at-risk floor; whole
    numbers far apart and beyond 2^53 (sorted, or counted where their span is
    short), -0.0 beside 0.0, NaN and inf.
    """
    rng = np.random.default_rng(seed)
    qs = [0.25, 0.5, 0.75, 0.0, 1.0, 0.9, 0.1]
    for case in range(40):
        n = int(rng.integers(1, 400))
        kind = case % 5
        if kind == 0:  # games played: small whole numbers, ties
            time = rng.integers(0, int(rng.integers(1, 60)), n).astype(float)
        elif kind == 1:  # whole numbers far beyond 2^53, close together
            time = 2.0**60 + 2.0**8 * rng.integers(-5, 5, n)
        elif kind == 2:  # negative whole numbers and both zeros
            time = rng.integers(-3, 3, n).astype(float)
            time[rng.random(n) < 0.3] = -0.0
        elif kind == 3:  # fractions, and whole numbers too far apart to count
            time = np.round(rng.normal(0.0, 50.0, n), 1)
            time[rng.random(n) < 0.2] = 1e6 * rng.integers(0, 3)
        else:  # NaN and inf
            time = rng.integers(0, 10, n).astype(float)
            time[rng.random(n) < 0.1] = np.nan
            time[rng.random(n) < 0.1] = np.inf
        observed = rng.random(n) < rng.choice([0.05, 0.5, 0.95, 1.0])
        for min_at_risk in (1, 2, int(rng.integers(1, n + 2))):
            got = kaplan_meier_quantiles(time, observed, qs, min_at_risk=min_at_risk)
            want = _km_by_sorting(time, observed, qs, min_at_risk)
            assert _same(got, want), (case, kind, min_at_risk, got, want)


def test_kaplan_meier_of_no_data_is_nan() -> None:
    """No times: every quantile NaN (either way of ordering them)."""
    empty = np.empty(0)
    assert _same(
        kaplan_meier_quantiles(empty, np.empty(0, dtype=bool), [0.25, 0.5]),
        [np.nan, np.nan],
    )


def test_months_to_converge_is_the_sorted_estimator_in_months(seed: int) -> None:
    """Counted in whole days, then months: the bits of the estimator over months."""
    rng = np.random.default_rng(seed)
    for case in range(30):
        n = int(rng.integers(1, 300))
        first_day = (7 * rng.integers(0, 500, n)).astype(np.float64)
        entry = np.where(rng.random(n) < 0.6, rng.integers(1, 80, n), np.nan)
        step = 7.0 if case % 3 else 0.5  # weekly checkpoints, or half days
        entry_day = (first_day + step * rng.integers(0, 300, n)).astype(np.float32)
        last_day = first_day + step * rng.integers(0, 300, n).astype(np.float64)
        if case % 5 == 4:  # times beyond the counted range
            last_day += 2.0**45 * rng.integers(0, 2, n)
        min_at_risk = int(rng.integers(1, 20))
        observed = ~np.isnan(entry)
        days = np.where(observed, entry_day, last_day) - first_day
        (want,) = _km_by_sorting(days / DAYS_PER_MONTH, observed, [0.5], min_at_risk)
        got = months_to_converge(entry, entry_day, first_day, last_day, min_at_risk)
        assert _same([got], [want]), (case, got, want)


def test_months_to_converge_of_days_that_meet_in_months() -> None:
    """Whole days too large to stay apart in months are not counted in days.

    Two neighbouring float64 day counts near 1.7e16 fall on one number of
    months: in months the converged newcomer comes first (events before
    censorings at a tie), with two at risk; in days the censored one would.
    """
    converged = np.float32(1.7429582877556736e16)
    censored = np.nextafter(np.float64(converged), 0.0)
    assert censored / DAYS_PER_MONTH == np.float64(converged) / DAYS_PER_MONTH
    got = months_to_converge(
        np.array([1.0, np.nan]),
        np.array([converged, np.nan], dtype=np.float32),
        np.zeros(2),
        np.array([float(converged), censored]),
        2,
    )
    assert got == np.float64(converged) / DAYS_PER_MONTH


def test_kaplan_meier_of_other_types_is_the_sorting_estimator() -> None:
    """Inputs the counting would misread go to the sort, whatever their values.

    Narrow floats whose ``time - min`` rounds two times together (float16
    2048 and 2050), narrow integers whose difference overflows, integer
    ``observed`` (which would index), a long-double quantile (whose level
    would round), at-risk floors of any size or kind, and months from
    float32 days.
    """
    qs = [0.0, 0.5, 1.0]
    time16 = np.array([-3.0] + [100.0] * 297 + [2048.0, 2050.0], dtype=np.float16)
    censored = np.zeros(time16.size, dtype=bool)
    censored[-1] = True
    cases: list[tuple[Any, Any, Any, Any]] = [
        (time16, censored, qs, 1),
        (np.array([-100, 100], dtype=np.int8), np.array([True, True]), qs, 1),
        (np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1]), [0.5], 1),
        (
            np.array([1.0, 2.0]),
            np.array([True, True]),
            [np.longdouble(0.5) + np.longdouble(1e-12) + np.longdouble(2.0) ** -60],
            1,
        ),
    ]
    for floor in (2**70, -(2**70), 0, -5, 3, 10**6, 2.5, np.nan, True, np.int32(2)):
        cases.append(
            (np.array([1.0, 2.0, 2.0, 4.0]), np.array([1, 1, 0, 1], bool), qs, floor)
        )
    for time, observed, q, floor in cases:
        got = kaplan_meier_quantiles(time, observed, q, min_at_risk=floor)
        want = _km_by_sorting(time, observed, q, floor)
        assert _same(got, want), (time.dtype, observed.dtype, q, floor, got, want)
    # The counted walk itself takes any integer floor: below 1 is 1, above n
    # is never reached.
    time, observed = np.array([1.0, 2.0, 2.0, 4.0]), np.array([1, 1, 0, 1], bool)
    for floor in (-(2**70), 0, 1, 4, 5, 2**70):
        assert _same(
            kaplan_meier_quantiles(time, observed, qs, min_at_risk=floor),
            _km_by_sorting(time, observed, qs, floor),
        )
    one: Any = np.ones(1, dtype=np.float32)
    day: Any = np.zeros(1, dtype=np.float32)
    months = months_to_converge(np.array([1.0]), one, day, day, 1)
    (sorted_months,) = _km_by_sorting(
        (one - day) / DAYS_PER_MONTH, np.array([True]), [0.5], 1
    )
    assert _same([months], [sorted_months])
