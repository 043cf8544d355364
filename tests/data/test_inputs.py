"""Inputs of replay: compressions, standard input, the PGN filters, broken files."""

from __future__ import annotations

import bz2
import datetime as dt
import gzip
import io
import re
import sys
from pathlib import Path

import pytest
import zstandard

from simulator.cli import main
from simulator.data.byte_lines import ByteLines
from simulator.data.csv_records import csv_batches
from simulator.data.pgn_filters import GameFilter, Skipped, speed_of
from simulator.data.pgn_records import pgn_batches
from simulator.data.records import BadRecords, Players, _text_lines, read_games
from simulator.data.samples import write_lichess_pgn

COMPRESS = {
    "": lambda b: b,
    ".gz": gzip.compress,
    ".bz2": bz2.compress,
    ".zst": lambda b: zstandard.ZstdCompressor(write_checksum=True).compress(b),
}


@pytest.fixture(scope="module")
def month() -> bytes:
    buf = io.BytesIO()
    write_lichess_pgn(buf, 400, n_players=30, seed=3)
    return buf.getvalue()


class _Stdin(io.TextIOWrapper):
    """A standard input whose ``buffer`` holds ``data``."""

    def __init__(self, data: bytes) -> None:
        super().__init__(io.BytesIO(data))


def _replay(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: bytes | None = None,
) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", _Stdin(stdin))
    code = main(["replay", *argv, "--quiet"])
    out, err = capsys.readouterr()
    return code, out, err


