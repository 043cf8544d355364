"""Streaming CSV and PGN readers: fields, errors with line numbers, laziness, memory."""

from __future__ import annotations

import datetime as dt
import gzip
import io
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from simulator.data.records import (
    BadRecords,
    FormatError,
    Players,
    csv_batches,
    parse_day,
    pgn_batches,
    read_games,
    sort_batches,
)


def write_csv(path: Path, n_games: int, *, n_players: int = 400, seed: int = 0) -> None:
    """A seeded CSV of ``n_games`` random games, 200 a day from 2024-01-01."""
    rng = np.random.default_rng(seed)
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    score = rng.choice(np.array(["1", "0", "1/2"]), n_games)
    first = dt.date(2024, 1, 1).toordinal()
    with path.open("w") as f:
        f.write("white,black,score,date\n")
        f.writelines(
            f"p{w},p{b},{s},{dt.date.fromordinal(first + i // 200)}\n"
            for i, (w, b, s) in enumerate(zip(white, black, score, strict=True))
        )


def pgn_game(white: str, black: str, result: str, **tags: str) -> str:
    head = {"Event": "Rated Blitz game", "White": white, "Black": black}
    head |= {"Result": result, **tags}
    lines = [f'[{k} "{v}"]' for k, v in head.items()]
    return "\n".join(lines) + f"\n\n1. e4 {{ [%clk 0:03:00] }} e5 2. Nf3 {result}\n\n"


def test_csv_fields_and_spellings() -> None:
    """Scores, dates with times, rating columns and their aliases are read."""
    rows = [
        "Date,White,Black,Score,White_Elo,black_rating,comment",
        "2024-01-05,Ann,Bob,1-0,1800,1700,x",
        "2024.01.05,Bob,Cid,1/2,?,,y",
        "2024-01-06T12:00:00,Cid,Ann,0,1650.5,1805,z",
        "",
        "2024-01-06 18:00:00+02:00,Ann,Cid,½,,,",
    ]
    players = Players()
    (batch,) = csv_batches(rows, players=players)
    g = batch.games
    assert players.names == ["Ann", "Bob", "Cid"]
    assert g.white.tolist() == [0, 1, 2, 0] and g.black.tolist() == [1, 2, 0, 2]
    assert g.score.tolist() == [1.0, 0.5, 0.0, 0.5]
    day = parse_day("2024-01-05")
    assert g.day is not None
    assert g.day.tolist() == [day, day, day + 1.5, day + 1 + 16 / 24]
    np.testing.assert_array_equal(batch.white_rating, [1800, np.nan, 1650.5, np.nan])
    np.testing.assert_array_equal(batch.black_rating, [1700, np.nan, 1805, np.nan])
    assert batch.n_players == 3


def test_csv_batches_split_and_count_players() -> None:
    """Batches of ``batch_size`` games; n_players covers every index so far."""
    rows = ["white,black,score,date"]
    rows += [f"p{i},p{i + 1},1,2024-01-{1 + i:02d}" for i in range(5)]
    batches = list(csv_batches(rows, batch_size=2))
    assert [b.games.n_games for b in batches] == [2, 2, 1]
    assert [b.n_players for b in batches] == [3, 5, 6]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("Ann,Bob,2,2024-01-05", "score '2' is not 1, 0.5 or 0"),
        ("Ann,Bob,1,05/01/2024", "date '05/01/2024' is not YYYY-MM-DD"),
        ("Ann,Bob,1", "3 fields, the header has 4"),
        ("Ann,,1,2024-01-05", "no black player"),
        ("Ann,Ann,1,2024-01-05", "player 'Ann' plays themself"),
        ("Ann,Bob,1,2024-01-01", "dated 2024-01-01, before the game on line 2"),
    ],
)
def test_csv_malformed_row(row: str, message: str) -> None:
    """A malformed row names the file and line; --skip-bad counts it and goes on."""
    rows = [
        "white,black,score,date",
        "Cid,Dan,1,2024-01-02",
        row,
        "Dan,Cid,0,2024-01-03",
    ]
    with pytest.raises(FormatError) as info:
        list(csv_batches(rows, path="g.csv"))
    text = str(info.value)
    assert text.startswith("g.csv, line 3: ") and message in text
    bad = BadRecords()
    (batch,) = csv_batches(rows, path="g.csv", skip_bad=True, bad=bad)
    assert batch.games.n_games == 2
    assert bad.count == 1 and str(bad.examples[0]) == text
    assert bad.report()[0] == "Skipped 1 bad record(s) (--skip-bad):"


