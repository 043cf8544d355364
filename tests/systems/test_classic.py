"""Old-style FIDE Elo (docs/rules.md, section 2) through the public system API.

Worked examples name their source: docs/rules.md, section 2 (``RULES`` in a
docstring) or a seed page (003 Danish, 004 German; docs/rules.md says what the
seed pages are). Expected numbers are worked
out by hand from the rules, never taken from the code under test.
"""

import os

import numpy as np
import pytest

from simulator.systems import make_system
from simulator.systems._common import Games, day_of
from simulator.systems.classic import (
    Classic,
    initial_rating_international,
    k_factor,
    national_start_values,
)

JAN = day_of("2024-01-01")

#: Random tests run one seed; RATINGSIM_SEED_SWEEP=1 runs range(100).
SEEDS = range(100) if os.environ.get("RATINGSIM_SEED_SWEEP") else [0]

#: Nine opponents averaging 2000.
NINE = [1920, 1940, 1960, 1980, 2000, 2020, 2040, 2060, 2080]


def games(white, black, score, *, event=None, start=None):
    """A batch of games, with events when ``event`` is given."""
    n = len(white)
    if event is not None:
        event = np.broadcast_to(np.asarray(event), (n,))
        start = np.broadcast_to(np.asarray(start, dtype=float), (n,))
    return Games(
        np.asarray(white, dtype=np.intp),
        np.asarray(black, dtype=np.intp),
        np.asarray(score, dtype=float),
        event=event,
        event_start=start,
    )


def no_games():
    """An empty period."""
    return games([], [], [])


def repeat(white, black, score, n):
    """The same game ``n`` times."""
    return games([white] * n, [black] * n, [score] * n)


def state_of(system, ratings, *, g=50, day=JAN):
    """A list on ``day`` holding ``ratings`` (NaN = unrated, G 0), rated G ``g``."""
    ratings = np.asarray(ratings, dtype=float)
    g = np.where(np.isnan(ratings), 0, np.broadcast_to(np.asarray(g), ratings.shape))
    return system.new_state(ratings.size, day=day, rating=ratings, n_games=g)


def change(system, state, batch):
    """Every player's rating change over one period."""
    return system.rating(system.rate(state, batch)) - system.rating(state)


def newcomer_games(opponents, scores, *, event=None, start=None, player=0):
    """``player`` against each of ``opponents`` with his ``scores``."""
    n = len(opponents)
    return games([player] * n, list(opponents), scores, event=event, start=start)


# --- Worked examples --------------------------------------------------------------


def test_seed_003_expected_score():
    """Seed 003: 2400 v 2300, D 100 -> .64 for the higher, .36 for the lower."""
    system = Classic()
    state = state_of(system, [2400, 2300])
    assert system.expected_score(state, [0, 1], [1, 0]).tolist() == [0.64, 0.36]


@pytest.mark.parametrize(
    ("score", "per_game", "single"),
    [(1.0, 3.6, 4), (0.0, -6.4, -6), (0.5, -1.4, -1)],
    ids=["win", "loss", "draw"],
)
def test_seed_003_2400_v_2300_k10(score, per_game, single):
    """Seed 003: 2400 v 2300, K 10: win +3.6, loss -6.4, draw -1.4."""
    system = Classic()
    state = state_of(system, [2400, 2300])
    assert state.k[0] == 10
    # Ten such games in one period give ten times the change exactly.
    assert change(system, state, repeat(0, 1, score, 10))[0] == 10 * per_game
    assert change(system, state, repeat(0, 1, score, 1))[0] == single


def test_seed_004_draw_1830_v_1980():
    """Seed 004: 1830 draws 1980, K 15: D -150 -> .30, (.5 - .30) * 15 = +3."""
    system = Classic()
    state = state_of(system, [1830, 1980])
    assert system.expected_score(state, [0], [1]).tolist() == [pytest.approx(0.30)]
    assert state.k[0] == 15
    assert change(system, state, games([0], [1], [0.5]))[0] == 3


def test_seed_004_loss_1950_v_1820():
    """Seed 004: 1950 loses to 1820, K 15: D 130 -> .68, -10.2 (-10 published)."""
    system = Classic()
    state = state_of(system, [1950, 1820])
    assert system.expected_score(state, [0], [1]).tolist() == [0.68]
    assert change(system, state, games([0], [1], [0.0]))[0] == -10
    # Five such losses: 5 * -10.2 = -51.
    assert change(system, state, repeat(0, 1, 0.0, 5))[0] == -51


