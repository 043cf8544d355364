"""FIDE Elo (docs/rules.md, section 1) through the public system API.

Each worked example names its source: a rule of docs/rules.md (``RULES X`` in a
docstring is docs/rules.md, section 1, X) or a seed page (002 is the Croatian
calculator page; docs/rules.md says what the seed pages are). Expected numbers
are worked out by hand from the rules, never taken from the code under test.
"""

import os

import numpy as np
import pytest

from simulator.systems import make_system
from simulator.systems._common import Games, day_of
from simulator.systems.fide import Fide, fide_2024, initial_rating, k_factor
from simulator.systems.tables import dp_from_p

MAR = day_of("2024-03-01")
APR = day_of("2024-04-01")
MAY = day_of("2024-05-01")

#: The five games of FIDE's published first rating (docs/rules.md, section 1).
EXAMPLE_OPPONENTS = [1902, 1877, 1884, 2012, 1832]
EXAMPLE_SCORES = [0.5, 0.5, 1.0, 0.0, 1.0]

#: Random tests run one seed; RATINGSIM_SEED_SWEEP=1 runs range(100).
SEEDS = range(100) if os.environ.get("RATINGSIM_SEED_SWEEP") else [0]


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


def state_of(system, ratings, *, g=50, birth_year=None, day=MAR):
    """A list on ``day`` holding ``ratings`` (NaN = unrated, G 0), rated G ``g``."""
    ratings = np.asarray(ratings, dtype=float)
    g = np.where(np.isnan(ratings), 0, np.broadcast_to(np.asarray(g), ratings.shape))
    return system.new_state(
        ratings.size, day=day, rating=ratings, n_games=g, birth_year=birth_year
    )


def change(system, state, batch, **kwargs):
    """Every player's rating change over one period."""
    new = system.rate(state, batch, **kwargs)
    return system.rating(new) - system.rating(state)


def newcomer_state(system=None, *, extra=()):
    """Player 0 unrated, players 1-5 the example's opponents, then ``extra``."""
    system = Fide() if system is None else system
    return system, state_of(system, [np.nan, *EXAMPLE_OPPONENTS, *extra])


# --- Expected score and the cap -------------------------------------------------


def test_cap_table_1500_beats_1000():
    """Seed 002 / RULES 8.1.2: 1500 v 1000, K 20: D caps at 400 -> .92, +1.6 a win."""
    system = Fide()
    state = state_of(system, [1500, 1000])
    assert system.expected_score(state, [0], [1]).tolist() == [0.92]
    # Ten wins in one period: 10 * 20 * (1 - .92) = 16 exactly.
    assert change(system, state, repeat(0, 1, 1.0, 10))[0] == 16


def test_cap_formula_1500_beats_1000():
    """Seed 002: with the formula the capped E is .91 and a win gives +1.8."""
    system = Fide(expectation="formula")
    state = state_of(system, [1500, 1000])
    e = 1 / (1 + 10 ** (-400 / 400))
    assert system.expected_score(state, [0], [1])[0] == pytest.approx(e)
    assert round(20 * (1 - e), 1) == 1.8
    # Ten wins: 20 * 10 * (1 - .90909) = 18.18 -> 18 (the table gives 16).
    assert change(system, state, repeat(0, 1, 1.0, 10))[0] == 18
    # A loss in the same game would cost 18.2 (seed 002): ten cost 181.8 -> 182.
    # (The same 500-point gap one level up, so the loser stays above the floor.)
    high = state_of(system, [2000, 1500])
    assert change(system, high, repeat(0, 1, 0.0, 10))[0] == -182


def test_round_expectation_two_decimals_1500_beats_1000():
    """Seed 002: with E rounded to .91 a win is +1.8 and a loss -18.2 exactly."""
    system = Fide(expectation="formula", round_expectation=2)
    state = state_of(system, [1500, 1000])
    assert system.expected_score(state, [0], [1]).tolist() == [0.91]
    assert change(system, state, repeat(0, 1, 1.0, 5))[0] == 9  # 5 * 1.8
    assert change(system, state, repeat(0, 1, 0.0, 5))[0] == -91  # 5 * -18.2


