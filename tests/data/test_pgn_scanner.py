"""The fast PGN scanner of ``pgn_batches`` against the python-chess-only reader.

``reference_pgn_batches`` below is ``pgn_batches`` with the scanner giving up
on every game, so that :func:`chess.pgn.read_game` reads them all, as it did
before the scanner. The property test feeds both the same generated PGN texts,
clean Lichess-style games mixed with every oddity python-chess treats in its
own way, and requires identical batches (bit for bit), players, errors, bad
records and reading progress (lines consumed when each batch is handed on).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any, TextIO, cast
from unittest import mock

import chess.pgn
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.data import pgn_records, records
from simulator.data.byte_lines import ByteLines
from simulator.data.pgn_records import pgn_batches
from simulator.data.records import BadRecords, FormatError, GameBatch, Players

# --- the reference: every game read by python-chess -------------------------------


def _give_up(readline: Callable[[], str], got: list[str]) -> None:
    """A scanner that takes no game: it reads one line and hands it back."""
    got.append(readline())


def reference_pgn_batches(
    handle: TextIO | Iterable[str], **kwargs: Any
) -> Iterator[GameBatch]:
    """``pgn_batches`` with the scanner giving up on every game.

    Every game then goes to :func:`chess.pgn.read_game`, as before the
    scanner existed. (Checked when the scanner came in: on 1,392 runs of
    ``TRICKY`` and 1,500 generated texts, this gave the same results, errors
    and reading progress as a verbatim copy of the former ``pgn_batches``.)
    The patch holds while the generator is paused: a test must not read
    with ``pgn_batches`` before this one is exhausted.
    """
    with mock.patch.object(pgn_records, "_scan_game", _give_up):
        yield from pgn_batches(handle, **kwargs)


# --- generated PGN texts ---------------------------------------------------------

# Each tag's values: the first few valid, the rest not (drawn less often).
# Valid games dominate, so that a run without skip_bad goes on long enough.
PLAYERS = ["Ann", "Bob", "Cid", " Dan ", 'E\\"ve', "F\\\\", "Gus", "Hal", "?", ""]
VALUES = {
    "Result": ["1-0", "0-1", "1/2-1/2", " 0-1 ", "*", "1-1"],
    "Date": ["2024.01.05", "2024.01.06", "2024.01.04", "2024.??.??", "2024.13.01"],
    "UTCDate": ["2024.01.05", "2024.01.06", "2024-01-07", "", "2024.1.5", "?"],
    "UTCTime": ["12:00:00", "12:00:01", "??:??:??", "", "25:00:00", "1:2:3"],
    "WhiteElo": ["1500", "?", "-", "", "2000.5", "abc", "-5", "inf"],
    "BlackElo": ["1800", "?", "", "x"],
    "Event": ["Rated Blitz game", 'quote \\" inside', "back\\\\slash", "a]b"],
}
GOOD = {"White": 8, "Black": 8, "Result": 4, "Date": 1, "UTCDate": 1}
GOOD |= {"UTCTime": 1, "WhiteElo": 5, "BlackElo": 3, "Event": 4}


def tag_value(draw: st.DrawFn, name: str) -> str:
    """A value of tag ``name``, valid nine times in ten."""
    values = PLAYERS if name in ("White", "Black") else VALUES[name]
    if draw(st.integers(0, 9)):
        return draw(st.sampled_from(values[: GOOD[name]]))
    return draw(st.sampled_from(values))


# Spellings of a tag line: well-formed ones python-chess reads in other ways
# (two spaces, a tab, trailing blanks, no newline) and malformed ones.
TAG_LINES = [
    '[{} "{}"]\n',
    '[{}  "{}"]\n',
    '[{}\t"{}"]\n',
    '[{} "{}"]  \n',
    '[{} "{}"]\r\n',
    '[{} "{}"]',
    '[{} "{}"] x\n',
    '[{} "{}\n',
    ' [{} "{}"]\n',
    '[{} "{}"]\r[Round "1"]\n',
    '\ufeff[{} "{}"]\n',
    '[{} "{}\x00[WhiteElo "2000"]\n',
]
MOVETEXTS = [
    "1. e4 { [%clk 0:03:00] } e5 { [%clk 0:02:59] } 2. Nf3 { [%eval 0.3] } 1-0\n",
    "1. e4 e5\n2. Nf3 Nc6 1-0\n",
    '1. e4 { a comment\n[White "Zed"]\n\n} e5 1-0\n',
    '1. e4 {\n\n[Black "Zed"]\n} 1-0\n',
    "1. e4\n% an escape line { \n2. Nf3 1-0\n",
    "1. e4 ; rest of line { \n2. e5 1-0\n",
    "1. e4 { ; } e5 } {\n}\n",
    "1. e4 } e5 1-0\n",
    '1. e4\n[Black "Zed"]\n',
    "% escape first\n1. e4\n",
    "; comment first\n1. e4\n",
    "{ open first\n\n}\n",
    "1. e4 {} e5 { { } 1-0\n",
    "1. e4 \\ e5\n",
    "*\n",
]
BLANKS = ["\n", " \n", "\t\n", "\r\n", "\x0c\n", "\u2028\n"]
GARBAGE = [
    "garbage text\n",
    "% escape\n",
    "; comment\n",
    "{ open comment\n",
    "}\n",
    "[Bad tag line\n",
    '\ufeff[White "Q"]\n',
    "\ufeff\n",
    '[Event "lone"]\n',
    '[\x00[White "Q"]\n',
]


@st.composite
def tag_block(draw: st.DrawFn, odd: bool) -> str:
    """The tag lines of a game: some missing; if ``odd``, with odd lines."""
    tags = [(name, tag_value(draw, name)) for name in ("Event", "White", "Black")]
    for name in ("Result", "Date", "UTCDate", "UTCTime", "WhiteElo", "BlackElo"):
        if draw(st.integers(0, 9)):  # mostly present
            tags.append((name, tag_value(draw, name)))
    if draw(st.booleans()):
        tags = draw(st.permutations(tags))
    lines = [TAG_LINES[0].format(name, value) for name, value in tags]
    if not odd:
        return "".join(lines)
    kind = draw(st.integers(0, 3))
    if kind == 0:  # an odd spelling of a tag line
        at = draw(st.integers(0, len(lines) - 1))
        lines[at] = draw(st.sampled_from(TAG_LINES)).format(*tags[at])
    elif kind == 1:  # an odd tag name
        name = draw(st.sampled_from(["Odd+#=:-_9", "0x", "bad name", "é"]))
        lines.insert(draw(st.integers(0, len(lines))), f'[{name} "v"]\n')
    elif kind == 2:  # a repeated tag
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(lines)))
    else:  # a blank line within the headers
        lines.insert(draw(st.integers(0, len(lines))), draw(st.sampled_from(BLANKS)))
    return "".join(lines)


@st.composite
def pgn_text(draw: st.DrawFn) -> str:
    """Games, mostly clean Lichess-style ones, with oddities between and within.

    A game is clean, or has odd tag lines, or an odd layout after its tags
    (blank lines, escape and comment lines, comments across lines, no
    movetext), so that each oddity mostly comes alone, right after games the
    fast scanner reads.
    """
    parts = []
    if draw(st.integers(0, 5)) == 0:
        parts.append("\ufeff")
    for _ in range(draw(st.integers(0, 9))):
        if draw(st.integers(0, 6)) == 0:
            parts.append(draw(st.sampled_from(GARBAGE + BLANKS)))
        kind = draw(st.sampled_from(["clean", "tags", "layout"]))
        parts.append(draw(tag_block(odd=kind == "tags")))
        if kind != "layout":
            parts.append(f"\n{MOVETEXTS[0]}\n")
            continue
        after_tags = ["\n", "", "\n\n", "% x\n", "; x\n", "% x\n\n", "\n% x\n", *BLANKS]
        parts.append(draw(st.sampled_from(after_tags)))
        if draw(st.integers(0, 3)):
            parts.append(draw(st.sampled_from(MOVETEXTS[1:])))
        after_moves = ["\n", "", "\n\n", "% y\n", "\n% y\n", *BLANKS]
        parts.append(draw(st.sampled_from(after_moves)))
    text = "".join(parts)
    ending = draw(st.sampled_from(["lf", "lf", "lf", "crlf", "cr", "no-final"]))
    if ending == "crlf":
        text = text.replace("\n", "\r\n")
    elif ending == "cr":
        text = text.replace("\n", "\r")
    elif ending == "no-final":
        text = text.rstrip("\n")
    return text


# --- running a reader ------------------------------------------------------------


class _Counted:
    """Lines handed out by a source, counted (how far the reader has read)."""

    def __init__(self, next_line: Callable[[], str]) -> None:
        self.next_line = next_line
        self.count = 0

    def readline(self) -> str:
        text = self.next_line()
        self.count += text != ""
        return text


class _Progress:
    """A :class:`ByteLines` source; ``count`` is the lines it handed out."""

    def __init__(self, lines: ByteLines) -> None:
        self.lines = lines

    @property
    def count(self) -> int:
        return self.lines.number


def _sources(text: str, mode: str) -> _Counted:
    """The text as a reader gets it: a text stream or an iterable of lines."""
    data = text.encode("utf-8", "surrogateescape")
    if mode == "stringio":
        return _Counted(io.StringIO(text).readline)
    if mode == "textio":  # universal newlines, decoding errors from readline
        return _Counted(io.TextIOWrapper(io.BytesIO(data), encoding="utf-8").readline)
    if mode == "splitlines":  # an iterable that also splits at \r, \x0c, \u2028...
        return _Counted(partial(next, iter(text.splitlines(keepends=True)), ""))
    raise AssertionError(mode)


def _run(
    reader: Callable[..., Iterator[GameBatch]],
    text: str,
    mode: str,
    batch_size: int,
    skip_bad: bool,
    ordered: bool,
) -> tuple[Any, ...]:
    """Everything a reader produces, in a comparable form."""
    players, bad = Players(), BadRecords(keep=4)
    if mode == "bytelines":  # as read_games reads a PGN file: plain games in bulk
        data = text.encode("utf-8", "surrogateescape")
        lines = ByteLines(io.BytesIO(data), "t.pgn", skip_bad, bad)
        counted = cast(_Counted, _Progress(lines))
    elif mode == "bytes":  # as read_games reads a file (BOM, per-line decoding)
        data = text.encode("utf-8", "surrogateescape")
        counted = _Counted(
            partial(
                next, records._text_lines(io.BytesIO(data), "t.pgn", skip_bad, bad), ""
            )
        )
    else:
        counted = _sources(text, mode)
    if mode == "bytelines":
        handle: Any = cast(_Progress, counted).lines
    elif mode in ("bytes", "splitlines"):
        handle = iter(counted.readline, "")
    else:
        handle = counted
    out: list[Any] = []
    error = None
    try:
        for batch in reader(
            cast(TextIO, handle),
            path="t.pgn",
            players=players,
            batch_size=batch_size,
            skip_bad=skip_bad,
            bad=bad,
            ordered=ordered,
        ):
            arrays = (
                batch.games.white,
                batch.games.black,
                batch.games.score,
                batch.games.day,
                batch.white_rating,
                batch.black_rating,
            )
            out.append(
                (
                    counted.count,
                    batch.n_players,
                    [(a.dtype.str, a.shape, a.tobytes()) for a in arrays],
                )
            )
    except FormatError as exc:
        error = (str(exc), exc.bad)
    examples = [str(b) for b in bad.examples]
    return out, players.names, error, bad.count, examples, counted.count


@settings(
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    text=pgn_text(),
    mode=st.sampled_from(["stringio", "bytes", "textio", "splitlines"]),
    batch_size=st.integers(1, 7),
    skip_bad=st.booleans(),
    ordered=st.booleans(),
    bad_byte=st.integers(0, 30),
)
def test_fast_reader_matches_python_chess(
    text: str, mode: str, batch_size: int, skip_bad: bool, ordered: bool, bad_byte: int
) -> None:
    """Same batches, players, errors, bad records and progress as the reference."""
    if bad_byte == 0 and text:  # a byte that is not UTF-8, somewhere
        at = len(text) // 2
        text = text[:at] + "\udcff" + text[at:]
    new = _run(pgn_batches, text, mode, batch_size, skip_bad, ordered)
    old = _run(reference_pgn_batches, text, mode, batch_size, skip_bad, ordered)
    assert new == old
    if mode == "bytes":  # the bulk byte reader of read_games, against the same
        fast = _run(pgn_batches, text, "bytelines", batch_size, skip_bad, ordered)
        assert fast == old


def lichess_game(white: str, black: str, time: str) -> str:
    tags = {
        "Event": "Rated Blitz game",
        "Site": "https://lichess.org/x",
        "White": white,
        "Black": black,
        "Result": "1-0",
        "UTCDate": "2024.01.05",
        "UTCTime": time,
        "WhiteElo": "1500",
        "BlackElo": "1600",
        "Opening": "King's Pawn Game: Wayward Queen Attack",
    }
    head = "".join(f'[{k} "{v}"]\n' for k, v in tags.items())
    moves = (
        "1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:02:59] } 2. Qh5 { [%clk 0:02:58] }"
    )
    return f"{head}\n{moves} 1-0\n\n"


def test_lichess_games_take_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clean Lichess games never reach python-chess (the test above is not idle)."""
    text = lichess_game("Ann", "Bob", "10:00:00") + lichess_game(
        "Bob", "Ann", "11:00:00"
    )

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("python-chess was asked")

    monkeypatch.setattr(chess.pgn, "read_game", refuse)
    (batch,) = pgn_batches(io.StringIO(text))
    assert batch.games.white.tolist() == [0, 1]
    assert batch.white_rating.tolist() == [1500.0, 1500.0]


