"""The PGN reader: tags, dates and ratings, errors at the line of the bad tag."""

from __future__ import annotations

import io

import numpy as np
import pytest

from simulator.data.pgn_records import pgn_batches
from simulator.data.records import BadRecords, FormatError, Players, parse_day


def pgn_game(white: str, black: str, result: str, **tags: str) -> str:
    head = {"Event": "Rated Blitz game", "White": white, "Black": black}
    head |= {"Result": result, **tags}
    lines = [f'[{k} "{v}"]' for k, v in head.items()]
    return "\n".join(lines) + f"\n\n1. e4 {{ [%clk 0:03:00] }} e5 2. Nf3 {result}\n\n"


def test_pgn_headers_dates_and_ratings() -> None:
    """PGN: names, results, UTCDate + UTCTime (fractional day), WhiteElo '?'."""
    text = (
        "% a comment line\n"
        + pgn_game("Ann", "Bob", "1-0", UTCDate="2024.01.05", UTCTime="06:00:00",
                   WhiteElo="1800", BlackElo="1700")
        + pgn_game("Bob", "Cid", "1/2-1/2", Date="2024.01.06", WhiteElo="?")
        + pgn_game("Cid", "Ann", "0-1", Date="2024.01.06")
    )  # fmt: skip
    players = Players()
    (batch,) = pgn_batches(io.StringIO(text), players=players)
    g = batch.games
    assert players.names == ["Ann", "Bob", "Cid"]
    assert g.score.tolist() == [1.0, 0.5, 0.0]
    day = parse_day("2024-01-05")
    assert g.day is not None and g.day.tolist() == [day + 0.25, day + 1, day + 1]
    np.testing.assert_array_equal(batch.white_rating, [1800, np.nan, np.nan])
    np.testing.assert_array_equal(batch.black_rating, [1700, np.nan, np.nan])


@pytest.mark.parametrize(
    ("game", "line", "message"),
    [
        (pgn_game("A", "B", "*", Date="2024.01.05"), 12, "result '*' is not 1-0"),
        (pgn_game("A", "B", "1-0", Date="2024.??.??"), 13, "Date '2024.??.??' is not"),
        (pgn_game("A", "?", "1-0", Date="2024.01.05"), 11, "the game has no Black"),
        (pgn_game("A", "B", "1-0", Date="2024.01.05", WhiteElo="x"), 14, "WhiteElo"),
        (pgn_game("A", "B", "1-0", Date="2024.01.05").replace('[Black "B"]',
         '[Black "B"'), 11, "malformed tag pair '[Black \"B\"'"),
        (pgn_game("A", "B", "1-0").replace("2024", ""), 9, "no Date"),
    ],
)  # fmt: skip
def test_pgn_malformed_game(game: str, line: int, message: str) -> None:
    """A bad second game: the error names the file and the line of the bad tag."""
    first = pgn_game("C", "D", "1-0", Date="2024.01.05")  # lines 1-8
    text = first + game + pgn_game("D", "C", "0-1", Date="2024.01.06")
    with pytest.raises(FormatError) as info:
        list(pgn_batches(io.StringIO(text), path="g.pgn"))
    assert str(info.value).startswith(f"g.pgn, line {line}: {message}")
    bad = BadRecords()
    (batch,) = pgn_batches(io.StringIO(text), path="g.pgn", skip_bad=True, bad=bad)
    assert batch.games.n_games == 2 and bad.count == 1