def test_csv_bad_rating_and_header() -> None:
    """A rating that is not a number, and a header without a needed column."""
    rows = ["white,black,score,date,white_rating", "A,B,1,2024-01-02,abc"]
    with pytest.raises(FormatError, match=r"^g.csv, line 2: white_rating 'abc'"):
        list(csv_batches(rows, path="g.csv"))
    with pytest.raises(FormatError, match=r"^g.csv, line 1: missing column\(s\) date"):
        list(csv_batches(["white,black,score", "A,B,1"], path="g.csv"))
    with pytest.raises(FormatError, match="the file is empty"):
        list(csv_batches([], path="g.csv"))


@pytest.mark.parametrize("first", [True, False])
def test_csv_empty_date(first: bool) -> None:
    """An empty date is bad on the first row as on any other (no day NaN)."""
    rows = ["white,black,score,date", "A,B,1,2024-01-02", "B,C,0,2024-01-03"]
    line = 2 if first else 3
    rows[line - 1] = rows[line - 1].rsplit(",", 1)[0] + ","
    with pytest.raises(FormatError, match=rf"^g.csv, line {line}: date '' is not"):
        list(csv_batches(rows, path="g.csv"))


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


def test_read_games_by_extension(tmp_path: Path) -> None:
    """read_games picks the reader by extension, also gzip-compressed."""
    csv_path = tmp_path / "g.csv.gz"
    with gzip.open(csv_path, "wt") as f:
        f.write("white,black,score,date\nA,B,1,2024-01-05\n")
    pgn_path = tmp_path / "g.pgn"
    pgn_path.write_text(pgn_game("A", "B", "0-1", Date="2024.01.05"))
    assert [b.games.score.tolist() for b in read_games(csv_path)] == [[1.0]]
    assert [b.games.score.tolist() for b in read_games(pgn_path)] == [[0.0]]
    with pytest.raises(FormatError, match=r"must end in \.csv or \.pgn"):
        next(read_games(tmp_path / "g.txt"))


def test_non_utf8_line(tmp_path: Path) -> None:
    """A line that is not UTF-8 is an error at its line, or skipped and counted."""
    path = tmp_path / "g.csv"
    path.write_bytes(
        b"white,black,score,date\nA,B,1,2024-01-05\nM\xfcller,B,1,2024-01-06\n"
        b"B,A,0,2024-01-07\n"
    )
    with pytest.raises(FormatError, match=r"line 3: not UTF-8 text"):
        list(read_games(path))
    bad = BadRecords()
    (batch,) = read_games(path, skip_bad=True, bad=bad)
    assert batch.games.n_games == 2 and bad.count == 1
    assert str(bad.examples[0]).endswith("line 3: not UTF-8 text (invalid start byte)")


def test_sort_batches_renumbers_players() -> None:
    """Out-of-order files are sorted in memory; indices follow the new order."""
    rows = ["white,black,score,date", "A,B,1,2024-01-09", "C,D,0,2024-01-02"]
    with pytest.raises(FormatError, match="games must be in date order"):
        list(csv_batches(rows))
    players = Players()
    batches = sort_batches(csv_batches(rows, players=players, ordered=False), players)
    (batch,) = batches
    assert players.names == ["C", "D", "A", "B"]
    assert batch.games.white.tolist() == [0, 2] and batch.games.score.tolist() == [0, 1]


def test_csv_reader_is_lazy() -> None:
    """The reader consumes lines only as batches are taken from it."""
    consumed = 0

    def lines() -> Iterator[str]:
        nonlocal consumed
        yield "white,black,score,date"
        for i in range(1_000_000):
            consumed += 1
            yield f"p{i % 97},p{(i + 1) % 97},1,2024-01-05"

    reader = csv_batches(lines(), batch_size=100)
    first = next(reader)
    assert first.games.n_games == 100
    assert consumed == 100
    next(reader)
    assert consumed == 200


def test_reading_streams_in_bounded_memory(tmp_path: Path) -> None:
    """Reading 100,000 games peaks far below the file's size (tracemalloc)."""
    path = tmp_path / "games.csv"
    write_csv(path, 100_000)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        n_games = sum(b.games.n_games for b in read_games(path, batch_size=1000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert n_games == 100_000
    assert peak < size / 5, (peak, size)
