"""Lichess's Glicko-2: reference vectors from scalachess, growth, clamps, regulator."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from simulator.systems import SYSTEMS, Games
from simulator.systems.lichess import (
    COLOUR_ADVANTAGE,
    RATING,
    RD,
    REGULATOR_FACTORS,
    VOLATILITY,
    Lichess,
    LichessState,
    grow_rd,
    provisional,
    rate_round,
)

#: scalachess ``ColorAdvantage.crazyhouse``, only for the reference vectors.
CRAZYHOUSE = 20.30966

PLAIN = Lichess(colour_advantage=False, regulator=False)
STANDARD = Lichess(colour_advantage=True, regulator=False)


def one_game(
    system: Lichess,
    white: tuple[float, float, float],
    black: tuple[float, float, float],
    score: float,
) -> LichessState:
    """Two players with the given (rating, rd, volatility) play one game, day 0."""
    state = system.new_state(
        2,
        rating=[white[0], black[0]],
        rd=[white[1], black[1]],
        volatility=[white[2], black[2]],
    )
    return system.rate(state, Games([0], [1], [score]), day=0.0)


# scalachess test-kit/src/test/scala/rating/glicko/GlickoCalculatorTest.scala and
# GlickoCalculatorWithColorAdvantageTest.scala (computeGame with
# skipDeviationIncrease = true). Per case: White, Black, White's score, then for
# no advantage, the standard advantage and the crazyhouse advantage:
# (white rating, black rating, white RD, black RD, white sigma, black sigma).
EQUAL = (1500.0, 350.0, 0.06)
MIXED_W, MIXED_B = (1400.0, 79.0, 0.06), (1550.0, 110.0, 0.065)
MORE_W, MORE_B = (1200.0, 60.0, 0.053), (1850.0, 200.0, 0.062)
CALCULATOR_CASES = [
    (
        EQUAL,
        EQUAL,
        1.0,
        (1662.21, 1337.79, 290.2305, 290.2305, 0.0599993, 0.0599993),
        (1658.56, 1341.44, 290.2538, 290.2538, 0.0599992, 0.0599992),
        (1655.95, 1344.05, 290.2998, 290.2998, 0.0599992, 0.0599992),
    ),
    (
        EQUAL,
        EQUAL,
        0.0,
        (1337.79, 1662.21, 290.2305, 290.2305, 0.0599993, 0.0599993),
        (1334.08, 1665.92, 290.2538, 290.2538, 0.0599993, 0.0599993),
        (1331.37, 1668.63, 290.2998, 290.2998, 0.0599994, 0.0599994),
    ),
    (
        EQUAL,
        EQUAL,
        0.5,
        (1500.00, 1500.00, 290.2305, 290.2305, 0.0599977, 0.0599977),
        (1496.32, 1503.68, 290.2538, 290.2538, 0.0599977, 0.0599977),
        (1493.66, 1506.34, 290.2998, 290.2998, 0.0599977, 0.0599977),
    ),
    (
        MIXED_W,
        MIXED_B,
        1.0,
        (1422.63, 1506.32, 77.4956, 105.8706, 0.06, 0.065),
        (1422.16, 1507.28, 77.4603, 105.7716, 0.06, 0.065),
        (1421.81, 1507.98, 77.4359, 105.7032, 0.06, 0.065),
    ),
    (
        MIXED_W,
        MIXED_B,
        0.0,
        (1389.99, 1568.90, 77.4956, 105.8706, 0.06, 0.065),
        (1389.55, 1569.75, 77.4603, 105.7716, 0.06, 0.065),
        (1389.22, 1570.37, 77.4359, 105.7032, 0.06, 0.065),
    ),
    (
        MIXED_W,
        MIXED_B,
        0.5,
        (1406.31, 1537.61, 77.4956, 105.8706, 0.06, 0.065),
        (1405.85, 1538.51, 77.4603, 105.7716, 0.06, 0.065),
        (1405.52, 1539.17, 77.4359, 105.7032, 0.06, 0.065),
    ),
    (
        MORE_W,
        MORE_B,
        1.0,
        (1216.73, 1635.99, 59.9006, 196.9873, 0.053013, 0.062028),
        (1216.68, 1636.77, 59.8952, 196.7954, 0.053013, 0.062028),
        (1216.65, 1637.36, 59.8912, 196.6495, 0.053013, 0.062028),
    ),
    (
        MORE_W,
        MORE_B,
        0.0,
        (1199.29, 1855.42, 59.9006, 196.9873, 0.052999, 0.061999),
        (1199.25, 1855.77, 59.8952, 196.7954, 0.052999, 0.061999),
        (1199.22, 1856.04, 59.8912, 196.6495, 0.052999, 0.061999),
    ),
    (
        MORE_W,
        MORE_B,
        0.5,
        (1208.01, 1745.71, 59.9006, 196.9873, 0.053002, 0.062006),
        (1207.97, 1746.27, 59.8952, 196.7954, 0.053002, 0.062006),
        (1207.94, 1746.70, 59.8912, 196.6495, 0.053002, 0.062006),
    ),
]
#: The tests' own tolerances: ratings 0.005, RD 0.00005; sigma 1e-7 for the
#: equal case, 1e-5 (mixed) and 1e-6 (more mixed) for the others.
SIGMA_TOL = {EQUAL: 1e-7, MIXED_W: 1e-5, MORE_W: 1e-6}


def assert_vector(
    state: LichessState | tuple[np.ndarray, np.ndarray, np.ndarray],
    want: tuple[float, ...],
    sigma_tol: float,
) -> None:
    """Compare a two-player result with a scalachess vector at its precision."""
    rating, rd, volatility = state[0], state[1], state[2]
    assert_allclose(rating, want[0:2], rtol=0, atol=0.005)
    assert_allclose(rd, want[2:4], rtol=0, atol=0.00005)
    assert_allclose(volatility, want[4:6], rtol=0, atol=sigma_tol)


@pytest.mark.parametrize(
    ("white", "black", "score", "plain", "std", "zh"), CALCULATOR_CASES
)
def test_scalachess_calculator_vectors(white, black, score, plain, std, zh):
    """The GlickoCalculator(WithColorAdvantage)Test vectors of scalachess."""
    tol = SIGMA_TOL[white]
    assert_vector(one_game(PLAIN, white, black, score), plain, tol)
    assert_vector(one_game(STANDARD, white, black, score), std, tol)
    zh_out = rate_round(
        [white[0], black[0]],
        [white[1], black[1]],
        [white[2], black[2]],
        [0],
        [1],
        [score],
        advantage=CRAZYHOUSE,
    )
    assert_vector(zh_out, zh, tol)


def test_lichess_calculator_example_as_rules_state_it():
    """docs/rules.md, section 4: 1500/350/0.06 each, 1-0: 1662.21, 1337.79, RD 290.2."""
    out = one_game(PLAIN, EQUAL, EQUAL, 1.0)
    assert round(float(out.rating[0]), 2) == 1662.21
    assert round(float(out.rating[1]), 2) == 1337.79
    assert out.rd[0] == out.rd[1]
    assert round(float(out.rd[0]), 4) == 290.2305


# scalachess test-kit/src/test/scala/rating/glicko/impl/RatingCalculatorTest.scala
# (updateRatings with skipDeviationIncrease, no colour advantage); its tolerance
# is 1 point on rating and RD, 1e-7 (new players) or 1e-5 on sigma. The last RD
# of the mixed draw has tolerance 0.01 there.
NEW = (1500.0, 500.0, 0.09)
OLD = (1500.0, 80.0, 0.06)
IMPL_CASES = [
    (NEW, NEW, 1.0, (1741, 1258, 396, 396, 0.0899983, 0.0899983), 1e-7),
    (NEW, NEW, 0.0, (1258, 1741, 396, 396, 0.0899983, 0.0899983), 1e-7),
    (NEW, NEW, 0.5, (1500, 1500, 396, 396, 0.0899954, 0.0899954), 1e-7),
    (OLD, OLD, 1.0, (1517, 1482, 78, 78, 0.06, 0.06), 1e-5),
    (OLD, OLD, 0.0, (1482, 1517, 78, 78, 0.06, 0.06), 1e-5),
    (OLD, OLD, 0.5, (1500, 1500, 78, 78, 0.06, 0.06), 1e-5),
    (MIXED_W, MIXED_B, 1.0, (1422, 1506, 77, 105, 0.06, 0.065), 1e-5),
    (MIXED_W, MIXED_B, 0.0, (1389, 1568, 78, 105, 0.06, 0.065), 1e-5),
]


@pytest.mark.parametrize(("white", "black", "score", "want", "sigma_tol"), IMPL_CASES)
def test_scalachess_rating_calculator_vectors(white, black, score, want, sigma_tol):
    """The impl/RatingCalculatorTest vectors of scalachess (new players too)."""
    out = one_game(PLAIN, white, black, score)
    assert_allclose(out.rating, want[0:2], rtol=0, atol=1.0)
    assert_allclose(out.rd, want[2:4], rtol=0, atol=1.0)
    assert_allclose(out.volatility, want[4:6], rtol=0, atol=sigma_tol)


def test_mixed_draw_rd_to_hundredths():
    """The impl test's tightest check: Black's RD after the mixed draw, 105.87."""
    out = one_game(PLAIN, MIXED_W, MIXED_B, 0.5)
    assert abs(float(out.rd[1]) - 105.87) <= 0.01


def test_new_player_defaults():
    """A new player is 1500 / 500 / 0.09 with no last game."""
    state = Lichess().new_state(3)
    assert_array_equal(state.rating, 1500.0)
    assert_array_equal(state.rd, 500.0)
    assert_array_equal(state.volatility, 0.09)
    assert_array_equal(state.n_games, 0)
    assert np.isnan(state.last_day).all()


@pytest.mark.parametrize(("sigma", "want"), [(0.06, 110.0), (0.09, 150.7)])
def test_rd_growth_over_a_year(sigma, want):
    """RD 60 grows to ~110 in a year at sigma 0.06 and to 150.7 at 0.09."""
    assert abs(float(grow_rd(60.0, sigma, 365.0)) - want) < 0.05


def test_growth_applies_before_the_game():
    """A game a year after the last one is rated with the grown, clamped RD."""
    system = PLAIN
    state = system.new_state(2, rating=[1500, 1600], rd=[60, 300], day=0.0)
    out = system.rate(state, Games([0], [1], [1], day=[365.0]))
    grown = grow_rd([60.0, 300.0], [0.09, 0.09], [365.0, 365.0])
    want = rate_round([1500, 1600], grown, [0.09, 0.09], [0], [1], [1])
    assert_allclose(out.rating, want[0], rtol=1e-12)
    assert_allclose(out.rd, want[1], rtol=1e-12)
    assert_array_equal(out.last_day, [365.0, 365.0])


def test_no_growth_before_first_game():
    """A player who never played is rated with the stored RD, whatever the day."""
    system = PLAIN
    state = system.new_state(2, rating=[1500, 1600], rd=[60, 300])
    out = system.rate(state, Games([0], [1], [1], day=[10_000.0]))
    want = rate_round([1500, 1600], [60, 300], [0.09, 0.09], [0], [1], [1])
    assert_allclose(out.rating, want[0], rtol=1e-12)
    assert_allclose(out.rd, want[1], rtol=1e-12)


def test_growth_is_capped_at_max_rd():
    """Years of inactivity take RD to 500 and no further."""
    system = PLAIN
    state = system.new_state(2, rating=[1500, 1500], rd=[400, 400], day=0.0)
    grown = grow_rd(400.0, 0.09, 3650.0)
    assert grown > 500.0
    out = system.rate(state, Games([0], [1], [0.5], day=[3650.0]))
    want = rate_round([1500, 1500], [500, 500], [0.09, 0.09], [0], [1], [0.5])
    assert_allclose(out.rd, want[1], rtol=1e-12)


def test_rd_floor():
    """RD never falls below 45."""
    state = PLAIN.new_state(
        2, rating=[1500, 1500], rd=[45, 45], volatility=[0.01, 0.01]
    )
    out = PLAIN.rate(state, Games([0], [1], [0.5]), day=0.0)
    assert_array_equal(out.rd, [45.0, 45.0])


def test_rating_floor():
    """A 400 player who loses stays at 400."""
    state = PLAIN.new_state(2, rating=[400, 1000], rd=[100, 100])
    out = PLAIN.rate(state, Games([0], [1], [0]), day=0.0)
    assert out.rating[0] == 400.0
    assert out.rating[1] > 1000.0


def test_volatility_ceiling():
    """A stored volatility above 0.1 is used and kept at 0.1."""
    state = PLAIN.new_state(
        2, rating=[1500, 1500], rd=[100, 100], volatility=[0.3, 0.1]
    )
    out = PLAIN.rate(state, Games([0], [1], [1]), day=0.0)
    assert (out.volatility <= 0.1).all()
    assert out.rating[0] - 1500.0 == pytest.approx(1500.0 - out.rating[1])


def test_700_points_per_game():
    """A 1500/500 player who beats a 3000/45 player gains exactly 700."""
    state = Lichess().new_state(2, rating=[1500, 3000], rd=[500, 45])
    out = Lichess().rate(state, Games([0], [1], [1]), day=0.0)
    unclamped = rate_round([1500, 3000], [500, 45], [0.09, 0.09], [0], [1], [1])
    assert unclamped[0][0] - 1500.0 > 700.0
    assert out.rating[0] == 2200.0


def test_reset_rule():
    """A result of 4000 or more resets the player to 1500 / 500 / 0.09."""
    state = PLAIN.new_state(2, rating=[3500, 3900], rd=[500, 45])
    out = PLAIN.rate(state, Games([0], [1], [1]), day=0.0)
    assert (out.rating[0], out.rd[0], out.volatility[0]) == (1500.0, 500.0, 0.09)
    assert 3800.0 < out.rating[1] < 3900.0


def test_regulator_multiplies_only_gains():
    """The regulator multiplies the winner's gain by the speed factor; losses stay."""
    state = PLAIN.new_state(
        2, rating=[1500, 1600], rd=[80, 90], volatility=[0.06, 0.07]
    )
    for speed, factor in REGULATOR_FACTORS.items():
        on = Lichess(colour_advantage=False, regulator=True, speed=speed)
        for score in (1.0, 0.0):
            off_out = PLAIN.rate(state, Games([0], [1], [score]), day=0.0)
            on_out = on.rate(state, Games([0], [1], [score]), day=0.0)
            gain = off_out.rating - state.rating
            want = state.rating + np.where(gain > 0, gain * factor, gain)
            assert_allclose(on_out.rating, want, rtol=1e-12)
            assert_array_equal(on_out.rd, off_out.rd)
    assert Lichess().speed == "blitz"
    assert REGULATOR_FACTORS["blitz"] == 1.005
    assert REGULATOR_FACTORS["bullet"] == REGULATOR_FACTORS["rapid"] == 1.015