def test_uncapped_formula_1500_beats_1000():
    """Seed 002: without the cap E would be .95, a win +1.1 and a loss -18.9."""
    system = Fide(expectation="formula", cap=None)
    state = state_of(system, [1500, 1000])
    e = system.expected_score(state, [0], [1])[0]
    assert round(float(e), 2) == 0.95
    assert round(20 * (1 - float(e)), 1) == 1.1
    # Ten losses (the same gap one level up, above the floor): 10 * 20 * .9468
    # = 189.4 -> 189.
    high = state_of(system, [2000, 1500])
    assert change(system, high, repeat(0, 1, 0.0, 10))[0] == -189


@pytest.mark.parametrize(
    "system",
    [Fide(expectation="formula", round_expectation=2), Fide()],
    ids=["formula-rounded", "table"],
)
def test_three_game_period(system):
    """Seed 002: 1500 (K 20) beats 1400, draws 1600, loses to 1550: +1.4 -> 1501."""
    state = state_of(system, [1500, 1400, 1600, 1550])
    e = system.expected_score(state, [0, 0, 0], [1, 2, 3])
    assert e.tolist() == pytest.approx([0.64, 0.36, 0.43])
    assert 20 * float(np.sum(np.array([1.0, 0.5, 0.0]) - e)) == pytest.approx(1.4)
    new = system.rate(state, games([0, 2, 3], [1, 0, 0], [1.0, 0.5, 1.0]))
    assert system.rating(new)[0] == 1501


def test_700_rule_k40_20_games():
    """RULES 700 rule: K 40 and 20 games in a period -> K 35 (+350, not +400)."""
    system = Fide()
    state = state_of(system, [2000, 2000], g=[0, 50])
    assert state.k[0] == 40
    assert change(system, state, repeat(0, 1, 1.0, 20))[0] == 35 * 20 * 0.5


def test_700_rule_k20_40_games():
    """RULES 700 rule: K 20 and 40 games -> K 17 (+340, not +400)."""
    system = Fide()
    state = state_of(system, [2000, 2000])
    assert change(system, state, repeat(0, 1, 1.0, 40))[0] == 17 * 40 * 0.5


def test_700_rule_k20_39_games():
    """RULES 700 rule: K 20 and 39 games -> K 17 (17 * 39 * .5 = 331.5 -> +332)."""
    system = Fide()
    state = state_of(system, [2000, 2000])
    assert change(system, state, repeat(0, 1, 1.0, 39))[0] == 332
    off = Fide(rule_700=False)
    assert change(off, state, repeat(0, 1, 1.0, 39))[0] == 390


def test_700_rule_ignores_games_against_unrated():
    """RULES 700 rule: n counts rated games only (18 rated + 5 unrated -> K 38)."""
    system = Fide()
    state = state_of(system, [2000, 2000, np.nan], g=[0, 50, 0])
    batch = Games.concat([repeat(0, 1, 1.0, 18), repeat(0, 2, 1.0, 5)])
    # 700 // 18 = 38; counting the unrated games would give 700 // 23 = 30.
    assert change(system, state, batch)[0] == 38 * 18 * 0.5


def test_2650_exemption_2700_beats_2200():
    """RULES 8.3.1: 2700 beats 2200, K 10: +0.4 (real gap) in 2025, +0.8 in 2024."""
    state_2025 = state_of(Fide(), [2700, 2200])
    assert Fide().expected_score(state_2025, [0], [1]).tolist() == [0.96]
    assert fide_2024().expected_score(state_2025, [0], [1]).tolist() == [0.92]
    # Ten wins: 10 * 10 * .04 = 4 and 10 * 10 * .08 = 8.
    assert change(Fide(), state_2025, repeat(0, 1, 1.0, 10))[0] == 4
    state_2024 = state_of(fide_2024(), [2700, 2200])
    assert change(fide_2024(), state_2024, repeat(0, 1, 1.0, 10))[0] == 8
    # One win rounds to 0 and to +1.
    assert change(Fide(), state_2025, repeat(0, 1, 1.0, 1))[0] == 0
    assert change(fide_2024(), state_2024, repeat(0, 1, 1.0, 1))[0] == 1


def test_fide_2024_is_registered():
    """RULES: the ``fide-2024`` preset is ``fide`` without the exemption."""
    assert make_system("fide-2024") == Fide(exempt_from=None)
    assert make_system("fide") == Fide()
    assert make_system("fide-2024").name == "fide-2024"
    assert make_system("fide").name == "fide"


