"""FIDE rating lists (TXT and XML), read as a stream, and players matched to them.

FIDE publishes its rating lists every month at
https://ratings.fide.com/download_lists.phtml, each as a zipped TXT and a
zipped XML file: the combined list (``players_list_foa.txt``,
``players_list_xml_foa.xml``, about a million players with a rating, more
with the unrated) and one list per rating type (``standard_rating_list.txt``
and so on). The published fields are those of the Rating Regulations
(Handbook B.02, section 7.1.2: title, federation, rating, ID, games in the
period, birth year, sex and K).

TXT
---
Fixed-width lines under one header line, in columns that begin where their
header label begins (the layout as public parsers read it, e.g. the Perl
module Chess::FIDE and the Python and Go readers indexed for this work). The
combined list of 2024-2026 (162 characters a line; 0-based [start, end))::

    ID Number 0-15  Name 15-76  Fed 76-80  Sex 80-84  Tit 84-89  WTit 89-94
    OTit 94-109  FOA 109-113  SRtng 113-119  SGm 119-123  SK 123-126
    RRtng 126-132  RGm 132-136  Rk 136-139  BRtng 139-145  BGm 145-149
    BK 149-152  B-day 152-158  Flag 158-162

The list of one rating type has the same columns up to ``FOA``, then the
rating under the list's month (``OCT26``), ``Gms``, ``K``, ``B-day`` and
``Flag``; the combined list before the FIDE Online Arena column lacks
``FOA``; older lists spell ``Titl``, ``Games`` and ``Born``. The columns are
therefore found from the header line, never assumed. A rating of 0 (or
blank) is unrated; a birth year of 0 is unknown; the flag is ``i``
(inactive), ``w`` (woman), ``wi`` (both) or blank. A few lines of the
combined list are one character longer (an ``OTit`` list overflowing into
``FOA``); the columns after ``OTit`` are then read one character further
right.

XML
---
``<playerslist>`` of ``<player>`` elements, each with the children
``fideid, name, country, sex, title, w_title, o_title, foa_title, rating,
games, k, rapid_rating, rapid_games, rapid_k, blitz_rating, blitz_games,
blitz_k, birthday, flag`` (``birthday`` is the year; a list of one type
has ``rating, games, k`` only). It is read with
:func:`xml.etree.ElementTree.iterparse`, each player cleared once read, so
that memory holds one player, not the 800 MB file.

Either format may be given as downloaded (``.zip``, its one member read as
a stream) or compressed (``.gz``, ``.bz2``, ``.zst``).

Matching
--------
:class:`FideList` keeps the players of a list by FIDE ID and by name (the
name normalised: case, spaces around the comma and repeated spaces
ignored; a name two players share matches neither). :meth:`FideList.match`
takes the ID where the record carries one (a TRF's ``001`` line, a PGN's
``WhiteFideId``) and falls back on the name.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple
from xml.etree.ElementTree import iterparse

import numpy as np

from simulator.data.compressed import COMPRESSIONS, open_input
from simulator.data.records import BadRecord, FormatError

__all__ = [
    "RATING_TYPES",
    "FideList",
    "ListPlayer",
    "ListSeeds",
    "fide_list_txt",
    "fide_list_xml",
    "list_seeds",
    "normalise_name",
    "read_fide_list",
]

#: The rating types of a combined list.
RATING_TYPES = ("standard", "rapid", "blitz")

#: Header labels -> field (combined and single-type lists, old spellings).
_LABELS = {
    "id": "fide_id",
    "name": "name",
    "fed": "federation",
    "sex": "sex",
    "tit": "title",
    "titl": "title",
    "wtit": "w_title",
    "otit": "o_title",
    "foa": "foa_title",
    "srtng": "standard_rating",
    "sgm": "standard_games",
    "sk": "standard_k",
    "rrtng": "rapid_rating",
    "rgm": "rapid_games",
    "rk": "rapid_k",
    "brtng": "blitz_rating",
    "bgm": "blitz_games",
    "bk": "blitz_k",
    "gms": "games",
    "games": "games",
    "k": "k",
    "b-day": "birth_year",
    "born": "birth_year",
    "flag": "flag",
}
_MONTH = re.compile(r"[A-Za-z]{3}\d{2}")
#: XML children -> field.
_XML = {
    "fideid": "fide_id",
    "name": "name",
    "country": "federation",
    "sex": "sex",
    "title": "title",
    "w_title": "w_title",
    "o_title": "o_title",
    "foa_title": "foa_title",
    "rating": "rating",
    "games": "games",
    "k": "k",
    "rapid_rating": "rapid_rating",
    "rapid_games": "rapid_games",
    "rapid_k": "rapid_k",
    "blitz_rating": "blitz_rating",
    "blitz_games": "blitz_games",
    "blitz_k": "blitz_k",
    "birthday": "birth_year",
    "flag": "flag",
}


@dataclass(frozen=True, slots=True)
class ListPlayer:
    """One player of a FIDE list, for one rating type.

    Attributes
    ----------
    fide_id : int
        The FIDE ID.
    name : str
        ``"Surname, Given names"`` as the list spells it.
    federation, sex, title : str
        As listed (blank: "").
    rating : int or None
        The rating of the type read (None: unrated, 0 or blank on the list).
    games : int
        Games rated in the list's period (``Gms``), not the career total.
    k : int or None
        The K factor on the list (None where blank or 0).
    birth_year : int or None
        None where 0 or blank.
    flag : str
        ``"i"`` inactive, ``"w"`` woman, ``"wi"`` both, or "".
    """

    fide_id: int
    name: str
    federation: str = ""
    sex: str = ""
    title: str = ""
    rating: int | None = None
    games: int = 0
    k: int | None = None
    birth_year: int | None = None
    flag: str = ""

    @property
    def inactive(self) -> bool:
        """Flagged inactive (``i`` or ``wi``)."""
        return "i" in self.flag.lower()


def _int(text: str | None) -> int | None:
    t = (text or "").strip()
    return int(t) if t.isdigit() else None


def _player(fields: dict[str, str], rating_type: str, where: BadRecord) -> ListPlayer:
    """A :class:`ListPlayer` of the raw fields of a TXT line or an XML player."""
    fide_id = _int(fields.get("fide_id"))
    if fide_id is None:
        raise FormatError(
            BadRecord(
                where.path,
                where.line,
                f"ID Number {fields.get('fide_id', '')!r} is not a FIDE ID",
            )
        )
    prefix = "" if "rating" in fields else f"{rating_type}_"
    if prefix == "" and rating_type != "standard" and f"{rating_type}_rating" in fields:
        prefix = f"{rating_type}_"  # an XML combined list: rapid_rating, ...
    rating = _int(fields.get(f"{prefix}rating"))
    k = _int(fields.get(f"{prefix}k"))
    year = _int(fields.get("birth_year"))
    return ListPlayer(
        fide_id=fide_id,
        name=" ".join((fields.get("name") or "").split()),
        federation=(fields.get("federation") or "").strip(),
        sex=(fields.get("sex") or "").strip(),
        title=(fields.get("title") or "").strip(),
        rating=rating or None,
        games=_int(fields.get(f"{prefix}games")) or 0,
        k=k or None,
        birth_year=year or None,
        flag=(fields.get("flag") or "").strip().lower(),
    )


def _columns(header: str) -> list[tuple[str, int]]:
    """(field, start) of each column of a TXT header line, left to right."""
    out: list[tuple[str, int]] = []
    for m in re.finditer(r"\S+", header):
        label = m.group().lower()
        if label == "number" and out and out[-1][0] == "fide_id":
            continue  # "ID Number" is one label
        if label in _LABELS:
            out.append((_LABELS[label], m.start()))
        elif _MONTH.fullmatch(label):
            out.append(("rating", m.start()))  # a list of one type: its month
        else:
            out.append((f"unknown:{label}", m.start()))
    if not out or out[0][0] != "fide_id" or not any(f == "name" for f, _ in out):
        raise ValueError(f"not a FIDE list header: {header.strip()[:80]!r}")
    return out


def _txt_players(
    lines: Iterable[str], path: str, rating_type: str
) -> Iterator[ListPlayer]:
    columns: list[tuple[str, int]] | None = None
    width = 0
    shift_from = 0
    for number, line in enumerate(lines, 1):
        text = line.rstrip("\r\n")
        if not text.strip():
            continue
        if columns is None:
            try:
                columns = _columns(text.lstrip("\ufeff"))
            except ValueError as exc:
                raise FormatError(BadRecord(path, number, str(exc))) from None
            width = len(text)
            fields = [f for f, _ in columns]
            after = fields.index("o_title") + 1 if "o_title" in fields else 0
            shift_from = columns[after][1] if 0 < after < len(columns) else width
            continue
        shift = max(len(text) - width, 0)
        values = {}
        for i, (field, start) in enumerate(columns):
            end = columns[i + 1][1] if i + 1 < len(columns) else len(text)
            extra_start = shift if start >= shift_from else 0
            extra_end = shift if end >= shift_from and i + 1 < len(columns) else 0
            values[field] = text[start + extra_start : end + extra_end]
        yield _player(values, rating_type, BadRecord(path, number, ""))


def _xml_players(
    stream: IO[bytes], path: str, rating_type: str
) -> Iterator[ListPlayer]:
    root: Any = None
    count = 0
    for event, elem in iterparse(stream, events=("start", "end")):
        if event == "start":
            if root is None:
                root = elem
            continue
        if elem.tag != "player":
            continue
        count += 1
        fields = {_XML.get(child.tag, child.tag): child.text or "" for child in elem}
        yield _player(fields, rating_type, BadRecord(path, count, ""))
        elem.clear()
        if root is not None:
            root.clear()  # the players read so far leave the tree


class _Stream(io.RawIOBase):
    """A :class:`~simulator.data.compressed.Readable` as a file object."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        data = self.raw.read(len(b))
        b[: len(data)] = data
        return len(data)


