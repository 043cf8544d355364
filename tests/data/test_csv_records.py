"""The CSV reader: fields and spellings, batches, errors with line numbers, laziness."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from simulator.data.csv_records import csv_batches
from simulator.data.records import BadRecords, FormatError, Players, parse_day


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
