"""The calculator's vocabulary: the games and the player's values in, the result out.

:func:`simulator.tasks.calc.calculate` takes a system's name, the player's
values (:class:`ListInputs` for ``fide``, ``fide-2024`` and ``classic``,
:class:`EloInputs`, :class:`Glicko2Inputs`, :class:`GlickoInputs`,
:class:`LichessInputs`) and the games (:class:`GameInput`, one per opponent,
:func:`parse_game` reads the ``OPPONENT[/OPPONENT_RD]:SCORE[:COLOUR]`` text
form) and returns a :class:`CalcResult`: one :class:`GameRow` per game, the
totals, the new values and notes. Bad input raises :class:`CalcError` (a
:class:`ValueError`) with the message ``ratingsim calc`` prints; the option
names in the messages (``--k``, ``--unrated``, ...) are the inputs' fields.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, fields
from typing import Any

from simulator.systems._common import MAX_RD

__all__ = [
    "CalcError",
    "CalcResult",
    "EloInputs",
    "GameInput",
    "GameRow",
    "Glicko2Inputs",
    "GlickoInputs",
    "LichessInputs",
    "ListInputs",
    "parse_game",
]


class CalcError(ValueError):
    """Bad input to the calculator: the message names the bad value."""


# --------------------------------------------------------------------------
# The games
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameInput:
    """One ``--game``: the opponent, their RD, the player's score and colour.

    Attributes
    ----------
    opponent : float
        The opponent's rating.
    rd : float or None
        The opponent's rating deviation (Glicko systems), None if not given.
    score : float
        The player's score: 1, 0.5 or 0.
    colour : {"w", "b"} or None
        The player's colour (Lichess's colour advantage), None if not given.
    text : str
        The game as typed, for messages.
    """

    opponent: float
    rd: float | None
    score: float
    colour: str | None
    text: str


_DRAWS = ("=", "½", "1/2")
#: The largest magnitude of an opponent's rating (far beyond any scale; a
#: rating difference of 1e300 overflows the expected score's power of ten).
MAX_OPPONENT = 1_000_000


def number(text: str) -> float | None:
    """``text`` as a finite float, or None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_game(text: str) -> GameInput:
    """Parse ``OPPONENT[/OPPONENT_RD]:SCORE[:COLOUR]``.

    SCORE is 1, 0.5 or 0 (``=``, ``½`` or ``1/2`` for a draw); COLOUR is ``w``
    or ``b``, the player's colour (only Lichess's colour advantage reads it).

    Raises
    ------
    CalcError
        With a message naming the game and the bad part.

    Examples
    --------
    >>> parse_game("1400/30:=")
    GameInput(opponent=1400.0, rd=30.0, score=0.5, colour=None, text='1400/30:=')
    """
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0].strip() or not parts[1].strip():
        raise CalcError(
            f"malformed game {text!r}: expected OPPONENT[/OPPONENT_RD]:SCORE"
        )
    who, score_text = parts[0], parts[1].strip()
    rd: float | None = None
    if "/" in who:
        who, rd_text = who.split("/", 1)
        rd = number(rd_text)
        if rd is None or not 0 < rd <= MAX_RD:
            raise CalcError(
                f"game {text!r}: the opponent's RD {rd_text!r} must be a positive "
                f"number, at most {MAX_RD:,g}"
            )
    opponent = number(who)
    if opponent is None or abs(opponent) > MAX_OPPONENT:
        raise CalcError(
            f"game {text!r}: the opponent's rating {who!r} is not a number in "
            f"[-{MAX_OPPONENT:,}, {MAX_OPPONENT:,}]"
        )
    score = 0.5 if score_text in _DRAWS else number(score_text)
    if score not in (0.0, 0.5, 1.0):
        raise CalcError(f"game {text!r}: the score {score_text!r} must be 1, 0.5 or 0")
    colour: str | None = None
    if len(parts) == 3:
        colour = parts[2].strip().lower()
        if colour not in ("w", "b"):
            raise CalcError(f"game {text!r}: the colour {parts[2]!r} must be w or b")
    assert score is not None
    return GameInput(opponent, rd, score, colour, text)


