"""Tests of evaluation.recorder: accuracy, prediction, calibration, convergence.

Stochastic tests take the ``seed`` fixture of conftest.py (``RATINGSIM_SEEDS``).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from numpy.testing import assert_allclose
from scipy import stats

from simulator.evaluation.ranks import average_ranks
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.results import ReplicateResult, combine
from simulator.evaluation.settings import COIN_FLIP, ORACLE, MetricsConfig

N = 200


def _pool(n: int = N) -> np.ndarray:
    """True strengths spread evenly over 1000..2600."""
    return np.linspace(1000.0, 2600.0, n)


def _checkpoint(
    rec: Recorder,
    day: float,
    ratings: dict[str, np.ndarray],
    true: np.ndarray,
    *,
    active: np.ndarray | None = None,
    games: np.ndarray | None = None,
    newcomer: np.ndarray | None = None,
    cohort: np.ndarray | None = None,
) -> None:
    n = true.shape[0]
    rec.checkpoint(
        day,
        ratings,
        true,
        np.ones(n, bool) if active is None else active,
        np.zeros(n, np.intp) if games is None else games,
        np.zeros(n, bool) if newcomer is None else newcomer,
        np.zeros(n, bool) if cohort is None else cohort,
    )


def _one_checkpoint(rating: np.ndarray, true: np.ndarray, **kw) -> pd.Series:
    rec = Recorder(["x"], true.shape[0])
    _checkpoint(rec, 0.0, {"x": rating}, true, **kw)
    return rec.result().timeseries.iloc[0]


def test_recorder_rejects_reserved_and_duplicate_names() -> None:
    """System names must be distinct and not those of the reference predictors."""
    with pytest.raises(ValueError, match="distinct"):
        Recorder(["a", "a"], 3)
    with pytest.raises(ValueError, match="oracle"):
        Recorder(["a", ORACLE], 3)


# --- accuracy ---------------------------------------------------------------------


def test_constant_shift_has_offset_and_no_error() -> None:
    """Ratings = true + 100: offset 100, RMSE 0, MAE 0, Spearman 1, spread 1."""
    true = _pool()
    row = _one_checkpoint(true + 100.0, true)
    assert row["offset"] == pytest.approx(100.0)
    assert row["rmse"] == pytest.approx(0.0, abs=1e-9)
    assert row["mae"] == pytest.approx(0.0, abs=1e-9)
    assert row["spearman"] == pytest.approx(1.0)
    assert row["spread"] == pytest.approx(1.0)
    assert row["n_rated"] == N


def test_known_errors_give_known_rmse_and_mae() -> None:
    """Errors of +-10 around a shift of 50 give RMSE 10 and MAE 10; skewed ones too."""
    true = _pool()
    signs = np.where(np.arange(N) % 2 == 0, 1.0, -1.0)
    row = _one_checkpoint(true + 50.0 + 10.0 * signs, true)
    assert row["offset"] == pytest.approx(50.0)
    assert row["rmse"] == pytest.approx(10.0)
    assert row["mae"] == pytest.approx(10.0)
    # Errors (30, -10, -10, -10): mean 0, RMSE sqrt(300), MAE 15.
    e = np.tile([30.0, -10.0, -10.0, -10.0], N // 4)
    row = _one_checkpoint(true + e, true)
    assert row["rmse"] == pytest.approx(math.sqrt(300.0))
    assert row["mae"] == pytest.approx(15.0)


def test_stretched_and_reversed_ratings() -> None:
    """Doubled ratings have spread 2; reversed ones have Spearman -1."""
    true = _pool()
    assert _one_checkpoint(2.0 * true, true)["spread"] == pytest.approx(2.0)
    row = _one_checkpoint(4000.0 - true, true)
    assert row["spearman"] == pytest.approx(-1.0)
    assert row["spread"] == pytest.approx(1.0)


def test_spearman_matches_scipy_on_noisy_ratings(seed: int) -> None:
    """Spearman's correlation is scipy's over the active rated players."""
    rng = np.random.default_rng(seed)
    true = _pool()
    rating = true + rng.normal(0.0, 300.0, N)
    active = rng.random(N) < 0.7
    row = _one_checkpoint(rating, true, active=active)
    want = stats.spearmanr(rating[active], true[active]).statistic
    assert row["spearman"] == pytest.approx(want)
    assert row["n_rated"] == active.sum()


def test_spearman_with_whole_number_ratings_and_ties_is_scipys(seed: int) -> None:
    """Whole-number ratings with many ties (list systems) rank as scipy ranks."""
    rng = np.random.default_rng(seed)
    true = _pool()
    rating = np.rint(true / 50.0 + rng.normal(0.0, 3.0, N)) * 10.0
    active = rng.random(N) < 0.7
    row = _one_checkpoint(rating, true, active=active)
    want = stats.spearmanr(rating[active], true[active]).statistic
    assert row["spearman"] == want
    ranks = average_ranks(rating)
    np.testing.assert_array_equal(ranks, stats.rankdata(rating, method="average"))


def test_checkpoint_with_no_one_counted_makes_no_run() -> None:
    """With no active rated player the offset is unknown: no newcomer is inside."""
    rec = Recorder(["x"], 3, MetricsConfig(min_at_risk=1))
    true = np.array([1500.0, 1600.0, 1700.0])
    for day in (1.0, 2.0):
        rec.checkpoint(
            day,
            {"x": true.copy()},
            true,
            np.zeros(3, bool),
            np.array([5, 5, 5]) * int(day),
            np.ones(3, bool),
            np.zeros(3, bool),
        )
    s = rec.result().summary.iloc[0]
    assert s["n25_median"] == math.inf and s["n25_converged"] == 0.0
    np.testing.assert_array_equal(rec._follow.last_error, np.inf)
    curve = rec.result().convergence
    assert curve.loc[curve["n"] > 0, "median_error"].eq(math.inf).all()


def test_inactive_and_unrated_players_are_left_out() -> None:
    """Only active players with a rating enter the offset and the counts."""
    true = _pool()
    rating = true + 100.0
    rating[:10] = np.nan  # unrated
    rating[10:20] += 5000.0  # wildly wrong, but inactive
    active = np.ones(N, bool)
    active[10:20] = False
    row = _one_checkpoint(rating, true, active=active)
    assert row["n_rated"] == N - 20
    assert row["offset"] == pytest.approx(100.0)
    assert row["rmse"] == pytest.approx(0.0, abs=1e-9)


def test_no_rated_player_gives_nan() -> None:
    """A checkpoint without rated active players has NaN figures, not an error."""
    true = _pool()
    row = _one_checkpoint(np.full(N, np.nan), true)
    assert row["n_rated"] == 0
    assert np.isnan([row["offset"], row["rmse"], row["spearman"]]).all()


def test_cohort_drift_is_mean_over_rated_cohort() -> None:
    """Cohort drift is mean(rating - true) over cohort members with a rating."""
    true = _pool()
    rating = true.copy()
    cohort = np.zeros(N, bool)
    cohort[:4] = True
    rating[:4] += [10.0, 20.0, 30.0, 0.0]
    rating[3] = np.nan  # unrated cohort member: left out
    row = _one_checkpoint(rating, true, cohort=cohort)
    assert row["cohort_drift"] == pytest.approx(20.0)


# --- prediction and calibration ---------------------------------------------------


def _simulated_games(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """True expected scores, wins/losses drawn from them, and a noisy predictor."""
    oracle = rng.uniform(0.05, 0.95, n)
    score = (rng.random(n) < oracle).astype(np.float64)
    noisy = np.clip(oracle + rng.normal(0.0, 0.05, n), 0.02, 0.98)
    return oracle, score, noisy


def test_oracle_log_loss_below_coin_flip(seed: int) -> None:
    """On outcomes drawn from the oracle, it beats a noisy system and the coin flip."""
    rng = np.random.default_rng(seed)
    oracle, score, noisy = _simulated_games(rng, 20_000)
    rec = Recorder(["noisy"], 2)
    rec.record_games({"noisy": noisy}, oracle, score)
    table = rec.result().prediction
    pred = table[table["pairs"] == "all"].set_index("system")
    assert list(pred.index) == ["noisy", ORACLE, COIN_FLIP]
    assert pred.loc[ORACLE, "log_loss"] < pred.loc["noisy", "log_loss"]
    assert pred.loc["noisy", "log_loss"] < pred.loc[COIN_FLIP, "log_loss"]
    assert pred.loc[ORACLE, "brier"] < pred.loc[COIN_FLIP, "brier"]
    # Wins and losses only: the coin flip scores exactly ln 2 and 1/4.
    assert pred.loc[COIN_FLIP, "log_loss"] == pytest.approx(math.log(2.0))
    assert pred.loc[COIN_FLIP, "brier"] == pytest.approx(0.25)
    assert pred.loc[ORACLE, "log_loss_excess"] == 0.0
    assert (pred["n_games"] == 20_000).all()


def test_log_loss_formula_and_clipping() -> None:
    """Log loss is -(s ln E + (1-s) ln(1-E)) with E clipped to [1e-9, 1-1e-9]."""
    rec = Recorder(["x"], 2)
    e = np.array([0.8, 0.8, 0.0])
    s = np.array([1.0, 0.5, 1.0])
    rec.record_games({"x": e}, np.full(3, 0.5), s)
    row = rec.result().prediction.iloc[0]
    want = -(math.log(0.8) + 0.5 * math.log(0.8) + 0.5 * math.log(0.2) + math.log(1e-9))
    assert row["log_loss"] == pytest.approx(want / 3)
    assert row["brier"] == pytest.approx((0.04 + 0.09 + 1.0) / 3)


def test_calibrated_predictor_lies_near_diagonal(seed: int) -> None:
    """Bins of a calibrated predictor have observed = expected within sampling error."""
    rng = np.random.default_rng(seed)
    n = 50_000
    e = rng.random(n)
    score = (rng.random(n) < e).astype(np.float64)
    rec = Recorder(["calibrated"], 2, MetricsConfig(calibration_bins=10))
    rec.record_games({"calibrated": e}, e, score)
    cal = rec.result().calibration
    assert len(cal) == 10
    assert cal["n"].sum() == n
    inside = (cal["mean_expected"] >= cal["bin_low"]) & (
        cal["mean_expected"] <= cal["bin_high"]
    )
    assert inside.all()
    # Five standard errors of a binomial mean: fails about once in 10^5 bins.
    tol = 5.0 * np.sqrt(0.25 / cal["n"].to_numpy())
    gap = np.abs(cal["mean_observed"] - cal["mean_expected"]).to_numpy()
    assert (gap <= tol).all(), (gap, tol)


def test_miscalibrated_predictor_is_off_diagonal(seed: int) -> None:
    """An overconfident predictor's top bin observes much less than it expects."""
    rng = np.random.default_rng(seed)
    n = 20_000
    truth = rng.random(n)
    score = (rng.random(n) < truth).astype(np.float64)
    overconfident = np.clip(0.5 + 2.0 * (truth - 0.5), 0.0, 1.0)
    rec = Recorder(["over"], 2)
    rec.record_games({"over": overconfident}, truth, score)
    top = rec.result().calibration.iloc[-1]
    assert top["mean_expected"] - top["mean_observed"] > 0.1