def test_cap_per_side_2813_v_2400():
    """RULES 8.3.1: 2813 uses the full 413 gap (.93), his 2400 opponent is capped."""
    system = Fide()
    state = state_of(system, [2813, 2400])
    assert system.expected_score(state, [0], [1]).tolist() == [0.93]
    assert system.expected_score(state, [1], [0]).tolist() == [pytest.approx(0.08)]
    # Ten draws, both K 10: 100 * (.5 - .93) = -43 and 100 * (.5 - .08) = +42.
    assert change(system, state, repeat(0, 1, 0.5, 10)).tolist() == [-43, 42]


def test_2650_test_uses_the_events_list():
    """RULES 8.3.1: 2650 is tested on the list the event uses, not the current one."""
    system = Fide()
    # March: A 2645 beats C 2645 (+5) -> 2650 on the April list; B 2200 idle.
    march = state_of(system, [2645, 2200, 2645])
    april = system.rate(march, games([0], [2], [1.0]))
    assert system.rating(april)[:2].tolist() == [2650, 2200]
    # Ten wins over B in an event that started in March: March list, A capped,
    # PD .92, 10 * 10 * .08 = +8.
    march_event = games([0] * 10, [1] * 10, [1.0] * 10, event=1, start=MAR + 20)
    assert change(system, april, march_event)[0] == 8
    # The same games in an April event: A is 2650, exempt, D 450 -> .94, +6.
    april_event = games([0] * 10, [1] * 10, [1.0] * 10, event=2, start=APR + 3)
    assert change(system, april, april_event)[0] == 6


# --- Rounding ---------------------------------------------------------------


def test_rounding_half_away_from_zero():
    """RULES rounding: +2.5 -> +3 and -2.5 -> -3 (Python's round gives 2, -2)."""
    system = Fide()
    # Both K 10; D = 190 -> PD .75: 10 * (1 - .75) = +2.5, 10 * (0 - .25) = -2.5.
    state = state_of(system, [2400, 2590])
    assert change(system, state, games([0], [1], [0.0])).tolist() == [-3, 3]


def test_rounding_event_vs_period():
    """RULES rounding (open): two events of +1.6 give +3 per period, +4 per event."""
    state = state_of(Fide(), [2200, 1800, 1800])
    batch = games([0, 0], [1, 2], [1.0, 1.0], event=[1, 2], start=[MAR, MAR + 10])
    assert change(Fide(), state, batch)[0] == 3  # round(3.2)
    assert change(Fide(rounding="event"), state, batch)[0] == 4  # 2 + 2


def test_rounding_event_keeps_700_rule_for_the_period():
    """RULES 700 rule: with ``rounding="event"`` the period's K still applies."""
    system = Fide(rounding="event")
    state = state_of(system, [2000, 2000], g=[0, 50])
    batch = games(
        [0] * 20,
        [1] * 20,
        [1.0] * 20,
        event=[1] * 10 + [2] * 10,
        start=[MAR] * 10 + [MAR + 10] * 10,
    )
    assert change(system, state, batch)[0] == 2 * 35 * 10 * 0.5


# --- K factor -------------------------------------------------------------------


def test_k_junior_by_list_year():
    """RULES K: a junior (list year - birth year <= 18) has K 40 even with G >= 30."""
    system = Fide()
    state = state_of(system, [2000, 2000, 2000], g=100, birth_year=[2006, 2005, np.nan])
    assert state.k.tolist() == [40, 20, 20]
    # Each beats an adult 2000 once: K * .5.
    out = change(system, state, games([0, 1], [2, 2], [1.0, 1.0]))
    assert out[:2].tolist() == [20, 10]


def test_k_junior_ends_with_the_year():
    """RULES K: born 2006, junior on the December 2024 list, adult in January 2025."""
    system = Fide()
    dec = state_of(system, [2000], g=100, birth_year=[2006], day=day_of("2024-12-01"))
    assert dec.k.tolist() == [40]
    jan = system.rate(dec, no_games())
    assert int(jan.list_day[-1]) == day_of("2025-01-01")
    assert jan.k.tolist() == [20]