def test_rounding_half_away_from_zero():
    """RULES section 2: the period change rounds half away from zero (+-2.5 -> +-3)."""
    system = Classic()
    # Both K 25 (G 0); D = -70 -> .40: 25 * (.5 - .40) = +2.5 and -2.5.
    state = state_of(system, [1500, 1570], g=0)
    assert change(system, state, games([0], [1], [0.5])).tolist() == [3, -3]


# --- K, cap, 700 rule, lists ------------------------------------------------------


def test_k_precedence():
    """RULES section 2: K 25 below 30 games (even 2400+), then 10 if 2400 ever, 15."""
    system = Classic()
    ratings = [2450, 1800, 2450, 1800, 2450, 1800, 2450, 1800]
    state = state_of(system, ratings, g=[10, 10, 50, 50, 10, 10, 50, 50])
    assert state.k[:4].tolist() == [25, 25, 10, 15]
    # Two wins each against an equal player: +K.
    batch = games([0, 0, 1, 1, 2, 2, 3, 3], [4, 4, 5, 5, 6, 6, 7, 7], [1.0] * 8)
    assert change(system, state, batch)[:4].tolist() == [25, 25, 10, 15]


def test_k_factor_pure():
    """RULES section 2: 25 if G < 30, else 10 if 2400 ever reached, else 15."""
    k = k_factor([29, 29, 30, 30], [True, False, True, False])
    assert k.tolist() == [25, 25, 10, 15]


def test_k_turnover_from_the_next_list():
    """RULES section 2: game 30 inside a period changes K (25 -> 15) next list only."""
    system = Classic()
    state = state_of(system, [1800, 1800], g=[28, 50])
    out = system.rate(state, repeat(0, 1, 1.0, 4))
    assert (system.rating(out) - system.rating(state))[0] == 4 * 25 * 0.5
    assert out.n_games[0] == 32
    assert out.k[0] == 15


def test_k_10_is_permanent():
    """RULES section 2: K 10 stays after the rating falls back under 2400."""
    system = Classic()
    state = state_of(system, [2400, 2400])
    low = system.rate(state, games([0], [1], [0.0]))
    assert system.rating(low)[0] == 2395
    assert low.k[0] == 10


def test_cap_350_and_400():
    """RULES section 2: D 400 counts as 350 (PD .89), or as 400 (.92) with cap=400."""
    state = state_of(Classic(), [2000, 1600])
    assert Classic().expected_score(state, [0], [1]).tolist() == [0.89]
    assert Classic(cap=400).expected_score(state, [0], [1]).tolist() == [0.92]
    # Ten wins at K 15: 150 * .11 = 16.5 -> 17, and 150 * .08 = 12.
    assert change(Classic(), state, repeat(0, 1, 1.0, 10))[0] == 17
    assert change(Classic(cap=400), state, repeat(0, 1, 1.0, 10))[0] == 12


def test_cap_applies_to_2650_plus():
    """RULES section 2: no 2650 exemption in the old rules (2700 v 2200 capped)."""
    state = state_of(Classic(), [2700, 2200])
    assert Classic().expected_score(state, [0], [1]).tolist() == [0.89]


def test_no_700_rule():
    """RULES section 2: K 25 stays for 40 games in a period (+500, no 700 rule)."""
    system = Classic()
    state = state_of(system, [1800, 1800], g=0)
    assert change(system, state, repeat(0, 1, 1.0, 40))[0] == 25 * 40 * 0.5


def test_quarterly_lists():
    """Seed 003 / RULES section 2: lists on 1 January, April, July and October."""
    system = make_system("classic")
    state = state_of(system, [2000, 2000], day=day_of("2024-02-15"))
    assert int(state.list_day[-1]) == day_of("2024-01-01")
    assert system.next_close(day_of("2024-02-15")) == day_of("2024-04-01")
    seen = []
    for _ in range(4):
        state = system.rate(state, no_games())
        seen.append(int(state.list_day[-1]))
    expected = ["2024-04-01", "2024-07-01", "2024-10-01", "2025-01-01"]
    assert seen == [day_of(d) for d in expected]