def test_streaming_equals_batch(seed: int) -> None:
    """Recording games in 1 call or in 100 calls gives the same sums and bins."""
    rng = np.random.default_rng(seed)
    oracle, score, noisy = _simulated_games(rng, 10_000)
    one = Recorder(["noisy"], 2)
    one.record_games({"noisy": noisy}, oracle, score)
    many = Recorder(["noisy"], 2)
    for part in np.array_split(np.arange(10_000), 100):
        many.record_games({"noisy": noisy[part]}, oracle[part], score[part])
    a, b = one.result(), many.result()
    assert (a.prediction["n_games"] == b.prediction["n_games"]).all()
    for col in ("log_loss", "brier"):
        assert_allclose(a.prediction[col], b.prediction[col], rtol=1e-12)
    assert (a.calibration["n"] == b.calibration["n"]).all()
    for col in ("mean_expected", "mean_observed"):
        assert_allclose(a.calibration[col], b.calibration[col], rtol=1e-12)


def test_record_games_validates_input() -> None:
    """Missing systems, out-of-range expectations and bad shapes are refused."""
    rec = Recorder(["a", "b"], 2)
    with pytest.raises(ValueError, match="one entry per system"):
        rec.record_games({"a": [0.5]}, [0.5], [1.0])
    with pytest.raises(ValueError, match="'b' must lie in"):
        rec.record_games({"a": [0.5], "b": [np.nan]}, [0.5], [1.0])
    with pytest.raises(ValueError, match="shape"):
        rec.record_games({"a": [0.5], "b": [0.5, 0.5]}, [0.5], [1.0])