def check_games(
    games: list[GameInput],
    *,
    rd_for: str | None = None,
    colour: bool = False,
    published: str | None = None,
) -> None:
    """Refuse what a system cannot read in a game, one game after another.

    ``rd_for`` names the system that has no RDs (None: RDs are read);
    ``colour`` whether colours are read; ``published`` names the system whose
    opponents' ratings are published whole numbers (None: any rating).
    """
    for gm in games:
        if rd_for is not None and gm.rd is not None:
            raise CalcError(
                f"game {gm.text!r}: an opponent RD makes no sense for {rd_for}"
            )
        if not colour and gm.colour is not None:
            raise CalcError(
                f"game {gm.text!r}: the colour only matters for lichess "
                "(its colour advantage)"
            )
        if published is not None and (
            gm.opponent != int(gm.opponent) or gm.opponent < 0
        ):
            raise CalcError(
                f"game {gm.text!r}: the opponent's rating {gm.opponent:g} must be a "
                f"whole number >= 0 (a published {published} rating)"
            )


# --------------------------------------------------------------------------
# The player's values
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class ListInputs:
    """The player under ``fide``, ``fide-2024`` or ``classic``: one rating period.

    Give ``rating`` and ``k``, or ``rating`` and what K is derived from
    (``games_played``, ``birth_year``, ``ever_2400``, ``ever_2300``), or
    ``unrated`` for a first rating. Fields marked (fide) apply to ``fide`` and
    ``fide-2024`` only, ``initial`` to ``classic`` only.

    Attributes
    ----------
    rating : int or None
        The published rating on the list in force.
    unrated : bool
        An unrated player: the initial rating from the games.
    k : int or None
        K for the period (before the 700 rule).
    games_played : int or None
        Games already in the player's rating, to derive K.
    ever_2400 : bool
        A published rating reached 2400 before.
    birth_year : int or None
        (fide) For the junior K 40.
    ever_2300 : bool
        (fide) A published rating reached 2300 before.
    junior_2300 : {"ever", "current"}
        (fide) When the junior K 40 ends.
    date : datetime.date or None
        A day in the rating period (default today): the list in force on it.
    rules : {"2025", "2024"} or None
        (fide) The 2025 or 2024 rules (default: the system's).
    initial : {"international", "national"}
        (classic) The initial-rating rule for ``unrated``.
    expectation : {"table", "formula"}
        PD from FIDE's table 8.1.2 or the logistic formula.
    round_expectation : int or None
        (fide) With the formula, E rounded to this many decimals.
    cap : float or None
        The rating-difference cap (``math.inf``: none; None: the system's).
    """

    rating: int | None = None
    unrated: bool = False
    k: int | None = None
    games_played: int | None = None
    ever_2400: bool = False
    birth_year: int | None = None
    ever_2300: bool = False
    junior_2300: str = "ever"
    date: dt.date | None = None
    rules: str | None = None
    initial: str = "international"
    expectation: str = "table"
    round_expectation: int | None = None
    cap: float | None = None


@dataclass(frozen=True)
class EloInputs:
    """The player under plain Elo; None is the system's default."""

    rating: float | None = None
    k: float | None = None


@dataclass(frozen=True)
class GlickoInputs:
    """The player under Glicko-1; None is the system's new player.

    ``c`` is the RD growth per period applied first to every RD (default 0:
    the RDs given are those at the period's onset).
    """

    rating: float | None = None
    rd: float | None = None
    c: float = 0.0


@dataclass(frozen=True)
class Glicko2Inputs:
    """The player under Glicko-2, and tau; None is the system's new player."""

    rating: float | None = None
    rd: float | None = None
    volatility: float | None = None
    tau: float | None = None