def test_floor_1200():
    """RULES section 2: floor 1200: 1300 stays on the list, 1205 - 8 drops off."""
    system = Classic()
    state = state_of(system, [1205, 1205, 1300, 1300])
    # K 15, PD .50: -7.5 -> -8 gives 1197; 1300 -> 1292 stays.
    out = system.rate(state, games([0, 2], [1, 3], [0.0, 0.0]))
    r = system.rating(out)
    assert np.isnan(r[0])
    assert r[1:].tolist() == [1213, 1292, 1308]
    assert out.n_games[0] == 51


# --- International initial rating ---------------------------------------------


def test_international_initial_above_50_percent():
    """RULES section 2: 6.5/9 v an average of 2000 -> 2000 + 25 * 2 = 2050."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    scores = [1, 1, 1, 1, 1, 1, 0.5, 0, 0]
    out = system.rate(state, newcomer_games(range(1, 10), scores))
    assert system.rating(out)[0] == 2050
    assert out.n_games[0] == 9
    assert out.k[0] == 25
    # Games against a newcomer are not rated for the opponents.
    assert system.rating(out)[1:].tolist() == NINE


def test_international_initial_below_50_percent():
    """RULES section 2: 3/9 v an average of 2000 -> p .33, dp -125 -> 1875."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    scores = [1, 1, 1, 0, 0, 0, 0, 0, 0]
    out = system.rate(state, newcomer_games(range(1, 10), scores))
    assert system.rating(out)[0] == 1875


def test_international_initial_pure():
    """RULES section 2: Ra + 25 (W - n/2) from 50 %, Ra + dp(W/n) below, half up."""
    assert initial_rating_international(9 * 2000, 9, 4.5).item() == 2000
    # 2000 + 25 * 4.5 = 2112.5, rounded half up.
    assert initial_rating_international(9 * 2000, 9, 9).item() == 2113
    # 4/9 = .44 -> -dp(.56) = -43.
    assert initial_rating_international(9 * 2000, 9, 4).item() == 1957
    # Ra 2000.5 rounds half up to 2001 (Python's round would give 2000).
    assert initial_rating_international(20005, 10, 5).item() == 2001
    assert np.isnan(initial_rating_international(8 * 2000, 8, 6).item())


def test_international_needs_nine_games_pooled():
    """RULES section 2: 6 games leave the player unrated; 3 more next period rate."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    first = system.rate(state, newcomer_games(range(1, 7), [1, 1, 1, 1, 1, 0.5]))
    assert np.isnan(system.rating(first)[0])
    second = system.rate(first, newcomer_games([7, 8, 9], [1, 0, 0]))
    # 6.5 / 9 v an average of 2000: 2050.
    assert system.rating(second)[0] == 2050
    assert second.n_games[0] == 9


def test_international_single_game_event_does_not_count():
    """RULES section 2: a one-game event (one rated opponent) never counts."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    first = system.rate(state, newcomer_games(range(1, 9), [1, 1, 1, 1, 1, 1, 0.5, 0]))
    assert np.isnan(system.rating(first)[0])
    second = system.rate(first, newcomer_games([9], [1.0]))
    assert np.isnan(system.rating(second)[0])