# --- convergence ------------------------------------------------------------------


def _convergence_run(
    errors: np.ndarray, config: MetricsConfig | None = None
) -> ReplicateResult:
    """Newcomers with the given errors (rows: checkpoint g = 1, 2, ...; NaN unrated).

    Checkpoints follow every game. An active established pool rated exactly
    (offset 0) sits beside the newcomers, who are not active.
    """
    n_cp, n_new = errors.shape
    true = np.concatenate([_pool(50), np.full(n_new, 1500.0)])
    n = true.shape[0]
    newcomer = np.zeros(n, bool)
    newcomer[50:] = True
    # A handful of newcomers: read the quantiles whatever the number at risk.
    rec = Recorder(["x"], n, config or MetricsConfig(min_at_risk=1))
    for g in range(1, n_cp + 1):
        rating = true.copy()
        rating[50:] += errors[g - 1]
        games = np.where(newcomer, g, 100).astype(np.intp)
        _checkpoint(
            rec,
            float(g),
            {"x": rating},
            true,
            active=~newcomer,
            games=games,
            newcomer=newcomer,
        )
    return rec.result()


def _errors_abc() -> np.ndarray:
    """A: inside 50 from game 12 on; B: in, out, back in from game 20; C: never."""
    g = np.arange(1, 31)
    a = np.where(g < 12, 200.0, 40.0)
    b = np.where(g < 5, 200.0, np.where(g < 10, 40.0, np.where(g < 20, 200.0, -30.0)))
    c = np.full(g.shape, 200.0)
    return np.stack([a, b, c], axis=1)


