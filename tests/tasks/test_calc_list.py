"""Tests of simulator.tasks.calc_list: FIDE and old-style FIDE, the pages' figures."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from simulator.tasks.calc import (
    CalcError,
    CalcResult,
    ListInputs,
    calculate,
    parse_game,
)

THREE_GAMES = ["1400:1", "1600:0.5", "1550:0"]
FIRST_RATING = ["1902:0.5", "1877:0.5", "1884:1", "2012:0", "1832:1"]


def calc(system: str, games: list[str], **inputs: Any) -> CalcResult:
    """``system``'s result for the player ``inputs`` over ``games`` (text form)."""
    return calculate(system, ListInputs(**inputs), [parse_game(g) for g in games])


# --------------------------------------------------------------------------
# FIDE
# --------------------------------------------------------------------------


def test_fide_capped_win_table() -> None:
    """1500 beats 1000 at K 20: the cap makes PD .92 and the change +1.6."""
    r = calc("fide", ["1000:1"], rating=1500, k=20)
    assert r.expected == (0.92,)
    assert r.change == pytest.approx(1.6)
    assert r.new_rating == 1502
    assert r.k == 20


def test_fide_capped_win_formula() -> None:
    """With the formula E is .909 at the 400 cap and the change +1.8 (Croatian page)."""
    r = calc("fide", ["1000:1"], rating=1500, k=20, expectation="formula")
    assert r.expected[0] == pytest.approx(1 / (1 + 10**-1), abs=1e-12)
    assert r.change is not None and round(r.change, 1) == 1.8


def test_fide_three_game_period() -> None:
    """The Croatian page's period: the expected scores, +1.4 unrounded, 1501."""
    r = calc("fide", THREE_GAMES, rating=1500, k=20)
    assert r.expected == (0.64, 0.36, 0.43)
    assert [g.change for g in r.games] == pytest.approx([7.2, 2.8, -8.6])
    assert r.change == pytest.approx(1.4)
    assert (r.rounded_change, r.new_rating, r.k) == (1, 1501, 20)


def test_fide_round_expectation() -> None:
    """round_expectation 2 gives the Croatian page's rounded E; unrounded differs."""
    args: dict[str, Any] = {"rating": 1500, "k": 20, "expectation": "formula"}
    rounded = calc("fide", THREE_GAMES, **args, round_expectation=2)
    exact = calc("fide", THREE_GAMES, **args)
    assert rounded.expected == pytest.approx([0.64, 0.36, 0.43], abs=1e-12)
    assert rounded.change == pytest.approx(1.4)
    assert exact.expected[2] == pytest.approx(1 / (1 + 10 ** (50 / 400)))
    assert exact.change != pytest.approx(1.4)


def test_fide_unrated_first_rating() -> None:
    """FIDE's published first rating: Ra 1872.43, p .57, dp 50 -> 1922."""
    r = calc("fide", FIRST_RATING, unrated=True)
    assert r.initial_rating == 1922
    assert r.new_rating == 1922
    assert r.initial_rating_reason is None
    assert r.expected == (None,) * 5
    assert r.k is None


def test_fide_unrated_too_few_games() -> None:
    """Fewer than 5 games: no rating (None), and the reason says why."""
    r = calc("fide", FIRST_RATING[:4], unrated=True)
    assert r.initial_rating is None
    assert r.initial_rating_reason is not None
    assert "4 games" in r.initial_rating_reason


def test_fide_unrated_below_floor() -> None:
    """A first rating below 1400 is not published: None, with the floor named."""
    r = calc("fide", ["1400:0"] * 4 + ["1400:="], unrated=True)
    assert r.initial_rating is None
    assert r.initial_rating_reason is not None
    assert "1400 floor" in r.initial_rating_reason


def test_fide_unrated_zero_points() -> None:
    """0 points in the first event: its games leave the pool (FIDE 8.2.2)."""
    r = calc("fide", ["1800:0"] * 5, unrated=True)
    assert r.initial_rating is None
    assert r.initial_rating_reason is not None
    assert "8.2.2" in r.initial_rating_reason


def test_fide_unrated_capped_initial_rating() -> None:
    """A first rating above 2200 is limited to 2200, with a note (FIDE 8.2.1)."""
    r = calc("fide", ["2700:1"] * 5, unrated=True)
    assert r.initial_rating == 2200
    assert any("8.2.1" in note for note in r.notes)


def test_rule_700() -> None:
    """K 40 and 20 games: the 700 rule makes K 35 for the period."""
    r = calc("fide", ["1500:1"] * 20, rating=1500, k=40)
    assert (r.k, r.k_list) == (35, 40)
    assert r.change == pytest.approx(35 * 20 * 0.5)
    assert any("700 rule" in note for note in r.notes)


@pytest.mark.parametrize(
    ("extra", "k"),
    [
        ({"games_played": 10}, 40),
        ({"games_played": 30}, 20),
        ({"games_played": 50, "birth_year": 2007}, 40),
        ({"games_played": 50, "birth_year": 2006}, 20),
        ({"games_played": 50, "birth_year": 2010, "ever_2300": True}, 20),
        ({"games_played": 5, "ever_2400": True}, 10),
        (
            {"games_played": 50, "date": dt.date(2026, 1, 15), "birth_year": 2007},
            20,
        ),
    ],
)
def test_derived_k(extra: dict[str, Any], k: int) -> None:
    """K from games_played, birth_year (the list's year), ever_2400/2300."""
    args = {"date": dt.date(2025, 6, 15), **extra}
    assert calc("fide", ["2250:1"], rating=2250, **args).k == k


def test_derived_k_rated_2400() -> None:
    """A player rated 2400 on the list has K 10 whatever the games."""
    assert calc("fide", ["2400:1"], rating=2400, games_played=3).k == 10


