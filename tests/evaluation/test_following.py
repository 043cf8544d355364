"""Tests of evaluation.following: deferred newcomers end in the state of eager ones.

Stochastic tests take the ``seed`` fixture of conftest.py (``RATINGSIM_SEEDS``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from simulator.evaluation.following import Followers
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.settings import MetricsConfig

_STATE = (
    "entry",
    "entry_day",
    "first_day",
    "last_day",
    "first_true",
    "seen",
    "inside",
    "last_games",
    "last_error",
    "hist",
    "pending_games",
    "pending_error",
)


def _eager(rec: Recorder) -> Recorder:
    """``rec`` following every newcomer at every checkpoint (nobody deferred)."""

    def select(newcomers: np.ndarray, *_: object) -> np.ndarray:
        return newcomers

    rec._follow.select = select  # type: ignore[method-assign]
    return rec


def _world(
    rng: np.random.Generator,
    rec: list[Recorder],
    n: int,
    n_checkpoints: int,
    start: int = 0,
) -> None:
    """Feed the recorders a world whose newcomers mostly stand still.

    Players stand still for stretches (same ratings, truth and games) while
    the active players' ratings move the offsets by up to 150 points, so the
    still ones' errors cross the thresholds; some are unrated, some
    checkpoints count no one (no offset), and the newcomers come and go.
    """
    names = ["a", "b"]
    true = rng.normal(1500.0, 200.0, n)
    ratings = {s: true + rng.normal(0.0, 60.0, n) for s in names}
    for s in names:
        ratings[s][rng.random(n) < 0.1] = np.nan
    games = np.zeros(n, dtype=np.intp)
    newcomer = rng.random(n) < 0.8
    active = np.zeros(n, dtype=bool)
    active[: n // 4] = True
    for c in range(n_checkpoints):
        # A quarter of the players move (games, truth, a rating) at a checkpoint.
        moving = rng.random(n) < 0.25
        games[moving] += rng.integers(0, 4, n)[moving]
        true[moving & (rng.random(n) < 0.5)] += rng.normal(0.0, 20.0)
        for s in names:
            r = ratings[s]
            change = moving & (rng.random(n) < 0.5)
            r[change] = true[change] + rng.normal(0.0, 60.0, n)[change]
            # The counted players set the offset.
            r[active] = true[active] + rng.uniform(-150.0, 150.0) + rng.normal(0, 5)
        flip = rng.random(n) < 0.03
        newcomer = newcomer ^ flip
        counted = active if rng.random() > 0.1 else np.zeros(n, dtype=bool)
        day = 7.0 * (start + c + 1)
        for r in rec:
            r.checkpoint(
                day,
                {s: v.copy() for s, v in ratings.items()},
                true.copy(),
                counted,
                games.copy(),
                newcomer.copy(),
                counted,
            )


def test_deferred_state_equals_eager(seed: int) -> None:
    """Deferred newcomers end with every table and state array of eager ones."""
    rng = np.random.default_rng(seed)
    n, n_cp = 120, 80
    cfg = MetricsConfig(curve_max_games=20, min_at_risk=1)
    lazy = Recorder(["a", "b"], n, cfg)
    eager = _eager(Recorder(["a", "b"], n, cfg))
    _world(rng, [lazy, eager], n, n_cp)
    # Some were deferred, or the test shows nothing.
    assert lazy._follow.deferred.any()
    got, want = lazy.result(), eager.result()
    for f in dataclasses.fields(got):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if isinstance(a, pd.DataFrame):
            pd.testing.assert_frame_equal(a, b, check_exact=True)
        else:
            assert repr(a) == repr(b)
    for key in _STATE:
        np.testing.assert_array_equal(
            getattr(lazy._follow, key), getattr(eager._follow, key), err_msg=key
        )


def test_results_midway_leave_the_figures_unchanged(seed: int) -> None:
    """Reading the results brings the state up to date without changing it."""
    rng = np.random.default_rng(seed)
    n, cfg = 60, MetricsConfig(min_at_risk=1)
    read = Recorder(["a", "b"], n, cfg)
    unread = Recorder(["a", "b"], n, cfg)
    _world(rng, [read, unread], n, 20)
    read.result()
    _world(rng, [read, unread], n, 20, start=20)
    pd.testing.assert_frame_equal(
        read.result().summary, unread.result().summary, check_exact=True
    )


def test_a_still_newcomer_is_deferred() -> None:
    """Same ratings, truth and games: deferred; any change: followed."""
    follow = Followers(3, 1, MetricsConfig())
    newcomers = np.arange(3)
    games = np.array([0, 3, 3])
    true = np.array([1500.0, 1600.0, 1700.0])
    rating = np.array([np.nan, 1610.0, 1650.0])
    errors = np.zeros((1, 3))
    first = follow.select(newcomers, games, true, [rating])
    np.testing.assert_array_equal(first, newcomers)  # never followed yet
    follow.update(7.0, first, np.ones(3, bool), games, true, [rating], errors, [0.0])
    rating2 = rating.copy()
    rating2[2] = 1660.0
    again = follow.select(newcomers, games, true, [rating2])
    np.testing.assert_array_equal(again, [2])
    np.testing.assert_array_equal(follow.deferred, [True, True, False])
