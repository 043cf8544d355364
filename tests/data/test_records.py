"""Reading game records: the reader by extension, decoding, sorting, memory."""

from __future__ import annotations

import datetime as dt
import gzip
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from test_pgn_records import pgn_game

from simulator.data.csv_records import csv_batches
from simulator.data.records import (
    BadRecords,
    FormatError,
    Players,
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