def test_international_event_needs_three_rated_opponents():
    """RULES section 2: an event of 4 games v only 2 rated opponents is disregarded."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    scores = [1, 1, 1, 1, 1, 1, 0.5, 0, 0]
    # Event 1: a double round v players 1 and 2 (4 games, 2 rated opponents).
    # Event 2: five games v players 3-7.
    batch = Games.concat(
        [
            newcomer_games([1, 2, 1, 2], scores[:4], event=1, start=JAN),
            newcomer_games(range(3, 8), scores[4:], event=2, start=JAN + 20),
        ]
    )
    out = system.rate(state, batch)
    # Counting event 1 would give 9 games and a rating.
    assert np.isnan(system.rating(out)[0])
    # Three rated opponents are enough: four more games v 8, 9, 8, 9 in one event
    # do not count, four v 1, 2, 8, 9 do.
    double = newcomer_games([8, 9, 8, 9], [0.5] * 4, event=3, start=JAN + 95)
    assert np.isnan(system.rating(system.rate(out, double))[0])
    four = newcomer_games([1, 2, 8, 9], [0.5] * 4, event=4, start=JAN + 95)
    # Event 2 and event 4: 9 games v 1960..2040, 1920, 1940, 2060, 2080.
    ra = (sum(NINE[2:7]) + NINE[0] + NINE[1] + NINE[7] + NINE[8]) / 9
    w = sum(scores[4:]) + 2.0
    expected = np.floor(ra + 25 * (w - 4.5) + 0.5)
    assert system.rating(system.rate(out, four))[0] == expected


@pytest.mark.parametrize(("points", "counted"), [(0.0, False), (0.5, False), (1, True)])
def test_international_event_needs_more_than_half_a_point(points, counted):
    """RULES section 2: an event where the newcomer scored 0 or 1/2 is disregarded."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    weak = [points, 0.0, 0.0]
    first = system.rate(state, newcomer_games([1, 2, 3], weak))
    # Six more games in the next period: nine in all only if the first event counts.
    out = system.rate(first, newcomer_games(range(4, 10), [1.0] * 6))
    if counted:
        ra = sum(NINE) / 9
        assert system.rating(out)[0] == np.floor(ra + 25 * (7 - 4.5) + 0.5)
    else:
        assert np.isnan(system.rating(out)[0])


@pytest.mark.parametrize(("gap", "rated"), [(7, True), (8, False)])
def test_international_pool_spans_eight_periods(gap, rated):
    """RULES section 2: results pool over the same and the next 7 periods."""
    system = Classic()
    state = state_of(system, [np.nan, *NINE])
    scores = [1, 1, 1, 1, 1, 1, 0.5, 0, 0]
    state = system.rate(state, newcomer_games(range(1, 6), scores[:5]))
    for _ in range(gap - 1):
        state = system.rate(state, no_games())
    out = system.rate(state, newcomer_games(range(6, 10), scores[5:]))
    if rated:
        assert system.rating(out)[0] == 2050
    else:
        assert np.isnan(system.rating(out)[0])


def test_international_initial_below_floor_not_published():
    """RULES section 2: a first rating under the 1200 floor is not published."""
    system = Classic()
    state = state_of(system, [np.nan] + [1300] * 9)
    # 1/9 = .11 -> -dp(.89) = -351: 1300 - 351 = 949.
    scores = [1] + [0] * 8
    out = system.rate(state, newcomer_games(range(1, 10), scores))
    assert np.isnan(system.rating(out)[0])


# --- National initial rating (seed 004) -----------------------------------------


def test_national_single_newcomer():
    """Seed 004: 7 games, 5 points v an average of 1800 -> 1800 + 116.67 = 1917."""
    system = Classic(initial="national")
    opps = [1700, 1750, 1800, 1800, 1800, 1850, 1900]
    state = state_of(system, [np.nan, *opps])
    scores = [1, 1, 1, 1, 1, 0, 0]
    start = 1800 + 700 * (5 / 7 - 0.5) * 7 / 9
    assert start == pytest.approx(1916.67, abs=5e-3)
    out = system.rate(state, newcomer_games(range(1, 8), scores))
    assert system.rating(out)[0] == 1917
    assert out.n_games[0] == 7
    # The opponents' games are rated against 1917 (K 15): 1700 v 1917, D -217
    # -> .22, lost: -3.3 -> -3; 1900 v 1917, D -17 -> .48, won: +7.8 -> +8.
    delta = system.rating(out)[1:] - np.array(opps)
    assert delta[[0, 6]].tolist() == [-3, 8]


def test_national_needs_seven_games():
    """Seed 004: 6 games are not published, yet rated for the opponents."""
    system = Classic(initial="national")
    opps = [1800] * 6
    state = state_of(system, [np.nan, *opps])
    scores = [1, 1, 1, 1, 0.5, 0]
    # Start 1800 + 700 * (4.5 / 6 - .5) * 6 / 8 = 1931.25 -> 1931.
    out = system.rate(state, newcomer_games(range(1, 7), scores))
    assert np.isnan(system.rating(out)[0])
    # The 1800 who beat him (D -131 -> .32, K 15): +10.2 -> +10.
    assert system.rating(out)[6] == 1810
    # A seventh game next period publishes him from all seven.
    state = state_of(system, [np.nan, *opps, 1800])
    first = system.rate(state, newcomer_games(range(1, 7), scores))
    second = system.rate(first, newcomer_games([7], [0.5]))
    mean = (6 * 1800 + 1800) / 7
    expected = np.floor(mean + 700 * (5 / 7 - 0.5) * 7 / 9 + 0.5)
    assert system.rating(second)[0] == expected


