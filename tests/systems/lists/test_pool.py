"""The unrated players' pool: new rows, event groups, first events (``_pool.py``).

Each fast path must give the general path's result bit for bit.
"""

import dataclasses

import numpy as np
import pytest

from simulator.systems.fide import Fide
from simulator.systems.lists._pool import (
    _event_groups,
    _filter_events,
    _first_event_rows,
    _first_events,
    _NewRows,
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