def test_convergence_first_entry_that_stays() -> None:
    """N50 is 12 for A, 20 for B (it left again), censored for C."""
    s = _convergence_run(_errors_abc()).summary.iloc[0]
    # Kaplan-Meier over 12 and 20 (observed) and C (censored at its last
    # count): the share not converged is 2/3 after 12 and 1/3 after 20, so the
    # quartile is 12, the median 20 and the upper quartile never reached.
    assert s["n50_median"] == 20.0
    assert s["n50_q25"] == 12.0
    assert s["n50_q75"] == math.inf
    assert s["n50_converged"] == pytest.approx(2 / 3)
    assert s["n_newcomers"] == 3


def test_convergence_single_newcomer_n50_is_12() -> None:
    """A newcomer inside 50 from game 12 on (checkpoints each game) has N50 = 12."""
    s = _convergence_run(_errors_abc()[:, :1]).summary.iloc[0]
    assert s["n50_median"] == 12.0
    assert s["n50_converged"] == 1.0
    assert s["n100_median"] == 12.0
    # Error 40 is never below 25: censored.
    assert s["n25_median"] == math.inf
    assert s["n25_converged"] == 0.0


def test_convergence_threshold_is_strict() -> None:
    """An error exactly at the threshold is not below it."""
    errors = np.full((10, 1), 50.0)
    s = _convergence_run(errors).summary.iloc[0]
    assert s["n50_median"] == math.inf
    assert s["n100_median"] == 1.0


def test_unrated_newcomer_counts_as_outside() -> None:
    """A NaN rating at a checkpoint ends the run inside every threshold."""
    errors = np.full((30, 1), 10.0)
    errors[14, 0] = np.nan  # unrated at game 15
    s = _convergence_run(errors).summary.iloc[0]
    assert s["n25_median"] == 16.0
    assert s["n100_median"] == 16.0
    # Never rated at all: censored.
    s = _convergence_run(np.full((5, 1), np.nan)).summary.iloc[0]
    assert s["n100_median"] == math.inf


