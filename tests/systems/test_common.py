"""The shared pieces of every system: games, rounds, rounding, calendars, checks."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.systems._common import (
    Games,
    _disjoint,
    check_interval,
    day_of,
    initial_values,
    list_day_after,
    list_day_on,
    reusable,
    round_half_away,
    round_half_up,
    split_rounds,
)

# ---------------------------------------------------------------------------
# Games
# ---------------------------------------------------------------------------


def test_games_bad_score_names_the_value() -> None:
    """A score outside {0, 1/2, 1} is reported with its value and position."""
    with pytest.raises(ValueError) as err:
        Games([0, 1], [1, 2], [1.0, 2])
    assert str(err.value) == "Games.score must be 0, 0.5 or 1. Got 2.0 at game 1."
    with pytest.raises(ValueError, match=r"Got 0\.25 at game 0"):
        Games([0], [1], [0.25])
    with pytest.raises(ValueError, match="Got nan at game 0"):
        Games([0], [1], [np.nan])


def test_games_mismatched_lengths() -> None:
    """White, Black and score arrays of different lengths are rejected."""
    with pytest.raises(ValueError, match=re.escape("equal lengths. Got 2, 1, 2.")):
        Games([0, 1], [2], [1.0, 0.0])
    with pytest.raises(ValueError, match=re.escape("equal lengths. Got 1, 1, 2.")):
        Games([0], [1], [1.0, 0.0])
    with pytest.raises(ValueError, match=re.escape("Games.day must have one entry")):
        Games([0], [1], [1.0], day=[1.0, 2.0])


def test_games_negative_index() -> None:
    """A negative player index is rejected, naming the array and the index."""
    with pytest.raises(ValueError, match=r"Games\.black must hold non-negative .* -2"):
        Games([0, 1], [1, -2], [1.0, 0.0])


def test_games_non_integer_index() -> None:
    """Fractional or two-dimensional player indices are rejected."""
    with pytest.raises(ValueError, match=r"Games\.white must hold integer player"):
        Games([0.5], [1], [1.0])
    with pytest.raises(ValueError, match=r"Games\.white must be one-dimensional"):
        Games([[0, 1]], [[1, 2]], [1.0, 1.0])


def test_games_self_pairing() -> None:
    """A player paired with themself is rejected, naming the game and player."""
    with pytest.raises(
        ValueError, match=re.escape("Game 1 pairs player 3 with themself.")
    ):
        Games([0, 3], [1, 3], [1.0, 0.5])


def test_games_event_needs_event_start() -> None:
    """``event`` and ``event_start`` come together or not at all."""
    with pytest.raises(
        ValueError, match=re.escape("Games.event and Games.event_start go")
    ):
        Games([0], [1], [1.0], event=[0])
    with pytest.raises(
        ValueError, match=re.escape("Games.event and Games.event_start go")
    ):
        Games([0], [1], [1.0], event_start=[19000.0])


def test_games_are_copied_and_read_only() -> None:
    """Games copies its inputs to fixed dtypes and makes them read-only."""
    white = np.array([0, 1])
    score = [1.0, 0.5]
    games = Games(white, [1, 2], score, day=[1, 2], event=[5, 5], event_start=[0, 0])
    white[0] = 7
    assert games.white[0] == 0
    for name, dtype in [
        ("white", np.intp),
        ("black", np.intp),
        ("score", np.float64),
        ("day", np.float64),
        ("event", np.intp),
        ("event_start", np.float64),
    ]:
        arr = getattr(games, name)
        assert arr.dtype == dtype, name
        assert not arr.flags.writeable, name
    with pytest.raises(ValueError):
        games.score[0] = 0.0
    assert games.n_games == 2


def test_games_take_and_concat() -> None:
    """``take`` keeps every array aligned; ``concat`` joins batches in order."""
    games = Games([0, 1, 2], [1, 2, 0], [1.0, 0.5, 0.0], day=[1.0, 2.0, 3.0])
    part = games.take([2, 0])
    np.testing.assert_array_equal(part.white, [2, 0])
    np.testing.assert_array_equal(part.day, [3.0, 1.0])
    assert part.event is None
    joined = Games.concat([games.take([0]), games.take([1, 2])])
    for name in ("white", "black", "score", "day"):
        np.testing.assert_array_equal(getattr(joined, name), getattr(games, name))
    assert Games.concat([]).n_games == 0
    # A batch without days makes the joined days unknown.
    assert Games.concat([games, Games([0], [1], [1.0])]).day is None


def test_games_check_players() -> None:
    """``check_players`` names the largest index and the pool size."""
    games = Games([0, 4], [1, 2], [1.0, 0.0])
    games.check_players(5)
    with pytest.raises(ValueError, match="Games name player 4, but the state has 4"):
        games.check_players(4)


def test_initial_values() -> None:
    """Given values where not NaN, the default elsewhere; one value per player."""
    np.testing.assert_array_equal(
        initial_values(3, [1800, np.nan, 2000], 1500.0, "rating"), [1800, 1500, 2000]
    )
    np.testing.assert_array_equal(initial_values(2, None, 7.0, "rd"), [7.0, 7.0])
    with pytest.raises(ValueError, match="'rd' must have one entry per player"):
        initial_values(3, [1.0, 2.0], 7.0, "rd")


# ---------------------------------------------------------------------------
# split_rounds
# ---------------------------------------------------------------------------


@st.composite
def pairings(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    """Up to 40 games among up to 8 players, in order."""
    n = draw(st.integers(2, 8))
    pairs = draw(
        st.lists(
            st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True),
            max_size=40,
        )
    )
    white = np.array([p[0] for p in pairs], dtype=np.intp)
    black = np.array([p[1] for p in pairs], dtype=np.intp)
    return white, black


@settings(max_examples=200, deadline=None)
@given(games=pairings())
def test_split_rounds(games: tuple[np.ndarray, np.ndarray]) -> None:
    """Rounds partition the games, repeat no player and keep each player's order."""
    # Each game lands in the earliest round after every earlier game of either of
    # its players, i.e. round(g) = 1 + max(round(h)) over the earlier games h
    # sharing a player (0 if none).
    white, black = games
    rounds = split_rounds(white, black)
    n_games = white.size
    assert all(r.size > 0 for r in rounds)
    together = np.concatenate(rounds) if rounds else np.empty(0, np.intp)
    np.testing.assert_array_equal(np.sort(together), np.arange(n_games))
    round_of = np.empty(n_games, dtype=np.intp)
    for i, r in enumerate(rounds):
        players = np.r_[white[r], black[r]]
        assert np.unique(players).size == players.size, f"round {i} repeats"
        assert np.all(np.diff(r) > 0), f"round {i} is out of order"
        round_of[r] = i
    for g in range(n_games):
        earlier = [
            round_of[h] for h in range(g) if {white[h], black[h]} & {white[g], black[g]}
        ]
        assert round_of[g] == (max(earlier) + 1 if earlier else 0)


