"""The PGN game-record reader: the headers of each game, read lazily in batches.

Format
------
Read as python-chess's :func:`chess.pgn.read_headers` reads it, which
skips the moves: games of the common (Lichess) shape by a fast scanner
(:func:`_scan_game`) that reads them exactly as python-chess does, any other
by python-chess itself. The Seven Tag Roster's ``White``, ``Black``,
``Result`` (``1-0``, ``0-1``, ``1/2-1/2``) and ``Date`` (``YYYY.MM.DD``), or
Lichess's ``UTCDate`` and ``UTCTime``; ``WhiteElo`` and ``BlackElo`` where
present (PGN standard, section 9.1; "?" is unknown).

The batches, the date order and the errors are those of
:mod:`simulator.data.records`; a malformed game is reported at the line of
the tag to blame.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache, partial
from typing import TextIO, cast

from simulator.data.byte_lines import ByteLines
from simulator.data.pgn_filters import GameFilter, Skipped
from simulator.data.records import (
    BATCH_SIZE,
    FIRST_YEAR,
    LAST_YEAR,
    BadRecords,
    Batcher,
    FormatError,
    GameBatch,
    Players,
    not_utf8,
    parse_day,
    parse_rating,
)

__all__ = ["pgn_batches"]

_PGN_RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


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
            raise FormatError(not_utf8(self.path, self.line + 1, exc)) from None

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
    """:func:`~simulator.data.records.parse_day` of a 10-character date, else None.

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
            tag,
            f"{tag} {text!r} is not a complete date (years {FIRST_YEAR}-{LAST_YEAR})"
            if text
            else "no Date",
        )
    ratings = []
    for tag in ("WhiteElo", "BlackElo"):
        value = parse_rating(found.get(tag, "?"))
        if value is None:
            raise _BadGame(tag, f"{tag} {found[tag]!r} is not a rating")
        ratings.append(value)
    return names[0], names[1], score, day, ratings[0], ratings[1]


#: Most lines :func:`_scan_game` reads for one game (a Lichess export game
#: has about 20) before leaving it to python-chess.
_SCAN_LINES = 256

#: A tag line the fast scanner takes, within a header block whose lines are
#: each preceded by NUL (and the block followed by one; the scanner checks
#: that the lines have no NUL of their own): ``[Name "value"]``
#: with one space, the value free of ``"``, ``\``, CR, LF and NUL, then LF or
#: CRLF. On such a line python-chess's ``TAG_REGEX`` (name
#: ``[A-Za-z0-9][A-Za-z0-9_+#=:-]*``, ``\s+``, then a greedy ``"([^\r]*)"\]``
#: and trailing whitespace) matches with the same two groups: the name stops
#: at the space, and the only ``"]`` is the last one. python-chess (1.11) does
#: not unescape values; values with a backslash are left to it anyway.
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
    keep: GameFilter | None = None,
    skipped: Skipped | None = None,
) -> Iterator[GameBatch]:
    r"""Read the games of a PGN file lazily, headers only, one batch at a time.

    Parameters are those of :func:`~simulator.data.csv_records.csv_batches`,
    with ``handle`` an open text stream, an iterable of lines, or a
    :class:`~simulator.data.byte_lines.ByteLines` (then plain games are read
    from its bytes in bulk, :meth:`~simulator.data.byte_lines.ByteLines.
    plain_games`, with the same results). ``keep`` leaves out the games it
    gives a reason for (:meth:`~simulator.data.pgn_filters.GameFilter.reason`)
    before they are checked, counting them in ``skipped``.

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
    batcher = Batcher(path, players, batch_size, skip_bad, bad, ordered)
    counter = _LineCounter(handle, path)
    fast = handle if isinstance(handle, ByteLines) else None
    reason = None if keep is None or keep.keeps_all else keep.reason
    skipped = Skipped() if skipped is None else skipped
    stream = cast(TextIO, counter)

    class Visitor(chess.pgn.HeadersBuilder[chess.pgn.Headers]):
        """python-chess's header reader (``read_headers``), into plain dicts.

        It keeps the tags and their lines in ``counter`` and leaves
        python-chess's case-insensitive ``Headers`` empty (twice as fast).
        """

        def visit_header(self, tagname: str, tagvalue: str) -> None:
            counter.found[tagname] = tagvalue
            counter.tags[tagname] = counter.line

    def take(found: dict[str, str], first: int, tags: dict[str, int] | None) -> bool:
        """Filter, read and add one game's tags; whether the batch is full."""
        if reason is not None:
            why = reason(found)
            if why is not None:
                skipped.add(why)
                return False
        try:
            fields = _pgn_game(found)
        except _BadGame as exc:
            batcher.fail(_tag_line(exc.tag, found, tags, first), exc.message)
            return False
        if batcher.add(first, *fields) and _IDS & found.keys():
            _note_ids(players, found)
        return bool(batcher.full())

    got: list[str] = []
    while True:
        if fast is not None and not counter.pending:
            for offset, found in fast.plain_games():
                first = counter.line + offset
                counter.line = fast.number
                if take(found, first, None):
                    yield batcher.flush()
            if fast.at_end():
                break
        scanned = None
        if not counter.pending:  # lines handed back are python-chess's to read
            got.clear()
            try:
                scanned = _scan_game(counter.next_line, got)
            except UnicodeDecodeError as exc:  # as raw_readline reports it
                line = counter.line + len(got) + 1
                raise FormatError(not_utf8(path, line, exc)) from None
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
        if take(found, first, tags):
            yield batcher.flush()
    if batcher.white:
        yield batcher.flush()


#: The tags of the players' FIDE IDs (Lichess broadcasts, FIDE's own PGN).
_IDS = frozenset({"WhiteFideId", "BlackFideId"})


def _note_ids(players: Players, found: dict[str, str]) -> None:
    """Record the FIDE IDs a game's tags give its players (for list seeding)."""
    for side in ("White", "Black"):
        value = found.get(f"{side}FideId", "").strip()
        if value.isdigit() and int(value) > 0:
            players.fide_ids[players.index[found[side].strip()]] = value


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