@pytest.mark.parametrize(("reading", "k_after"), [("ever", 20), ("current", 40)])
def test_k_junior_after_a_published_2300(reading, k_after):
    """RULES K (open): a junior back under 2300: K 20 ("ever") or 40 ("current")."""
    system = Fide(junior_2300=reading)
    state = state_of(system, [2310, 2310, 2290], g=100, birth_year=[2010, 1980, 1980])
    assert state.k[0] == 20  # 2310 published: no junior K under either reading
    # Two losses at K 20: 2310 -> 2290.
    after = system.rate(state, games([0, 0], [1, 1], [0.0, 0.0]))
    assert system.rating(after)[0] == 2290
    assert after.k[0] == k_after
    assert change(system, after, games([0], [2], [1.0]))[0] == k_after / 2


def test_k_under_30_games():
    """RULES K: an adult has K 40 below 30 games and K 20 from 30 games on."""
    system = Fide()
    state = state_of(system, [2000, 2000, 2000], g=[29, 30, 100])
    assert state.k.tolist() == [40, 20, 20]
    out = change(system, state, games([0, 1], [2, 2], [1.0, 1.0]))
    assert out[:2].tolist() == [20, 10]


def test_k_10_after_2400_is_permanent():
    """RULES K: K 10 once a published rating reached 2400, and after a drop."""
    system = Fide()
    state = state_of(system, [2390, 2390, 2390])
    # 2390 (K 20) beats 2390 -> 2400 on the next list.
    nxt = system.rate(state, games([0], [1], [1.0]))
    assert system.rating(nxt)[0] == 2400
    assert nxt.k[0] == 10
    # A loss at K 10 (-5) takes him back to 2395; K stays 10.
    low = system.rate(nxt, games([0], [2], [0.0]))
    assert system.rating(low)[0] == 2395
    assert low.k[0] == 10
    assert change(system, low, games([0], [2], [1.0]))[0] == 5


def test_k_fixed_inside_the_period():
    """RULES K: crossing 2400 or game 30 inside a period changes K only next list."""
    system = Fide()
    state = state_of(system, [2390, 2390, 1800, 1800], g=[100, 100, 28, 100])
    batch = Games.concat([repeat(0, 1, 1.0, 4), repeat(2, 3, 1.0, 4)])
    out = system.rate(state, batch)
    # All four wins at K 20 (2390 -> 2430) and at K 40 (G 28 -> 32).
    assert (system.rating(out) - system.rating(state))[[0, 2]].tolist() == [40, 80]
    assert out.n_games[2] == 32
    assert out.k[[0, 2]].tolist() == [10, 20]


def test_k_factor_precedence_pure():
    """RULES K precedence: 10 (ever 2400) > junior 40 > 40 under 30 games > 20."""
    k = k_factor(
        [5, 5, 100, 5, 100, 100],
        [True, True, False, False, False, False],
        [True, True, False, True, True, False],
        [2300, 2450, 2100, 2350, 2350, 2100],
        [True, False, True, False, True, False],
    )
    assert k.tolist() == [10, 10, 40, 40, 20, 20]


# --- Lists and events ---------------------------------------------------------


def test_event_uses_the_list_of_its_start_day():
    """RULES periods: a March-April event is rated in April with March's ratings, K."""
    system = Fide()
    # March list: A 1800 with G 29 (K 40), B and C 1800.
    march = state_of(system, [1800, 1800, 1800], g=[29, 100, 100])
    april = system.rate(march, games([0], [1], [1.0]))
    # April list: A 1820, G 30, K 20.
    assert system.rating(april)[0] == 1820
    assert april.k[0] == 20
    # The event started on 25 March and ends in April: March list, A 1800 v C 1800,
    # K 40 -> +20 (the April list would give K 20, PD .53: +9).
    batch = games([0], [2], [1.0], event=7, start=MAR + 24)
    may = system.rate(april, batch)
    assert int(may.list_day[-1]) == MAY
    assert system.rating(may)[[0, 2]].tolist() == [1840, 1790]


def test_event_starting_after_the_list_is_refused():
    """RULES periods: an event cannot be rated on a list dated before it starts."""
    system = Fide()
    state = state_of(system, [2000, 2000])
    with pytest.raises(ValueError, match="cannot be rated"):
        system.rate(state, games([0], [1], [1.0], event=1, start=APR + 2))