@settings(max_examples=200, deadline=None)
@given(games=pairings())
def test_disjoint(games: tuple[np.ndarray, np.ndarray]) -> None:
    """_disjoint tells whether the games name every player at most once."""
    white, black = games
    players = np.concatenate([white, black])
    assert _disjoint(white, black) == (np.unique(players).size == players.size)


def test_disjoint_negative_indices() -> None:
    """A negative index is left to the general path: not disjoint."""
    assert not _disjoint(np.array([-1, 2]), np.array([0, 1]))
    assert _disjoint(np.array([3, 2]), np.array([0, 1]))


def test_split_rounds_examples() -> None:
    """The docstring's example, a chain, disjoint games and no games."""
    assert [
        r.tolist() for r in split_rounds(np.array([0, 1, 2, 4]), np.array([1, 2, 3, 5]))
    ] == [[0, 3], [1], [2]]
    assert [
        r.tolist() for r in split_rounds(np.array([0, 2, 0]), np.array([1, 3, 1]))
    ] == [[0, 1], [2]]
    assert split_rounds(np.empty(0, np.intp), np.empty(0, np.intp)) == []


def test_split_rounds_many_rounds() -> None:
    """Hundreds of rounds: each game's round is 1 + its players' latest so far."""
    rng = np.random.default_rng(7)
    white = rng.integers(0, 12, 3_000)
    black = (white + rng.integers(1, 12, 3_000)) % 12
    latest: dict[int, int] = {}
    expected: list[list[int]] = []
    for g, (w, b) in enumerate(zip(white.tolist(), black.tolist(), strict=True)):
        r = max(latest.get(w, -1), latest.get(b, -1)) + 1
        latest[w] = latest[b] = r
        if r == len(expected):
            expected.append([])
        expected[r].append(g)
    assert len(expected) > 400
    assert [r.tolist() for r in split_rounds(white, black)] == expected


