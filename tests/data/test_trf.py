"""TRF-16 parsing: the Madrid tournament, every result code, malformed lines."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from simulator.data.records import FormatError
from simulator.data.trf import parse_trf, read_trf

MADRID = Path(__file__).parent / "swiss-madrid-2018.trf"


def player(
    start: int,
    rating: int,
    rounds: list[str],
    *,
    birth: str = "1990",
    points: str = "",
    name: str = "",
) -> str:
    """A ``001`` line in TRF-16's columns; each round is 'NNNN C R'."""
    line = f"001 {start:>4} m    {(name or f'Player {start}'):<33} {rating:>4} ESP"
    line = line.ljust(69) + f"{birth:<10} {points:>4} {start:>4}  "
    return line + "  ".join(rounds)


def tournament(*players: str, head: tuple[str, ...] = ("042 2024/03/05",)) -> list[str]:
    return ["012 Test open", *head, *players]


def test_madrid_players_rounds_and_dates() -> None:
    """The Madrid file: 137 players, 7 dated rounds, 396 games, 15 forfeits."""
    t = read_trf(MADRID)
    assert (len(t.players), t.n_rounds) == (137, 7)
    assert (t.start, t.end) == (dt.date(2018, 4, 8), dt.date(2018, 6, 10))
    assert t.round_dates[3] == dt.date(2018, 5, 6)  # "18/05/06" in tag 132
    codes = [g.code for g in t.games]
    assert sum(c in "1=0" for c in codes) == 396
    assert sum(c in "+-" for c in codes) == 15
    # Every player's points in columns 81-84 agree with their results.
    assert t.warnings == () and t.skipped == ()
    assert {p.rating for p in t.players if p.start >= 118} <= {None, 1035, 1058}


def test_madrid_player_columns() -> None:
    """Player 5's line: rating, birth year, points, a forfeit win, byes."""
    p = read_trf(MADRID).player(5)
    assert (p.rating, p.birth_year, p.points, p.rank, p.name) == (
        1683,
        1971,
        4.0,
        53,
        "Player 005",
    )
    kinds = [(e.opponent, e.colour, e.code, e.kind) for e in p.rounds]
    assert kinds == [
        (68, "b", "+", "forfeit"),
        (None, None, "H", "bye"),
        (43, "b", "0", "played"),
        (62, "w", "1", "played"),
        (None, None, "H", "bye"),
        (39, "b", "1", "played"),
        (None, None, "Z", "bye"),
    ]
    assert p.total == 4.0


def test_every_result_code() -> None:
    """Each TRF-16 code gives its points and kind; W/D/L are games, not rated."""
    lines = tournament(
        player(1, 1800, ["   2 w W", "   3 b D", "0000 - H", "0000 - F", "   2 w +"]),
        player(2, 1700, ["   1 b L", "0000 - U", "   3 w 1", "0000 - Z", "   1 b -"]),
        player(3, 1600, ["0000 - z", "   1 w d", "   2 b 0", "   4 b =", "     -  "]),
        player(4, 1500, ["0000 - Z", "0000 - Z", "0000 - Z", "   3 w =", ""]),
    )
    t = parse_trf(lines)
    totals = {p.start: p.total for p in t.players}
    # 1: W 1 + D .5 + H .5 + F 1 + (+) 1; 2: L 0 + U 1 + 1 + Z 0 + (-) 0;
    # 3: z 0 + d .5 + 0 + = .5 + blank (Z) 0; 4: = .5.
    assert totals == {1: 4.0, 2: 2.0, 3: 1.0, 4: 0.5}
    games = {(g.round, g.white, g.black): (g.code, g.played) for g in t.games}
    assert games == {
        (1, 1, 2): ("W", False),
        (2, 3, 1): ("D", False),
        (3, 2, 3): ("1", True),
        (4, 4, 3): ("=", True),
        (5, 1, 2): ("+", False),
    }
    assert t.player(3).rounds[4].code == "Z"  # a blank result is Z


def test_double_forfeit_and_colourless_forfeit() -> None:
    """Both players losing by forfeit is one pairing; colours may be missing."""
    t = parse_trf(
        tournament(player(1, 1800, ["   2 - -"]), player(2, 1700, ["   1 - -"]))
    )
    (g,) = t.games
    assert (g.white, g.black, g.code, g.colours, g.score) == (1, 2, "-", False, 0.0)


def test_dates_in_other_spellings() -> None:
    """042 as DD/MM/YYYY, round dates YY/MM/DD; round dates stand in for 042/052."""
    rounds = "132".ljust(91) + "24/03/05  24/03/12"
    t = parse_trf(
        ["012 X", "042 05/03/2024", rounds, player(1, 1800, ["   2 w 1", "0000 - H"]),
         player(2, 1700, ["   1 b 0", "0000 - H"])]
    )  # fmt: skip
    assert t.start == dt.date(2024, 3, 5) and t.end == dt.date(2024, 3, 12)
    assert t.games[0].day == dt.date(2024, 3, 5)
    t2 = parse_trf([rounds, player(1, 0, ["0000 - H"])])
    assert (t2.start, t2.end) == (dt.date(2024, 3, 5), dt.date(2024, 3, 12))