def test_every_compression_and_stdin_give_the_same_bytes(
    tmp_path: Path,
    month: bytes,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """.pgn, .pgn.gz, .pgn.bz2, .pgn.zst and stdin (each): identical outputs."""
    outputs = set()
    for i, (ext, pack) in enumerate(COMPRESS.items()):
        data = pack(month)
        path = tmp_path / f"month.pgn{ext}"
        path.write_bytes(data)
        for source, stdin in ((str(path), None), ("-", data)):
            ratings = tmp_path / f"r{i}{source == '-'}.csv"
            argv = [source, "--format", "json", "--ratings-out", str(ratings)]
            code, out, err = _replay(argv, capsys, monkeypatch, stdin)
            assert code == 0, err
            outputs.add((out, ratings.read_bytes()))
    assert len(outputs) == 1
    ((out, ratings),) = outputs
    assert '"n_games": 400,' in out and ratings.count(b"\n") > 30


def test_the_bulk_reader_reads_as_the_line_reader(month: bytes, tmp_path: Path) -> None:
    """read_games (plain games in bulk) == pgn_batches over decoded lines."""
    path = tmp_path / "m.pgn.zst"
    path.write_bytes(COMPRESS[".zst"](month))
    bad = BadRecords()
    slow = list(pgn_batches(_text_lines(io.BytesIO(month), "m", False, bad)))
    fast = list(read_games(path, batch_size=10_000))
    assert len(slow) == len(fast) == 1
    for a, b in zip(slow, fast, strict=True):
        for x, y in (
            (a.games.white, b.games.white),
            (a.games.day, b.games.day),
            (a.games.score, b.games.score),
            (a.white_rating, b.white_rating),
            (a.black_rating, b.black_rating),
        ):
            assert x.tobytes() == y.tobytes()


@pytest.mark.parametrize("skip", [[], ["--skip-bad"]])
@pytest.mark.parametrize("ext", [".gz", ".bz2", ".zst"])
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_broken_compressed_file_is_one_line_and_writes_nothing(
    tmp_path: Path,
    month: bytes,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    ext: str,
    damage: str,
    skip: list[str],
) -> None:
    """One line naming the file, exit 2, no output.

    Damaged data may decompress to text before the checksum at the end of
    the stream finds it: without --skip-bad the first bad record it makes
    may be the line; with it, the checksum is.
    """
    data = bytearray(COMPRESS[ext](month))
    if damage == "truncated":
        data = data[: len(data) * 2 // 3]
    else:
        mid = len(data) // 2
        data[mid : mid + 16] = bytes(b ^ 0xA5 for b in data[mid : mid + 16])
    path = tmp_path / f"broken.pgn{ext}"
    path.write_bytes(bytes(data))
    ratings = tmp_path / "ratings.csv"
    code, out, err = _replay(
        [str(path), "--ratings-out", str(ratings), *skip], capsys, monkeypatch
    )
    assert code == 2 and out == "" and not ratings.exists()
    error = [line for line in err.splitlines() if "error:" in line]
    assert len(error) == 1 and str(path) in error[0]
    if skip or damage == "truncated":
        assert re.search(f"compressed data is {damage}", error[0]), err


@pytest.mark.parametrize(
    ("control", "speed"),
    [
        ("0+1", "bullet"),  # 40 s
        ("29+0", "ultrabullet"),
        ("30+0", "bullet"),
        ("179+0", "bullet"),
        ("60+3", "blitz"),  # 180 s
        ("479+0", "blitz"),
        ("480+0", "rapid"),
        ("1499+0", "rapid"),
        ("900+15", "classical"),  # 1500 s
        ("21599+0", "classical"),
        ("21600+0", "correspondence"),
        ("-", "correspondence"),
        ("180", None),
        ("", None),
    ],
)
def test_speed_classes_are_lichess_bounds(control: str, speed: str | None) -> None:
    assert speed_of(control) == speed


def test_filter_reasons() -> None:
    f = GameFilter(
        speeds=frozenset({"blitz"}),
        rated="rated",
        min_rating=1500,
        date_from=dt.date(2024, 1, 2),
        date_to=dt.date(2024, 1, 3),
    )
    good = {
        "Event": "Rated Blitz game",
        "TimeControl": "180+0",
        "WhiteElo": "1500",
        "BlackElo": "1700",
        "UTCDate": "2024.01.03",
    }
    assert f.reason(good) is None
    cases = {
        "Variant": ("Chess960", "variant chess960"),
        "Event": ("Casual Blitz game", "casual"),
        "TimeControl": ("60+0", "speed bullet"),
        "BlackElo": ("?", "rating below 1500 or unknown"),
        "WhiteElo": ("1499", "rating below 1500 or unknown"),
        "UTCDate": ("2024.01.04", "after the date range"),
    }
    for tag, (value, reason) in cases.items():
        assert f.reason(good | {tag: value}) == reason, tag
    assert f.reason(good | {"UTCDate": "2024.01.01"}) == "before the date range"
    assert GameFilter(variants=frozenset({"all"})).keeps_all
    with pytest.raises(ValueError, match="speeds"):
        GameFilter(speeds=frozenset({"lightning"}))


def test_filters_count_what_they_leave_out(
    tmp_path: Path,
    month: bytes,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The counts by reason are those of the file's tags, and the rest is replayed."""
    path = tmp_path / "m.pgn.bz2"
    path.write_bytes(COMPRESS[".bz2"](month))
    text = month.decode()
    events = re.findall(r'\[Event "(\w+) (\w+) game"\]', text)
    assert len(events) == 400
    n_speed = sum(speed != "Blitz" for _, speed in events)
    n_casual = sum(kind == "Casual" and speed == "Blitz" for kind, speed in events)
    assert n_speed and n_casual
    argv = [str(path), "--speed", "blitz", "--rated", "rated", "--format", "json"]
    code, out, err = _replay(argv, capsys, monkeypatch)
    assert code == 0, err
    assert f'"n_games": {400 - n_speed - n_casual},' in out
    assert f'"casual": {n_casual}' in out
    by_speed = sum(int(n) for n in re.findall(r'"speed \w+": (\d+)', out))
    assert by_speed == n_speed
    assert "Filtered out" in err
    # A filter on a CSV is refused; the default (standard only) is not.
    rows = tmp_path / "g.csv"
    rows.write_text("white,black,score,date\nA,B,1,2024-01-05\n")
    code, out, err = _replay([str(rows), "--speed", "blitz"], capsys, monkeypatch)
    assert code == 2 and "CSV" in err


def test_stdin_csv_sniffed_or_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = b"white,black,score,date\nA,B,1,2024-01-05\nB,A,1/2,2024-01-06\n"
    outs = []
    for extra in ([], ["--input-format", "csv"]):
        code, out, err = _replay(["-", *extra], capsys, monkeypatch, stdin=data)
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1] and "2 games" in outs[0].replace(",", "")
    # The same rows read from a file directly.
    (batch,) = csv_batches(data.decode().splitlines(), players=Players())
    assert batch.games.n_games == 2


def test_byte_lines_split_as_text_lines() -> None:
    """Line ends LF, CR LF, CR (and a CR LF split across chunks) as before."""
    data = b"a\r\nb\rc\n\nd\r\r\n\xef\xbb\xbfe\r"
    bad = BadRecords()
    lines = ByteLines(io.BytesIO(data), "x", False, bad)
    got = list(iter(lines.readline, ""))
    assert got == list(_text_lines(io.BytesIO(data), "x", False, bad))
    assert lines.number == len(got) == 7


def test_skipped_counter_report() -> None:
    s = Skipped()
    assert s.report() == []
    s.add("casual")
    assert s.report() == ["Filtered out 1 game(s): 1 casual"]
