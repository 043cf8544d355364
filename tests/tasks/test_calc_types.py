"""Tests of simulator.tasks.calc_types: games read from text, results as JSON."""

from __future__ import annotations

import pytest

from simulator.tasks.calc_types import (
    CalcError,
    CalcResult,
    GameInput,
    GameRow,
    ListInputs,
    parse_game,
)


@pytest.mark.parametrize("draw", ["0.5", ".5", "=", "½", "1/2"])
def test_draw_spellings(draw: str) -> None:
    """A draw may be written 0.5, =, ½ or 1/2."""
    assert parse_game(f"2300:{draw}").score == 0.5


def test_parse_game_reads_rd_and_colour() -> None:
    """OPPONENT/RD:SCORE:COLOUR gives each part; the text is kept for messages."""
    assert parse_game("1500/80:1:B") == GameInput(1500.0, 80.0, 1.0, "b", "1500/80:1:B")
    assert parse_game("1400:0") == GameInput(1400.0, None, 0.0, None, "1400:0")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1400-1", "malformed game '1400-1'"),
        ("abc:1", "the opponent's rating 'abc' is not a number"),
        ("1400/-5:1", "the opponent's RD '-5' must be a positive number"),
        ("1400:2", "the score '2' must be 1, 0.5 or 0"),
        ("1400:1:x", "the colour 'x' must be w or b"),
        ("nan:1", "the opponent's rating 'nan' is not a number"),
    ],
)
def test_parse_game_names_the_bad_part(text: str, message: str) -> None:
    """A bad game raises CalcError naming the game and the bad part."""
    with pytest.raises(CalcError) as info:
        parse_game(text)
    assert message in str(info.value)


def test_game_row_drops_figures_the_system_lacks() -> None:
    """A row's JSON has only the figures set, but always expected and change."""
    row = GameRow(1400.0, 1.0, None, None)
    assert row.to_dict() == {
        "opponent": 1400.0,
        "score": 1.0,
        "expected": None,
        "change": None,
    }
    full = GameRow(1400.0, 0.0, 0.5, -2.0, opponent_rd=30.0, colour="black")
    assert list(full.to_dict()) == [
        "opponent",
        "opponent_rd",
        "colour",
        "score",
        "expected",
        "change",
    ]


def test_result_json_follows_its_keys_with_notes_last() -> None:
    """to_dict gives the figures in ``keys``' order, tuples as lists, notes last."""
    result = CalcResult(
        keys=("system", "rating", "k", "games", "expected"),
        system="elo",
        rating=1500.0,
        games=(GameRow(1400.0, 1.0, 0.64, 7.2),),
        expected=(0.64,),
        points=1.0,
        change=7.2,
        new_rating=1507.2,
        k=20.0,
        notes=("a note",),
    )
    assert result.to_dict() == {
        "system": "elo",
        "rating": 1500.0,
        "k": 20.0,
        "games": [{"opponent": 1400.0, "score": 1.0, "expected": 0.64, "change": 7.2}],
        "expected": [0.64],
        "notes": ["a note"],
    }
    assert list(result.to_dict())[-1] == "notes"


def test_result_refuses_an_unknown_key() -> None:
    """A key that is no field of the result is a bug, caught when it is made."""
    with pytest.raises(TypeError, match="'bogus'"):
        CalcResult(("bogus",), "elo", None, (), (), 0.0, None, None)


def test_list_inputs_defaults() -> None:
    """The list inputs default to the table, the 'ever' junior rule, today."""
    inputs = ListInputs(rating=1500, k=20)
    assert (inputs.expectation, inputs.junior_2300, inputs.date) == (
        "table",
        "ever",
        None,
    )