def test_colour_advantage_in_expected_score():
    """With the advantage White's E against an equal player exceeds 1/2."""
    state = Lichess().new_state(2, rating=[1500, 1500], rd=[60, 60])
    assert PLAIN.expected_score(state, [0], [1])[0] == pytest.approx(0.5)
    assert STANDARD.expected_score(state, [0], [1])[0] > 0.5
    assert STANDARD.expected_score(state, [1], [0])[0] > 0.5


def test_colour_advantage_changes_e_only():
    """Rating with the advantage equals shifting both ratings in E and back after."""
    half = COLOUR_ADVANTAGE / 2.0
    rating, rd, sigma = [1450.0, 1620.0], [70.0, 140.0], [0.06, 0.08]
    for score in (0.0, 0.5, 1.0):
        with_adv = rate_round(
            rating, rd, sigma, [0], [1], [score], advantage=COLOUR_ADVANTAGE
        )
        shifted = rate_round(
            [rating[0] + half, rating[1] - half], rd, sigma, [0], [1], [score]
        )
        assert_allclose(with_adv[0], shifted[0] - [half, -half], rtol=1e-12)
        assert_allclose(with_adv[1], shifted[1], rtol=1e-12)
        assert_allclose(with_adv[2], shifted[2], rtol=1e-12)