@pytest.mark.parametrize(
    "line",
    [
        '[White "Ann"]\n',
        '[Opening "King\'s Pawn: 1. e4 [x] {y} ;z %w"]\r\n',
        '[0x+#=:-_ ""]\n',
        '[WhiteElo "1500"]\n',
    ],
)
def test_fast_tag_regex_agrees_with_python_chess(line: str) -> None:
    """A line the fast scanner takes gives python-chess's name and value."""
    match = chess.pgn.TAG_REGEX.match(line)
    assert match is not None
    assert pgn_records._FAST_TAG.findall(f"\x00{line}\x00") == [match.groups()]


def _game(white: str, black: str, head: str = "", moves: str = "1. e4 1-0\n") -> str:
    return (
        f'[White "{white}"]\n[Black "{black}"]\n[Result "1-0"]\n'
        f'[UTCDate "2024.01.05"]\n[UTCTime "10:00:00"]\n{head}\n{moves}\n'
    )


# One snippet per oddity of python-chess's reading, each between clean games.
TRICKY = [
    "\ufeff" + _game("Bom", "Bob"),
    "garbage\n\n\n" + _game("Cid", "Dan"),
    _game("Cid", "Dan").replace("\n", "\r\n"),
    _game("Cid", "Dan").replace("\n", "\r"),
    "% escape\n" + _game("Cid", "Dan"),
    _game("Cid", "Dan", head="% escape in headers\n"),
    _game("Cid", "Dan", moves="1. e4\n% escape { in movetext\n1-0\n"),
    _game("Cid", "Dan", moves="; comment first { \n1. e4\n"),
    _game("Cid", "Dan", moves="1. e4 ; comment { \n2. e5 1-0\n"),
    _game("Cid", "Dan", moves='1. e4 { spans\n[White "Zed"]\n\nlines } 1-0\n'),
    _game("Cid", "Dan", moves='1. e4\n[White "Zed"]\n'),
    _game("Cid", "Dan", moves='1. e4 { spans\n\n[White "Zed"]\n} 1-0\n'),
    _game("Cid", "Dan", moves="1. e4 { a } { b\n\n}\n"),
    _game("Cid", "Dan", moves=""),  # no movetext, one blank line: merges
    _game("Cid", "Dan", moves="\n"),  # no movetext, two blank lines
    _game("Cid", "Dan", moves="% x\n"),  # escape line, blank: merges
    _game("Cid", "Dan", head="\n"),  # a blank line within the headers
    _game('C\\"id', "D\\\\an"),
    _game("Cid", "Dan", head='[White "Eve"]\n'),
    _game("Cid", "Dan", head='[Odd+#=:-_9 "x"]\n[bad name "x"]\n[é "x"]\n'),
    _game("Cid", "Dan", head='[Site  "x"]\n[Site\t"y"]\n [Round "1"]\n'),
    _game("Cid", "Dan", head='[Site "x"]  \n[Round "1"] junk\n[Event "x\n'),
    _game("?", "Dan") + _game("Cid", "") + _game("Cid", "Cid"),
    _game("Cid", "Dan").replace("Result", "Resultx"),
    _game("Cid", "Dan").replace("UTCDate", "Date").replace("01.05", "01.5"),
    _game("Cid", "Dan").replace("10:00:00", "25:00:00"),
    _game("Cid", "Dan", head='[WhiteElo "abc"]\n[BlackElo "?"]\n'),
    _game("Cid", "Dan").replace("2024.01.05", "2023.12.31"),  # out of order
    _game("Cid", "Dan").rstrip("\n"),  # no newline at the end
    # A NUL in a tag line: python-chess reads one tag, or none, where the
    # scanner's separator would let it find another.
    _game("Cid", "Dan", head='[Event "x\x00[WhiteElo "2000"]\n'),
    _game("Cid", "Dan", head='[\x00[WhiteElo "2000"]\n'),
    _game("Cid", "Dan", head='[Event "x\x00[Result "0-1"]\n'),
    # Games longer than the scanner holds: blank lines, tags, movetext.
    "\n" * (pgn_records._SCAN_LINES + 5) + _game("Cid", "Dan"),
    _game("Cid", "Dan", head="".join(f'[T{i} "v"]\n' for i in range(300))),
    _game("Cid", "Dan", moves="1. e4\n" * (pgn_records._SCAN_LINES + 5)),
]


