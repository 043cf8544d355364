"""Streaming readers of game records: CSV and PGN files, in batches of ``Games``.

A game record file is read one line (CSV) or one game's headers (PGN) at a
time and handed on in batches of ``batch_size`` games, so memory holds one
batch plus the name -> index mapping of the players seen so far, never the
file. Players become integer indices in the order they first appear
(:class:`Players`).

Formats
-------
CSV
    A header row naming the columns (case-insensitive, in any order):
    ``white``, ``black``, ``score`` (White's: ``1``, ``0``, ``0.5``, ``1/2``,
    ``=``, ``1-0``, ``0-1``, ``1/2-1/2``), ``date`` (ISO ``YYYY-MM-DD``,
    ``YYYY.MM.DD`` or an ISO date and time, which makes the day fractional),
    and optionally ``white_rating`` and ``black_rating`` (or ``white_elo`` /
    ``black_elo``): ratings the file carries, blank or ``?`` where unknown.
    Other columns are ignored.
PGN
    Read as python-chess's :func:`chess.pgn.read_headers` reads it, which
    skips the moves: games of the common (Lichess) shape by a fast scanner
    that reads them exactly as python-chess does, any other by python-chess
    itself. The Seven Tag Roster's ``White``, ``Black``, ``Result`` (``1-0``,
    ``0-1``, ``1/2-1/2``) and ``Date`` (``YYYY.MM.DD``), or Lichess's
    ``UTCDate`` and ``UTCTime``; ``WhiteElo`` and ``BlackElo`` where present
    (PGN standard, section 9.1; "?" is unknown).

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

import csv
import datetime as dt
import gzip
import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import TextIO, cast

import numpy as np

from simulator.systems._common import FloatArray, Games

__all__ = [
    "BATCH_SIZE",
    "BadRecord",
    "BadRecords",
    "FormatError",
    "GameBatch",
    "Players",
    "csv_batches",
    "parse_day",
    "parse_score",
    "pgn_batches",
    "read_games",
    "sort_batches",
]

#: Games per batch handed on by the readers.
BATCH_SIZE = 10_000

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_SCORES: dict[str, float] = {
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
_PGN_RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
_UNKNOWN = frozenset({"", "?", "-"})
_RATING_COLUMNS = {
    "white_rating": "white_rating",
    "white_elo": "white_rating",
    "whiteelo": "white_rating",
    "black_rating": "black_rating",
    "black_elo": "black_rating",
    "blackelo": "black_rating",
}


@dataclass(frozen=True)
class BadRecord:
    """A malformed record: where it is and what is wrong."""

    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}, line {self.line}: {self.message}"


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


class Players:
    """Player names -> indices 0, 1, ... in the order of first appearance.

    >>> p = Players()
    >>> p.index_of("Carlsen"), p.index_of("Nepo"), p.index_of("Carlsen"), len(p)
    (0, 1, 0, 2)
    """

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.names: list[str] = []

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
    return _SCORES.get(text.strip())


def parse_day(text: str) -> float | None:
    """Days since 1970-01-01 of an ISO date or date-time (UTC); None if neither.

    ``YYYY.MM.DD`` (PGN's spelling) is accepted; a time makes the day
    fractional; a time zone is converted to UTC.

    >>> parse_day("1970-01-02"), parse_day("1970.01.02"), parse_day("1970-01-01T12:00")
    (1.0, 1.0, 0.5)
    >>> parse_day("2024-13-01") is None
    True
    """
    t = text.strip()
    if len(t) >= 10 and t[4] == "." and t[7] == ".":
        t = f"{t[:4]}-{t[5:7]}-{t[8:]}"
    try:
        if len(t) == 10:
            return float(dt.date.fromisoformat(t).toordinal() - 719163)
        moment = dt.datetime.fromisoformat(t)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.UTC)
    return (moment - _EPOCH).total_seconds() / 86400.0


def _rating(text: str) -> float | None:
    """A rating field: NaN if unknown, None if not a number."""
    t = text.strip()
    if t in _UNKNOWN:
        return math.nan
    try:
        value = float(t)
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None


class _Batcher:
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
        record = BadRecord(self.path, line, message)
        if not self.skip_bad:
            raise FormatError(record)
        self.bad.add(record)

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


def csv_batches(
    lines: Iterable[str],
    *,
    path: str = "<csv>",
    players: Players | None = None,
    batch_size: int = BATCH_SIZE,
    skip_bad: bool = False,
    bad: BadRecords | None = None,
    ordered: bool = True,
) -> Iterator[GameBatch]:
    """Read CSV game records lazily, one batch at a time.

    Parameters
    ----------
    lines : iterable of str
        The file's lines (an open text file); consumed lazily.
    path : str
        The file's name, for messages.
    players : Players, optional
        The name -> index mapping to extend (a new one by default).
    batch_size : int
        Games per batch.
    skip_bad : bool
        Count and skip malformed rows (in ``bad``) instead of raising.
    bad : BadRecords, optional
        Where skipped rows are counted.
    ordered : bool
        Require date order (a row dated before the previous one is bad).

    Yields
    ------
    GameBatch

    Raises
    ------
    FormatError
        A malformed header (always) or row (without ``skip_bad``).

    Examples
    --------
    >>> rows = ["white,black,score,date", "Ann,Bob,1,2024-01-05",
    ...         "Bob,Cid,1/2,2024-01-06"]
    >>> players = Players()
    >>> [b.games.score.tolist() for b in csv_batches(rows, players=players)]
    [[1.0, 0.5]]
    >>> players.names
    ['Ann', 'Bob', 'Cid']
    """
    players = Players() if players is None else players
    batcher = _Batcher(path, players, batch_size, skip_bad, bad, ordered)
    reader = csv.reader(lines)
    try:
        head = next(reader)
    except StopIteration:
        raise FormatError(BadRecord(path, 1, "the file is empty")) from None
    names = [h.strip().lower() for h in head]
    column: dict[str, int] = {}
    for i, name in enumerate(names):
        key = _RATING_COLUMNS.get(name, name)
        if key in column:
            raise FormatError(BadRecord(path, 1, f"column {name!r} appears twice"))
        column[key] = i
    missing = [c for c in ("white", "black", "score", "date") if c not in column]
    if missing:
        raise FormatError(
            BadRecord(
                path,
                1,
                f"missing column(s) {', '.join(missing)}: the header must name "
                f"white, black, score and date (it has {', '.join(head)})",
            )
        )
    iw, ib, i_s, i_d = column["white"], column["black"], column["score"], column["date"]
    iwr, ibr = column.get("white_rating"), column.get("black_rating")
    n_fields = len(head)
    # The last date text and its day: files repeat a date over many rows.
    last_text: str | None = None
    last_day = math.nan
    for row in reader:
        line = reader.line_num
        if len(row) != n_fields:
            if not row or (len(row) == 1 and not row[0].strip()):
                continue  # a blank line
            batcher.fail(line, f"{len(row)} fields, the header has {n_fields}")
            continue
        white, black = row[iw].strip(), row[ib].strip()
        if not white or not black:
            batcher.fail(line, f"no {'white' if not white else 'black'} player")
            continue
        score = _SCORES.get(row[i_s].strip())
        if score is None:
            batcher.fail(line, f"score {row[i_s]!r} is not 1, 0.5 or 0 (White's score)")
            continue
        text = row[i_d]
        if text != last_text:
            parsed = parse_day(text)
            if parsed is None:
                batcher.fail(line, f"date {text!r} is not YYYY-MM-DD")
                continue
            last_text, last_day = text, parsed
        ratings = []
        for idx, side in ((iwr, "white_rating"), (ibr, "black_rating")):
            value = math.nan if idx is None else _rating(row[idx])
            if value is None:
                assert idx is not None
                batcher.fail(line, f"{side} {row[idx]!r} is not a rating")
                break
            ratings.append(value)
        if len(ratings) < 2:
            continue
        batcher.add(line, white, black, score, last_day, ratings[0], ratings[1])
        if batcher.full():
            yield batcher.flush()
    if batcher.white:
        yield batcher.flush()


class _LineCounter:
    """A text stream for python-chess that counts lines.

    For the game being read it records its first line, every header line
    (``[...``) and the line of every tag python-chess accepted (``tags``,
    filled by the header visitor), so that a header line it ignored (a
    malformed tag pair, which python-chess skips silently) can be reported.
    """

    def __init__(self, handle: TextIO | Iterable[str], path: str) -> None:
        if hasattr(handle, "readline"):
            self.next_line: Callable[[], str] = handle.readline
        else:
            self.next_line = partial(next, iter(handle), "")
        self.path = path
        self.line = 0
        # Lines read ahead by the fast scanner and handed back (last first).
        self.pending: list[str] = []
        self.begin()

    def begin(self) -> None:
        """Start a game."""
        self.first = 0
        self.in_headers = True
        self.header_lines: list[tuple[int, str]] = []
        self.tags: dict[str, int] = {}
        self.found: dict[str, str] = {}

    def raw_readline(self) -> str:
        """The next line of the handle, not counted (a decoding error raised)."""
        try:
            return self.next_line()
        except UnicodeDecodeError as exc:
            raise FormatError(_not_utf8(self.path, self.line + 1, exc)) from None

    def push_back(self, lines: list[str]) -> None:
        """Hand back ``lines`` (the last ones read, uncounted) to be read again."""
        self.pending.extend(reversed(lines))

    def malformed(self) -> tuple[int, str] | None:
        """The first header line python-chess did not take, and why."""
        if len(self.header_lines) == len(self.tags):
            return None
        import chess.pgn

        accepted = set(self.tags.values())
        for line, text in self.header_lines:
            if line not in accepted:
                if chess.pgn.TAG_REGEX.match(text) is None:
                    return line, f"malformed tag pair {text.strip()!r}"
                return line, f"tag repeated: {text.strip()!r}"
        return None

    def readline(self) -> str:
        """The next line, counted."""
        text = self.pending.pop() if self.pending else self.raw_readline()
        if text:
            self.line += 1
            if self.in_headers:
                if text[0] == "[":
                    if not self.first:
                        self.first = self.line
                    self.header_lines.append((self.line, text))
                elif not text.isspace() and text[0] not in "%;":
                    if not self.first:
                        self.first = self.line
                    self.in_headers = False
        return text


@lru_cache(maxsize=4096)
def _pgn_date(text: str) -> float | None:
    """:func:`parse_day` of a 10-character date, else None.

    Cached: the games of a day share their date.
    """
    return parse_day(text) if len(text) == 10 else None


def _pgn_day(headers: dict[str, str]) -> tuple[float | None, str]:
    """The game's day from ``UTCDate``/``UTCTime`` or ``Date``; else (None, tag)."""
    for tag in ("UTCDate", "Date"):
        text = headers.get(tag, "")
        if not text or text.startswith("?"):
            continue
        day = _pgn_date(text)
        if day is None:
            return None, tag
        clock = headers.get("UTCTime", "") if tag == "UTCDate" else ""
        if clock and "?" not in clock:
            try:
                t = dt.time.fromisoformat(clock)
            except ValueError:
                return None, "UTCTime"
            day += (t.hour * 3600 + t.minute * 60 + t.second) / 86400.0
        return day, tag
    return None, "Date"


class _BadGame(Exception):
    """A game :func:`_pgn_game` rejects: the tag to blame and the message."""

    def __init__(self, tag: str, message: str) -> None:
        super().__init__(message)
        self.tag = tag
        self.message = message


def _pgn_game(found: dict[str, str]) -> tuple[str, str, float, float, float, float]:
    """White, Black, White's score, the day and both ratings of a game's tags.

    Raises
    ------
    _BadGame
        The first problem (in the order the tags are checked), with its tag.
    """
    names = []
    for tag in ("White", "Black"):
        name = found.get(tag, "?").strip()
        if name in ("", "?"):
            raise _BadGame(tag, f"the game has no {tag} player")
        names.append(name)
    result = found.get("Result", "*").strip()
    score = _PGN_RESULTS.get(result)
    if score is None:
        raise _BadGame("Result", f"result {result!r} is not 1-0, 0-1 or 1/2-1/2")
    day, tag = _pgn_day(found)
    if day is None:
        text = found.get(tag, "")
        raise _BadGame(
            tag, f"{tag} {text!r} is not a complete date" if text else "no Date"
        )
    ratings = []
    for tag in ("WhiteElo", "BlackElo"):
        value = _rating(found.get(tag, "?"))
        if value is None:
            raise _BadGame(tag, f"{tag} {found[tag]!r} is not a rating")
        ratings.append(value)
    return names[0], names[1], score, day, ratings[0], ratings[1]


#: A tag line the fast scanner takes, within a header block whose lines are
#: each preceded by NUL (and the block followed by one; the scanner checks
#: that the lines have no NUL of their own): ``[Name "value"]``
#: with one space, the value free of ``"``, ``\``, CR, LF and NUL, then LF or
#: CRLF. On such a line python-chess's ``TAG_REGEX`` (name
#: ``[A-Za-z0-9][A-Za-z0-9_+#=:-]*``, ``\s+``, then a greedy ``"([^\r]*)"\]``
#: and trailing whitespace) matches with the same two groups: the name stops
#: at the space, and the only ``"]`` is the last one. python-chess (1.11) does
#: not unescape values; values with a backslash are left to it anyway.
#: Most lines :func:`_scan_game` reads for one game (a Lichess export game
#: has about 20) before leaving it to python-chess.
_SCAN_LINES = 256

_FAST_TAG = re.compile(
    r'\x00\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*) "([^"\\\r\n\x00]*)"\]\r?\n(?=\x00)'
)


def _scan_game(
    readline: Callable[[], str], got: list[str]
) -> tuple[int, dict[str, str]] | None:
    """Read one plainly shaped game for :func:`pgn_batches`, or give up.

    This mirrors what :func:`chess.pgn.read_game` does with
    :class:`chess.pgn.HeadersBuilder` (whose ``end_headers`` skips the
    movetext) on the commonest shape, a Lichess export game::

        (blank lines)
        [Tag "value"]      one or more tag lines, each taken by _FAST_TAG
        (one blank line, or none)
        movetext lines     any number, see below
        a blank line, or the end of the file

    A movetext line must not start with ``[`` (the first one after the tags
    would be read as a tag; the scanner leaves later ones to python-chess
    too) or ``%`` (an escape line), must contain no ``;`` (a comment to the
    end of the line, which can hide a ``{``) and must close every ``{``
    comment it opens: python-chess's skipping loop then ends the game at the
    next blank line, as here. Two blank lines after the tags end a game
    without movetext (python-chess tolerates one blank line within the
    headers, then the second one ends the game). Repeated tags, tag lines
    with a NUL (the scanner's separator) and games of more than
    :data:`_SCAN_LINES` lines (which it would hold in memory) are left to
    python-chess, which streams them.

    Parameters
    ----------
    readline : callable
        The next line of the stream ("" at its end); it is read no further
        than python-chess would read for this game.
    got : list of str
        Filled with the lines read, so that the caller can hand them back.

    Returns
    -------
    (int, dict) or None
        The game's first line (1 for the first line read) and its tags, or
        None: either the end of the file (``got`` holds only blank lines) or
        a shape this scanner does not prove (python-chess must read ``got``
        again and what follows).
    """
    line = readline()
    got.append(line)
    # Blank lines before a game; python-chess strips a BOM from the first
    # line it reads, which the '[' test below rules out.
    while line.isspace() and len(got) <= _SCAN_LINES:
        line = readline()
        got.append(line)
    if line[:1] != "[":
        return None
    first = len(got)
    while line[:1] == "[" and len(got) <= _SCAN_LINES:
        line = readline()
        got.append(line)
    if line[:1] == "[":
        return None  # more tag lines than the scanner holds
    n_tags = len(got) - first
    block = "\x00".join(got[first - 1 : -1])
    if block.count("\x00") != n_tags - 1:
        return None  # a NUL of the file's own, which _FAST_TAG could misread
    found = dict(_FAST_TAG.findall(f"\x00{block}\x00"))
    if len(found) != n_tags:
        return None  # a line _FAST_TAG does not take, or a repeated tag
    if line and line.isspace():
        line = readline()
        got.append(line)
        if line.isspace():
            return first, found  # two blank lines: no movetext
    while line:
        if line[0] in "[%" or ";" in line or line.rfind("{") > line.rfind("}"):
            return None
        if len(got) > _SCAN_LINES:
            return None  # a long game: python-chess streams it
        line = readline()
        got.append(line)
        if line.isspace():
            break
    return first, found


def pgn_batches(
    handle: TextIO | Iterable[str],
    *,
    path: str = "<pgn>",
    players: Players | None = None,
    batch_size: int = BATCH_SIZE,
    skip_bad: bool = False,
    bad: BadRecords | None = None,
    ordered: bool = True,
) -> Iterator[GameBatch]:
    r"""Read the games of a PGN file lazily, headers only, one batch at a time.

    Parameters are those of :func:`csv_batches`, with ``handle`` an open text
    stream or an iterable of lines.

    Games of the common shape (:func:`_scan_game`) are read by a fast
    scanner. Any other game it hands back, from its first line, to
    python-chess's :func:`chess.pgn.read_game`, which defines how a PGN file
    is read, and it resumes after that game (``read_game`` keeps no state
    from one game to the next).

    Examples
    --------
    >>> import io
    >>> pgn = io.StringIO('[White "Ann"]\n[Black "Bob"]\n[Result "0-1"]\n'
    ...                   '[Date "2024.01.05"]\n[WhiteElo "1800"]\n\n1. e4 0-1\n')
    >>> batch = next(pgn_batches(pgn))
    >>> batch.games.score.tolist(), batch.white_rating.tolist()
    ([0.0], [1800.0])
    """
    import chess.pgn

    players = Players() if players is None else players
    batcher = _Batcher(path, players, batch_size, skip_bad, bad, ordered)
    counter = _LineCounter(handle, path)
    stream = cast(TextIO, counter)

    class Visitor(chess.pgn.HeadersBuilder[chess.pgn.Headers]):
        """python-chess's header reader (``read_headers``), into plain dicts.

        It keeps the tags and their lines in ``counter`` and leaves
        python-chess's case-insensitive ``Headers`` empty (twice as fast).
        """

        def visit_header(self, tagname: str, tagvalue: str) -> None:
            counter.found[tagname] = tagvalue
            counter.tags[tagname] = counter.line

    got: list[str] = []
    while True:
        scanned = None
        if not counter.pending:  # lines handed back are python-chess's to read
            got.clear()
            try:
                scanned = _scan_game(counter.next_line, got)
            except UnicodeDecodeError as exc:  # as raw_readline reports it
                line = counter.line + len(got) + 1
                raise FormatError(_not_utf8(path, line, exc)) from None
            if scanned is None:
                if not got[-1] and all(text.isspace() for text in got[:-1]):
                    break  # the end of the file, as read_game would find it
                counter.push_back(got)
        if scanned is not None:
            offset, found = scanned
            first = counter.line + offset
            counter.line += len(got) - (not got[-1])  # "" is the end, not a line
            tags = None
        else:
            counter.begin()
            if chess.pgn.read_game(stream, Visitor=Visitor) is None:
                break
            found, tags = counter.found, counter.tags
            first = counter.first or counter.line
            malformed = counter.malformed()
            if malformed is not None:
                batcher.fail(*malformed)
                continue
        try:
            fields = _pgn_game(found)
        except _BadGame as exc:
            batcher.fail(_tag_line(exc.tag, found, tags, first), exc.message)
            continue
        batcher.add(first, *fields)
        if batcher.full():
            yield batcher.flush()
    if batcher.white:
        yield batcher.flush()


def _tag_line(
    tag: str, found: dict[str, str], tags: dict[str, int] | None, first: int
) -> int:
    """The line of ``tag`` in a game (its first line if it has no such tag).

    ``tags`` maps tags to lines, or is None for a game read by
    :func:`_scan_game`, whose tags are one a line from ``first``, none
    repeated, in ``found``'s order.
    """
    if tags is not None:
        return tags.get(tag, first)
    return first + list(found).index(tag) if tag in found else first


def read_games(
    path: str | Path,
    *,
    players: Players | None = None,
    batch_size: int = BATCH_SIZE,
    skip_bad: bool = False,
    bad: BadRecords | None = None,
    ordered: bool = True,
) -> Iterator[GameBatch]:
    """Stream a CSV or PGN file (by its extension; ``.gz`` is decompressed).

    The file is opened when iteration starts and closed when it ends. See
    :func:`csv_batches` for the parameters.

    Raises
    ------
    FormatError
        A malformed record; also an extension other than ``.csv`` or ``.pgn``.
    """
    p = Path(path)
    suffixes = [s.lower() for s in p.suffixes]
    compressed = bool(suffixes) and suffixes[-1] == ".gz"
    kind = suffixes[-2] if compressed and len(suffixes) > 1 else p.suffix.lower()
    if kind not in (".csv", ".pgn"):
        raise FormatError(
            BadRecord(
                str(path),
                0,
                "unknown file type: the name must end in .csv or .pgn (optionally .gz)",
            )
        )
    name = str(path)
    bad = BadRecords() if bad is None else bad
    raw = gzip.open(p, "rb") if compressed else open(p, "rb")  # noqa: SIM115
    with raw:
        lines = _text_lines(raw, name, skip_bad, bad)
        if kind == ".csv":
            yield from csv_batches(
                lines,
                path=name,
                players=players,
                batch_size=batch_size,
                skip_bad=skip_bad,
                bad=bad,
                ordered=ordered,
            )
        else:
            yield from pgn_batches(
                lines,
                path=name,
                players=players,
                batch_size=batch_size,
                skip_bad=skip_bad,
                bad=bad,
                ordered=ordered,
            )


def _not_utf8(path: str, line: int, exc: UnicodeDecodeError) -> BadRecord:
    """The record of a line that is not UTF-8."""
    return BadRecord(path, line, f"not UTF-8 text ({exc.reason})")


def _text_lines(
    raw: Iterable[bytes], path: str, skip_bad: bool, bad: BadRecords
) -> Iterator[str]:
    """The lines of a binary stream decoded as UTF-8 (a leading BOM dropped).

    Decoding line by line puts the line number on a byte that is not UTF-8.
    With ``skip_bad`` such a line is counted in ``bad`` and read as blank.
    """
    for number, data in enumerate(raw, 1):
        try:
            yield data.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as exc:
            record = _not_utf8(path, number, exc)
            if not skip_bad:
                raise FormatError(record) from None
            bad.add(record)
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
