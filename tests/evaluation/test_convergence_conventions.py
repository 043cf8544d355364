"""Convergence both ways: Kaplan-Meier and "so far", months, per level, intervals.

Hand-built recorders whose newcomers converge (or not) at chosen games and
days; the expected figures are worked out by hand in each test.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from simulator.evaluation.convergence import DAYS_PER_MONTH, so_far_median
from simulator.evaluation.markdown import _convergence_markdown, _groups_markdown
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.results import ReplicateResult, combine, median_interval
from simulator.evaluation.settings import MetricsConfig

#: Established players rated at their true strength: the offset is 0.
N_POOL = 20
POOL = np.linspace(1500.0, 2000.0, N_POOL)


def _run(
    days: np.ndarray,
    games: np.ndarray,
    errors: np.ndarray,
    true: np.ndarray,
    newcomer: np.ndarray | None = None,
    config: MetricsConfig | None = None,
) -> ReplicateResult:
    """Checkpoints on ``days``; row ``c`` of the arrays is checkpoint ``c``.

    ``games[c, k]``, ``errors[c, k]`` (rating - true) and ``true[c, k]`` of
    newcomer ``k``; ``newcomer[c, k]`` whether they are followed (default all).
    """
    n_new = games.shape[1]
    n = N_POOL + n_new
    rec = Recorder(["x"], n, config or MetricsConfig(min_at_risk=1))
    active = np.zeros(n, dtype=bool)
    active[:N_POOL] = True
    for c, day in enumerate(days):
        t = np.concatenate([POOL, true[c]])
        rating = np.concatenate([POOL, true[c] + errors[c]])
        new = np.zeros(n, dtype=bool)
        new[N_POOL:] = True if newcomer is None else newcomer[c]
        gp = np.concatenate([np.full(N_POOL, 100), games[c]]).astype(np.intp)
        rec.checkpoint(
            float(day), {"x": rating}, t, active, gp, new, np.zeros(n, dtype=bool)
        )
    return rec.result()


def _four_newcomers() -> ReplicateResult:
    """A converges at 10 games, B at 20; C stops at 5 games, D plays 50, never in.

    One checkpoint a game for 50 games; inside: error 10, outside: 200.
    """
    g = np.arange(1, 51)
    games = np.stack([g, g, np.minimum(g, 5), g], axis=1)
    errors = np.stack(
        [
            np.where(g < 10, 200.0, 10.0),
            np.where(g < 20, -200.0, -10.0),
            np.full(50, 200.0),
            np.full(50, 200.0),
        ],
        axis=1,
    )
    true = np.full((50, 4), 1700.0)
    return _run(g.astype(float), games, errors, true)


def test_kaplan_meier_and_so_far_by_hand() -> None:
    """KM: C censored at 5 leaves 3 at risk, S = 2/3 after 10, 1/3 after 20.

    So the KM median is 20 and the lower quartile 10, the upper never reached;
    so far: the median of 10, 20, 5 and 50 is 15.
    """
    s = _four_newcomers().summary.iloc[0]
    for stem in ("n25", "n50", "n100"):
        assert s[f"{stem}_median"] == 20.0
        assert s[f"{stem}_q25"] == 10.0
        assert s[f"{stem}_q75"] == math.inf
        assert s[f"{stem}_so_far"] == 15.0
        assert s[f"{stem}_converged"] == 0.5
    assert (
        so_far_median(
            np.array([10.0, 20.0, np.nan, np.nan]), np.array([10.0, 20.0, 5.0, 50.0])
        )
        == 15.0
    )
    assert math.isnan(so_far_median(np.array([]), np.array([])))


def test_months_to_converge_by_hand() -> None:
    """Weekly checkpoints; months from the first checkpoint with games.

    A first plays before day 14 and is inside from day 105 (91 days); B plays
    from day 7 and is inside from day 189 (182 days); C plays from day 7 and
    leaves the newcomers after day 35, never inside (censored at 28 days).
    Kaplan-Meier: C censored first leaves A and B, so half converged at A's
    91 days.
    """
    days = np.arange(7.0, 365.0, 7.0)
    n_cp = days.size
    games = np.stack(
        [
            np.where(days >= 14, (days - 7) // 7, 0),
            days // 7,
            np.minimum(days // 7, 5),
        ],
        axis=1,
    ).astype(np.intp)
    errors = np.stack(
        [
            np.where(days >= 105, 5.0, 300.0),
            np.where(days >= 189, 5.0, 300.0),
            np.full(n_cp, 300.0),
        ],
        axis=1,
    )
    newcomer = np.ones((n_cp, 3), dtype=bool)
    newcomer[days > 35, 2] = False
    true = np.full((n_cp, 3), 1700.0)
    s = _run(days, games, errors, true, newcomer).summary.iloc[0]
    # A month is 365.2425 / 12 = 30.436875 days.
    assert s["n50_months"] == pytest.approx(91.0 / 30.436875, abs=1e-12)
    assert abs(DAYS_PER_MONTH - 30.436875) < 1e-12
    # The games: A entered at 14 games, B at 27, C censored at 5: the KM
    # median is A's 14, and so is the so-far median of 14, 27 and 5.
    assert s["n50_median"] == 14.0 and s["n50_so_far"] == 14.0
    # Inside 5 < t at the first checkpoint: converged in 0 months.
    first = _run(days[:3], games[:3, 1:2], np.full((3, 1), 5.0), true[:3, :1])
    assert first.summary.iloc[0]["n50_months"] == 0.0


def test_level_groups_hold_the_newcomers_of_each_band() -> None:
    """Each band's group holds the newcomers whose true strength first seen is in it.

    Newcomer 2 is at 1599 when first seen and moves to 1650 later: it stays in
    1400-1600. Newcomer 6 never plays: in no group. Each newcomer converges at
    its own games count (10 * (k + 1)), so a group's so-far median shows which
    newcomers it holds.
    """
    first_true = np.array([1300.0, 1400.0, 1599.0, 1600.0, 2500.0, 2450.0, 1700.0])
    n_cp = 80
    g = np.arange(1, n_cp + 1)
    games = np.repeat(g[:, None], 7, axis=1)
    games[:, 6] = 0
    entered = 10 * (np.arange(7) + 1)
    errors = np.where(g[:, None] < entered[None, :], 200.0, 5.0)
    true = np.repeat(first_true[None, :], n_cp, axis=0)
    true[1:, 2] = 1650.0
    groups = _run(g.astype(float), games, errors, true).groups
    got = {r["group"]: (r["n"], r["n50_so_far"]) for _, r in groups.iterrows()}
    nan = math.nan
    want = {
        "true <1400": (1.0, 10.0),
        "true 1400-1600": (2.0, 25.0),  # 20 and 30
        "true 1600-1800": (1.0, 40.0),
        "true 1800-2000": (0.0, nan),
        "true 2000-2200": (0.0, nan),
        "true 2200-2400": (0.0, nan),
        "true 2400+": (2.0, 55.0),  # 50 and 60
    }
    assert list(got) == list(want)
    for name, (n, so_far) in want.items():
        assert got[name][0] == n, name
        if math.isnan(so_far):
            assert math.isnan(got[name][1]), name
        else:
            assert got[name][1] == so_far, name


def _two_replicates(shift: float) -> list[ReplicateResult]:
    """The four newcomers, and the same with B converging ``shift`` games later."""
    first = _four_newcomers()
    g = np.arange(1, 51)
    games = np.stack([g, g, np.minimum(g, 5), g], axis=1)
    errors = np.stack(
        [
            np.where(g < 10, 200.0, 10.0),
            np.where(g < 20 + shift, 200.0, 10.0),
            np.full(50, 200.0),
            np.full(50, 200.0),
        ],
        axis=1,
    )
    second = _run(g.astype(float), games, errors, np.full((50, 4), 1700.0))
    return [first, second]


def test_n50_interval_with_two_replicates() -> None:
    """Two replicates with N50 (KM) 20 and 28: mean 24 with the Student-t interval."""
    s = combine(_two_replicates(8.0)).summary.iloc[0]
    half = stats.t.ppf(0.975, 1) * np.std([20.0, 28.0], ddof=1) / math.sqrt(2)
    assert s["n50_median"] == 24.0
    assert s["n50_median_lo"] == pytest.approx(24.0 - half)
    assert s["n50_median_hi"] == pytest.approx(24.0 + half)
    assert s["n50_median_inf"] == 0
    # So far: 15 and median(10, 28, 5, 50) = 19.
    assert s["n50_so_far"] == 17.0
    assert s["n50_so_far_lo"] < 17.0 < s["n50_so_far_hi"]
    assert s["n50_months_lo"] < s["n50_months"] < s["n50_months_hi"]
    table = _convergence_markdown(combine(_two_replicates(8.0)))
    assert "| N50 (KM) |" in table and "| N50 (so far) |" in table
    assert "24.0 ± " in table and "17.0 ± " in table


def test_not_reached_in_one_replicate_gives_the_median() -> None:
    """An inf in one of three replicates: the median across them, not inf."""
    # B never converges in the third: KM median never reached (S stays 2/3).
    g = np.arange(1, 51)
    games = np.stack([g, g, np.minimum(g, 5), g], axis=1)
    errors = np.stack(
        [np.where(g < 10, 200.0, 10.0), *[np.full(50, 200.0)] * 3], axis=1
    )
    reps = [
        *_two_replicates(8.0),
        _run(g.astype(float), games, errors, np.full((50, 4), 1700.0)),
    ]
    assert reps[2].summary.iloc[0]["n50_median"] == math.inf
    summary = combine(reps)
    s = summary.summary.iloc[0]
    assert s["n50_median"] == 28.0  # the median of 20, 28 and inf
    assert s["n50_median_inf"] == 1
    assert (s["n50_median_lo"], s["n50_median_hi"]) == (20.0, math.inf)
    assert "28.0 [20.0, inf] (median; 1 of 3 not reached)" in _convergence_markdown(
        summary
    )
    # The groups table gets the same treatment.
    assert "true 1600-1800" in _groups_markdown(summary)
    levels = summary.groups.set_index("group").loc["true 1600-1800"]
    assert levels["n50_median"] == 28.0 and levels["n50_median_inf"] == 1


@pytest.mark.parametrize("k", [2, 4, 6, 9, 20, 51])
def test_median_interval_is_the_binomial_order_statistics(k: int) -> None:
    """[x_(j), x_(k+1-j)] with the largest j of coverage 1 - 2 P(B < j) >= 95 %."""
    x = np.arange(float(k))[::-1]
    lo, hi = median_interval(x, 0.95)
    j = int(lo) + 1
    assert hi == k - j
    cover = 1.0 - 2.0 * stats.binom.cdf(j - 1, k, 0.5)
    if j > 1:
        assert cover >= 0.95
    assert j == k // 2 or 1.0 - 2.0 * stats.binom.cdf(j, k, 0.5) < 0.95
    assert pd.isna(median_interval(np.array([1.0, np.nan]), 0.95)[0])
