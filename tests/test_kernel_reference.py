"""The kernel scenario's reference loops agree with ratingsim (issue 22, item 4).

``benchmarks/kernel_reference.py`` times ratingsim's per-game Elo and FIDE
period against plain compiled loops of the same rules; those loops must give
the same results to 1e-9, on inputs small enough to hit every branch: NaN
(unrated) players, players above the 2650 exemption and below the floor,
juniors, several events per player with different start days, and a second
period that starts with a pool.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from simulator.systems import Games, make_system
from simulator.systems._common import day_of, year_of

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    """benchmarks/kernel_reference.py as a module."""
    spec = importlib.util.spec_from_file_location(
        "kernel_reference", BENCHMARKS / "kernel_reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kernel_reference"] = module
    spec.loader.exec_module(module)
    return module


def _rounds(
    rng: np.random.Generator, n_players: int, n_rounds: int, per_round: int
) -> list[tuple[Any, Any, Any]]:
    out = []
    for _ in range(n_rounds):
        perm = rng.permutation(n_players)
        out.append(
            (
                perm[:per_round],
                perm[per_round : 2 * per_round],
                rng.choice([0.0, 0.5, 1.0], per_round),
            )
        )
    return out


def test_elo_reference_agrees(ref: ModuleType, rng: np.random.Generator) -> None:
    """20 rounds of disjoint games, Elo's ``rate`` round by round against the loop."""
    n = 300
    elo = make_system("elo", k_factor=float(rng.uniform(5, 40)))
    rating = rng.normal(1600, 400, n)
    rating[rng.random(n) < 0.1] = np.nan
    state = elo.new_state(n, rating=rating, n_games=rng.integers(0, 50, n))
    rounds = _rounds(rng, n, 20, int(rng.integers(1, n // 2 + 1)))
    expected = elo.new_state(n, rating=rating, n_games=state.n_games)
    for w, b, s in rounds:
        expected = elo.rate(expected, Games(w, b, s))
    white, black, score = (np.concatenate(a) for a in zip(*rounds, strict=True))
    got_rating, got_games = ref.elo_games(
        state.rating, state.n_games, white, black, score, elo.k_factor
    )
    # The loop moved every rating (it is not the state it started from).
    assert not np.allclose(got_rating, state.rating)
    np.testing.assert_allclose(got_rating, expected.rating, rtol=0, atol=1e-9)
    np.testing.assert_array_equal(got_games, expected.n_games)
    # The state given is left alone.
    assert np.array_equal(state.n_games, elo.new_state(n, n_games=state.n_games)[1])


def _period(
    rng: np.random.Generator, n: int, n_games: int, start: float, days: int
) -> Games:
    white = rng.integers(0, n, n_games)
    black = (white + rng.integers(1, n, n_games)) % n
    event = rng.integers(0, max(n_games // 8, 1), n_games)
    event_start = start + (event * 7919) % days
    return Games(
        white, black, rng.choice([0.0, 0.5, 1.0], n_games), None, event, event_start
    )


def _compare(ref: ModuleType, fide: Any, state: Any, games: Games, close: int) -> Any:
    new = fide.rate(state, games, day=close)
    got = ref.fide_period(
        state.rating, state.k, state.n_games, state.ever_2400, state.ever_2300,
        state.birth_year, state.first_event_done, tuple(state.pool), state.period,
        games.white, games.black, games.score, games.event, games.event_start,
        year_of(close),
    )  # fmt: skip
    mine = (
        new.rating, new.n_games, new.k, new.ever_2400, new.ever_2300,
        new.first_event_done, *new.pool,
    )  # fmt: skip
    for name, a, b in zip(got._fields, mine, got, strict=True):
        assert a.shape == b.shape, name
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-9, err_msg=name)
    return new


def test_fide_reference_agrees(ref: ModuleType, rng: np.random.Generator) -> None:
    """Two FIDE periods (the second with a pool) against the reference loop."""
    n = 400
    fide = make_system("fide")
    start = day_of("2024-01-01")
    rating = np.rint(rng.normal(1900, 450, n))
    rating[rng.random(n) < 0.3] = np.nan
    rating[rng.random(n) < 0.05] = 2700.0  # exempt from the cap
    with np.errstate(invalid="ignore"):
        rating[rating < fide.floor] = np.nan
    state = fide.new_state(
        n,
        day=start,
        birth_year=rng.integers(1950, 2016, n).astype(float),
        rating=rating,
        n_games=rng.integers(0, 60, n),
    )
    close = fide.next_close(start)
    new = _compare(ref, fide, state, _period(rng, n, 2500, start, 28), close)
    # Both branches of the period were taken: ratings moved, first ratings
    # were published, and some rows stayed in the pool.
    rated_before = ~np.isnan(state.rating)
    assert np.any(new.rating[rated_before] != state.rating[rated_before])
    assert np.any(np.isnan(state.rating) & ~np.isnan(new.rating))
    assert new.pool.player.size > 0
    later = fide.next_close(close)
    _compare(ref, fide, new, _period(rng, n, 1500, close, 28), later)
