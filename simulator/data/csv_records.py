"""The CSV game-record reader: one game a row, read lazily in batches.

Format
------
A header row naming the columns (case-insensitive, in any order):
``white``, ``black``, ``score`` (White's: ``1``, ``0``, ``0.5``, ``1/2``,
``=``, ``1-0``, ``0-1``, ``1/2-1/2``), ``date`` (ISO ``YYYY-MM-DD``,
``YYYY.MM.DD`` or an ISO date and time, which makes the day fractional),
and optionally ``white_rating`` and ``black_rating`` (or ``white_elo`` /
``black_elo``): ratings the file carries, blank or ``?`` where unknown.
Other columns are ignored.

The batches, the date order and the errors are those of
:mod:`simulator.data.records`.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Iterable, Iterator
from typing import Any

from simulator.data.records import (
    BATCH_SIZE,
    FIRST_YEAR,
    LAST_YEAR,
    SCORES,
    BadRecord,
    BadRecords,
    Batcher,
    FormatError,
    GameBatch,
    Players,
    parse_day,
    parse_rating,
)

__all__ = ["csv_batches"]

_RATING_COLUMNS = {
    "white_rating": "white_rating",
    "white_elo": "white_rating",
    "whiteelo": "white_rating",
    "black_rating": "black_rating",
    "black_elo": "black_rating",
    "blackelo": "black_rating",
}


def _csv_error(exc: csv.Error) -> str:
    text = str(exc)
    if "field limit" in text:
        return f"a field longer than {csv.field_size_limit():,} characters"
    return f"not CSV: {text[:80]}"


def _rows(reader: Any, batcher: Batcher) -> Iterator[list[str]]:
    """The rows of ``reader``; a row the csv module cannot read is a bad record."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            batcher.fail(reader.line_num, _csv_error(exc))
            continue
        yield row


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
    batcher = Batcher(path, players, batch_size, skip_bad, bad, ordered)
    reader = csv.reader(lines)
    try:
        head = next(reader)
    except StopIteration:
        raise FormatError(BadRecord(path, 1, "the file is empty")) from None
    except csv.Error as exc:
        raise FormatError(BadRecord(path, reader.line_num, _csv_error(exc))) from None
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
    for row in _rows(reader, batcher):
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
        score = SCORES.get(row[i_s].strip())
        if score is None:
            batcher.fail(line, f"score {row[i_s]!r} is not 1, 0.5 or 0 (White's score)")
            continue
        text = row[i_d]
        if text != last_text:
            parsed = parse_day(text)
            if parsed is None:
                batcher.fail(
                    line,
                    f"date {text!r} is not YYYY-MM-DD (years {FIRST_YEAR}-{LAST_YEAR})",
                )
                continue
            last_text, last_day = text, parsed
        ratings = []
        for idx, side in ((iwr, "white_rating"), (ibr, "black_rating")):
            value = math.nan if idx is None else parse_rating(row[idx])
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