def test_convergence_measured_after_offset() -> None:
    """Errors are taken after removing the system's offset."""
    errors = np.full((10, 1), 10.0)
    n_new = 1
    true = np.concatenate([_pool(50), np.full(n_new, 1500.0)])
    newcomer = np.r_[np.zeros(50, bool), True]
    rec = Recorder(["x"], true.shape[0], MetricsConfig(min_at_risk=1))
    for g in range(1, 11):
        rating = true + 300.0  # whole scale shifted by 300
        rating[50] += errors[g - 1, 0]
        _checkpoint(
            rec,
            float(g),
            {"x": rating},
            true,
            active=~newcomer,
            games=np.full(51, g, np.intp),
            newcomer=newcomer,
        )
    s = rec.result().summary.iloc[0]
    assert s["n25_median"] == 1.0
    assert s["offset"] == pytest.approx(300.0)


def test_convergence_state_matches_plain_reference(seed: int) -> None:
    """Runs inside each threshold equal a per-player rewrite of the rule.

    Random errors (some unrated), newcomer masks that come and go and games
    counts that stand still: the recorder's entries, last errors and games
    equal those of a loop over players, threshold by threshold.
    """
    rng = np.random.default_rng(seed)
    n, names = 60, ["a", "b"]
    thresholds = (25.0, 50.0, 100.0)
    rec = Recorder(names, n, MetricsConfig(thresholds=thresholds))
    true = np.zeros(n)
    entry = np.full((n, 2, 3), np.nan)
    last_error = np.full((n, 2), np.nan)
    last_games = np.zeros(n)
    games = np.zeros(n, dtype=np.intp)
    for day in range(40):
        games += rng.integers(0, 3, n)
        newcomer = rng.random(n) < 0.7
        ratings = {}
        for name in names:
            r = rng.choice([-5.0, 10.0, 30.0, 60.0, 150.0, np.nan], n)
            r[0] = 0.0
            ratings[name] = r
        # Offset 0: the one active player is rated at their true strength.
        active = np.arange(n) == 0
        rec.checkpoint(
            float(day), ratings, true, active, games.copy(), newcomer, active
        )
        for i, name in enumerate(names):
            for p in range(n):
                if not (newcomer[p] and games[p] > 0):
                    continue
                err = abs(ratings[name][p])
                last_error[p, i] = np.inf if np.isnan(err) else err
                for j, t in enumerate(thresholds):
                    if err < t:  # NaN is inside no threshold
                        if np.isnan(entry[p, i, j]):
                            entry[p, i, j] = games[p]
                    else:
                        entry[p, i, j] = np.nan
        tracked = newcomer & (games > 0)
        last_games[tracked] = games[tracked]
    # The deferred newcomers' state is brought up to date when it is read.
    rec._follow.sync()
    np.testing.assert_array_equal(rec._follow.entry, entry)
    np.testing.assert_array_equal(rec._follow.last_error, last_error)
    np.testing.assert_array_equal(rec._follow.last_games, last_games)


# --- the error-vs-games curve -----------------------------------------------------


def test_curve_gives_median_and_quartiles_by_games() -> None:
    """The curve's median and quartiles at g games come from the newcomers' errors."""
    # Five newcomers with errors 10, 20, 30, 40, 50 at every games count.
    errors = np.tile([10.0, 20.0, 30.0, 40.0, 50.0], (20, 1))
    curve = _convergence_run(errors, MetricsConfig(curve_max_games=15)).convergence
    assert list(curve["games"]) == list(range(16))
    at5 = curve.set_index("games").loc[5]
    assert at5["n"] == 5
    # Histogram quantiles, interpolated within 1-point bins: close to 30, 20, 40.
    assert at5["median_error"] == pytest.approx(30.0, abs=1.0)
    assert at5["q25"] == pytest.approx(20.0, abs=1.0)
    assert at5["q75"] == pytest.approx(40.0, abs=1.0)
    # No newcomer was seen with 0 games, nor beyond 20 games.
    assert curve.set_index("games").loc[0, "n"] == 0
    assert np.isnan(curve.set_index("games").loc[0, "median_error"])