def test_split_rounds_negative_index() -> None:
    """A negative player index is an error naming the value, not a wrong split."""
    with pytest.raises(ValueError, match="-1"):
        split_rounds(np.array([0, -1]), np.array([1, 0]))


# ---------------------------------------------------------------------------
# Rounding
# ---------------------------------------------------------------------------


def test_round_half_away() -> None:
    """Halves go away from zero (FIDE: +2.5 -> 3, -2.5 -> -3); the rest to nearest."""
    x = [2.5, -2.5, 0.5, -0.5, 1.5, -1.5, 1.4, -1.6, 0.0, 3.0, -7.49, 7.51]
    expect = [3.0, -3.0, 1.0, -1.0, 2.0, -2.0, 1.0, -2.0, 0.0, 3.0, -7.0, 8.0]
    np.testing.assert_array_equal(round_half_away(x), expect)
    assert round_half_away(x).dtype == np.float64


def test_round_half_away_at_the_edges_of_float64() -> None:
    """No double rounding: just below a half stays down, big integers stay put."""
    below_half = np.nextafter(0.5, 0.0)  # 0.49999999999999994
    np.testing.assert_array_equal(
        round_half_away([below_half, -below_half, 2.5 - 4e-16]), [0.0, -0.0, 2.0]
    )
    big = 2.0**52 + 1.0  # odd; big + 0.5 is not representable
    np.testing.assert_array_equal(round_half_away([big, -big]), [big, -big])
    np.testing.assert_array_equal(
        round_half_away([np.inf, -np.inf, np.nan]), [np.inf, -np.inf, np.nan]
    )


@settings(max_examples=300, deadline=None)
@given(
    whole=st.integers(-(10**6), 10**6),
    frac=st.sampled_from([0.0, 0.25, 0.5, 0.75]),
)
def test_round_half_away_property(whole: int, frac: float) -> None:
    """On exact quarters it agrees with the definition, and it is odd."""
    x = whole + frac if whole >= 0 else whole - frac
    sign = 1.0 if x >= 0 else -1.0
    expect = sign * np.floor(abs(x) + 0.5)  # exact here: quarters are exact
    assert round_half_away(x) == expect
    assert round_half_away(-x) == -round_half_away(x)


def test_round_half_up() -> None:
    """Halves go up (towards +inf), also at hundredths written .xx5 on paper."""
    np.testing.assert_array_equal(
        round_half_up([0.5, 1.5, 2.5, -0.5, -1.5, 1872.5, 1872.43]),
        [1.0, 2.0, 3.0, 0.0, -1.0, 1873.0, 1872.0],
    )
    assert round_half_up(0.565, 2).item() == 0.57  # 0.565 is 0.56499999... in binary
    assert round_half_up(0.125, 2).item() == 0.13
    assert round_half_up(4 / 7, 2).item() == 0.57  # FIDE's p = (3 + 1) / (5 + 2)
    assert round_half_up(0.5649, 2).item() == 0.56
    assert round_half_up(1922.4, 0).item() == 1922.0


# ---------------------------------------------------------------------------
# Calendars
# ---------------------------------------------------------------------------


def date(day: int) -> str:
    """The calendar date of a day number."""
    return str(np.datetime64(day, "D"))


@pytest.mark.parametrize(
    ("today", "months", "on", "after"),
    [
        ("2024-03-15", 1, "2024-03-01", "2024-04-01"),
        ("2024-03-01", 1, "2024-03-01", "2024-04-01"),
        ("2024-02-29", 1, "2024-02-01", "2024-03-01"),
        ("2023-12-31", 1, "2023-12-01", "2024-01-01"),
        ("2024-02-10", 3, "2024-01-01", "2024-04-01"),
        ("2024-04-01", 3, "2024-04-01", "2024-07-01"),
        ("2024-06-30", 3, "2024-04-01", "2024-07-01"),
        ("2024-12-31", 3, "2024-10-01", "2025-01-01"),
        ("1969-12-31", 3, "1969-10-01", "1970-01-01"),
        ("2024-08-08", 12, "2024-01-01", "2025-01-01"),
    ],
)
def test_list_days(today: str, months: int, on: str, after: str) -> None:
    """The list in force on a day and the next one, monthly and quarterly."""
    day = day_of(today)
    assert date(list_day_on(day, months)) == on
    assert date(list_day_after(day, months)) == after
    # Later in the same day changes nothing.
    assert list_day_on(day + 0.75, months) == list_day_on(day, months)
    assert list_day_after(day + 0.75, months) == list_day_after(day, months)


