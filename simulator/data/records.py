"""Game records read in batches: the pieces every reader shares, and the entry point.

A game record file is read one line (CSV) or one game's headers (PGN) at a
time and handed on in batches of ``batch_size`` games, so memory holds one
batch plus the name -> index mapping of the players seen so far, never the
file. Players become integer indices in the order they first appear
(:class:`Players`).

:func:`read_games` opens a file and picks its reader by the extension:
:func:`~simulator.data.csv_records.csv_batches` (CSV, one game a row) or
:func:`~simulator.data.pgn_records.pgn_batches` (PGN, headers only); their
modules describe the formats. This module holds what both share: the batch
(:class:`GameBatch`), the batcher that checks the date order, the spellings
of scores, dates and ratings, and the errors.

Games must come in date order (the order of a Lichess database export), so
that they can be rated as they are read; :func:`sort_batches` sorts a file
that is not, in memory.

Errors
------
A malformed record raises :class:`FormatError` naming the file, the line and
what is wrong; with ``skip_bad=True`` it is counted in a :class:`BadRecords`
(which keeps the first few for the report) and skipped, never silently.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TextIO, cast

import numpy as np

from simulator.data.compressed import CompressedDataError, Readable
from simulator.data.pgn_filters import GameFilter, Skipped
from simulator.systems._common import FloatArray, Games

__all__ = [
    "BATCH_SIZE",
    "BadRecord",
    "BadRecords",
    "FormatError",
    "GameBatch",
    "Players",
    "parse_day",
    "parse_score",
    "read_games",
    "sort_batches",
]

#: The years a game's date may have (the first recorded games are of the
#: 15th century).
FIRST_YEAR = 1400
LAST_YEAR = 2200
#: The longest message of a bad record (longer ones are cut).
MAX_MESSAGE = 200
#: Games per batch handed on by the readers.
BATCH_SIZE = 10_000

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
#: White's score by its spellings (:func:`parse_score`).
SCORES: dict[str, float] = {
    "1": 1.0,
    "1.0": 1.0,
    "0": 0.0,
    "0.0": 0.0,
    "0.5": 0.5,
    ".5": 0.5,
    "1/2": 0.5,
    "½": 0.5,
    "=": 0.5,
    "1-0": 1.0,
    "0-1": 0.0,
    "1/2-1/2": 0.5,
    "½-½": 0.5,
}
_UNKNOWN = frozenset({"", "?", "-"})


@dataclass(frozen=True)
class BadRecord:
    """A malformed record: where it is and what is wrong."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        # A message quotes the file's text: a huge field or a line without a
        # line end would make a huge message.
        message = self.message
        if len(message) > MAX_MESSAGE:
            message = message[: MAX_MESSAGE - 3] + "..."
        return f"{self.path}, line {self.line}: {message}"


class FormatError(ValueError):
    """A malformed record in an input file (TRF, CSV or PGN).

    Attributes
    ----------
    bad : BadRecord
        The file, the line and the problem.
    """

    def __init__(self, bad: BadRecord) -> None:
        super().__init__(str(bad))
        self.bad = bad


class BadRecords:
    """The records ``skip_bad`` left out: all counted, the first ``keep`` kept.

    >>> bad = BadRecords(keep=1)
    >>> bad.add(BadRecord("a.csv", 3, "score 'x' is not 1, 0.5 or 0"))
    >>> bad.add(BadRecord("a.csv", 9, "no date"))
    >>> bad.count, [str(b) for b in bad.examples]
    (2, ["a.csv, line 3: score 'x' is not 1, 0.5 or 0"])
    """

    def __init__(self, keep: int = 20) -> None:
        self.keep = keep
        self.count = 0
        self.examples: list[BadRecord] = []

    def add(self, bad: BadRecord) -> None:
        """Count ``bad`` (and keep it if fewer than ``keep`` are kept)."""
        self.count += 1
        if len(self.examples) < self.keep:
            self.examples.append(bad)

    def report(self) -> list[str]:
        """Lines for the user: the count, then the kept examples."""
        if self.count == 0:
            return []
        lines = [f"Skipped {self.count} bad record(s) (--skip-bad):"]
        lines += [f"  {b}" for b in self.examples]
        if self.count > len(self.examples):
            lines.append(f"  ... and {self.count - len(self.examples)} more")
        return lines


def raise_or_skip(
    record: BadRecord, skip_bad: bool, keep: Callable[[BadRecord], None]
) -> None:
    """Raise ``record`` as a :class:`FormatError`, or with ``skip_bad`` keep it.

    Every reader treats a malformed record so: ``keep`` is where it is
    counted (:meth:`BadRecords.add`) or listed.
    """
    if not skip_bad:
        raise FormatError(record) from None
    keep(record)