def random_games(n_players: int, n_games: int, seed: int) -> Games:
    """A sequence of games with repeated players and non-decreasing days."""
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    day = np.sort(rng.uniform(0, 400, n_games))
    return Games(white, black, score, day=day)


@pytest.mark.parametrize("system", [Lichess(), PLAIN])
def test_rounds_equal_game_by_game(system):
    """Rating a batch with repeated players equals feeding the games one at a time."""
    games = random_games(6, 60, seed=1)
    state = system.new_state(6, rating=[1500, 1700, 1300, 1900, 1100, 2500], day=0.0)
    batch = system.rate(state, games)
    step = state
    for i in range(games.n_games):
        step = system.rate(step, games.take([i]))
    for got, want in zip(batch, step, strict=True):
        assert_allclose(got, want, rtol=1e-12)
    assert_array_equal(
        batch.n_games,
        np.bincount(np.concatenate([games.white, games.black]), minlength=6),
    )


def test_order_matters():
    """Games are rated in order: swapping two games of one player changes the result."""
    games = Games([0, 0], [1, 2], [1.0, 0.0], day=[1.0, 1.0])
    state = Lichess().new_state(3)
    a = Lichess().rate(state, games)
    b = Lichess().rate(state, games.take([1, 0]))
    assert not np.allclose(a.rating, b.rating)


