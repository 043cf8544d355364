"""Glicko-1: Glickman's example, RD growth, per-game mode, the system interface."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from simulator.systems import SYSTEMS, Games
from simulator.systems import glicko2 as glicko2_module
from simulator.systems.glicko import (
    C,
    Glicko,
    Q,
    _latest_days,
    _sums,
    estimated_variance,
    expected,
    g,
    grow_rd,
    rate_period,
)
from simulator.systems.glicko2 import Glicko2

# Glickman, "The Glicko system" (glicko.pdf): 1500/200 beats 1400/30, loses to
# 1550/100 and to 1700/300.
EXAMPLE_RATING = [1500.0, 1400.0, 1550.0, 1700.0]
EXAMPLE_RD = [200.0, 30.0, 100.0, 300.0]
EXAMPLE_WHITE, EXAMPLE_BLACK, EXAMPLE_SCORE = [0, 0, 0], [1, 2, 3], [1.0, 0.0, 0.0]


def test_constants():
    """Q = ln 10 / 400 and c = sqrt(1200) (about 34.64)."""
    assert pytest.approx(np.log(10) / 400, rel=1e-15) == Q
    assert round(C, 2) == 34.64


def test_glickman_example_intermediates():
    """Glickman's g and E values for the three opponents."""
    assert_allclose(g([30.0, 100.0, 300.0]), [0.9955, 0.9531, 0.7242], atol=5e-5)
    e = expected(1500.0, [1400.0, 1550.0, 1700.0], g([30.0, 100.0, 300.0]))
    assert_allclose(e, [0.639, 0.432, 0.303], atol=5e-4)


def test_glickman_example_d():
    """D = 231.70 (the paper prints 231.67 from rounded intermediates)."""
    d2 = estimated_variance(EXAMPLE_RATING, EXAMPLE_RD, EXAMPLE_WHITE, EXAMPLE_BLACK)
    assert round(float(np.sqrt(d2[0])), 2) == 231.70
    # Recomputed from the formula as a cross-check of the helper.
    gj = g(EXAMPLE_RD[1:])
    ej = expected(1500.0, EXAMPLE_RATING[1:], gj)
    assert d2[0] == pytest.approx(1.0 / (Q**2 * np.sum(gj**2 * ej * (1 - ej))))


def test_glickman_example_update():
    """R' 1464.106 and RD' 151.399 with no pre-period growth."""
    rating, rd = rate_period(
        EXAMPLE_RATING, EXAMPLE_RD, EXAMPLE_WHITE, EXAMPLE_BLACK, EXAMPLE_SCORE, c=0.0
    )
    assert round(float(rating[0]), 3) == 1464.106
    assert round(float(rd[0]), 3) == 151.399


def test_glickman_example_through_the_system():
    """The Glicko system with c = 0 reproduces the example in period mode."""
    system = Glicko(c=0.0)
    state = system.new_state(4, rating=EXAMPLE_RATING, rd=EXAMPLE_RD)
    out = system.rate(state, Games(EXAMPLE_WHITE, EXAMPLE_BLACK, EXAMPLE_SCORE))
    assert round(float(out.rating[0]), 3) == 1464.106
    assert round(float(out.rd[0]), 3) == 151.399
    assert_array_equal(out.n_games, [3, 1, 1, 1])


def test_players_without_games_keep_rating():
    """Players without games keep their rating; their RD only grows."""
    rating, rd = rate_period(
        [1500.0, 1600.0, 1700.0], [50.0, 60.0, 70.0], [0], [1], [1]
    )
    assert rating[2] == 1700.0
    assert rd[2] == pytest.approx(np.sqrt(70.0**2 + C**2))


def test_rd_growth_50_to_350_in_100_periods():
    """With the default c, RD 50 reaches 350 after 100 idle periods, 348.28 after 99."""
    assert float(grow_rd(50.0, 100)) == pytest.approx(350.0, abs=1e-9)
    assert float(grow_rd(50.0, 99)) == pytest.approx(np.sqrt(121_300.0), abs=1e-9)
    rating, rd = np.array([1500.0]), np.array([50.0])
    history = []
    for _ in range(150):
        rating, rd = rate_period(rating, rd, [], [], [])
        history.append(float(rd[0]))
    assert history[98] == pytest.approx(348.2815, abs=5e-5)
    assert history[98] < 349.0
    assert history[99] == pytest.approx(350.0, abs=1e-9)
    assert max(history) <= 350.0
    assert history[-1] == 350.0


def test_no_growth_with_c_zero():
    """C = 0 leaves RD unchanged for idle players."""
    _, rd = rate_period([1500.0, 1500.0], [50.0, 80.0], [], [], [], c=0.0)
    assert_array_equal(rd, [50.0, 80.0])