def test_curve_counts_each_games_count_once_with_latest_error() -> None:
    """Repeated checkpoints at the same games count keep only the latest error."""
    true = np.array([1500.0, 1500.0, 1600.0])
    newcomer = np.array([False, False, True])
    active = ~newcomer
    rec = Recorder(["x"], 3, MetricsConfig(curve_max_games=5))
    for day, (g, err) in enumerate([(3, 300.0), (3, 250.0), (3, 7.0), (4, 80.0)]):
        rating = true + np.array([0.0, 0.0, err])
        _checkpoint(
            rec,
            float(day),
            {"x": rating},
            true,
            active=active,
            games=np.array([9, 9, g], np.intp),
            newcomer=newcomer,
        )
    curve = rec.result().convergence.set_index("games")
    assert curve.loc[3, "n"] == 1
    assert curve.loc[3, "median_error"] == pytest.approx(7.0, abs=1.0)
    assert curve.loc[4, "n"] == 1  # the pending value is counted by result()
    assert curve.loc[4, "median_error"] == pytest.approx(80.0, abs=1.0)


def test_curve_unrated_is_infinite() -> None:
    """A curve median decided by unrated newcomers reads inf."""
    errors = np.full((5, 3), np.nan)
    errors[:, 0] = 10.0
    curve = _convergence_run(errors).convergence.set_index("games")
    assert curve.loc[2, "median_error"] == math.inf
    assert curve.loc[2, "q25"] == pytest.approx(10.0, abs=1.0)