def test_inputs_not_mutated():
    """Rate and new_state leave the caller's arrays untouched."""
    rating = np.array([1500.0, 1700.0, np.nan])
    rating_copy = rating.copy()
    system = Lichess()
    state = system.new_state(3, rating=rating, day=0.0)
    assert_array_equal(rating, rating_copy)
    for a in state:
        a.flags.writeable = False
    saved = [a.copy() for a in state]
    games = random_games(3, 10, seed=2)
    out = system.rate(state, games)
    for before, after in zip(saved, state, strict=True):
        assert_array_equal(before, after)
    assert out.rating is not state.rating


def test_day_needed():
    """Without games.day and day= the games cannot be rated."""
    state = Lichess().new_state(2)
    with pytest.raises(ValueError, match="day"):
        Lichess().rate(state, Games([0], [1], [1]))


def test_day_argument_used_for_every_game():
    """day= stands for every game's day when games.day is None."""
    state = Lichess().new_state(2, rating=[1500, 1600], day=0.0)
    a = Lichess().rate(state, Games([0], [1], [1]), day=30.0)
    b = Lichess().rate(state, Games([0], [1], [1], day=[30.0]))
    assert_array_equal(a.rating, b.rating)
    assert_array_equal(a.last_day, [30.0, 30.0])