def test_rating_constant_inside_a_period():
    """RULES periods: all games of a period use the last list (no change per game)."""
    system = Fide()
    state = state_of(system, [2000, 2000])
    # Five wins against an equal player: 5 * 20 * .5 = 50, not a shrinking gain.
    assert change(system, state, repeat(0, 1, 1.0, 5)).tolist() == [50, -50]


# --- Unrated opponents and first ratings ----------------------------------------


def test_games_against_unrated_change_nothing_and_not_g():
    """RULES unrated: games v an unrated player change nothing and do not count to G."""
    system = Fide()
    state = state_of(system, [2000, np.nan], g=[29, 0])
    out = system.rate(state, repeat(0, 1, 1.0, 5))
    assert system.rating(out)[0] == 2000
    assert out.n_games[0] == 29
    assert out.k[0] == 40


def test_game_between_two_unrated_is_rated_for_neither():
    """RULES unrated: unrated v unrated counts toward neither the 5 games nor G."""
    system, state = newcomer_state(extra=[np.nan])
    # Ten games between the newcomers (0 and 6), four v rated (the example's first
    # four): still unrated, and G untouched.
    batch = Games.concat(
        [repeat(0, 6, 1.0, 10), games([0, 0, 0, 0], [1, 2, 3, 4], EXAMPLE_SCORES[:4])]
    )
    out = system.rate(state, batch)
    assert np.isnan(system.rating(out)[[0, 6]]).all()
    assert out.n_games[[0, 6]].tolist() == [0, 0]
    # The fifth game v a rated player completes the five: Ru from those five only.
    out = system.rate(out, games([0], [5], [EXAMPLE_SCORES[4]]))
    assert system.rating(out)[0] == 1922
    assert out.n_games[0] == 5


def test_initial_rating_example_pure():
    """RULES initial rating: 1902 .5, 1877 .5, 1884 1, 2012 0, 1832 1 -> Ru 1922."""
    total = sum(EXAMPLE_OPPONENTS)
    assert total == 9507
    ra = (total + 2 * 1800) / 7
    assert ra == pytest.approx(1872.43, abs=5e-3)
    p = (sum(EXAMPLE_SCORES) + 1) / 7
    assert round(p, 2) == 0.57
    assert dp_from_p(57).item() == 50
    assert initial_rating(total, 5, sum(EXAMPLE_SCORES)).item() == 1922
    # Ra moves by 1 when the opponents' sum moves by 7 (n + 2 hypothetical).
    assert initial_rating(total + 7, 5, sum(EXAMPLE_SCORES)).item() == 1923
    assert np.isnan(initial_rating(total, 4, 3).item())


def test_initial_rating_example_through_rate():
    """RULES initial rating: the example rated in one period gives 1922, G 5, K 40."""
    system, state = newcomer_state()
    batch = games([0] * 5, [1, 2, 3, 4, 5], EXAMPLE_SCORES)
    out = system.rate(state, batch)
    assert system.rating(out)[0] == 1922
    assert out.n_games[0] == 5
    assert out.k[0] == 40
    # Pooled games change nothing for the opponents.
    assert system.rating(out)[1:].tolist() == EXAMPLE_OPPONENTS
    assert out.n_games[1:].tolist() == [50] * 5
    # From the next list the new player is rated like anyone else, with K 40.
    nxt = system.rate(out, games([0], [1], [1.0]))
    pd = 50 + 3  # D = 1922 - 1902 = 20 -> .53
    assert system.rating(nxt)[0] == 1922 + round(40 * (100 - pd) / 100)


def test_fewer_than_five_games_pool_across_periods():
    """RULES initial rating: 3 games stay unrated; 2 more next period give 1922."""
    system, state = newcomer_state()
    first = system.rate(state, games([0] * 3, [1, 2, 3], EXAMPLE_SCORES[:3]))
    assert np.isnan(system.rating(first)[0])
    assert first.k[0] == 0
    second = system.rate(first, games([0, 0], [4, 5], EXAMPLE_SCORES[3:]))
    assert system.rating(second)[0] == 1922
    assert second.n_games[0] == 5


