"""The lists' table path against their general one (``lists/_by_table.py``).

The fast path must give the general path's result bit for bit: ratings are
rounded, so a last-bit difference could flip a published rating.
"""

import numpy as np
import pytest

from simulator._jit import jit
from simulator.systems._common import Games, round_half_away
from simulator.systems.classic import Classic
from simulator.systems.fide import Fide, fide_2024
from simulator.systems.lists._by_table import _rate_by_table, _round_half_away
from simulator.systems.lists.period import _rate_on_lists
from simulator.systems.lists.state import new_list_state

SYSTEMS = {
    "fide": Fide(),
    "fide-2024": fide_2024(),
    "classic": Classic(),
    "no-cap": Fide(cap=None),
    "exempt-1900": Fide(exempt_from=1900.0),
    "odd-cap": Fide(cap=120.5, exempt_from=1800.0, k_factor=800),
    "no-700": Fide(rule_700=False),
}


def random_period(seed, n_players=60, n_games=800, sd=400.0):
    """A state (some players unrated) and a period of games with events."""
    rng = np.random.default_rng(seed)
    rating = np.rint(rng.normal(1900.0, sd, n_players))
    rating[rng.random(n_players) < 0.3] = np.nan
    white = rng.integers(0, n_players, n_games)
    black = (white + 1 + rng.integers(0, n_players - 1, n_games)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    event = rng.integers(0, 15, n_games)
    start = rng.integers(0, 3, 15).astype(float)[event]
    return rating, Games(white, black, score, None, event, start)


@pytest.mark.parametrize("name", sorted(SYSTEMS))
@pytest.mark.parametrize("seed", range(3))
def test_rate_by_table_matches_the_general_path(name, seed):
    system = SYSTEMS[name]
    rating, games = random_period(seed)
    with np.errstate(invalid="ignore"):
        rating = np.where(rating < system.floor, np.nan, rating)
    state = new_list_state(
        system.rules, rating.size, rating=rating, n_games=np.arange(rating.size)
    )
    none = np.empty(0, dtype=np.intp)
    fast = _rate_by_table(system.rules, state, games.white, games.black, games.score)
    general = _rate_on_lists(system.rules, state, games, games.event, none, none)
    assert fast is not None
    for field in ("change", "n_rated", "pool_white", "pool_black", "candidates"):
        a, b = getattr(fast, field), getattr(general, field)
        assert a.dtype == b.dtype, field
        np.testing.assert_array_equal(a, b, err_msg=field)
    # The fast path leaves the opponents' ratings to the list in force.
    assert fast.opp_rating is None
    opp = np.concatenate([games.black[fast.pool_white], games.white[fast.pool_black]])
    np.testing.assert_array_equal(general.opp_rating, state.rating[opp])


@pytest.mark.parametrize(
    "system, rating",
    [
        (Fide(expectation="formula"), [1500.0, 1600.0]),
        (Fide(rounding="event"), [1500.0, 1600.0]),
        (Fide(), [1500.0, 1600.5]),  # not a whole rating
        (Fide(), [1500.0, 1500.0 + 20_000.0]),  # too far apart for the tables
    ],
)
def test_rate_by_table_declines(system, rating):
    state = new_list_state(system.rules, 2, rating=rating)
    state = state._replace(list_rating=np.array([rating]))
    games = Games(np.array([0]), np.array([1]), np.array([1.0]))
    assert (
        _rate_by_table(system.rules, state, games.white, games.black, games.score)
        is None
    )


@jit
def _round_each(x):
    return np.array([_round_half_away(v) for v in x])


def test_compiled_round_half_away_is_numpys_to_the_bit():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        [
            rng.normal(0.0, 1000.0, 10_000),
            np.round(rng.normal(0.0, 1000.0, 10_000)) / 2.0,
            [0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 2.5, -2.5],
            [0.49999999999999994, -0.49999999999999994, 2.0**52 + 1, -(2.0**53)],
        ]
    )
    np.testing.assert_array_equal(
        _round_each(x).view(np.int64), round_half_away(x).view(np.int64)
    )