def test_game_before_last_game_rejected():
    """A game dated before a player's last game raises ValueError."""
    state = Lichess().new_state(2, rating=[1500, 1600], day=100.0)
    with pytest.raises(
        ValueError,
        match=r"player 0 has a game on day 50\.0, before their last game on day "
        r"100\.0\.",
    ):
        Lichess().rate(state, Games([0], [1], [1], day=[50.0]))


def test_empty_games():
    """No games, no change, and no day needed."""
    state = Lichess().new_state(2, rating=[1500, 1600])
    out = Lichess().rate(state, Games([], [], []))
    for a, b in zip(out, state, strict=True):
        assert_array_equal(a, b)


def test_provisional():
    """Provisional while RD >= 110."""
    state = Lichess().new_state(4, rd=[45.0, 109.99, 110.0, 500.0])
    assert_array_equal(provisional(state), [False, False, True, True])


def test_registered():
    """The registry builds Lichess under "lichess", a per-game system."""
    system = SYSTEMS["lichess"]()
    assert isinstance(system, Lichess)
    assert system.name == "lichess"
    assert system.per_game is True
    assert system.next_close(10.0) is None


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("tau", 0.0),
        ("initial_rd", -1.0),
        ("initial_volatility", 0.0),
        ("epsilon", 0.0),
        ("rd_growth_per_day", -0.1),
        ("colour_advantage", 1),
        ("regulator", "yes"),
        ("speed", "superblitz"),
        ("min_rd", 0.0),
        ("max_rd", 40.0),
        ("min_rating", float("nan")),
        ("max_volatility", 0.0),
        ("max_rating_delta", -5.0),
    ],
)
def test_bad_parameters(param, value):
    """Invalid parameters raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match=f"'{param}' parameter of Lichess"):
        Lichess(**{param: value})


def test_frozen():
    """The configuration cannot be changed in place."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        Lichess().tau = 0.5  # type: ignore[misc]