def test_first_event_with_zero_points_leaves_the_pool():
    """RULES 8.2: a first event with 0 points is dropped for good, later ones count."""
    system, state = newcomer_state(extra=[2000, 2000, 2000])
    # Period 1: first event, three losses to 2000s.
    first = system.rate(state, games([0] * 3, [6, 7, 8], [0.0] * 3))
    assert np.isnan(system.rating(first)[0])
    # Period 2: the example's five games; with the zero event they would be 8.
    second = system.rate(first, games([0] * 5, [1, 2, 3, 4, 5], EXAMPLE_SCORES))
    with_zero = initial_rating(9507 + 6000, 8, 3).item()
    assert with_zero != 1922
    assert system.rating(second)[0] == 1922


def test_first_event_is_the_earliest_by_start_day():
    """RULES 8.2: in one period the first event is the one that started first."""
    system, state = newcomer_state(extra=[2000, 2000, 2000])
    zero = games([0] * 3, [6, 7, 8], [0.0] * 3, event=9, start=MAR + 1)
    example = games([0] * 5, [1, 2, 3, 4, 5], EXAMPLE_SCORES, event=3, start=MAR + 10)
    out = system.rate(state, Games.concat([example, zero]))
    assert system.rating(out)[0] == 1922


def test_zero_score_in_a_later_event_counts():
    """RULES 8.2: only the first event's zero is dropped; a later 0 stays pooled."""
    system, state = newcomer_state()
    # Event 1 (1 point), then event 2 (a loss to 2012, 0 points), same period.
    batch = games(
        [0, 0, 0],
        [1, 2, 4],
        [0.5, 0.5, 0.0],
        event=[1, 1, 2],
        start=[MAR, MAR, MAR + 10],
    )
    first = system.rate(state, batch)
    assert np.isnan(system.rating(first)[0])
    # Two wins complete five games only if the zero event stayed in the pool.
    second = system.rate(first, games([0, 0], [3, 5], [1.0, 1.0]))
    assert system.rating(second)[0] == 1922


@pytest.mark.parametrize(("gap", "rated"), [(25, True), (26, False)])
def test_pool_keeps_26_periods(gap, rated):
    """RULES initial rating (open): results older than 26 periods drop out."""
    system, state = newcomer_state()
    state = system.rate(state, games([0] * 3, [1, 2, 3], EXAMPLE_SCORES[:3]))
    for _ in range(gap - 1):
        state = system.rate(state, no_games())
    # The period ``gap`` periods after the first one.
    out = system.rate(state, games([0, 0], [4, 5], EXAMPLE_SCORES[3:]))
    assert out.period == gap + 1
    if rated:
        assert system.rating(out)[0] == 1922
    else:
        assert np.isnan(system.rating(out)[0])


def test_pool_recomputed_when_old_results_drop_out():
    """RULES initial rating: every period with games recomputes, also v unrated only."""
    system = Fide()
    opps = [1, 2, 3, 4, 5]
    start = state_of(system, [np.nan] + [1400] * 5 + [np.nan])
    # Period 0: 0.5/5 (Ru 1284). Period 1: 3/5 more; ten games, 3.5 points:
    # Ra 1466.67, p 4.5/12 = .375 -> .38, dp -87 -> 1380: still unpublished.
    state = system.rate(start, games([0] * 5, opps, [0.5, 0, 0, 0, 0]))
    state = system.rate(state, games([0] * 5, opps, [1, 1, 1, 0, 0]))
    assert np.isnan(system.rating(state)[0])
    for _ in range(24):
        state = system.rate(state, no_games())
    # Period 26: period 0 leaves the window. Without games nothing is recomputed.
    idle = system.rate(state, no_games())
    assert np.isnan(system.rating(idle)[0])
    # With a game (even v an unrated player) the pool is recomputed: period 1
    # alone is 3/5, Ra 1514.29, p 4/7 -> .57, dp 50 -> 1564.
    out = system.rate(state, games([0], [6], [1.0]))
    assert out.period == 27
    assert system.rating(out)[0] == 1564
    assert out.n_games[0] == 5


def test_initial_rating_capped_at_2200():
    """RULES initial rating: Ru is limited to 2200 (5 wins v 2300s)."""
    system = Fide()
    state = state_of(system, [np.nan] + [2300] * 5)
    uncapped = initial_rating(5 * 2300, 5, 5, max_rating=np.inf).item()
    # (11500 + 3600) / 7 + dp(.86) = 2157.14 + 309
    assert uncapped == 2466
    out = system.rate(state, games([0] * 5, [1, 2, 3, 4, 5], [1.0] * 5))
    assert system.rating(out)[0] == 2200