class Players:
    """Player names -> indices 0, 1, ... in the order of first appearance.

    >>> p = Players()
    >>> p.index_of("Carlsen"), p.index_of("Nepo"), p.index_of("Carlsen"), len(p)
    (0, 1, 0, 2)
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        #: FIDE IDs the records give (PGN ``WhiteFideId``), by index.
        self.fide_ids: dict[int, str] = {}

    def index_of(self, name: str) -> int:
        """The index of ``name``, a new one for a new name."""
        i = self.index.get(name)
        if i is None:
            i = len(self.names)
            self.index[name] = i
            self.names.append(name)
        return i

    def __len__(self) -> int:
        return len(self.names)

    def renumber(self, order: Iterable[int]) -> None:
        """Renumber: the player now at index ``order[i]`` gets index ``i``.

        Players left out of ``order`` are dropped.
        """
        order = [int(i) for i in order]
        new_of = {old: new for new, old in enumerate(order)}
        self.fide_ids = {new_of[i]: v for i, v in self.fide_ids.items() if i in new_of}
        self.names = [self.names[i] for i in order]
        self.index = {name: i for i, name in enumerate(self.names)}


@dataclass(frozen=True, eq=False)
class GameBatch:
    """A batch of games in date order, with the ratings the file carries.

    Attributes
    ----------
    games : Games
        ``white``, ``black`` (player indices), ``score`` (White's) and ``day``
        (days since 1970-01-01, fractional where the file gives a time).
    white_rating, black_rating : ndarray of shape (n_games,)
        Ratings from the file (``WhiteElo``, ``white_rating``), NaN where
        absent.
    n_players : int
        Players named so far: every index in this and earlier batches is
        below it.
    """

    games: Games
    white_rating: FloatArray
    black_rating: FloatArray
    n_players: int


def parse_score(text: str) -> float | None:
    """White's score from its usual spellings; None if it is none of them.

    >>> parse_score("1/2"), parse_score("1-0"), parse_score("2")
    (0.5, 1.0, None)
    """
    return SCORES.get(text.strip())


def parse_day(text: str) -> float | None:
    """Days since 1970-01-01 of an ISO date or date-time (UTC); None if neither.

    ``YYYY.MM.DD`` (PGN's spelling) is accepted; a time makes the day
    fractional; a time zone is converted to UTC.

    >>> parse_day("1970-01-02"), parse_day("1970.01.02"), parse_day("1970-01-01T12:00")
    (1.0, 1.0, 0.5)
    >>> parse_day("2024-13-01") is None, parse_day("9999-12-31") is None
    (True, True)

    Years outside :data:`FIRST_YEAR`..:data:`LAST_YEAR` are refused: the
    list systems close every rating period between the first game and the
    last, and 0001-01-01 to 9999-12-31 took 40 s for two games.
    """
    t = text.strip()
    if len(t) >= 10 and t[4] == "." and t[7] == ".":
        t = f"{t[:4]}-{t[5:7]}-{t[8:]}"
    try:
        if len(t) == 10:
            day = dt.date.fromisoformat(t)
            if not FIRST_YEAR <= day.year <= LAST_YEAR:
                return None
            return float(day.toordinal() - 719163)
        moment = dt.datetime.fromisoformat(t)
    except ValueError:
        return None
    if not FIRST_YEAR <= moment.year <= LAST_YEAR:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return (moment - _EPOCH).total_seconds() / 86400.0


def parse_rating(text: str) -> float | None:
    """A rating field: NaN if unknown, None if not a number."""
    t = text.strip()
    if t in _UNKNOWN:
        return math.nan
    try:
        value = float(t)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


class Batcher:
    """Validated games -> batches; checks the date order, counts bad records."""

    def __init__(
        self,
        path: str,
        players: Players,
        batch_size: int,
        skip_bad: bool,
        bad: BadRecords | None,
        ordered: bool,
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1. Got {batch_size!r}.")
        self.path = path
        self.players = players
        self.batch_size = batch_size
        self.skip_bad = skip_bad
        self.bad = BadRecords() if bad is None else bad
        self.ordered = ordered
        self.last_day = -math.inf
        self.last_line = 0
        self.white: list[int] = []
        self.black: list[int] = []
        self.score: list[float] = []
        self.day: list[float] = []
        self.white_rating: list[float] = []
        self.black_rating: list[float] = []

    def fail(self, line: int, message: str) -> None:
        """Raise a :class:`FormatError`, or count it with ``skip_bad``."""
        raise_or_skip(BadRecord(self.path, line, message), self.skip_bad, self.bad.add)

    def add(
        self,
        line: int,
        white: str,
        black: str,
        score: float,
        day: float,
        white_rating: float,
        black_rating: float,
    ) -> bool:
        """Add one game; False (after :meth:`fail`) if it is out of date order."""
        if white == black:
            self.fail(line, f"player {white!r} plays themself")
            return False
        if self.ordered and day < self.last_day:
            self.fail(
                line,
                f"the game is dated {_day_text(day)}, before the game on line "
                f"{self.last_line} ({_day_text(self.last_day)}): games must be in "
                "date order (sort the file, or use --sort)",
            )
            return False
        self.last_day, self.last_line = day, line
        self.white.append(self.players.index_of(white))
        self.black.append(self.players.index_of(black))
        self.score.append(score)
        self.day.append(day)
        self.white_rating.append(white_rating)
        self.black_rating.append(black_rating)
        return True

    def full(self) -> bool:
        """Whether a batch is ready."""
        return len(self.white) >= self.batch_size

    def flush(self) -> GameBatch:
        """The games added so far as a batch (and start a new one)."""
        batch = GameBatch(
            Games(
                np.array(self.white, dtype=np.intp),
                np.array(self.black, dtype=np.intp),
                np.array(self.score, dtype=np.float64),
                day=np.array(self.day, dtype=np.float64),
            ),
            np.array(self.white_rating, dtype=np.float64),
            np.array(self.black_rating, dtype=np.float64),
            len(self.players),
        )
        for a in (
            self.white,
            self.black,
            self.score,
            self.day,
            self.white_rating,
            self.black_rating,
        ):
            a.clear()
        return batch


def _day_text(day: float) -> str:
    whole = math.floor(day)
    text = str(dt.date.fromordinal(whole + 719163))
    if day != whole:
        seconds = round((day - whole) * 86400)
        text += f" {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return text


def read_games(
    path: str | Path,
    *,
    players: Players | None = None,
    batch_size: int = BATCH_SIZE,
    skip_bad: bool = False,
    bad: BadRecords | None = None,
    ordered: bool = True,
    input_format: str | None = None,
    keep: GameFilter | None = None,
    skipped: Skipped | None = None,
    stdin: IO[bytes] | None = None,
) -> Iterator[GameBatch]:
    """Stream a CSV or PGN file, plain or compressed, or standard input (``-``).

    The format and the compression come from the name (``.csv`` or ``.pgn``,
    then optionally ``.gz``, ``.bz2`` or ``.zst``; :mod:`simulator.data.
    compressed`), or for standard input from ``input_format`` or its first
    bytes. The file is opened when iteration starts and closed when it ends.
    See :func:`~simulator.data.csv_records.csv_batches` for the parameters;
    ``keep`` and ``skipped`` filter PGN games by their tags
    (:mod:`simulator.data.pgn_filters`; a CSV has no such tags).

    Raises
    ------
    FormatError
        A malformed record, a truncated or corrupt compressed stream; also a
        name that does not tell the format, or a filter on a CSV file.
    """
    # The readers import this module's pieces: they are imported when read.
    from simulator.data.byte_lines import ByteLines
    from simulator.data.compressed import input_kind, open_input, sniff_format
    from simulator.data.csv_records import csv_batches
    from simulator.data.pgn_records import pgn_batches

    name = "<stdin>" if str(path) == "-" else str(path)
    try:
        kind, compression = input_kind(str(path), input_format)
    except ValueError as exc:
        raise FormatError(BadRecord(name, 0, str(exc))) from None
    bad = BadRecords() if bad is None else bad
    raw, opened = open_input(str(path), compression, stdin)
    try:
        if kind is None:
            kind, raw = sniff_format(raw)
        if kind == ".csv":
            if keep is not None and not keep.keeps_all and keep != GameFilter():
                raise FormatError(
                    BadRecord(name, 0, "the game filters read PGN tags: a CSV has none")
                )
            yield from csv_batches(
                _text_lines(raw, name, skip_bad, bad),
                path=name,
                players=players,
                batch_size=batch_size,
                skip_bad=skip_bad,
                bad=bad,
                ordered=ordered,
            )
        else:
            yield from pgn_batches(
                cast(TextIO, ByteLines(raw, name, skip_bad, bad)),
                path=name,
                players=players,
                batch_size=batch_size,
                skip_bad=skip_bad,
                bad=bad,
                ordered=ordered,
                keep=keep,
                skipped=skipped,
            )
    finally:
        if opened is not None:
            opened.close()


def not_utf8(path: str, line: int, exc: UnicodeDecodeError) -> BadRecord:
    """The record of a line that is not UTF-8."""
    return BadRecord(path, line, f"not UTF-8 text ({exc.reason})")


#: The longest line read (a PGN movetext line of a long game is a few
#: kilobytes): past it a line is a bad record, and the memory stays bounded.
MAX_LINE_BYTES = 1024 * 1024
#: Bytes read at a time.
_CHUNK = 16 * 1024
_LINE_END = re.compile(rb"\r\n|\r|\n")


def _split_lines(
    raw: Readable, path: str, skip_bad: bool, bad: BadRecords
) -> Iterator[bytes]:
    """The lines of ``raw``, ending in LF, CR LF or CR (the formats' line ends).

    A line longer than :data:`MAX_LINE_BYTES` is a bad record (with
    ``skip_bad``, read as blank). A truncated or corrupt compressed stream
    is a :class:`FormatError` at the line where it breaks, even with
    ``skip_bad`` (nothing after it can be read).
    """
    number = 0
    held = b""
    too_long = False  # in a line past the limit: its rest is dropped
    while True:
        try:
            chunk = raw.read(_CHUNK)
        except CompressedDataError as exc:
            raise FormatError(BadRecord(path, number + 1, str(exc))) from None
        data = held + chunk
        if not chunk:
            if data.endswith(b"\r"):
                data = data[:-1]  # a CR line end as the file's last byte
            if data or too_long:
                yield b"" if too_long else data
            return
        # A CR at the end of a chunk may be the first half of CR LF.
        tail = b""
        if data.endswith(b"\r"):
            data, tail = data[:-1], b"\r"
        parts = data.split(b"\n") if b"\r" not in data else _LINE_END.split(data)
        held = parts.pop() + tail
        for part in parts:
            number += 1
            if too_long:
                too_long = False
                yield b""  # an overlong line, reported: read as blank
                continue
            yield part
        if len(held) > MAX_LINE_BYTES:
            number += 1
            raise_or_skip(
                BadRecord(
                    path,
                    number,
                    f"a line longer than {MAX_LINE_BYTES:,} bytes (lines end in "
                    "LF, CR LF or CR)",
                ),
                skip_bad,
                bad.add,
            )
            number -= 1  # counted again when its end comes
            held = b""
            too_long = True


def _text_lines(
    raw: Readable, path: str, skip_bad: bool, bad: BadRecords
) -> Iterator[str]:
    """The lines of a binary stream decoded as UTF-8 (a leading BOM dropped).

    Each line ends in LF whatever its end in the file. Decoding line by line
    puts the line number on a byte that is not UTF-8. With ``skip_bad`` such
    a line is counted in ``bad`` and read as blank.
    """
    for number, data in enumerate(_split_lines(raw, path, skip_bad, bad), 1):
        try:
            yield data.decode("utf-8-sig" if number == 1 else "utf-8") + "\n"
        except UnicodeDecodeError as exc:
            raise_or_skip(not_utf8(path, number, exc), skip_bad, bad.add)
            yield "\n"


def sort_batches(
    batches: Iterable[GameBatch],
    players: Players,
    *,
    batch_size: int = BATCH_SIZE,
) -> Iterator[GameBatch]:
    """All games of ``batches`` in date order (stable), re-batched.

    This holds every game in memory: it is for files that are not in date
    order (read them with ``ordered=False``). Players are renumbered by their
    first appearance in date order, and ``players`` with them.
    """
    parts = list(batches)
    if not parts:
        return
    games = Games.concat([b.games for b in parts])
    white_rating = np.concatenate([b.white_rating for b in parts])
    black_rating = np.concatenate([b.black_rating for b in parts])
    del parts
    assert games.day is not None
    order = np.argsort(games.day, kind="stable")
    white, black = games.white[order], games.black[order]
    both = np.column_stack([white, black]).ravel()
    _, first = np.unique(both, return_index=True)
    seen = both[np.sort(first)]
    rank = np.full(len(players), -1, dtype=np.intp)
    rank[seen] = np.arange(seen.size)
    players.renumber(seen)
    white, black = rank[white], rank[black]
    score, day = games.score[order], games.day[order]
    white_rating, black_rating = white_rating[order], black_rating[order]
    top = 0
    for lo in range(0, order.size, batch_size):
        sl = slice(lo, lo + batch_size)
        top = max(top, int(max(white[sl].max(), black[sl].max())) + 1)
        yield GameBatch(
            Games(white[sl], black[sl], score[sl], day=day[sl]),
            white_rating[sl],
            black_rating[sl],
            top,
        )