@pytest.mark.parametrize("spread", [0.0, 0.25])
def test_round_of_everyone_equals_round_with_an_idle_player(spread):
    """A round all players play (read back in player order) is the general update.

    Adding one idle player takes the general path (written into copies of
    the old values); every bit of the others' results is the same, whether
    the round has one day or its games several.
    """
    rng = np.random.default_rng(5)
    n = 40
    perm = rng.permutation(n)
    day = 3.0 + spread * np.arange(n // 2)
    games = Games(
        perm[: n // 2], perm[n // 2 :], rng.choice([0.0, 0.5, 1.0], n // 2), day=day
    )
    rating = rng.normal(1700.0, 300.0, n + 1)
    rd = rng.uniform(45.0, 350.0, n + 1)
    system = Lichess()
    everyone = system.rate(
        system.new_state(n, rating=rating[:n], rd=rd[:n], day=0.0), games
    )
    state = system.new_state(n + 1, rating=rating, rd=rd, day=0.0)
    with_idle = system.rate(state, games)
    for got, want, before in zip(with_idle, everyone, state, strict=True):
        assert got[:n].tobytes() == want.tobytes()
        assert got[n] == before[n]


def test_values_not_numbers_reset_the_game_s_players():
    """A NaN in a stored value fails the sanity check: both players are reset.

    The compiled clamps keep NaN as numpy's maximum, minimum and clip do, so
    the NaN reaches the check (and the opponent's E) instead of a bound.
    """
    system = Lichess()
    state = system.new_state(6, rating=np.full(6, 1600.0), day=0.0)
    state = state._replace(
        rating=np.array([1600.0, 1700.0, np.nan, 1500.0, 1800.0, 1900.0]),
        volatility=np.array([0.06, 0.06, 0.06, 0.06, np.nan, 0.06]),
    )
    games = Games(np.array([0, 2, 4]), np.array([1, 3, 5]), np.array([1.0, 0.5, 0.0]))
    new = system.rate(state, games, day=10.0)
    reset = [2, 3, 4, 5]
    assert_array_equal(new.rating[reset], RATING)
    assert_array_equal(new.rd[reset], RD)
    assert_array_equal(new.volatility[reset], VOLATILITY)
    assert np.all(np.isfinite(new.rating[:2])) and new.rating[0] > 1600.0