@pytest.mark.parametrize("snippet", TRICKY)
@pytest.mark.parametrize("mode", ["stringio", "bytes", "textio", "splitlines"])
def test_tricky_games_match_python_chess(snippet: str, mode: str) -> None:
    """Each oddity, between clean games, reads as the reference reads it."""
    text = _game("Ann", "Bob") + snippet + _game("Bob", "Ann")
    for batch_size in (1, 2, 7):
        for skip_bad in (False, True):
            for ordered in (False, True):
                new = _run(pgn_batches, text, mode, batch_size, skip_bad, ordered)
                old = _run(
                    reference_pgn_batches, text, mode, batch_size, skip_bad, ordered
                )
                assert new == old


def test_lines_not_split_at_newlines() -> None:
    """An iterable's items need not be lines: a NUL after an item's newline.

    (An item may hold several lines, or part of one; here a tag line's item
    ends in a newline and a NUL, which python-chess's tag regex does not take.)
    """
    items = [
        '[White "Ann"]\n',
        '[Black "Bob"]\n',
        '[Result "1-0"]\n',
        '[UTCDate "2024.01.05"]\n',
        '[WhiteElo "2000"]\n\x00',
        "\n",
        "1. e4 1-0\n",
        "\n",
    ]

    def outcome(reader: Callable[..., Iterator[GameBatch]]) -> Any:
        try:
            return [b.white_rating.tolist() for b in reader(iter(items))]
        except FormatError as exc:
            return str(exc)

    expected = outcome(reference_pgn_batches)
    assert expected == "<pgn>, line 5: malformed tag pair '[WhiteElo \"2000\"]\\n\\x00'"
    assert outcome(pgn_batches) == expected


