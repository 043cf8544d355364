"""The command line's value types and errors: each option's text to its value.

Every function here is an argparse ``type=``: it returns the value or raises
:class:`argparse.ArgumentTypeError` with a message naming the bad text, which
:class:`_Parser` turns into a :class:`CliError`: one line on stderr, exit
code 2, no traceback.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math

from simulator.cli._parser import (
    EXIT_USAGE,
    CliError,
    HelpFormatter,
    _Parser,
)
from simulator.systems import SYSTEMS
from simulator.tasks.calc_types import CalcError, GameInput
from simulator.tasks.calc_types import number as _number
from simulator.tasks.calc_types import parse_game as _parse_game

__all__ = ["EXIT_USAGE", "CliError", "HelpFormatter", "_Parser", "parse_game"]


def parse_game(text: str) -> GameInput:
    """:func:`simulator.tasks.calc.parse_game` as an argparse type.

    Raises
    ------
    argparse.ArgumentTypeError
        With a message naming the game and the bad part.

    Examples
    --------
    >>> parse_game("1400/30:=")
    GameInput(opponent=1400.0, rd=30.0, score=0.5, colour=None, text='1400/30:=')
    """
    try:
        return _parse_game(text)
    except CalcError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: The largest magnitude of a number option: far beyond any rating, K, RD or
#: day count, and small enough that no formula overflows (``--k 1e20`` did).
MAX_OPTION = 1_000_000


def _bounded(text: str) -> float | None:
    value = _number(text)
    return value if value is not None and abs(value) <= MAX_OPTION else None


def _finite(text: str) -> float:
    value = _bounded(text)
    if value is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number in [-{MAX_OPTION:,}, {MAX_OPTION:,}]"
        )
    return value


def _positive(text: str) -> float:
    value = _bounded(text)
    if value is None or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be a positive number, at most {MAX_OPTION:,}"
        )
    return value


def _non_negative(text: str) -> float:
    value = _bounded(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be a number in [0, {MAX_OPTION:,}]"
        )
    return value


def _whole(text: str, low: int) -> int:
    value = _bounded(text)
    if value is None or value != int(value) or value < low:
        raise argparse.ArgumentTypeError(
            f"{text!r} must be a whole number in [{low}, {MAX_OPTION:,}]"
        )
    return int(value)


def _rating_whole(text: str) -> int:
    """A published (list) rating: a whole number >= 0."""
    return _whole(text, 0)


def _k_whole(text: str) -> int:
    return _whole(text, 1)


def _count(text: str) -> int:
    return _whole(text, 0)


def _year(text: str) -> int:
    return _whole(text, 1)


def _date(text: str) -> dt.date:
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (YYYY-MM-DD)"
        ) from None


def _cap(text: str) -> float:
    """A cap in points; ``none`` (no cap) is infinite."""
    if text.lower() == "none":
        return math.inf
    return _positive(text)


def _games_played(text: str) -> tuple[int, int]:
    """``START=G``: the games a player had before the event."""
    start, sep, games = text.partition("=")
    if not sep or not start.strip().isdigit() or not games.strip().isdigit():
        raise argparse.ArgumentTypeError(
            f"{text!r} is not START=G (a start number and a game count)"
        )
    return int(start), int(games)


def _system_list(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in names if s not in SYSTEMS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown system(s) {', '.join(unknown) if unknown else repr(text)}; "
            f"known: {', '.join(SYSTEMS)}"
        )
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(f"a system is listed twice in {text!r}")
    return names


def _start_rating(text: str) -> float | None:
    return None if text.lower() == "none" else _positive(text)