def read_fide_list(
    path: str | Path, rating_type: str = "standard"
) -> Iterator[ListPlayer]:
    """Stream the players of a FIDE list file (TXT or XML; see the module notes).

    Parameters
    ----------
    path : str or Path
        The list, as downloaded (``.zip``), plain, or compressed.
    rating_type : {"standard", "rapid", "blitz"}
        Which ratings of a combined list (a list of one type has its own).

    Raises
    ------
    FormatError
        A header that is not a FIDE list's, an ID that is not a number, or
        XML that is not well formed.
    """
    if rating_type not in RATING_TYPES:
        raise ValueError(
            f"rating_type must be one of {', '.join(RATING_TYPES)}. "
            f"Got {rating_type!r}."
        )
    name = str(path)
    suffix = Path(name).suffix.lower()
    with _open(name, suffix) as stream:
        head = stream.peek(64)[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
        if head.startswith(b"<"):
            try:
                yield from _xml_players(stream, name, rating_type)
            except SyntaxError as exc:  # xml.etree.ElementTree.ParseError
                raise FormatError(
                    BadRecord(name, 0, f"not well-formed XML ({exc})")
                ) from None
        else:
            text = io.TextIOWrapper(
                stream, encoding="utf-8", errors="replace", newline=""
            )
            yield from _txt_players(text, name, rating_type)


class _open:
    """The decompressed bytes of a list file, buffered (``peek``)."""

    def __init__(self, name: str, suffix: str) -> None:
        self.closing: list[Any] = []
        if suffix == ".zip":
            archive = zipfile.ZipFile(name)
            self.closing.append(archive)
            members = [m for m in archive.namelist() if not m.endswith("/")]
            if len(members) != 1:
                archive.close()
                raise FormatError(
                    BadRecord(name, 0, f"the zip holds {len(members)} files, not one")
                )
            raw: Any = archive.open(members[0])
        else:
            compression = COMPRESSIONS.get(suffix, "none")
            raw, opened = open_input(name, compression)
            if opened is not None:
                self.closing.append(opened)
        self.stream = io.BufferedReader(_Stream(raw), 1 << 20)

    def __enter__(self) -> Any:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        for thing in reversed(self.closing):
            thing.close()


def normalise_name(name: str) -> str:
    """A name as matched: case folded, spaces repeated or around commas dropped.

    >>> normalise_name("  Carlsen ,Magnus ")
    'carlsen,magnus'
    """
    return re.sub(r"\s*,\s*", ",", " ".join(name.split())).casefold()


class FideList:
    """The players of a FIDE list, by ID and by name, for seeding.

    Parameters
    ----------
    players : iterable of ListPlayer
        Usually :func:`read_fide_list`.
    ids, names : container, optional
        Keep only the players with these IDs or (normalised) names: the
        records to seed are known first, so a million-row list is streamed
        and only their rows are held. None keeps every player.
    source : str
        The list's file, for the report.
    """

    def __init__(
        self,
        players: Iterable[ListPlayer],
        *,
        ids: Container[int] | None = None,
        names: Container[str] | None = None,
        source: str = "",
    ) -> None:
        self.source = source
        self.by_id: dict[int, ListPlayer] = {}
        self.by_name: dict[str, ListPlayer | None] = {}
        keep_all = ids is None and names is None
        for p in players:
            key = normalise_name(p.name)
            if (
                keep_all
                or (ids is not None and p.fide_id in ids)
                or (names is not None and key in names)
            ):
                self.by_id[p.fide_id] = p
                # Two players of one name: the name matches neither.
                self.by_name[key] = None if key in self.by_name else p

    def __len__(self) -> int:
        return len(self.by_id)

    def match(
        self, fide_id: str | int | None, name: str
    ) -> tuple[ListPlayer | None, str]:
        """The player with ``fide_id`` (if given and listed), else by ``name``.

        Returns
        -------
        (ListPlayer or None, str)
            The player and how they were matched: ``"id"``, ``"name"``, or
            "" (not matched).
        """
        number = _int(str(fide_id)) if fide_id is not None else None
        if number is not None and number in self.by_id:
            return self.by_id[number], "id"
        found = self.by_name.get(normalise_name(name))
        return (found, "name") if found is not None else (None, "")


# --- writers (small lists for tests and examples) --------------------------------

#: The combined TXT list's header (the layout of the module notes).
_TXT_HEADER = (
    "ID Number      Name                                                         "
    "Fed Sex Tit  WTit OTit           FOA SRtng SGm SK RRtng RGm Rk BRtng BGm BK "
    "B-day Flag"
)


def fide_list_txt(players: Iterable[ListPlayer]) -> str:
    """A combined TXT list of ``players`` (standard ratings; rapid and blitz 0).

    >>> text = fide_list_txt([ListPlayer(1503014, "Carlsen, Magnus", "NOR", "M",
    ...                                  "GM", 2833, 4, 10, 1990)])
    >>> [p.rating for p in _txt_players(text.splitlines(), "t", "standard")]
    [2833]
    """
    cols = _columns(_TXT_HEADER)
    starts = dict(cols)
    lines = [_TXT_HEADER]
    for p in players:
        values = {
            "fide_id": str(p.fide_id),
            "name": p.name,
            "federation": p.federation,
            "sex": p.sex,
            "title": p.title,
            "standard_rating": str(p.rating or 0),
            "standard_games": str(p.games),
            "standard_k": str(p.k or 0),
            "rapid_rating": "0",
            "rapid_games": "0",
            "rapid_k": "0",
            "blitz_rating": "0",
            "blitz_games": "0",
            "blitz_k": "0",
            "birth_year": str(p.birth_year or 0),
            "flag": p.flag,
        }
        line = [" "] * len(_TXT_HEADER)
        for field, text in values.items():
            at = starts[field]
            line[at : at + len(text)] = text
        lines.append("".join(line))
    return "\r\n".join(lines) + "\r\n"


def fide_list_xml(players: Iterable[ListPlayer]) -> str:
    """A combined XML list of ``players`` (standard ratings; rapid and blitz 0)."""
    from xml.sax.saxutils import escape

    out = ["<playerslist>"]
    for p in players:
        values = {
            "fideid": p.fide_id,
            "name": p.name,
            "country": p.federation,
            "sex": p.sex,
            "title": p.title,
            "w_title": "",
            "o_title": "",
            "foa_title": "",
            "rating": p.rating or 0,
            "games": p.games,
            "k": p.k or 0,
            "rapid_rating": 0,
            "rapid_games": 0,
            "rapid_k": 0,
            "blitz_rating": 0,
            "blitz_games": 0,
            "blitz_k": 0,
            "birthday": p.birth_year or 0,
            "flag": p.flag,
        }
        body = "".join(f"<{k}>{escape(str(v))}</{k}>" for k, v in values.items())
        out.append(f"<player>{body}</player>")
    out.append("</playerslist>")
    return "\n".join(out) + "\n"


# --- seeding a replay --------------------------------------------------------------


class ListSeeds(NamedTuple):
    """What a FIDE list says of some players, as arrays (for a replay's entry).

    Attributes
    ----------
    matched : ndarray of bool
        On the list.
    rating : ndarray of float
        The list's rating (NaN: not matched, or unrated on the list).
    k : ndarray of int
        The list's K (0: none).
    games : ndarray of int
        G to assume (see :func:`list_seeds`).
    birth_year : ndarray of float
        NaN where unknown.
    """

    matched: Any
    rating: Any
    k: Any
    games: Any
    birth_year: Any


def list_seeds(
    fide_list: FideList,
    names: Sequence[str],
    ids: Mapping[int, str],
    lo: int,
    hi: int,
    *,
    year: int | None = None,
    games_played_default: int = 30,
    counts: dict[str, int] | None = None,
) -> ListSeeds:
    """The list's entries of players ``lo .. hi - 1`` of a game record.

    Parameters
    ----------
    fide_list : FideList
        The list.
    names : sequence of str
        Player names by index (:class:`~simulator.data.records.Players`).
    ids : mapping of int to str
        FIDE IDs the records carry, by player index.
    lo, hi : int
        The players wanted.
    year : int, optional
        The year of the list, for the junior test of G (None: every player
        with K 40 is taken to have fewer than 30 games).
    games_played_default : int
        G of a matched player, unless the list's K is 40 for an adult (then
        the list's games of its period, at most 29; as
        :mod:`simulator.tasks.rate.seeding` does).
    counts : dict, optional
        Incremented: ``"id"``, ``"name"``, ``"unmatched"``, ``"inactive"``.
    """
    n = hi - lo
    out = ListSeeds(
        np.zeros(n, bool),
        np.full(n, np.nan),
        np.zeros(n, np.intp),
        np.zeros(n, np.intp),
        np.full(n, np.nan),
    )
    for j in range(n):
        i = lo + j
        found, how = fide_list.match(ids.get(i), names[i] if i < len(names) else "")
        if counts is not None:
            key = how or "unmatched"
            counts[key] = counts.get(key, 0) + 1
            if found is not None and found.inactive:
                counts["inactive"] = counts.get("inactive", 0) + 1
        if found is None:
            continue
        out.matched[j] = True
        if found.rating is not None:
            out.rating[j] = found.rating
            out.k[j] = found.k or 0
        if found.birth_year is not None:
            out.birth_year[j] = found.birth_year
        adult = year is None or found.birth_year is None or year - found.birth_year > 18
        few = found.k == 40 and adult
        out.games[j] = min(found.games, 29) if few else games_played_default
    return out