def test_never_played_stay_new():
    """A player who has never played keeps the starting values and does not grow."""
    system = Glicko()
    state = system.new_state(
        4, rating=[1500.0, 1600.0, np.nan, np.nan], rd=[50.0, 60.0, np.nan, 100.0]
    )
    out = system.rate(state, Games([0], [1], [1]))
    assert (out.rating[2], out.rd[2]) == (1500.0, 350.0)
    assert (out.rating[3], out.rd[3]) == (1500.0, 100.0)


def test_per_game_growth_since_last_game():
    """Per-game mode grows RD by the periods since the player's own last game."""
    system = Glicko(per_game=True)
    ppd = system.periods_per_day
    state = system.new_state(3, rating=[1500.0, 1600.0, 1700.0], rd=[60.0] * 3, day=0.0)
    games = Games([0, 0], [1, 2], [1.0, 0.0], day=[100.0, 130.0])
    out = system.rate(state, games)
    assert_array_equal(out.last_day, [130.0, 100.0, 130.0])
    # Game 1: both players idle for 100 days.
    first = rate_period(
        [1500.0, 1600.0], grow_rd([60.0, 60.0], 100 * ppd), [0], [1], [1.0], c=0.0
    )
    assert_allclose(out.rating[1], first[0][1], rtol=1e-12)
    # Game 2: player 0 idle 30 days since game 1, player 2 idle 130 days.
    onset = [grow_rd(first[1][0], 30 * ppd), grow_rd(60.0, 130 * ppd)]
    second = rate_period([first[0][0], 1700.0], onset, [0], [1], [0.0], c=0.0)
    assert_allclose(out.rating[[0, 2]], second[0], rtol=1e-12)
    assert_allclose(out.rd[[0, 2]], second[1], rtol=1e-12)


def test_per_game_equals_period_for_new_players():
    """One game between new players: per-game mode equals period mode."""
    period, per_game = Glicko(), Glicko(per_game=True)
    games = Games([0], [1], [1.0], day=[5.0])
    a = period.rate(period.new_state(2), games)
    b = per_game.rate(per_game.new_state(2), games)
    assert_allclose(a.rating, b.rating, rtol=1e-12)
    assert_allclose(a.rd, b.rd, rtol=1e-12)


def test_per_game_equals_period_after_one_period():
    """Established players, a game one period after their last: the modes agree."""
    period, per_game = Glicko(), Glicko(per_game=True)
    day = 1.0 / per_game.periods_per_day
    rating, rd = [1550.0, 1480.0], [80.0, 120.0]
    games = Games([0], [1], [0.5], day=[day])
    a = period.rate(period.new_state(2, rating=rating, rd=rd, day=0.0), games)
    b = per_game.rate(per_game.new_state(2, rating=rating, rd=rd, day=0.0), games)
    assert_allclose(a.rating, b.rating, rtol=1e-12)
    assert_allclose(a.rd, b.rd, rtol=1e-12)
    assert b.rd[0] != pytest.approx(
        rate_period(rating, rd, [0], [1], [0.5], c=0.0)[1][0]
    )


def test_per_game_growth_rate_default():
    """Per-game growth defaults to one period per mean calendar period."""
    assert Glicko().periods_per_day == pytest.approx(12 / 365.2425)
    assert Glicko(period="week").periods_per_day == pytest.approx(1 / 7)
    assert Glicko(rd_growth_per_day=0.5).periods_per_day == 0.5


def test_per_game_rounds_equal_game_by_game():
    """Per-game mode: a batch with repeated players equals one game at a time."""
    rng = np.random.default_rng(3)
    n_games = 40
    white = rng.integers(0, 5, n_games)
    black = (white + rng.integers(1, 5, n_games)) % 5
    games = Games(
        white, black, rng.choice([0.0, 0.5, 1.0], n_games), day=np.arange(n_games) * 9.0
    )
    system = Glicko(per_game=True)
    state = system.new_state(5, rating=[1500, 1700, 1300, 1900, np.nan], day=0.0)
    batch = system.rate(state, games)
    step = state
    for i in range(n_games):
        step = system.rate(step, games.take([i]))
    for got, want in zip(batch, step, strict=True):
        assert_allclose(got, want, rtol=1e-12)


def test_per_game_needs_days():
    """Per-game mode raises without days; period mode does not need them."""
    with pytest.raises(ValueError, match="day"):
        Glicko(per_game=True).rate(Glicko().new_state(2), Games([0], [1], [1]))
    Glicko().rate(Glicko().new_state(2), Games([0], [1], [1]))