def two_newcomers():
    """X (0) and Y (1) met each other; A-E (2-6) are rated 1800..1600."""
    ratings = [np.nan, np.nan, 1800, 1900, 2000, 1700, 1600]
    # X: beats A, draws B, loses to C, beats Y. Y: draws D, beats E.
    batch = games([0, 0, 0, 0, 1, 1], [2, 3, 4, 1, 5, 6], [1, 0.5, 0, 1, 0.5, 1])
    return ratings, batch


def solve_two_newcomers():
    """X = (5700 + Y) / 4 + b_X, Y = (3300 + X) / 3 + b_Y, solved by hand."""
    b_x = 700 * (2.5 / 4 - 0.5) * 4 / 6
    b_y = 700 * (1.5 / 3 - 0.5) * 3 / 5
    # X - Y / 4 = 5700 / 4 + b_x and -X / 3 + Y = 3300 / 3 + b_y; Cramer's rule:
    det = 1 - 1 / 12
    rhs_x, rhs_y = 5700 / 4 + b_x, 3300 / 3 + b_y
    x = (rhs_x + rhs_y / 4) / det
    y = (rhs_y + rhs_x / 3) / det
    return x, y


def test_national_two_newcomers_pure():
    """Seed 004: newcomers who met are iterated to constancy (the linear solution)."""
    x, y = solve_two_newcomers()
    assert (x, y) == pytest.approx((1918.18, 1739.39), abs=5e-3)
    ratings, batch = two_newcomers()
    r = np.array(ratings)
    player = np.concatenate([batch.white, batch.black])
    opp = np.concatenate([batch.black, batch.white])
    score = np.concatenate([batch.score, 1 - batch.score])
    mine = np.isnan(r[player])
    start = national_start_values(
        r.size, player[mine], opp[mine], r[opp[mine]], score[mine], np.isnan(r)
    )
    assert start[:2] == pytest.approx([x, y], abs=1e-6)
    assert np.isnan(start[2:]).all()


def test_national_two_newcomers_through_rate():
    """Seed 004: X 1918 and Y 1739 published; A is rated against X's start value."""
    x, y = solve_two_newcomers()
    ratings, batch = two_newcomers()
    published = Classic(initial="national", min_initial_games=3)
    state = state_of(published, ratings)
    out = published.rate(state, batch)
    assert system_rating(published, out)[:2] == [round(x), round(y)]
    # A (1800, K 15) lost to X (1918): D -118 -> .34, -5.1 -> -5.
    assert system_rating(published, out)[2] == 1795
    # With the default 7 games neither is published, A's game is still rated.
    default = Classic(initial="national")
    out = default.rate(state_of(default, ratings), batch)
    assert np.isnan(default.rating(out)[:2]).all()
    assert default.rating(out)[2] == 1795


def system_rating(system, state):
    """Ratings as a list."""
    return system.rating(state).tolist()


def test_national_keeps_the_published_lists():
    """RULES section 2: a newcomer's start value never enters a published list."""
    system = Classic(initial="national")
    state = state_of(system, [np.nan] + [1800] * 5)
    # 3.5/4: start 1800 + 700 * .375 * 4 / 6 = 1975, not published (4 < 7 games).
    out = system.rate(state, newcomer_games([1, 2, 3, 4], [1, 1, 1, 0.5]))
    assert np.isnan(system.rating(out)[0])
    assert np.isnan(out.list_rating[:, 0]).all()


def test_national_event_from_the_previous_list():
    """Seed 004: a game v a newcomer from last quarter's event uses his start now."""
    system = Classic(initial="national")
    state = state_of(system, [np.nan] + [1800] * 5)
    april = system.rate(state, newcomer_games([1, 2, 3, 4], [1, 1, 1, 0.5]))
    # An event that started on 20 January, rated in the April period: 5 beats the
    # newcomer. Five games, 3.5 points: start 1800 + 700 * .2 * 5 / 7 = 1900.
    # 1800 v 1900: D -100 -> .36, K 15: +9.6 -> +10 (the stale 1975 would give
    # +11; leaving the game unrated, 0).
    old = games([5], [0], [1.0], event=1, start=JAN + 19)
    assert change(system, april, old)[5] == 10


