"""The outputs of a rated tournament: table, CSV and JSON, of one system or several."""

from __future__ import annotations

import json
from dataclasses import asdict, fields

import pytest
from test_rating import MADRID, run

from simulator.data.trf import read_trf
from simulator.tasks.rate.output import to_csv, to_json
from simulator.tasks.rate.rating import GameLine, rate_tournament


@pytest.fixture(scope="module")
def madrid_fide():  # type: ignore[no-untyped-def]
    return rate_tournament(read_trf(MADRID), "fide")


def test_cli_table_detail_and_assumptions(capsys: pytest.CaptureFixture[str]) -> None:
    """``ratingsim rate`` prints the table, the assumptions and (--detail) rounds."""
    code, out, err = run(capsys, "rate", str(MADRID), "--detail")
    assert (code, err) == (0, "")
    assert "30 assumed for every rated player (--games-played-default)" in out
    assert "round 1: 117 (1058) w 1  D +459 (capped), PD 0.92" in out
    row = next(line for line in out.splitlines() if line.startswith(" 45  Player 045"))
    assert row.split()[3:12] == [
        "1517", "1954", "20", "7", "3.5", "4.48", "-19.60", "1497", "1",
    ]  # fmt: skip


def test_cli_json_and_csv(capsys: pytest.CaptureFixture[str]) -> None:
    """JSON has every player with every round; CSV one row per player."""
    code, out, _ = run(capsys, "rate", str(MADRID), "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["rated_on_list"] == "2018-07-01"
    p5 = data["players"][4]
    assert (p5["start"], p5["k"], p5["rounded"], p5["new_rating"]) == (5, 20, -4, 1679)
    assert len(p5["games"]) == 7
    code, out, _ = run(capsys, "rate", str(MADRID), "--format", "csv")
    lines = out.splitlines()
    assert lines[0].startswith("start,name,rating,birth_year,junior,games_before")
    assert len(lines) == 138
    assert lines[130].startswith("130,Player 130,,1992,False,,,,0,")


def test_json_players_are_asdict(madrid_fide) -> None:  # type: ignore[no-untyped-def]
    """JSON's players are ``dataclasses.asdict`` of the results, field for field.

    ``to_json`` converts the records one level at a time (``asdict``
    deep-copies every value, seconds for thousands of players); the standard
    library's conversion is the reference. Players with and without an
    initial-rating performance are among Madrid's.
    """
    players = json.loads(to_json(madrid_fide))["players"]
    reference = json.loads(json.dumps([asdict(p) for p in madrid_fide.players]))
    assert players == reference
    assert {p["performance"] is None for p in players} == {True, False}
    detail = to_csv(madrid_fide, detail=True).splitlines()
    assert detail[0].split(",") == [
        "start",
        "name",
        *(f.name for f in fields(GameLine)),
    ]
    game = madrid_fide.players[4].games[0]
    assert detail[1 + 4 * 7] == ",".join(
        str(x)
        for x in (
            5,
            "Player 005",
            *(v if v is not None else "" for v in asdict(game).values()),
        )
    )


def test_cli_compare(capsys: pytest.CaptureFixture[str]) -> None:
    """--compare puts fide, fide-2024 and classic side by side."""
    code, out, _ = run(capsys, "rate", str(MADRID), "--compare", "--format", "csv")
    rows = out.splitlines()
    assert code == 0
    assert rows[0].split(",")[3:6] == ["fide_k", "fide_change", "fide_new_rating"]
    assert rows[5] == "5,Player 005,1683,20,-4,1679,20,-4,1679,15,-3,1680"
    code, out, _ = run(capsys, "rate", str(MADRID), "--compare", "fide,classic")
    assert code == 0 and "fide K" in out and "classic K" in out