def test_initial_rating_below_1400_not_published():
    """RULES initial rating: Ru 1284 < 1400 is not published; pooling goes on."""
    system = Fide()
    state = state_of(system, [np.nan] + [1400] * 5)
    opps = [1, 2, 3, 4, 5]
    # Ra (7000 + 3600) / 7 = 1514.29, p 1.5 / 7 -> .21, dp -230 -> 1284.
    first = system.rate(state, games([0] * 5, opps, [0.5, 0, 0, 0, 0]))
    assert np.isnan(system.rating(first)[0])
    assert system.rating(first)[1:].tolist() == [1400] * 5
    # Ten games, 5 points: Ra (14000 + 3600) / 12 = 1466.67, p .50 -> 1467.
    second = system.rate(first, games([0] * 5, opps, [1, 1, 1, 1, 0.5]))
    assert system.rating(second)[0] == 1467
    assert second.n_games[0] == 10


def test_opponent_rated_in_the_same_period_counts_as_unrated():
    """RULES unrated: a newcomer's games this period are unrated for his opponent."""
    system, state = newcomer_state(extra=[2000])
    # The example plus a loss to player 6 (2000) in the same period.
    batch = Games.concat(
        [games([0] * 5, [1, 2, 3, 4, 5], EXAMPLE_SCORES), games([6], [0], [1.0])]
    )
    out = system.rate(state, batch)
    # Six pooled games (9507 + 2000, 3 points) for the newcomer, nothing for 6.
    assert system.rating(out)[0] == initial_rating(9507 + 2000, 6, 3).item()
    assert system.rating(out)[6] == 2000
    assert out.n_games[6] == 50


def test_opponent_rated_since_the_events_list_counts_as_unrated():
    """RULES unrated: rated on the April list, unrated on the March list of an event."""
    system, state = newcomer_state(extra=[2000])
    april = system.rate(state, games([0] * 5, [1, 2, 3, 4, 5], EXAMPLE_SCORES))
    assert system.rating(april)[0] == 1922
    # A March event rated in April: 0 was unrated on the March list.
    old_event = games([6], [0], [1.0], event=5, start=MAR + 25)
    assert change(system, april, old_event)[6] == 0
    new_event = games([6], [0], [1.0], event=6, start=APR + 2)
    assert change(system, april, new_event)[6] > 0


# --- The floor ------------------------------------------------------------------


def test_floor_drop_makes_unrated_and_keeps_g():
    """RULES floor: 1405 loses -10 -> 1395: unrated next list, G kept, B still gains."""
    system = Fide()
    state = state_of(system, [1405, 1405] + [1600] * 5)
    out = system.rate(state, games([0], [1], [0.0]))
    assert np.isnan(system.rating(out)[0])
    assert system.rating(out)[1] == 1415
    assert out.n_games[0] == 51
    assert out.k[0] == 0
    # The new pool starts empty: four games are not enough...
    four = system.rate(out, games([0] * 4, [2, 3, 4, 5], [0.5] * 4))
    assert np.isnan(system.rating(four)[0])
    # ... and the fifth gives Ru = (5 * 1600 + 3600) / 7 = 1657.14 (p .50) -> 1657,
    # with G 51 + 5 = 56 and so K 20.
    five = system.rate(four, games([0], [6], [0.5]))
    assert system.rating(five)[0] == 1657
    assert five.n_games[0] == 56
    assert five.k[0] == 20


def test_floor_from_the_initial_list():
    """RULES floor: a rating of exactly 1400 stays, 1399 would be dropped."""
    system = Fide()
    # 1410 (K 20) draws 1430 (D -20 -> .47): +0.6 -> +1; 1409 loses to 1430
    # (D -21 -> .47): -9.4 -> -9, exactly 1400.
    state = state_of(system, [1410, 1430, 1409, 1430])
    out = system.rate(state, games([0, 2], [1, 3], [0.5, 0.0]))
    assert system.rating(out)[[0, 2]].tolist() == [1411, 1400]
    # 1400 loses to 1439 (D -39 -> .45): -9 -> 1391, off the list.
    out = system.rate(out, games([2], [3], [0.0]))
    assert np.isnan(system.rating(out)[2])