def test_national_reentry_keeps_g():
    """RULES sections 1, 2: G is kept after a drop below the floor (national rule)."""
    system = Classic(initial="national")
    state = state_of(system, [1205, 1205] + [1300] * 7)
    # K 15: 1205 loses -7.5 -> -8, 1197: off the list, G 51.
    out = system.rate(state, games([0], [1], [0.0]))
    assert np.isnan(system.rating(out)[0])
    assert out.n_games[0] == 51
    # Seven games v 1300s, 3.5 points: start 1300, published with G 51 + 7 = 58, so
    # K 15 (not 25).
    back = system.rate(out, newcomer_games(range(2, 9), [1, 1, 1, 0.5, 0, 0, 0]))
    assert system.rating(back)[0] == 1300
    assert back.n_games[0] == 58
    assert back.k[0] == 15


def test_national_newcomer_below_floor_not_published():
    """RULES section 2: a national start value under 1200 is not published."""
    system = Classic(initial="national")
    state = state_of(system, [np.nan] + [1250] * 7)
    # 0.5/7: 1250 + 700 * (.5 / 7 - .5) * 7 / 9 = 1016.7.
    out = system.rate(state, newcomer_games(range(1, 8), [0.5] + [0] * 6))
    assert np.isnan(system.rating(out)[0])


# --- Random periods -------------------------------------------------------------


def random_period(rng, state, period, n_players):
    """Random games between random players: the stronger on the list wins 70 %.

    A quarter of the events started on the previous list (when one is kept).
    """
    n_games = int(rng.integers(0, 80))
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    r = np.where(np.isnan(state.rating), 1300.0, state.rating)
    stronger_white = r[white] >= r[black]
    u = rng.random(n_games)
    score = np.where(u < 0.7, 1.0, np.where(u < 0.85, 0.5, 0.0))
    score = np.where(stronger_white, score, 1.0 - score)
    event = rng.integers(0, 4, n_games)
    lists = state.list_day
    previous = lists[-2] if lists.size > 1 else lists[-1]
    start = np.where(event == 0, previous + 5, lists[-1] + event)
    return Games(white, black, score, event=event + 10 * period, event_start=start)


@pytest.mark.parametrize("initial", ["international", "national"])
@pytest.mark.parametrize("seed", SEEDS)
def test_no_rated_player_below_the_floor(seed, initial):
    """RULES section 2: over many random periods no published rating is below 1200."""
    rng = np.random.default_rng(seed)
    n_players = 40
    system = Classic(initial=initial)
    ratings = rng.integers(1200, 1280, n_players).astype(float)
    ratings[:6] = rng.integers(1500, 1900, 6)
    ratings[rng.random(n_players) < 0.3] = np.nan
    g = rng.integers(0, 60, n_players)
    state = system.new_state(n_players, day=JAN, rating=ratings, n_games=g)
    dropped = 0
    for period in range(24):
        before, g_before = system.rating(state), state.n_games
        lists_before = state.list_rating
        state = system.rate(state, random_period(rng, state, period, n_players))
        r = system.rating(state)
        rated = ~np.isnan(r)
        dropped += int((~np.isnan(before) & ~rated).sum())
        assert (r[rated] >= 1200).all()
        assert np.array_equal(r[rated], np.round(r[rated]))
        assert set(state.k[rated].tolist()) <= {10, 15, 25}
        assert (state.k[~rated] == 0).all()
        # G never falls, not even for a player who re-enters the list.
        assert (state.n_games >= g_before).all()
        # Pooled or unrated games enter G only with a published rating (for a
        # player unrated on every list the period's events used).
        still = np.isnan(lists_before).all(axis=0) & ~rated
        assert np.array_equal(state.n_games[still], g_before[still])
        # Kept lists hold published ratings only: whole numbers or NaN.
        kept = state.list_rating[~np.isnan(state.list_rating)]
        assert np.array_equal(kept, np.round(kept))
        assert (kept >= 1200).all()
    assert dropped > 0  # the floor was exercised
