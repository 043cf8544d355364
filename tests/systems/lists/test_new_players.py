"""Predictions for players a list has not rated yet (``lists/new_players.py``)."""

import numpy as np
import pytest

from simulator.systems._common import Games
from simulator.systems.classic import Classic
from simulator.systems.fide import Fide, initial_rating
from simulator.systems.lists.new_players import RECENT_GAMES, stand_in_ratings
from simulator.systems.lists.state import Pool, rules_expected

DAY = 19723  # 2024-01-01


def _pool(player, opp_rating, score):
    n = len(player)
    return Pool(
        np.asarray(player, np.intp),
        np.zeros(n, np.intp),
        np.asarray(opp_rating, np.float64),
        np.asarray(score, np.float64),
        np.zeros(n, np.intp),
    )


def test_constant_fills_every_unrated_player():
    rating = np.array([1700.0, np.nan, np.nan])
    out = stand_in_ratings(
        rating, np.zeros(3, np.intp), Pool.empty(), rule="constant", constant=1550.0
    )
    assert out.tolist() == [1700.0, 1550.0, 1550.0]


def test_newcomers_is_the_mean_of_the_recent_rated_players():
    rating = np.array([1600.0, 2000.0, 2400.0, np.nan])
    games = np.array([RECENT_GAMES - 1, RECENT_GAMES - 1, RECENT_GAMES, 0])
    out = stand_in_ratings(rating, games, Pool.empty(), rule="newcomers", constant=1.0)
    # 2400 has RECENT_GAMES games: not a recent newcomer.
    assert out[3] == 1800.0
    none_recent = stand_in_ratings(
        rating, np.full(4, 100), Pool.empty(), rule="newcomers", constant=1550.0
    )
    assert none_recent[3] == 1550.0


def test_performance_is_the_first_rating_formula_on_the_results_so_far():
    """FIDE 8.2 with one game: Ra = (1900 + 2 * 1800) / 3, p = 2/3 -> 0.67, dp 125."""
    system = Fide()
    rating = np.array([1900.0, np.nan, np.nan, np.nan])
    pool = _pool([1, 2, 2], [1900.0, 2000.0, np.nan], [1.0, 0.0, 1.0])
    out = stand_in_ratings(
        rating,
        np.zeros(4, np.intp),
        pool,
        rule="performance",
        constant=1550.0,
        performance=system.rules.performance,
    )
    assert out[1] == 1958.0  # round(1833.33 + 125)
    # Player 2: the row against an opponent without a rating is left out.
    assert out[2] == initial_rating(2000.0, 1, 0.0, min_games=1).item()
    assert out[3] == 1550.0  # no result yet


def test_unknown_rule_is_refused():
    with pytest.raises(ValueError, match="new_player_prediction"):
        Fide(new_player_prediction="median")
    with pytest.raises(ValueError, match="new_player_prediction"):
        stand_in_ratings(
            np.array([np.nan]), np.zeros(1), Pool.empty(), rule="x", constant=1.0
        )


@pytest.mark.parametrize("system_type", [Fide, Classic])
def test_expected_score_uses_the_rule_and_follows_new_lists(system_type):
    """A new player's expected score follows their results once a list is out."""
    n = 12
    rating = np.full(n, np.nan)
    rating[:10] = 1800.0 + 20.0 * np.arange(10)
    perf = system_type(new_player_prediction="performance")
    const = system_type()
    state = perf.new_state(n, day=DAY, rating=rating, n_games=np.full(n, 50))
    w, b = np.array([10, 11, 0]), np.array([0, 10, 1])
    # No results yet: both rules predict with the constant.
    np.testing.assert_array_equal(
        perf.expected_score(state, w, b), const.expected_score(state, w, b)
    )
    # Player 10 wins three games against rated players (too few for a first
    # rating): a new list, and the performance rule predicts with it.
    games = Games(
        np.array([10, 10, 10]),
        np.array([0, 1, 2]),
        np.ones(3),
        event=np.zeros(3, np.intp),
        event_start=np.full(3, float(DAY)),
    )
    after = perf.rate(state, games)
    assert np.isnan(after.rating[10])
    got = perf.expected_score(after, w, b)
    stand_in = perf.rules.performance(np.sum(rating[:3]), 3.0, 3.0)
    want = rules_expected(perf.rules, np.asarray([stand_in]), after.rating[:1]) / 100
    assert got[0] == pytest.approx(float(want[0]))
    assert got[0] > const.expected_score(after, w, b)[0]
    # Games between rated players are predicted alike by every rule.
    assert got[2] == const.expected_score(after, w, b)[2]