def test_curve_matches_plain_reference(seed: int) -> None:
    """The curve's histogram equals a per-player rewrite of its rule.

    Newcomer masks that come and go, games counts that stand still or pass
    ``curve_max_games``, unrated players: each newcomer's latest error at a
    games count is counted once that count moves on (or the player leaves the
    newcomers), and still pending ones by ``result()``.
    """
    rng = np.random.default_rng(seed)
    n, names = 50, ["a", "b"]
    cfg = MetricsConfig(curve_max_games=6, curve_bin_width=10.0, curve_max_error=100.0)
    rec = Recorder(names, n, cfg)
    n_bins = cfg.n_error_bins + 1
    hist = np.zeros((2, 7, n_bins), dtype=np.int64)
    pending: dict[int, tuple[int, list[float]]] = {}

    def count(g: int, errs: list[float]) -> None:
        for i, err in enumerate(errs):
            b = n_bins - 1 if err >= 100.0 else min(int(err // 10.0), n_bins - 1)
            hist[i, g, b] += 1

    true = np.zeros(n)
    games = np.zeros(n, dtype=np.intp)
    active = np.arange(n) == 0
    for day in range(30):
        games += rng.integers(0, 2, n)
        newcomer = rng.random(n) < 0.8
        ratings = {}
        for name in names:
            r = rng.choice([0.0, 5.0, 15.0, 55.0, 99.0, 100.0, 250.0, np.nan], n)
            r[0] = 0.0  # offset 0
            ratings[name] = r
        rec.checkpoint(
            float(day), ratings, true, active, games.copy(), newcomer, active
        )
        for p in range(n):
            errs = [abs(ratings[name][p]) for name in names]
            errs = [np.inf if np.isnan(x) else x for x in errs]
            current = newcomer[p] and games[p] <= cfg.curve_max_games
            if p in pending and not (current and pending[p][0] == games[p]):
                count(*pending.pop(p))
            if current:
                pending[p] = (int(games[p]), errs)
    np.testing.assert_array_equal(rec._follow.hist, hist)
    for g, errs in pending.values():
        count(g, errs)
    curve = rec.result().convergence
    np.testing.assert_array_equal(curve["n"], hist.sum(axis=-1).ravel())


def test_checkpoints_must_be_in_time_order() -> None:
    """A checkpoint earlier than the previous one is refused."""
    true = _pool()
    rec = Recorder(["x"], N)
    _checkpoint(rec, 10.0, {"x": true}, true)
    with pytest.raises(ValueError, match="time order"):
        _checkpoint(rec, 9.0, {"x": true}, true)


# --- steady state -----------------------------------------------------------------


def test_steady_state_is_mean_of_last_quarter() -> None:
    """Summary figures average the last steady_fraction of checkpoints."""
    true = _pool()
    rec = Recorder(["x"], N)
    offsets = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 20.0]
    for day, off in enumerate(offsets):
        _checkpoint(rec, float(day), {"x": true + off}, true)
    res = rec.result()
    assert res.summary.iloc[0]["offset"] == pytest.approx(15.0)
    assert len(res.timeseries) == 8


def _full_run(seed: int) -> ReplicateResult:
    rng = np.random.default_rng(seed)
    true = _pool()
    rec = Recorder(["a", "b"], N)
    games = np.zeros(N, np.intp)
    newcomer = np.arange(N) % 4 == 0
    for day in range(10):
        oracle, score, noisy = _simulated_games(rng, 50)
        rec.record_games({"a": noisy, "b": oracle}, oracle, score)
        games += rng.integers(0, 3, N)
        _checkpoint(
            rec,
            float(day),
            {"a": true + rng.normal(0, 80, N), "b": true + 5.0},
            true,
            games=games,
            newcomer=newcomer,
            cohort=~newcomer,
        )
    return rec.result()


def test_results_are_deterministic(seed: int) -> None:
    """Identical inputs give bit-identical tables, and result() changes nothing."""
    a, b = _full_run(seed), _full_run(seed)
    for name in ("summary", "timeseries", "prediction", "calibration", "convergence"):
        pd.testing.assert_frame_equal(
            getattr(a, name), getattr(b, name), check_exact=True
        )
    s1, s2 = combine([a, b]), combine([a, b])
    pd.testing.assert_frame_equal(s1.summary, s2.summary, check_exact=True)
    pd.testing.assert_frame_equal(s1.convergence, s2.convergence, check_exact=True)


def test_recorder_state_does_not_grow_with_games(seed: int) -> None:
    """Recording more games leaves the recorder's arrays the same size."""
    rng = np.random.default_rng(seed)
    rec = Recorder(["x"], 10)

    def size() -> int:
        return sum(v.nbytes for v in vars(rec).values() if isinstance(v, np.ndarray))

    before = size()
    for _ in range(20):
        oracle, score, noisy = _simulated_games(rng, 1_000)
        rec.record_games({"x": noisy}, oracle, score)
    assert size() == before


def test_pairs_split_the_sums_and_are_checked() -> None:
    """Each game's losses go to its pair type; 'all' is their sum."""
    rec = Recorder(["x"], 4)
    e = np.array([0.8, 0.6, 0.3])
    s = np.array([1.0, 0.0, 0.5])
    rec.record_games({"x": e}, np.full(3, 0.5), s, np.array([0, 2, 2]))
    table = rec.result().prediction
    x = table[table["system"] == "x"].set_index("pairs")
    assert x.loc["both rated", "log_loss"] == pytest.approx(-math.log(0.8))
    both_new = -(math.log(0.4) + 0.5 * math.log(0.3) + 0.5 * math.log(0.7)) / 2
    assert x.loc["both new", "log_loss"] == pytest.approx(both_new)
    assert x.loc["both new", "brier"] == pytest.approx((0.36 + 0.04) / 2)
    assert x.loc["one new", "n_games"] == 0
    assert math.isnan(x.loc["one new", "log_loss"])
    assert x.loc["all", "n_games"] == 3
    with pytest.raises(ValueError, match="pairs"):
        rec.record_games({"x": e}, np.full(3, 0.5), s, np.array([0, 3, 1]))
    with pytest.raises(ValueError, match="pairs"):
        rec.record_games({"x": e}, np.full(3, 0.5), s, np.array([0.0, 1.0, 1.0]))


def test_common_support_figures_are_over_the_players_every_system_rates() -> None:
    """'a' rates everyone, 'b' the first six: a's common RMSE is over those six."""
    n = 10
    true = np.linspace(1200.0, 2100.0, n)
    error = np.array([30.0, -30.0, 10.0, -10.0, 20.0, -20.0, 200.0, -200.0, 90.0, 0])
    a = true + error
    b = np.where(np.arange(n) < 6, true + 5.0, np.nan)
    rec = Recorder(["a", "b"], n)
    everyone, nobody = np.ones(n, bool), np.zeros(n, bool)
    rec.checkpoint(
        0.0, {"a": a, "b": b}, true, everyone, np.zeros(n, np.intp), nobody, nobody
    )
    row = rec.result().summary.set_index("system")
    common_error = error[:6] - error[:6].mean()
    assert row.loc["a", "rmse_common"] == pytest.approx(
        math.sqrt(np.mean(common_error**2))
    )
    assert row.loc["a", "rmse"] == pytest.approx(np.std(error))
    assert row.loc["b", "rmse"] == row.loc["b", "rmse_common"] == 0.0
    assert row.loc["a", "n_common"] == row.loc["b", "n_common"] == 6


def test_steady_slope_is_the_trend_over_the_window() -> None:
    """An error growing linearly by 36.5 points a year has that RMSE slope."""
    n = 50
    true = np.linspace(1200.0, 2400.0, n)
    sign = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    rec = Recorder(["x"], n, MetricsConfig(steady_fraction=0.5))
    everyone, nobody = np.ones(n, bool), np.zeros(n, bool)
    for week in range(20):
        day = 7.0 * week
        rating = true + sign * (10.0 + 36.5 * day / 365.2425)
        rec.checkpoint(
            day, {"x": rating}, true, everyone, np.zeros(n, np.intp), nobody, nobody
        )
    row = rec.result().summary.iloc[0]
    assert row["rmse_slope"] == pytest.approx(36.5)
    assert row["spearman_slope"] == pytest.approx(0.0, abs=1e-9)


def test_bands_on_the_common_support() -> None:
    """Band figures over the players every system rates, aligned on them."""
    n = 8
    true = np.array([1300.0, 1350.0, 1500.0, 1550.0, 1700.0, 1750.0, 1900.0, 1950.0])
    error = np.array([40.0, -40.0, 10.0, 30.0, -10.0, 50.0, 0.0, 20.0])
    a = true + error
    b = np.where(true >= 1500.0, true, np.nan)
    rec = Recorder(["a", "b"], n, MetricsConfig(band_edges=(1400.0, 1600.0)))
    everyone, nobody = np.ones(n, bool), np.zeros(n, bool)
    rec.checkpoint(
        0.0, {"a": a, "b": b}, true, everyone, np.zeros(n, np.intp), nobody, nobody
    )
    bands = rec.result().bands.set_index(["system", "band"])
    # Own: 'a' has players in the band below 1400; common: nobody there.
    assert bands.loc[("a", -math.inf), "n"] == 2
    assert bands.loc[("a", -math.inf), "n_common"] == 0
    # Common: aligned by a's offset over players 2..7, band 1400-1600.
    e = error[2:4] - error[2:].mean()
    assert bands.loc[("a", 1400.0), "rmse_common"] == pytest.approx(
        math.sqrt(np.mean(e**2))
    )
    assert bands.loc[("a", 1400.0), "bias_common"] == pytest.approx(e.mean())
    # Own: aligned over all eight.
    own = error[2:4] - error.mean()
    assert bands.loc[("a", 1400.0), "bias"] == pytest.approx(own.mean())
    assert bands.loc[("b", 1600.0), "rmse_common"] == bands.loc[("b", 1600.0), "rmse"]


def test_common_support_only_from_common_from() -> None:
    """Before ``common_from`` the common figures are NaN; after, computed."""
    n = 6
    true = np.linspace(1400.0, 1900.0, n)
    b = np.where(np.arange(n) < 4, true, np.nan)
    rec = Recorder(["a", "b"], n, MetricsConfig(steady_fraction=0.5), common_from=7.0)
    everyone, nobody = np.ones(n, bool), np.zeros(n, bool)
    for day in (0.0, 7.0):
        rec.checkpoint(
            day,
            {"a": true + 10.0, "b": b},
            true,
            everyone,
            np.zeros(n, np.intp),
            nobody,
            nobody,
        )
    result = rec.result()
    ts = result.timeseries.set_index(["day", "system"])
    assert math.isnan(ts.loc[(0.0, "a"), "rmse_common"])
    assert math.isnan(ts.loc[(0.0, "a"), "n_common"])
    assert ts.loc[(7.0, "a"), "n_common"] == 4
    assert result.summary.set_index("system").loc["a", "rmse_common"] == 0.0
    with pytest.raises(ValueError, match="common_from"):
        Recorder(["a"], n, common_from=math.nan)