@dataclass(frozen=True)
class LichessInputs:
    """The player under Lichess's Glicko-2, and Lichess's options.

    ``colour`` is the player's colour in games without one; ``idle_days`` the
    days since the player's last game (RD growth before the first game).
    """

    rating: float | None = None
    rd: float | None = None
    volatility: float | None = None
    tau: float | None = None
    colour_advantage: bool = True
    regulator: bool = True
    speed: str = "blitz"
    colour: str = "white"
    idle_days: float = 0.0


# --------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------

#: GameRow fields that only some systems have (absent when None).
_ROW_OPTIONAL = (
    "opponent_rd",
    "colour",
    "rating_after",
    "rd_after",
    "volatility_after",
)


@dataclass(frozen=True)
class GameRow:
    """One game of a result: the expected score and the change it brings.

    ``expected`` and ``change`` are None for an unrated player (a first
    rating has neither); the other optional fields are None where the system
    has no such figure (RDs: the Glicko systems; ``rating_after``: the systems
    that rate game by game).
    """

    opponent: float
    score: float
    expected: float | None
    change: float | None
    opponent_rd: float | None = None
    colour: str | None = None
    rating_after: float | None = None
    rd_after: float | None = None
    volatility_after: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON, in the order of the fields that apply."""
        order = (
            "opponent",
            "opponent_rd",
            "colour",
            "score",
            "expected",
            "change",
            "rating_after",
            "rd_after",
            "volatility_after",
        )
        return {
            key: getattr(self, key)
            for key in order
            if key not in _ROW_OPTIONAL or getattr(self, key) is not None
        }


@dataclass(frozen=True)
class CalcResult:
    """One player's rating change over the games.

    ``keys`` names the figures the system has, in the order
    :meth:`to_dict` gives them; the other fields stay at their default.

    Attributes
    ----------
    system : str
        The system that rated (``fide-2024`` for ``fide`` with the 2024 rules).
    rating : float or None
        The player's rating before (None: unrated).
    games : tuple of GameRow
        One row per game, in the order given.
    expected : tuple of float or None
        Each game's expected score.
    points : float
        The player's score over the games.
    change : float or None
        The change in rating, unrounded.
    new_rating : float or None
        The rating after.
    notes : tuple of str
        What the figures alone do not say (defaults used, limits applied).
    k, k_list, k_source, rounded_change, below_floor, list_date, \
initial_rating, initial_rating_reason
        The list-based systems' figures (K after and before the 700 rule,
        where K comes from, ...).
    rd, volatility, tau, c, new_rd, new_volatility, colour_advantage, \
regulator, idle_days, display, provisional
        The Glicko systems' figures.
    """

    keys: tuple[str, ...]
    system: str
    rating: float | None
    games: tuple[GameRow, ...]
    expected: tuple[float | None, ...]
    points: float
    change: float | None
    new_rating: float | None
    notes: tuple[str, ...] = ()
    k: float | None = None
    k_list: int | None = None
    k_source: str | None = None
    rounded_change: int | None = None
    below_floor: bool | None = None
    list_date: str | None = None
    initial_rating: int | None = None
    initial_rating_reason: str | None = None
    rd: float | None = None
    volatility: float | None = None
    tau: float | None = None
    c: float | None = None
    new_rd: float | None = None
    new_volatility: float | None = None
    colour_advantage: bool | None = None
    regulator: str | None = None
    idle_days: float | None = None
    display: str | None = None
    provisional: bool | None = None

    def __post_init__(self) -> None:
        names = {f.name for f in fields(self)}
        unknown = [key for key in self.keys if key not in names or key == "keys"]
        if unknown:
            raise TypeError(f"CalcResult has no figure {unknown[0]!r}")

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON (``ratingsim calc --json``), the notes last."""
        out: dict[str, Any] = {}
        for key in self.keys:
            value = getattr(self, key)
            if key == "games":
                value = [row.to_dict() for row in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[key] = value
        out["notes"] = list(self.notes)
        return out