def test_no_date_is_an_error() -> None:
    """A file with neither a start date nor round dates cannot be rated."""
    with pytest.raises(FormatError, match="no start date"):
        parse_trf(["012 X", player(1, 1800, ["0000 - H"])], path="x.trf")


GOOD_1 = player(1, 1800, ["   2 w 1"])
GOOD_2 = player(2, 1700, ["   1 b 0"])


@pytest.mark.parametrize(
    ("bad_line", "line_no", "message"),
    [
        (GOOD_1.replace("001    1", "001   x1"), 3, "start number 'x1'"),
        (GOOD_1.replace("1800", "18a0"), 3, "rating '18a0' (columns 49-52)"),
        (GOOD_1.replace("1990      ", "19-1      "), 3, "birth date '19-1'"),
        (GOOD_1.replace("   2 w 1", "   2 w X"), 3, "result 'X' is not a TRF-16 code"),
        (GOOD_1.replace("   2 w 1", "   2 x 1"), 3, "colour 'x' is not w, b or -"),
        (GOOD_1.replace("   2 w 1", "0000 - 1"), 3, "result '1' needs an opponent"),
        (GOOD_1.replace("   2 w 1", "   2 w H"), 3, "a bye ('H') cannot have"),
        (GOOD_1.replace("   2 w 1", "   2 - 1"), 3, "needs the colour w or b"),
        (GOOD_1.replace("   2 w 1", "  2 w 1"), 3, "is not 'NNNN C R'"),
        (GOOD_1.replace("   2 w 1", "   2 w 0"), 3, "result '0' but opponent 2"),
        (GOOD_1.replace("   2 w 1", "   2 b 1"), 3, "colour b and opponent 2"),
        (GOOD_1.replace("   2 w 1", "   7 w 1"), 3, "opponent 7 is not in the file"),
        ("hello world", 3, "'hel' is not a TRF-16 record code"),
    ],
)
def test_malformed_line(bad_line: str, line_no: int, message: str) -> None:
    """A malformed line names the file, the line and what is wrong."""
    with pytest.raises(FormatError) as info:
        parse_trf(["012 T", "042 2024/03/05", bad_line, GOOD_2], path="t.trf")
    assert str(info.value).startswith(f"t.trf, line {line_no}: ")
    assert message in str(info.value)


def test_inconsistent_pairing_names_both_lines() -> None:
    """Opponents who disagree about a round: the message points at both lines."""
    third = player(3, 1600, ["0000 - H"])
    with pytest.raises(FormatError, match=r"line 3: player 1, round 1: opponent 2 "):
        parse_trf(
            ["012 T", "042 2024/03/05", GOOD_1, player(2, 1700, ["   3 b 0"]), third]
        )


def test_duplicate_start_number() -> None:
    """A start number used twice is an error on the second line."""
    with pytest.raises(FormatError, match="line 4: start number 1 again"):
        parse_trf(["012 T", "042 2024/03/05", GOOD_1, GOOD_1, GOOD_2])


def test_skip_bad_counts_and_keeps_the_rest() -> None:
    """With skip_bad the bad lines and the games they break are listed, not raised."""
    lines = [
        "012 T",
        "042 2024/03/05",
        "### a comment line",
        "XXR 2",
        player(1, 1800, ["   2 w 1", "   3 b ="]),
        player(2, 1700, ["   1 b 0", "   4 w 1"]),
        player(3, 1650, ["   4 w 1", "   1 b ="]),  # round 2: both black
        player(4, 1600, ["   3 b 0", "   2 b Q"]),  # unknown result: line skipped
    ]
    t = parse_trf(lines, path="t.trf", skip_bad=True)
    messages = [str(b) for b in t.skipped]
    assert len(messages) == 4, messages
    assert messages[0].startswith(
        "t.trf, line 8: round 2 (columns 102-109): result 'Q'"
    )
    # Player 4's line was skipped, so the games naming 4 are listed too.
    assert sum("opponent 4 is not in the file" in m for m in messages) == 2
    assert "t.trf, line 5: player 1, round 2: colour b and opponent 3 (line 7) " in (
        "".join(messages)
    )
    assert [(g.round, g.white, g.black) for g in t.games] == [(1, 1, 2)]
    assert "1 line(s) of record type 'XXR' ignored (not used)" in t.warnings


def test_points_disagreeing_with_results_warn() -> None:
    """Points in columns 81-84 that differ from the results are a warning."""
    t = parse_trf(
        tournament(player(1, 1800, ["   2 w 1"], points="0.5"), GOOD_2), path="t.trf"
    )
    assert t.warnings == (
        "line 3: player 1 has 0.5 points in the file but 1 by the results "
        "(TRF-16 default scoring)",
    )


def test_latin1_file(tmp_path: Path) -> None:
    """A Latin-1 file (not UTF-8) is read with its accented names."""
    path = tmp_path / "latin.trf"
    text = "\n".join(tournament(player(1, 1800, ["0000 - H"], name="Muñoz")))
    path.write_bytes(text.encode("latin-1"))
    assert read_trf(path).player(1).name == "Muñoz"