@pytest.mark.parametrize(
    "lines",
    [
        ["\n"] * 10_000,
        ['[White "Ann"]\n'] * 10_000,
        ['[White "Ann"]\n', "\n", *["1. e4\n"] * 10_000],
    ],
    ids=["blank lines", "tag lines", "movetext"],
)
def test_scanner_holds_a_bounded_number_of_lines(lines: list[str]) -> None:
    """A long game is left to python-chess, which streams it, not held whole."""
    got: list[str] = []
    assert pgn_records._scan_game(partial(next, iter(lines), ""), got) is None
    assert 0 < len(got) <= pgn_records._SCAN_LINES + 1 < len(lines)


def test_plain_games_skip_the_line_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    """Lichess games from bytes never reach the line scanner (the bulk path runs)."""
    text = "".join(
        lichess_game(w, b, t)
        for w, b, t in (("Ann", "Bob", "10:00:00"), ("Bob", "Cid", "11:00:00"))
    )

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("the line reader was asked")

    monkeypatch.setattr(pgn_records, "_scan_game", refuse)
    monkeypatch.setattr(chess.pgn, "read_game", refuse)
    lines = ByteLines(io.BytesIO(text.encode()), "t.pgn", False, BadRecords())
    (batch,) = pgn_batches(lines)
    assert batch.games.white.tolist() == [0, 1] and lines.number == 2 * 13