def test_exemption_2650() -> None:
    """Rated 2650+, the 2025 rules use the real gap; rules 2024 and fide-2024 cap."""
    args: dict[str, Any] = {"rating": 2700, "k": 10}
    assert calc("fide", ["2200:1"], **args).expected == (0.96,)
    capped = calc("fide", ["2200:1"], rules="2024", **args)
    assert capped.expected == (0.92,)
    assert capped.system == "fide-2024"
    assert calc("fide-2024", ["2200:1"], **args).expected == (0.92,)


def test_cap_applies_to_the_player_only() -> None:
    """The 2200 side of a 2700 game is capped at 400 even under the 2025 rules."""
    assert calc("fide", ["2700:0"], rating=2200, k=20).expected == (0.08,)


def test_fide_below_floor() -> None:
    """A new rating below 1400 is reported as leaving the list."""
    r = calc("fide", ["1400:0"], rating=1400, k=20)
    assert (r.new_rating, r.below_floor) == (1390, True)
    assert any("below the 1400 floor" in note for note in r.notes)


@pytest.mark.parametrize(
    ("system", "inputs", "message"),
    [
        ("fide", {"unrated": True, "k": 20}, "--k 20: an unrated player has no K"),
        ("fide", {"unrated": True, "games_played": 9}, "--games-played 9: an unrated"),
        ("fide", {"k": 20}, "give --rating, or --unrated"),
        ("fide", {"rating": 1500}, "give --k, or --games-played"),
        ("fide", {"rating": 1500, "k": 20, "ever_2400": True}, "--ever-2400: give K"),
        ("fide", {"rating": 1500, "k": 20, "round_expectation": 2}, "needs"),
        ("fide-2024", {"rating": 1500, "k": 20, "rules": "2025"}, "contradicts"),
        ("classic", {"rating": 1500, "k": 20, "birth_year": 2000}, "--birth-year"),
        ("fide", {"rating": 1500, "k": 20, "initial": "national"}, "--initial"),
    ],
)
def test_bad_inputs_raise_calc_error(
    system: str, inputs: dict[str, Any], message: str
) -> None:
    """Contradictory or missing inputs: a CalcError (a ValueError) saying what."""
    with pytest.raises(CalcError, match=message.replace("(", r"\(")):
        calc(system, ["1400:1"], **inputs)
    assert issubclass(CalcError, ValueError)


@pytest.mark.parametrize(
    ("game", "message"),
    [
        ("1400/30:1", "an opponent RD makes no sense for fide"),
        ("1400:1:w", "the colour only matters for lichess"),
        ("1400.5:1", "must be a whole number >= 0"),
    ],
)
def test_bad_games_raise_calc_error(game: str, message: str) -> None:
    """A game with an RD, a colour or a fractional rating is refused, named."""
    with pytest.raises(CalcError, match=message) as info:
        calc("fide", [game], rating=1500, k=20)
    assert game in str(info.value)


# --------------------------------------------------------------------------
# Old-style FIDE
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "change", "new"), [("1", 3.6, 2404), ("0", -6.4, 2394), ("=", -1.4, 2399)]
)
def test_classic_seed_examples(score: str, change: float, new: int) -> None:
    """The Danish page: 2400 vs 2300 at K 10: +3.6, -6.4, -1.4."""
    r = calc("classic", [f"2300:{score}"], rating=2400, k=10)
    assert r.expected == (0.64,)
    assert r.change == pytest.approx(change)
    assert r.new_rating == new


def test_classic_german_examples() -> None:
    """The German page: 1830 draws 1980 at K 15 -> +3.0; 1950 loses to 1820 -> -10.2."""
    draw = calc("classic", ["1980:="], rating=1830, games_played=40)
    loss = calc("classic", ["1820:0"], rating=1950, games_played=40)
    assert (draw.k, draw.change) == (15, pytest.approx(3.0))
    assert loss.change == pytest.approx(-10.2)


def test_classic_derived_k() -> None:
    """Old rules: K 25 under 30 games, 10 from 2400 on, else 15."""
    k = [
        calc("classic", ["2000:1"], rating=rating, games_played=games).k
        for rating, games in [(2450, 10), (2450, 40), (2300, 40)]
    ]
    assert k == [25, 10, 15]


def test_classic_national_initial() -> None:
    """German national start value: mean + 700 (p - 0.5) n / (n + 2), 7 games."""
    games = [f"1600:{s}" for s in ("1", "1", "1", "0", "0", "=", "=")]
    r = calc("classic", games, unrated=True, initial="national")
    assert r.initial_rating == round(1600 + 700 * (4 / 7 - 0.5) * 7 / 9)
    few = calc("classic", games[:6], unrated=True, initial="national")
    assert few.initial_rating is None
    assert few.initial_rating_reason is not None
    assert "needs 7" in few.initial_rating_reason


def test_classic_international_initial() -> None:
    """Old international rule: 9 games, 12.5 per half point above 50 %."""
    r = calc("classic", ["2000:1"] * 2 + ["2000:="] * 7, unrated=True)
    assert r.initial_rating == 2025


@pytest.mark.parametrize(
    ("games", "reason"),
    [
        (["1600:1", "1600:0"], "2 rated opponent(s) in the event"),
        (["1600:0", "1600:0", "1700:0.5"], "0.5 point(s) in the event"),
    ],
)
def test_classic_international_events_that_do_not_count(
    games: list[str], reason: str
) -> None:
    """An event with fewer than 3 rated opponents or 0.5 points or less is passed."""
    r = calc("classic", games, unrated=True)
    assert r.initial_rating is None
    assert r.initial_rating_reason is not None
    assert r.initial_rating_reason.startswith(reason)