def random_period(rng, state, period, n_players):
    """Random games between random players: the stronger on the list wins 70 %.

    A quarter of the events started on the previous list (when one is kept).
    """
    n_games = int(rng.integers(0, 80))
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    r = np.where(np.isnan(state.rating), 1500.0, state.rating)
    stronger_white = r[white] >= r[black]
    u = rng.random(n_games)
    score = np.where(u < 0.7, 1.0, np.where(u < 0.85, 0.5, 0.0))
    score = np.where(stronger_white, score, 1.0 - score)
    event = rng.integers(0, 4, n_games)
    lists = state.list_day
    previous = lists[-2] if lists.size > 1 else lists[-1]
    start = np.where(event == 0, previous + 5, lists[-1] + event)
    return Games(white, black, score, event=event + 10 * period, event_start=start)


@pytest.mark.parametrize("seed", SEEDS)
def test_no_rated_player_below_the_floor(seed):
    """RULES floor: over many random periods no published rating is below 1400."""
    rng = np.random.default_rng(seed)
    n_players = 40
    system = Fide(rounding="event" if seed % 2 else "period")
    ratings = rng.integers(1400, 1480, n_players).astype(float)
    ratings[:6] = rng.integers(1700, 2100, 6)
    ratings[rng.random(n_players) < 0.3] = np.nan
    state = system.new_state(
        n_players,
        day=MAR,
        rating=ratings,
        n_games=rng.integers(0, 60, n_players),
        birth_year=rng.choice([np.nan, 2008.0, 1990.0], n_players),
    )
    dropped = 0
    for period in range(36):
        before, g_before = system.rating(state), state.n_games
        lists_before = state.list_rating
        state = system.rate(state, random_period(rng, state, period, n_players))
        r = system.rating(state)
        rated = ~np.isnan(r)
        dropped += int((~np.isnan(before) & ~rated).sum())
        assert (r[rated] >= 1400).all()
        assert np.array_equal(r[rated], np.round(r[rated]))
        assert set(state.k[rated].tolist()) <= {10, 20, 40}
        assert (state.k[~rated] == 0).all()
        # G never falls, not even when a player drops off the list.
        assert (state.n_games >= g_before).all()
        # Pooled or unrated games enter G only with a published rating (for a
        # player unrated on every list the period's events used).
        still = np.isnan(lists_before).all(axis=0) & ~rated
        assert np.array_equal(state.n_games[still], g_before[still])
    assert dropped > 0  # the floor was exercised


def test_initial_rating_2014_formula_by_hand():
    """Pre-2024 first rating (B.02 2014-2024, 7.1.4): +20 per half point above 50 %."""
    from simulator.systems.fide import initial_rating_2014

    # 6 games against 1700, 1800, 1900, 2000, 2100, 2200: Ra = 11700 / 6 = 1950.
    # 4.5 points: 1.5 above 3, three half points -> +60 -> 2010.
    assert initial_rating_2014(11700, 6, 4.5).item() == 2010.0
    # 2 points: p = .33 -> dp(.33) = -dp(.67) = -125 -> 1825.
    assert initial_rating_2014(11700, 6, 2).item() == 1825.0
    # Four games are not enough.
    assert np.isnan(initial_rating_2014(7800, 4, 2).item())


def test_initial_2014_option_through_rate():
    """Fide(initial="2014") publishes the old formula's rating, not the 2024 one."""
    rated = [1902, 1877, 1884, 2012, 1832]
    results = [0.5, 0.5, 1.0, 0.0, 1.0]
    for initial, expected in (("2024", 1922.0), ("2014", 1921.0)):
        system = Fide(initial=initial)
        state = system.new_state(
            6, day=day_of("2025-01-01"), rating=[np.nan, *rated], n_games=[0] + [50] * 5
        )
        games = Games([0] * 5, [1, 2, 3, 4, 5], results)
        # 2014: Ra = 9507 / 5 = 1901.4; 3 of 5 is 0.5 above 2.5 -> +20 -> 1921.4
        # ... rounded half up 1921; with the 2024 rule 1922 (docs/rules.md, section 1).
        assert system.rating(system.rate(state, games))[0] == expected


def test_initial_option_is_validated():
    """An unknown initial-rating rule names the parameter and the value."""
    with pytest.raises(ValueError, match=r"'initial'.*'1999'"):
        Fide(initial="1999")
