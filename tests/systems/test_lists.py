"""The list machinery's fast paths against its general ones (``_lists.py``).

Each fast path must give the general path's result bit for bit: ratings are
rounded, so a last-bit difference could flip a published rating.
"""

import dataclasses

import numpy as np
import pytest

from simulator._jit import jit
from simulator.systems._common import Games, round_half_away
from simulator.systems._lists import (
    _event_groups,
    _filter_events,
    _first_event_rows,
    _first_events,
    _NewRows,
    _rate_by_table,
    _rate_on_lists,
    _round_half_away,
    new_list_state,
    rules_expected,
)
from simulator.systems.classic import Classic
from simulator.systems.fide import Fide, fide_2024

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


def test_new_rows_gather_both_sides():
    white, black = np.array([0, 1, 2, 3]), np.array([4, 5, 6, 7])
    score = np.array([1.0, 0.5, 0.0, 1.0])
    event, start = np.array([10, 11, 12, 13]), np.array([0.0, 1.0, 2.0, 3.0])
    rows = _NewRows(
        white, black, score, event, start, np.array([1, 3]), np.array([0, 2])
    )
    player, opp, row_score, row_event, row_start = rows.fields(True)
    assert player.tolist() == [1, 3, 4, 6]
    assert opp.tolist() == [5, 7, 0, 2]
    assert row_score.tolist() == [0.5, 1.0, 0.0, 1.0]
    assert row_event.tolist() == [11, 13, 10, 12]
    assert row_start.tolist() == [1.0, 3.0, 0.0, 2.0]
    assert rows.fields(False)[4].size == 0
    some = rows.take(np.array([1, 2]))
    assert some.on_white.tolist() == [3]
    assert some.on_black.tolist() == [0]


@pytest.mark.parametrize("seed", range(5))
def test_first_event_rows_match_the_groups(seed):
    rng = np.random.default_rng(seed)
    n_games, n_players = 500, 40
    white = rng.integers(0, n_players, n_games)
    black = (white + 1 + rng.integers(0, n_players - 1, n_games)) % n_players
    event = rng.integers(0, 30, n_games)
    start = rng.integers(0, 4, n_games).astype(float)  # even within an event
    done = rng.random(n_players) < 0.3
    rows = _NewRows(
        white,
        black,
        np.zeros(n_games),
        event,
        start,
        np.flatnonzero(rng.random(n_games) < 0.5),
        np.flatnonzero(rng.random(n_games) < 0.5),
    )
    player, opp, _, row_event, row_start = rows.fields(True)
    inv, ev_player, _, _ = _event_groups(player, row_event, opp)
    ev_start = np.full(ev_player.size, np.inf)
    np.minimum.at(ev_start, inv, row_start)
    expected = (_first_events(ev_player, ev_start) & ~done[ev_player])[inv]
    at, no_nan = _first_event_rows(
        rows.on_white, rows.on_black, white, black, event, start, done
    )
    assert no_nan
    np.testing.assert_array_equal(at, np.flatnonzero(expected))
    # A NaN start: no rows, and the rows go by groups.
    start[rows.on_black[0]] = np.nan
    at, no_nan = _first_event_rows(
        rows.on_white, rows.on_black, white, black, event, start, done
    )
    assert not no_nan and at.size == 0


@pytest.mark.parametrize("seed", range(3))
def test_event_groups_agree_on_every_key_size(seed):
    """The packed sort, the argsort and the pair grouping give the same groups."""
    rng = np.random.default_rng(seed)
    n = 1000
    player = rng.integers(0, 30, n)
    event = rng.integers(-5, 10, n)
    opp = rng.integers(0, 20, n)
    small = _event_groups(player, event, opp)
    # Order-preserving spreads of the opponents' ids: too wide to pack the
    # row number in (argsort), then too wide for one key (pair grouping).
    for factor in (2**40, 2**50):
        wide = _event_groups(player, event, opp * factor)
        for a, b in zip(small, wide, strict=True):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("nan_start", [False, True])
def test_first_event_filter_matches_the_groups(seed, nan_start):
    rules = Fide().rules
    rng = np.random.default_rng(seed)
    n_players, n_games = 30, 400
    white = rng.integers(0, n_players, n_games)
    black = (white + 1 + rng.integers(0, n_players - 1, n_games)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n_games, p=[0.8, 0.1, 0.1])
    event = rng.integers(0, 40, n_games)
    start = rng.integers(0, 3, n_games).astype(float)
    if nan_start:
        start[rng.integers(0, n_games, 5)] = np.nan
    done = rng.random(n_players) < 0.3
    # Mostly lost games: White's rows where White scored 0, Black's where 1.
    rows = _NewRows(
        white,
        black,
        score,
        event,
        start,
        np.flatnonzero(white < 10),
        np.flatnonzero((black < 10) & (score == 1.0)),
    )
    by_groups = dataclasses.replace(rules, pool_filter_first_only=False)
    with np.errstate(invalid="ignore"):  # (NaN starts, by groups)
        keep, _ = _filter_events(rules, rows, done)
        by_groups_keep, fields = _filter_events(by_groups, rows, done)
    np.testing.assert_array_equal(keep, by_groups_keep)
    # The groups' rows, as the period's pool reads them.
    assert fields is not None
    np.testing.assert_array_equal(
        fields[0], np.r_[white[rows.on_white], black[rows.on_black]]
    )
    np.testing.assert_array_equal(
        fields[1], np.r_[black[rows.on_white], white[rows.on_black]]
    )
    np.testing.assert_array_equal(
        fields[2], np.r_[score[rows.on_white], 1.0 - score[rows.on_black]]
    )
    assert not keep.all()  # the zero-score first events are met


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_expected_score_matches_rules_expected(name):
    """The compiled expected_score gives rules_expected's PD over 100, bit for bit."""
    system = SYSTEMS[name]
    rng = np.random.default_rng(1)
    rating = rng.normal(2000.0, 500.0, 60)
    rating[:40] = np.rint(rating[:40])  # whole ratings, and some fractional
    rating[40:45] = np.nan  # unrated
    rating[45:48] = [np.inf, -np.inf, 1e300]  # D beyond any table
    state = system.new_state(60, day=19723, rating=rating)
    white, black = rng.integers(-60, 60, 3000), rng.integers(-60, 60, 3000)
    known = np.where(np.isnan(state.rating), system.unrated_prediction, state.rating)
    with np.errstate(invalid="ignore"):
        expected = rules_expected(system.rules, known[white], known[black]) / 100.0
    np.testing.assert_array_equal(system.expected_score(state, white, black), expected)


def test_expected_score_checks_players():
    """A player index outside the list raises IndexError, as numpy indexing does."""
    state = Fide().new_state(3, day=19723)
    with pytest.raises(IndexError):
        Fide().expected_score(state, np.array([0, 3]), np.array([1, 2]))


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
