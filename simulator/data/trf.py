"""FIDE's Tournament Report File (TRF-16): parsing a tournament into typed records.

Source: FIDE Handbook C.04, Annex 2, "Format of Tournament Report File (TRF)",
agreed 2006 (C. Krause), approved Elista 2015 as TRF16
(handbook.fide.com, ``C04Annex2_TRF16.pdf``). A TRF is a text file of fixed
columns; each line begins with a three-character record code:

* ``012`` ... ``132`` (``??2``): tournament data: ``012`` name, ``022`` city,
  ``032`` federation, ``042`` start date, ``052`` end date, ``092`` type,
  ``102`` chief arbiter, ``122`` time control, ``132`` the date of each round
  (``YY/MM/DD`` at columns 92-99 for round 1, 102-109 for round 2, ...);
* ``001``: one player (columns, 1-based, inclusive): start number 5-8, sex 10,
  title 11-13, name 15-47, FIDE rating 49-52, federation 54-56, FIDE ID 58-68,
  birth date 70-79 (``YYYY/MM/DD``), points 81-84, rank 86-89, then 10
  columns per round from column 92: the opponent's start number (4 columns,
  ``0000`` or blank for none), the colour (column 97: ``w``, ``b``, ``-`` or
  blank), the result (column 99);
* ``013`` team data, national rating records (a federation code) and the
  ``XX?`` extensions of pairing programs, which a rating does not use; ``###``
  starts a comment.

Result codes (letters are case-insensitive):

=========  =========================================  ======  =====
code       meaning                                    points  rated
=========  =========================================  ======  =====
``1``      win                                        1       yes
``=``      draw                                       1/2     yes
``0``      loss                                       0       yes
``W``      win, game not rated (e.g. < 1 move)        1       no
``D``      draw, game not rated                       1/2     no
``L``      loss, game not rated                       0       no
``+``      forfeit win                                1       no
``-``      forfeit loss                               0       no
``H``      half-point bye                             1/2     no
``F``      full-point bye                             1       no
``U``      pairing-allocated bye                      1       no
``Z``      zero-point bye (known absence)             0       no
blank      the same as ``Z``                          0       no
=========  =========================================  ======  =====

"Rated" is the TRF's own word: a game with ``1 = 0`` is rated if both
players are rated on the list the event uses (FIDE Rating Regulations;
docs/rules.md, section 1).

Every malformed line is reported with the file name, the line number and what
is wrong (:class:`~simulator.data.records.FormatError`); with ``skip_bad=True`` the
bad lines and games are left out, counted and listed in
:attr:`Tournament.skipped`, never silently.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from simulator.data.records import BadRecord, FormatError, raise_or_skip

__all__ = [
    "BYES",
    "FORFEITS",
    "PLAYED",
    "POINTS",
    "UNRATED_GAMES",
    "RoundEntry",
    "Tournament",
    "TrfGame",
    "TrfPlayer",
    "parse_trf",
    "read_trf",
]

#: Played games, rated where both players are rated.
PLAYED = frozenset("1=0")
#: Played games that are not rated (TRF16: ``W``, ``D``, ``L``).
UNRATED_GAMES = frozenset("WDL")
#: Forfeits: scheduled games that were not played; never rated.
FORFEITS = frozenset("+-")
#: Byes and absences: no opponent.
BYES = frozenset("HFUZ")
#: Points of each result code for the player who has it.
POINTS: dict[str, float] = {
    "1": 1.0,
    "=": 0.5,
    "0": 0.0,
    "W": 1.0,
    "D": 0.5,
    "L": 0.0,
    "+": 1.0,
    "-": 0.0,
    "H": 0.5,
    "F": 1.0,
    "U": 1.0,
    "Z": 0.0,
}
#: The opponent's code for each code of a game between two players.
_COMPLEMENT: dict[str, frozenset[str]] = {
    "1": frozenset("0"),
    "0": frozenset("1"),
    "=": frozenset("="),
    "W": frozenset("L"),
    "L": frozenset("W"),
    "D": frozenset("D"),
    "+": frozenset("-"),
    "-": frozenset("+-"),  # a double forfeit: both lose
}
#: Column (0-based) of the first round's opponent field and the width of a round.
_ROUND_START = 91
_ROUND_WIDTH = 10
#: The most rounds a tournament may have (a double round robin of 500 players);
#: a longer line is a bad record, so that the rounds every player is filled
#: up to stay bounded.
MAX_ROUNDS = 1000
#: The largest TRF read: a report of 1,000 players of 1,000 rounds is ten
#: megabytes; this keeps ``/dev/zero`` or a wrong file from filling the memory.
MAX_TRF_BYTES = 64 * 1024 * 1024
#: TRF lines end in CR LF, LF or CR only (``str.splitlines`` would also
#: break at a form feed, U+0085 or U+2028 in a name, shifting line numbers).
_LINE_END = re.compile(r"\r\n|\r|\n")
_DATE_FORMATS = ("%Y/%m/%d", "%Y-%m-%d", "%Y.%m.%d", "%d/%m/%Y", "%d.%m.%Y", "%d-%m-%Y")
_RECORD = re.compile(r"^[0-9A-Z#]{3}( |$)")


@dataclass(frozen=True)
class RoundEntry:
    """One round of a player's line.

    Attributes
    ----------
    round : int
        The round, from 1.
    opponent : int or None
        The opponent's start number; None for ``0000`` or blank (byes).
    colour : {"w", "b"} or None
        The player's colour; None for ``-`` or blank.
    code : str
        The result code, upper case; a blank result is ``"Z"``.
    """

    round: int
    opponent: int | None
    colour: str | None
    code: str

    @property
    def points(self) -> float:
        """The points this entry gives the player."""
        return POINTS[self.code]

    @property
    def kind(self) -> str:
        """``"played"``, ``"not rated"`` (W/D/L), ``"forfeit"`` or ``"bye"``."""
        if self.code in PLAYED:
            return "played"
        if self.code in UNRATED_GAMES:
            return "not rated"
        if self.code in FORFEITS:
            return "forfeit"
        return "bye"


@dataclass(frozen=True)
class TrfPlayer:
    """A ``001`` line.

    Attributes
    ----------
    start : int
        Start number (columns 5-8).
    sex, title, name, federation, fide_id : str
        As in the file (stripped).
    rating : int or None
        FIDE rating (columns 49-52) on the list the event uses; None where
        blank or 0 (unrated).
    birth_year : int or None
        From the birth date (columns 70-79), None where blank or ``0000``.
    points : float or None
        Points as the file states them (columns 81-84).
    rank : int or None
        Rank (columns 86-89).
    rounds : tuple of RoundEntry
        One entry per round of the tournament (missing trailing rounds are Z).
    line : int
        Line number in the file.
    """

    start: int
    sex: str
    title: str
    name: str
    rating: int | None
    federation: str
    fide_id: str
    birth_year: int | None
    points: float | None
    rank: int | None
    rounds: tuple[RoundEntry, ...]
    line: int

    @property
    def total(self) -> float:
        """The points of the round entries (TRF16 default scoring)."""
        return float(sum(e.points for e in self.rounds))


@dataclass(frozen=True)
class TrfGame:
    """A game or forfeit between two players, once per pair and round.

    Attributes
    ----------
    round : int
        The round.
    white, black : int
        Start numbers; for a forfeit without colours, ``white`` is the lower
        start number and ``colours`` is False.
    code : str
        White's result code: ``1 = 0`` (played), ``W D L`` (played, not
        rated), ``+ -`` (forfeit).
    score : float
        White's points.
    colours : bool
        Whether the file gives the colours.
    day : datetime.date or None
        The round's date (``132``), None where the file has none.
    line : int
        The line of White's entry.
    """

    round: int
    white: int
    black: int
    code: str
    score: float
    colours: bool
    day: dt.date | None
    line: int

    @property
    def played(self) -> bool:
        """Whether the game counts for rating (``1 = 0``; both players rated)."""
        return self.code in PLAYED


@dataclass(frozen=True)
class Tournament:
    """A parsed TRF.

    Attributes
    ----------
    path : str
        The file's name, for messages.
    name, city, federation : str
        Tags ``012``, ``022``, ``032`` ("" where absent).
    start, end : datetime.date
        Tags ``042`` and ``052``, else the first and last round dates.
    round_dates : tuple of (datetime.date or None)
        One per round (tag ``132``).
    players : tuple of TrfPlayer
        Sorted by start number.
    games : tuple of TrfGame
        Every pairing of two players (played, not rated and forfeits), by
        round then White's start number.
    header : dict of str to str
        Every ``??2`` tag's text (columns 5-).
    skipped : tuple of BadRecord
        What ``skip_bad`` left out.
    warnings : tuple of str
        Oddities that do not stop a rating (points that disagree with the
        results, ignored record types).
    """

    path: str
    name: str
    city: str
    federation: str
    start: dt.date
    end: dt.date
    round_dates: tuple[dt.date | None, ...]
    players: tuple[TrfPlayer, ...]
    games: tuple[TrfGame, ...]
    header: dict[str, str] = field(default_factory=dict)
    skipped: tuple[BadRecord, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def n_rounds(self) -> int:
        """Number of rounds."""
        return len(self.round_dates)

    def player(self, start: int) -> TrfPlayer:
        """The player with start number ``start``."""
        for p in self.players:
            if p.start == start:
                return p
        raise KeyError(f"No player with start number {start} in {self.path}.")


class _Reader:
    """Collects bad records: raises on the first unless ``skip_bad``."""

    def __init__(self, path: str, skip_bad: bool) -> None:
        self.path = path
        self.skip_bad = skip_bad
        self.bad: list[BadRecord] = []

    def fail(self, line: int, message: str) -> None:
        raise_or_skip(
            BadRecord(self.path, line, message), self.skip_bad, self.bad.append
        )


def _parse_date(text: str) -> dt.date | None:
    """A date in one of the usual TRF spellings (TRF16 asks for YYYY/MM/DD)."""
    for fmt in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    return None


def _parse_round_date(text: str) -> dt.date | None:
    """A ``132`` round date: ``YY/MM/DD`` (TRF16), or a four-digit-year date."""
    m = re.fullmatch(r"(\d\d)[/.-](\d\d)[/.-](\d\d)", text, re.ASCII)
    if m is None:
        return _parse_date(text)
    yy, mm, dd = (int(g) for g in m.groups())
    try:
        return dt.date(2000 + yy, mm, dd)
    except ValueError:
        return None


def _birth_year(text: str) -> tuple[int | None, bool]:
    """``(year, ok)`` of a birth date field: ``YYYY/MM/DD``, ``YYYY`` or blank.

    A full date must be a date of the calendar (not 2018/13/45); a month or
    day of ``00`` stands for an unknown one.
    """
    if not text or set(text) <= set("0/.- "):
        return None, True
    m = re.fullmatch(r"(\d{4})(?:[/.-](\d{2})[/.-](\d{2}))?", text, re.ASCII)
    year, month, day = (m.group(1), m.group(2), m.group(3)) if m else (None,) * 3
    if m is None:
        m = re.fullmatch(r"(\d{2})[/.-](\d{2})[/.-](\d{4})", text, re.ASCII)
        if m is None:
            return None, False
        day, month, year = m.groups()
    assert year is not None
    if month is not None and day is not None:
        try:
            dt.date(int(year), int(month) or 1, int(day) or 1)
        except ValueError:
            return None, False
    return int(year), True


def _is_number(text: str) -> bool:
    """Whether ``text`` is ASCII digits (``isdigit`` takes ² and ٣, ``int`` not all)."""
    return text.isascii() and text.isdigit()


def _field(line: str, first: int, last: int) -> str:
    """Columns ``first``..``last`` (1-based, inclusive), stripped."""
    return line[first - 1 : last].strip()


def _player(line: str, lineno: int, reader: _Reader) -> TrfPlayer | None:
    """Parse a ``001`` line; None (and a bad record) if it is malformed."""
    text = line.ljust(_ROUND_START)

    def bad(message: str) -> None:
        reader.fail(lineno, message)

    def whole(first: int, last: int, what: str) -> str | None:
        """Columns ``first``..``last``: blank or a whole number; else None (bad)."""
        field = _field(text, first, last)
        if field and not _is_number(field):
            bad(f"{what} {field!r} (columns {first}-{last}) is not a whole number")
            return None
        return field

    start_text = _field(text, 5, 8)
    if not _is_number(start_text) or int(start_text) == 0:
        bad(f"start number {start_text!r} (columns 5-8) is not a number from 1")
        return None
    rating_text = whole(49, 52, "rating")
    if rating_text is None:
        return None
    birth_text = _field(text, 70, 79)
    birth_year, ok = _birth_year(birth_text)
    if not ok:
        bad(f"birth date {birth_text!r} (columns 70-79) is not YYYY/MM/DD")
        return None
    points_text = _field(text, 81, 84)
    points: float | None = None
    if points_text:
        try:
            if not points_text.isascii():
                raise ValueError(points_text)
            points = float(points_text)
        except ValueError:
            bad(f"points {points_text!r} (columns 81-84) are not a number")
            return None
    rank_text = whole(86, 89, "rank")
    if rank_text is None:
        return None
    if text[90:_ROUND_START].strip():
        bad("column 91 must be blank (round 1 begins at column 92)")
        return None

    rounds: list[RoundEntry] = []
    rest = text[_ROUND_START:].rstrip()
    n_rounds = -(-len(rest) // _ROUND_WIDTH)
    if n_rounds > MAX_ROUNDS:
        # Every player's rounds are filled up to the longest line's: one
        # overlong line would cost every player that many entries.
        bad(f"{n_rounds:,} rounds: a line holds at most {MAX_ROUNDS}")
        return None
    for r in range(n_rounds):
        block = rest[r * _ROUND_WIDTH : (r + 1) * _ROUND_WIDTH].ljust(_ROUND_WIDTH)
        col = _ROUND_START + r * _ROUND_WIDTH + 1  # 1-based column of the block
        where = f"round {r + 1} (columns {col}-{col + 7})"
        if block[4] != " " or block[6] != " " or block[8:].strip():
            bad(f"{where}: {block.rstrip()!r} is not 'NNNN C R'")
            return None
        opp_text, colour_text, code = block[:4].strip(), block[5], block[7].upper()
        if opp_text and not _is_number(opp_text):
            bad(f"{where}: opponent {opp_text!r} is not a start number")
            return None
        opponent = int(opp_text) if opp_text else 0
        if colour_text not in "wWbB- ":
            bad(f"{where}: colour {colour_text!r} is not w, b or -")
            return None
        colour = colour_text.lower() if colour_text in "wWbB" else None
        if code == " ":
            code = "Z"
        if code not in POINTS:
            bad(
                f"{where}: result {block[7]!r} is not a TRF-16 code "
                "(1 = 0, W D L, + -, H F U Z)"
            )
            return None
        if code in PLAYED | UNRATED_GAMES:
            if opponent == 0:
                bad(f"{where}: result {code!r} needs an opponent, not 0000")
                return None
            if colour is None:
                bad(f"{where}: a played game needs the colour w or b")
                return None
        elif code in BYES and opponent != 0:
            bad(f"{where}: a bye ({code!r}) cannot have an opponent ({opponent})")
            return None
        rounds.append(RoundEntry(r + 1, opponent or None, colour, code))

    return TrfPlayer(
        start=int(start_text),
        sex=_field(text, 10, 10),
        title=_field(text, 11, 13),
        name=_field(text, 15, 47),
        rating=int(rating_text) if rating_text and int(rating_text) > 0 else None,
        federation=_field(text, 54, 56),
        fide_id=_field(text, 58, 68),
        birth_year=birth_year,
        points=points,
        rank=int(rank_text) if rank_text else None,
        rounds=tuple(rounds),
        line=lineno,
    )


def _games(
    players: dict[int, TrfPlayer],
    round_dates: tuple[dt.date | None, ...],
    reader: _Reader,
) -> list[TrfGame]:
    """Every pairing, once, after checking that both lines tell the same story."""
    games: list[TrfGame] = []
    reported: set[tuple[int, int, int]] = set()
    for p in players.values():
        for e in p.rounds:
            if e.opponent is None or e.code in BYES:
                continue
            key = (e.round, min(p.start, e.opponent), max(p.start, e.opponent))
            q = players.get(e.opponent)
            where = f"player {p.start}, round {e.round}"
            if q is None:
                if key not in reported:
                    reported.add(key)
                    reader.fail(
                        p.line,
                        f"{where}: opponent {e.opponent} is not in the file "
                        "(or its line was skipped)",
                    )
                continue
            f = q.rounds[e.round - 1] if e.round <= len(q.rounds) else None
            problem = None
            if f is None or f.opponent != p.start:
                shown = "nobody" if f is None or f.opponent is None else f.opponent
                problem = (
                    f"opponent {q.start} (line {q.line}) lists {shown} in that round"
                )
            elif f.code not in _COMPLEMENT[e.code]:
                problem = (
                    f"result {e.code!r} but opponent {q.start} (line {q.line}) "
                    f"has {f.code!r}"
                )
            elif e.colour is not None and e.colour == f.colour:
                problem = (
                    f"colour {e.colour} and opponent {q.start} (line {q.line}) "
                    f"also has {f.colour}"
                )
            if problem is not None:
                if key not in reported:
                    reported.add(key)
                    reader.fail(p.line, f"{where}: {problem}")
                continue
            if p.start > q.start:
                continue  # emitted from the other side
            assert f is not None
            if e.colour == "w" or (e.colour is None and f.colour == "b"):
                white, black, code, line = p, q, e.code, p.line
            elif e.colour == "b" or f.colour == "w":
                white, black, code, line = q, p, f.code, q.line
            else:  # a forfeit without colours: the lower start number first
                white, black, code, line = p, q, e.code, p.line
            colours = e.colour is not None or f.colour is not None
            games.append(
                TrfGame(
                    round=e.round,
                    white=white.start,
                    black=black.start,
                    code=code,
                    score=POINTS[code],
                    colours=colours,
                    day=round_dates[e.round - 1]
                    if e.round <= len(round_dates)
                    else None,
                    line=line,
                )
            )
    games.sort(key=lambda g: (g.round, g.white))
    return games


def parse_trf(
    lines: Iterable[str], *, path: str = "<trf>", skip_bad: bool = False
) -> Tournament:
    """Parse the lines of a TRF-16 file.

    Parameters
    ----------
    lines : iterable of str
        The file's lines (with or without line ends).
    path : str
        The file's name, for messages.
    skip_bad : bool
        Leave malformed lines and games out (listed in ``skipped``) instead of
        raising on the first.

    Returns
    -------
    Tournament

    Raises
    ------
    FormatError
        A malformed line (without ``skip_bad``), naming the file, the line
        and what is wrong; also when the file has no players or no date.

    Examples
    --------
    >>> t = parse_trf([
    ...     "012 Club championship",
    ...     "042 2024/03/05",
    ...     "001    1 m    Alpha                             1800 ESP  "
    ...     "                       1.0    1     2 w 1",
    ...     "001    2 m    Beta                              1700 ESP  "
    ...     "                       0.0    2     1 b 0",
    ... ])
    >>> t.name, str(t.start), len(t.players), t.games[0].white, t.games[0].score
    ('Club championship', '2024-03-05', 2, 1, 1.0)
    """
    reader = _Reader(path, skip_bad)
    header: dict[str, str] = {}
    header_lines: dict[str, int] = {}
    players: dict[int, TrfPlayer] = {}
    ignored: dict[str, int] = {}
    lineno = 0
    for lineno, raw in enumerate(lines, 1):
        line = (
            raw.rstrip("\r\n").lstrip("\ufeff") if lineno == 1 else raw.rstrip("\r\n")
        )
        if not line.strip() or line.startswith("###"):
            continue
        if _RECORD.match(line) is None:
            reader.fail(
                lineno,
                f"{line[:3]!r} is not a TRF-16 record code (a line begins with "
                "three characters such as 001 or 012, then a blank)",
            )
            continue
        code = line[:3]
        if code == "001":
            player = _player(line, lineno, reader)
            if player is None:
                continue
            if player.start in players:
                reader.fail(
                    lineno,
                    f"start number {player.start} again (first on line "
                    f"{players[player.start].line})",
                )
                continue
            players[player.start] = player
        elif code.isdigit() and code.endswith("2"):
            header[code] = line[4:].rstrip()
            header_lines[code] = lineno
        else:
            ignored[code] = ignored.get(code, 0) + 1

    round_dates: list[dt.date | None] = []
    if "132" in header:
        text = ("132 " + header["132"]).ljust(_ROUND_START)
        rest = text[_ROUND_START:].rstrip()
        for r in range(-(-len(rest) // _ROUND_WIDTH)):
            cell = rest[r * _ROUND_WIDTH : r * _ROUND_WIDTH + 8].strip()
            day = _parse_round_date(cell) if cell else None
            if cell and day is None:
                col = _ROUND_START + r * _ROUND_WIDTH + 1
                reader.fail(
                    header_lines["132"],
                    f"round {r + 1} date {cell!r} (columns {col}-{col + 7}) is "
                    "not YY/MM/DD",
                )
            round_dates.append(day)
    n_rounds = max([len(round_dates), *(len(p.rounds) for p in players.values())])
    round_dates += [None] * (n_rounds - len(round_dates))
    # Short lines: the missing trailing rounds are blank, i.e. Z.
    for number, p in list(players.items()):
        if len(p.rounds) < n_rounds:
            more = tuple(
                RoundEntry(r + 1, None, None, "Z")
                for r in range(len(p.rounds), n_rounds)
            )
            players[number] = replace(p, rounds=p.rounds + more)

    dates: dict[str, dt.date | None] = {}
    for tag, what in (("042", "start"), ("052", "end")):
        text = header.get(tag, "").strip()
        dates[tag] = _parse_date(text) if text else None
        if text and dates[tag] is None:
            reader.fail(header_lines[tag], f"{what} date {text!r} is not YYYY/MM/DD")
    known = [d for d in round_dates if d is not None]
    start = dates["042"] or (min(known) if known else None)
    end = dates["052"] or (max(known) if known else start)
    if not players:
        raise FormatError(BadRecord(path, lineno, "no player (001) lines"))
    if start is None or end is None:
        raise FormatError(
            BadRecord(
                path,
                header_lines.get("042", 1),
                "no start date: the file has neither a usable 042 tag nor round "
                "dates (132)",
            )
        )

    ordered = dict(sorted(players.items()))
    games = _games(ordered, tuple(round_dates), reader)
    warnings = []
    for p in ordered.values():
        if p.points is not None and abs(p.points - p.total) > 1e-9:
            warnings.append(
                f"line {p.line}: player {p.start} has {p.points:g} points in the "
                f"file but {p.total:g} by the results (TRF-16 default scoring)"
            )
    for code, n in sorted(ignored.items()):
        warnings.append(f"{n} line(s) of record type {code!r} ignored (not used)")
    return Tournament(
        path=path,
        name=header.get("012", "").strip(),
        city=header.get("022", "").strip(),
        federation=header.get("032", "").strip(),
        start=start,
        end=end,
        round_dates=tuple(round_dates),
        players=tuple(ordered.values()),
        games=tuple(games),
        header=header,
        skipped=tuple(reader.bad),
        warnings=tuple(warnings),
    )


def read_trf(path: str | Path, *, skip_bad: bool = False) -> Tournament:
    """Read a TRF-16 file (UTF-8, else Latin-1, the usual encodings).

    See :func:`parse_trf` for ``skip_bad`` and the errors.
    """
    p = Path(path)
    with open(p, "rb") as handle:
        data = handle.read(MAX_TRF_BYTES + 1)
    if len(data) > MAX_TRF_BYTES:
        raise FormatError(
            BadRecord(
                str(path), 0, f"larger than {MAX_TRF_BYTES:,} bytes: not a TRF file"
            )
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    lines = _LINE_END.split(text)
    if lines and not lines[-1]:
        lines.pop()  # the end of the last line
    return parse_trf(lines, path=str(path), skip_bad=skip_bad)