def test_per_game_rejects_earlier_day():
    """Per-game mode: a game dated before a player's last game raises ValueError."""
    system = Glicko(per_game=True)
    state = system.new_state(2, rating=[1500, 1600], day=10.0)
    with pytest.raises(ValueError, match="before their last game"):
        system.rate(state, Games([0], [1], [1], day=[5.0]))


def test_period_mode_records_last_day():
    """Period mode records each player's latest game day."""
    system = Glicko()
    out = system.rate(
        system.new_state(3), Games([0, 1], [1, 2], [1, 0], day=[3.0, 7.0])
    )
    assert_array_equal(out.last_day, [3.0, 7.0, 7.0])


def test_next_close():
    """Period mode uses Glicko-2's calendar; per-game mode has no periods."""
    for period in ("week", "month", "quarter", "year"):
        assert Glicko(period=period).next_close(19_783.5) == Glicko2(
            period=period
        ).next_close(19_783.5)
    assert Glicko(per_game=True).next_close(19_783.5) is None


def test_expected_score():
    """E uses Black's RD as the next period sees it; per game, as stored."""
    state_args = {"rating": [1500.0, 1500.0, 1700.0], "rd": [50.0, 300.0, 30.0]}
    system = Glicko()
    state = system.new_state(3, **state_args)
    e = system.expected_score(state, [0, 2], [1, 0])
    assert e[0] == pytest.approx(0.5)
    grown = np.sqrt(50.0**2 + system.c**2)
    assert e[1] == pytest.approx(expected(1700.0, 1500.0, g(grown)))
    per_game = Glicko(per_game=True)
    e = per_game.expected_score(per_game.new_state(3, **state_args), [2], [0])
    assert e[0] == pytest.approx(expected(1700.0, 1500.0, g(50.0)))


@pytest.mark.parametrize("per_game", [False, True])
def test_inputs_not_mutated(per_game):
    """Rate leaves the state and the games untouched."""
    system = Glicko(per_game=per_game)
    rating = np.array([1500.0, 1650.0, np.nan])
    state = system.new_state(3, rating=rating, day=0.0)
    assert np.isnan(rating[2])
    for a in state:
        a.flags.writeable = False
    saved = [a.copy() for a in state]
    games = Games([0, 1, 2], [1, 2, 0], [1.0, 0.5, 0.0], day=[1.0, 2.0, 3.0])
    system.rate(state, games)
    for before, after in zip(saved, state, strict=True):
        assert_array_equal(before, after)
    raw_rating, raw_rd = np.array([1500.0, 1600.0]), np.array([100.0, 200.0])
    rate_period(raw_rating, raw_rd, [0], [1], [1.0])
    assert_array_equal(raw_rating, [1500.0, 1600.0])
    assert_array_equal(raw_rd, [100.0, 200.0])


def test_registered():
    """The registry builds Glicko under "glicko"."""
    system = SYSTEMS["glicko"]()
    assert isinstance(system, Glicko)
    assert system.name == "glicko"
    assert system.per_game is False
    assert SYSTEMS["glicko"](per_game=True).per_game is True


@pytest.mark.parametrize(
    ("param", "value"),
    [
        ("c", -1.0),
        ("initial_rd", 0.0),
        ("initial_rating", float("nan")),
        ("period", "fortnight"),
        ("per_game", 1),
        ("rd_growth_per_day", -0.5),
    ],
)
def test_bad_parameters(param, value):
    """Invalid parameters raise ValueError naming the parameter."""
    with pytest.raises(ValueError, match=f"'{param}' parameter of Glicko"):
        Glicko(**{param: value})


