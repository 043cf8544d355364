"""``predict_and_rate`` of the per-game systems: ``expected_score`` then ``rate``.

The walk-forward replay predicts every game from the ratings before its round
and then rates the round. The per-game systems do both in one call; these
tests hold that call to the round-by-round calls it replaces, bit for bit,
on pools with values outside Lichess's clamps and games with many rounds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simulator.systems import Games
from simulator.systems._common import split_rounds
from simulator.systems.elo import Elo
from simulator.systems.glicko import Glicko
from simulator.systems.lichess import Lichess

SYSTEMS = [
    Elo(),
    Elo(k_factor=32.0, initial_rating=1200.0),
    Lichess(),
    Lichess(colour_advantage=False, regulator=False),
    Lichess(speed="bullet", rd_growth_per_day=2.0),
    Glicko(per_game=True),
]
IDS = ["elo", "elo-k32", "lichess", "lichess-plain", "lichess-bullet", "glicko"]


def same_bits(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> bool:
    """Whether two arrays hold the same values, bit for bit, in the same dtype."""
    same_kind = a.dtype == b.dtype and a.shape == b.shape
    return bool(same_kind and a.tobytes() == b.tobytes())


def pool(system: Any, n_players: int, rng: np.random.Generator) -> Any:
    """A seeded pool: some new players, ratings, RDs and volatilities beyond clamps."""
    rating = rng.uniform(100.0, 2900.0, n_players)
    rating[rng.random(n_players) < 0.2] = np.nan  # new players
    rd = rng.uniform(20.0, 700.0, n_players)
    volatility = rng.uniform(0.01, 0.2, n_players)
    n_games = rng.integers(0, 50, n_players)
    return system.new_state(
        n_players,
        rating=rating,
        rd=rd,
        volatility=volatility,
        n_games=n_games,
        day=10.0,
    )


def games_with_many_rounds(
    n_players: int, n_games: int, rng: np.random.Generator
) -> Games:
    """Games in day order, a third of them by player 0: many rounds of few games."""
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    hub = rng.random(n_games) < 1 / 3
    black = np.where(hub & (white != 0), 0, black)
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    day = 10.0 + np.sort(rng.uniform(0.0, 90.0, n_games))
    day[: n_games // 4] = day[0]  # a run of games on one day (one time)
    return Games(white, black, score, day=day)


def round_by_round(system: Any, state: Any, games: Games) -> tuple[Any, np.ndarray]:
    """What predict_and_rate replaces: expected_score, then rate, per round."""
    assert games.day is not None
    expected = np.empty(games.n_games)
    for r in split_rounds(games.white, games.black):
        w, b = games.white[r], games.black[r]
        expected[r] = system.expected_score(state, w, b)
        state = system.rate(state, Games(w, b, games.score[r], day=games.day[r]))
    return state, expected


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
@pytest.mark.parametrize("overwrite", [False, True])
def test_predict_and_rate_is_expected_score_then_rate(
    system: Any, overwrite: bool, seed: int
) -> None:
    """Bit for bit the round-by-round calls, with or without overwriting."""
    rng = np.random.default_rng(seed)
    state = pool(system, 30, rng)
    games = games_with_many_rounds(30, 400, rng)
    assert len(split_rounds(games.white, games.black)) > 100
    want_state, want_expected = round_by_round(system, state, games)
    mine = type(state)(*(a.copy() for a in state))
    got_state, got_expected = system.predict_and_rate(
        mine, games, overwrite_state=overwrite
    )
    assert same_bits(got_expected, want_expected)
    assert type(got_state) is type(want_state)
    for got, want in zip(got_state, want_state, strict=True):
        assert same_bits(got, want)


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_predict_and_rate_leaves_the_state_alone(system: Any, seed: int) -> None:
    """Without overwrite_state the state is not written (read-only arrays)."""
    rng = np.random.default_rng(seed)
    state = pool(system, 12, rng)
    for a in state:
        a.flags.writeable = False
    before = [a.copy() for a in state]
    new, expected = system.predict_and_rate(state, games_with_many_rounds(12, 60, rng))
    for a, b in zip(state, before, strict=True):
        assert same_bits(a, b)
    assert expected.shape == (60,) and np.all((expected > 0) & (expected < 1))
    assert not np.array_equal(new.rating, state.rating)


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_predict_and_rate_one_round_and_no_games(system: Any, seed: int) -> None:
    """A round of distinct players, and no games at all."""
    rng = np.random.default_rng(seed)
    state = pool(system, 8, rng)
    games = Games([0, 2, 5], [1, 3, 4], [1.0, 0.5, 0.0], day=[11.0, 11.0, 11.0])
    want_state, want_expected = round_by_round(system, state, games)
    got_state, got_expected = system.predict_and_rate(state, games)
    assert same_bits(got_expected, want_expected)
    for got, want in zip(got_state, want_state, strict=True):
        assert same_bits(got, want)
    empty = Games(np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0), day=[])
    new, expected = system.predict_and_rate(state, empty)
    assert expected.shape == (0,)
    for got, want in zip(new, state, strict=True):
        assert same_bits(got, want)


def test_predict_and_rate_checks_like_rate() -> None:
    """A player out of range, and a Glicko pool in period mode, are errors."""
    games = Games([0], [5], [1.0], day=[1.0])
    for system in SYSTEMS:
        with pytest.raises(ValueError, match="the state has 3 players"):
            system.predict_and_rate(system.new_state(3), games)
    with pytest.raises(ValueError, match="per-game mode"):
        Glicko().predict_and_rate(Glicko().new_state(6), games)


@pytest.mark.parametrize("system", SYSTEMS, ids=IDS)
def test_predict_and_rate_with_one_day_for_all(system: Any, seed: int) -> None:
    """``day=`` for games without days: the round-by-round calls with that day."""
    rng = np.random.default_rng(seed)
    state = pool(system, 20, rng)
    dated = games_with_many_rounds(20, 80, rng)
    games = Games(dated.white, dated.black, dated.score)
    want_state, want_expected = round_by_round(
        system, state, Games(games.white, games.black, games.score, day=[50.0] * 80)
    )
    got_state, got_expected = system.predict_and_rate(state, games, day=50.0)
    assert same_bits(got_expected, want_expected)
    for got, want in zip(got_state, want_state, strict=True):
        assert same_bits(got, want)


def test_lichess_whole_number_parameters() -> None:
    """Lichess with int parameters rates and predicts as with the same floats."""
    rng = np.random.default_rng(3)
    games = games_with_many_rounds(15, 60, rng)
    results = []
    for system in (
        Lichess(min_rating=400, min_rd=45, max_rd=500, max_rating_delta=700),
        Lichess(min_rating=400.0, min_rd=45.0, max_rd=500.0, max_rating_delta=700.0),
    ):
        state = pool(system, 15, np.random.default_rng(4))
        results.append(system.predict_and_rate(state, games))
    (a_state, a_expected), (b_state, b_expected) = results
    assert same_bits(a_expected, b_expected)
    for a, b in zip(a_state, b_state, strict=True):
        assert same_bits(a, b)