@settings(max_examples=200, deadline=None)
@given(
    day=st.floats(-20000.0, 40000.0, allow_nan=False),
    months=st.sampled_from([1, 2, 3, 4, 6, 12]),
)
def test_list_days_property(day: float, months: int) -> None:
    """``on <= day < after``, both are 1sts of calendar months, one period apart."""
    on, after = list_day_on(day, months), list_day_after(day, months)
    assert on <= day < after
    for d in (on, after):
        assert isinstance(d, int)
        assert date(d).endswith("-01")
        assert (int(date(d)[5:7]) - 1) % months == 0
    assert list_day_after(on, months) == after
    assert list_day_on(after - 1, months) == on


# ---------------------------------------------------------------------------
# Parameter checks
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "low", "high", "closed", "kind", "message"),
    [
        (-3, 0, np.inf, "neither", "a float", "a float in (0, inf). Got -3 instead."),
        (0, 0, np.inf, "neither", "a float", "a float in (0, inf). Got 0 instead."),
        (1.5, 0, 1, "both", "a float", "a float in [0, 1]. Got 1.5 instead."),
        (1, 0, 1, "left", "a float", "a float in [0, 1). Got 1 instead."),
        (0, 0, 1, "right", "a float", "a float in (0, 1]. Got 0 instead."),
        (
            float("nan"),
            -np.inf,
            np.inf,
            "both",
            "a float",
            "a float in [-inf, inf]. Got nan instead.",
        ),
        (True, 0, 10, "both", "an int", "an int in [0, 10]. Got True instead."),
        ("5", 0, 10, "both", "an int", "an int in [0, 10]. Got '5' instead."),
        (None, 0.5, 2.5, "both", "a float", "a float in [0.5, 2.5]. Got None instead."),
    ],
)
def test_check_interval_messages(
    value: object, low: float, high: float, closed: str, kind: str, message: str
) -> None:
    """Messages name the owner, the parameter, the interval and the bad value."""
    with pytest.raises(ValueError) as err:
        check_interval("Owner", "param", value, low, high, closed=closed, kind=kind)
    assert str(err.value) == f"The 'param' parameter of Owner must be {message}"


@pytest.mark.parametrize(
    ("value", "closed"),
    [
        (0, "both"),
        (0, "left"),
        (1, "right"),
        (0.5, "neither"),
        (np.float32(0.5), "both"),
    ],
)
def test_check_interval_accepts(value: object, closed: str) -> None:
    """Values inside the interval, numpy scalars included, pass silently."""
    check_interval("Owner", "param", value, 0, 1, closed=closed)


# ---------------------------------------------------------------------------
# overwrite_state


def test_reusable_gives_the_array_only_when_allowed_and_writable() -> None:
    """reusable: the array itself if overwriting is allowed, else a copy."""
    a = np.arange(3.0)
    assert reusable(a, True) is a
    copy = reusable(a, False)
    assert copy is not a and np.array_equal(copy, a)
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    out = reusable(frozen, True)
    assert out is not frozen and out.flags.writeable


def test_per_game_rate_with_overwrite_leaves_read_only_states_intact() -> None:
    """A read-only state is copied, not written, even with overwrite_state."""
    from simulator.systems import make_system

    for name in ("elo", "lichess", "glicko"):
        system = make_system(name, **({"per_game": True} if name == "glicko" else {}))
        state = system.new_state(4, day=0.0)
        for a in state:
            a.flags.writeable = False
        before = [a.copy() for a in state]
        games = Games(
            np.array([0, 2, 0]),
            np.array([1, 3, 2]),
            np.array([1.0, 0.5, 0.0]),
            day=np.array([1.0, 1.0, 2.0]),
        )
        new = system.rate(state, games, overwrite_state=True)
        for a, b in zip(state, before, strict=True):
            np.testing.assert_array_equal(a, b)
        assert not np.array_equal(new.rating, state.rating)