def test_frozen():
    """The configuration cannot be changed in place."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        Glicko().c = 0.0  # type: ignore[misc]


@pytest.mark.parametrize("spread", [0.0, 0.25])
def test_per_game_round_of_everyone_equals_round_with_an_idle_player(spread):
    """Per-game mode: a round all players play is the general update, bit for bit.

    Adding one idle player takes the general path (written into copies of
    the old values); the others' results are the same to the last bit.
    """
    rng = np.random.default_rng(6)
    n = 40
    perm = rng.permutation(n)
    day = 30.0 + spread * np.arange(n // 2)
    games = Games(
        perm[: n // 2], perm[n // 2 :], rng.choice([0.0, 0.5, 1.0], n // 2), day=day
    )
    rating = rng.normal(1700.0, 300.0, n + 1)
    rd = rng.uniform(40.0, 350.0, n + 1)
    system = Glicko(per_game=True)
    everyone = system.rate(
        system.new_state(n, rating=rating[:n], rd=rd[:n], day=0.0), games
    )
    state = system.new_state(n + 1, rating=rating, rd=rd, day=0.0)
    with_idle = system.rate(state, games)
    for got, want, before in zip(with_idle, everyone, state, strict=True):
        assert got[:n].tobytes() == want.tobytes()
        assert got[n] == before[n]


@pytest.mark.parametrize("idle_days", [0.0, 3.5, 400.0])
def test_per_game_round_is_rate_period_bit_for_bit(seed: int, idle_days: float):
    """A per-game round is rate_period with c = 0 on the grown RDs, bit for bit.

    The round's compiled loops against the period's numpy: every player
    plays one game, ``idle_days`` after their last (long enough, at 400,
    for some RDs to reach the ceiling).
    """
    rng = np.random.default_rng(seed)
    n = 300
    perm = rng.permutation(n)
    white, black = perm[: n // 2], perm[n // 2 :]
    score = rng.choice([0.0, 0.5, 1.0], n // 2)
    rating = rng.normal(1600.0, 300.0, n)
    rd = rng.uniform(30.0, 350.0, n)
    system = Glicko(per_game=True)
    state = system.new_state(n, rating=rating, rd=rd, day=0.0)
    games = Games(white, black, score, day=np.full(n // 2, idle_days))
    out = system.rate(state, games)
    grown = grow_rd(rd, idle_days * system.periods_per_day)
    want_rating, want_rd = rate_period(rating, grown, white, black, score, c=0.0)
    assert out.rating.tobytes() == want_rating.tobytes()
    assert out.rd.tobytes() == want_rd.tobytes()


@pytest.mark.parametrize("block", [7, None])
def test_period_sums_are_numpy_formulas_bit_for_bit(
    seed: int, block: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 2's compiled sums equal numpy's formulas over both colours, bit for bit.

    The reference is the spec written plainly: every side's terms from
    :func:`expected` and :func:`g`, summed by ``np.bincount`` over White's
    sides then Black's, whatever the blocks of games the sums go in (the
    last one shorter).
    """
    if block is not None:
        monkeypatch.setattr(glicko2_module, "_GAMES_BLOCK", block)
    rng = np.random.default_rng(seed)
    n = 300
    rating, rd = rng.normal(1500.0, 300.0, n), rng.uniform(30.0, 350.0, n)
    white = rng.integers(0, n, 3000)
    black = (white + rng.integers(1, n, 3000)) % n
    score = rng.choice([0.0, 0.5, 1.0], 3000)
    own, opp = np.concatenate([white, black]), np.concatenate([black, white])
    s = np.concatenate([score, 1.0 - score])
    g_opp = g(rd)[opp]
    e = expected(rating[own], rating[opp], g_opp)
    want = (
        np.bincount(own, weights=g_opp * g_opp * e * (1.0 - e), minlength=n),
        np.bincount(own, weights=(s - e) * g_opp, minlength=n),
        np.bincount(own, minlength=n),
    )
    for a, b in zip(_sums(rating, rd, white, black, score), want, strict=True):
        assert a.dtype == b.dtype
        assert a.tobytes() == b.tobytes()


def test_period_mode_last_day_is_the_latest_game() -> None:
    """In period mode, a player's last day is their latest game's, in any order."""
    system = Glicko()
    state = system.new_state(4)
    games = Games(
        [0, 1, 2, 0], [1, 2, 0, 1], [1.0, 0.5, 0.0, 1.0], day=[5.0, 9.0, 7.0, 3.0]
    )
    new = system.rate(state, games)
    assert_array_equal(new.last_day[:3], [7.0, 9.0, 9.0])
    assert np.isnan(new.last_day[3])  # no game: still none


@pytest.mark.parametrize("seed", range(5))
def test_latest_days_is_numpys_maximum_at(seed: int) -> None:
    """White's sides, then Black's, as ``np.maximum.at``, to the bit.

    NaN wins, and of equal values (0 and -0) the later one.
    """
    rng = np.random.default_rng(seed)
    n, m = 20, 300
    white, black = rng.integers(0, n, m), rng.integers(0, n, m)
    day = rng.choice([0.0, -0.0, 1.0, 2.5, np.nan, np.inf, -np.inf], m)
    start = rng.choice([-np.inf, 0.0, -0.0, 2.5, np.nan], n)
    expected = start.copy()
    with np.errstate(invalid="ignore"):
        np.maximum.at(expected, white, day)
        np.maximum.at(expected, black, day)
    latest = start.copy()
    _latest_days(latest, white, black, day)
    assert_array_equal(latest, expected)
    assert_array_equal(np.signbit(latest), np.signbit(expected))
