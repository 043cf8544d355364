"""The command line: ``ratingsim calc`` and ``ratingsim systems``.

``ratingsim calc SYSTEM --game OPPONENT[/OPPONENT_RD]:SCORE ...`` is the
calculator of the seed pages (``seeds/``): one player's rating change over a
game or a rating period, with the expected score of each game. It computes
through the systems themselves, never a copy of their rules: it builds a small
state of the player plus one opponent per game, rates it with the system's
``rate``, and reads the per-game figures from the same pure functions the
system uses (:func:`~simulator.systems._lists.rules_expected`,
:func:`~simulator.systems._lists.apply_700_rule`, the systems'
``expected_score``, :func:`~simulator.systems.fide.initial_rating`, ...).

``ratingsim systems`` lists the registered rating systems.

Every subcommand is one ``_cmd_*`` function registered on an argparse
subparser. Bad input never shows a traceback: it is reported as one line on
stderr, naming the bad value, with exit code 2.

Examples
--------
>>> main(["calc", "classic", "--rating", "2400", "--k", "10", "--game", "2300:1"])
classic: rating 2400, K 10 (given)
#  opponent  score  expected  change
1      2300      1      0.64    +3.6
total            1      0.64    +3.6
Change: +3.6, rounded +4
New rating: 2404
0
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import inspect
import json
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from simulator import __version__
from simulator.config import ConfigError
from simulator.systems import SYSTEMS, make_system
from simulator.systems._common import (
    FloatArray,
    Games,
    day_of,
    list_day_on,
    player_sum,
    round_half_away,
    round_half_up,
)
from simulator.systems.classic import (
    Classic,
    initial_rating_international,
    national_start_values,
)
from simulator.systems.elo import Elo
from simulator.systems.fide import INITIAL_MAX, Fide, initial_rating
from simulator.systems.glicko import Glicko, Q, grow_rd
from simulator.systems.glicko import g as glicko_g
from simulator.systems.glicko2 import SCALE, Glicko2
from simulator.systems.glicko2 import g as glicko2_g
from simulator.systems.lichess import REGULATOR_FACTORS, Lichess, provisional
from simulator.systems.lists.state import (
    ListState,
    apply_700_rule,
    period_k,
    rules_expected,
)

__all__ = ["CliError", "GameInput", "build_parser", "main", "parse_game"]

#: Exit code for bad input (argparse's own).
EXIT_USAGE = 2

Result = dict[str, Any]


class CliError(Exception):
    """Bad input: reported as one line on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, raised, not printed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Raise :class:`CliError` instead of printing the usage and exiting."""
        raise CliError(f"{self.prog}: error: {message}")


# --------------------------------------------------------------------------
# Parsing values
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


def _number(text: str) -> float | None:
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
    argparse.ArgumentTypeError
        With a message naming the game and the bad part.

    Examples
    --------
    >>> parse_game("1400/30:=")
    GameInput(opponent=1400.0, rd=30.0, score=0.5, colour=None, text='1400/30:=')
    """
    parts = text.split(":")
    if len(parts) not in (2, 3) or not parts[0].strip() or not parts[1].strip():
        raise argparse.ArgumentTypeError(
            f"malformed game {text!r}: expected OPPONENT[/OPPONENT_RD]:SCORE"
        )
    who, score_text = parts[0], parts[1].strip()
    rd: float | None = None
    if "/" in who:
        who, rd_text = who.split("/", 1)
        rd = _number(rd_text)
        if rd is None or rd <= 0:
            raise argparse.ArgumentTypeError(
                f"game {text!r}: the opponent's RD {rd_text!r} must be a positive "
                "number"
            )
    opponent = _number(who)
    if opponent is None:
        raise argparse.ArgumentTypeError(
            f"game {text!r}: the opponent's rating {who!r} is not a number"
        )
    score = 0.5 if score_text in _DRAWS else _number(score_text)
    if score not in (0.0, 0.5, 1.0):
        raise argparse.ArgumentTypeError(
            f"game {text!r}: the score {score_text!r} must be 1, 0.5 or 0"
        )
    colour: str | None = None
    if len(parts) == 3:
        colour = parts[2].strip().lower()
        if colour not in ("w", "b"):
            raise argparse.ArgumentTypeError(
                f"game {text!r}: the colour {parts[2]!r} must be w or b"
            )
    assert score is not None
    return GameInput(opponent, rd, score, colour, text)


def _finite(text: str) -> float:
    value = _number(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    return value


def _positive(text: str) -> float:
    value = _number(text)
    if value is None or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number")
    return value


def _non_negative(text: str) -> float:
    value = _number(text)
    if value is None or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number >= 0")
    return value


def _whole(text: str, low: int) -> int:
    value = _number(text)
    if value is None or value != int(value) or value < low:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number >= {low}")
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


# --------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------


def _fmt(
    x: float | None, places: int, *, sign: bool = False, trim: bool = False
) -> str:
    """``x`` with ``places`` decimals; ``trim`` drops trailing zeros."""
    if x is None:
        return "-"
    text = f"{x:+.{places}f}" if sign else f"{x:.{places}f}"
    if trim and "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def _score(x: float) -> str:
    return _fmt(x, 1, trim=True)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Right-aligned columns (the first left-aligned), two spaces apart."""
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    out = []
    for r in [headers, *rows]:
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _notes(result: Result) -> list[str]:
    return [str(note) for note in result["notes"]]


def _date_text(day: int) -> str:
    return str(np.datetime64(day, "D"))


# --------------------------------------------------------------------------
# calc: the list-based Elo systems (fide, fide-2024, classic)
# --------------------------------------------------------------------------

_K_INPUTS = ("games_played", "birth_year", "ever_2400", "ever_2300")


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def _given_k_inputs(args: argparse.Namespace) -> list[str]:
    """The K inputs (``--games-played`` ...) given on the command line."""
    given = []
    for dest in _K_INPUTS:
        value = getattr(args, dest, None)
        if value is not None and value is not False:
            given.append(_option(dest) if value is True else f"{_option(dest)} {value}")
    return given


def _list_system(args: argparse.Namespace) -> Fide | Classic:
    """The FIDE or old-style system the options ask for, from the registry."""
    name: str = args.system
    params: dict[str, Any] = {}
    if name in ("fide", "fide-2024"):
        if args.rules == "2024":
            name = "fide-2024"
        elif args.rules == "2025" and name == "fide-2024":
            raise CliError(
                "--rules 2025 contradicts fide-2024 (the 2024 rules): use 'fide'"
            )
        if args.round_expectation is not None:
            if args.expectation != "formula":
                raise CliError(
                    f"--round-expectation {args.round_expectation} needs "
                    "--expectation formula (table values are already rounded)"
                )
            params["round_expectation"] = args.round_expectation
        params["junior_2300"] = args.junior_2300
    else:
        params["initial"] = args.initial
    params["expectation"] = args.expectation
    if args.cap is not None:
        params["cap"] = None if math.isinf(args.cap) else args.cap
    system = make_system(name, **params)
    assert isinstance(system, Fide | Classic)
    return system


def _list_state(
    system: Fide | Classic,
    args: argparse.Namespace,
    rating: float,
    opp: FloatArray,
    day: int,
) -> ListState:
    """The list in force on ``day``: the player (index 0) and one opponent per game."""
    n_players = opp.shape[0] + 1
    n_games = np.zeros(n_players, dtype=np.intp)
    n_games[0] = args.games_played or 0
    birth_year = np.full(n_players, np.nan)
    if getattr(args, "birth_year", None) is not None:
        birth_year[0] = args.birth_year
    state = system.new_state(
        n_players,
        day=day,
        rating=np.concatenate([[rating], opp]),
        n_games=n_games,
        birth_year=birth_year,
    )
    ever_2400 = bool(args.ever_2400)
    ever_2300 = bool(getattr(args, "ever_2300", False))
    if ever_2400 or ever_2300:
        # Published ratings before this list reached 2400 / 2300: K comes from
        # the system's own K rule on the amended list.
        e24 = state.ever_2400.copy()
        e23 = state.ever_2300.copy()
        e24[0] |= ever_2400
        e23[0] |= ever_2300 or ever_2400
        state = state._replace(ever_2400=e24, ever_2300=e23)
        state = state._replace(list_k=period_k(system.rules, state.rating, state)[None])
    if args.k is not None:
        list_k = state.list_k.copy()
        list_k[-1, 0] = args.k
        state = state._replace(list_k=list_k)
    return state


def _check_list_games(system_name: str, games: list[GameInput]) -> None:
    for gm in games:
        if gm.rd is not None:
            raise CliError(
                f"game {gm.text!r}: an opponent RD makes no sense for {system_name} "
                "(an Elo system)"
            )
        if gm.colour is not None:
            raise CliError(
                f"game {gm.text!r}: the colour only matters for lichess "
                "(its colour advantage)"
            )
        if gm.opponent != int(gm.opponent) or gm.opponent < 0:
            raise CliError(
                f"game {gm.text!r}: the opponent's rating {gm.opponent:g} must be a "
                f"whole number >= 0 (a published {system_name} rating)"
            )


def _initial_reason(
    system: Fide | Classic, opp: FloatArray, score: FloatArray
) -> tuple[float | None, str | None]:
    """The initial rating by the system's pure functions, or why there is none.

    Returns ``(rating, None)`` or ``(None, reason)``. ``_calc_list`` checks the
    answer against the system's ``rate``.
    """
    n = opp.shape[0]
    points = float(score.sum())
    floor = system.floor
    if isinstance(system, Fide):
        if points == 0:
            return None, (
                "0 points in the first event: its games leave the pool for good "
                "(FIDE 8.2.2)"
            )
        if n < system.min_initial_games:
            return None, (
                f"{_games(n)} against rated opponents; a first rating needs "
                f"{system.min_initial_games}"
            )
        ru = float(
            initial_rating(
                opp.sum(), n, points, min_games=system.min_initial_games
            ).item()
        )
    elif system.initial == "international":
        if n < 3:
            return None, (
                f"{n} rated opponent(s) in the event; an event counts only with 3 "
                "(2003 Handbook B0206)"
            )
        if points <= 0.5:
            return None, (
                f"{_score(points)} point(s) in the event; an event with 0.5 or less "
                "is disregarded (2003 Handbook B0206)"
            )
        if n < system.min_games:
            return None, (
                f"{_games(n)} against rated opponents; a first rating needs "
                f"{system.min_games}"
            )
        ru = float(
            initial_rating_international(
                opp.sum(), n, points, min_games=system.min_games
            ).item()
        )
    else:
        start = national_start_values(
            n + 1,
            np.zeros(n, dtype=np.intp),
            np.arange(1, n + 1, dtype=np.intp),
            opp,
            score,
            np.arange(n + 1) == 0,
        )
        ru = float(round_half_up(start[0]).item())
        if n < system.min_games:
            return None, (
                f"{_games(n)}; a first national rating needs {system.min_games} "
                f"(start value now {ru:g})"
            )
    if ru < floor:
        return None, (
            f"Ru = {ru:g} is below the {floor:g} floor: the player stays unrated"
        )
    return ru, None


def _calc_list(args: argparse.Namespace, games: list[GameInput]) -> Result:
    """FIDE (2025 or 2024 rules) or old-style FIDE: one rating period."""
    system = _list_system(args)
    fide_2024 = isinstance(system, Fide) and system.exempt_from is None
    name = "fide-2024" if fide_2024 else system.name
    _check_list_games(args.system, games)
    unrated = bool(args.unrated)
    k_inputs = _given_k_inputs(args)
    if unrated:
        if args.k is not None or k_inputs:
            bad = f"--k {args.k}" if args.k is not None else k_inputs[0]
            raise CliError(f"{bad}: an unrated player has no K (--unrated)")
    else:
        if args.rating is None:
            raise CliError("give --rating, or --unrated for a player without one")
        if args.k is not None and k_inputs:
            raise CliError(
                f"--k {args.k} and {k_inputs[0]}: give K or what it is derived "
                "from, not both"
            )
        if args.k is None and args.games_played is None:
            raise CliError(
                "give --k, or --games-played (with --birth-year, --ever-2400 ... as "
                "they apply) to derive K"
            )
    date: dt.date = getattr(args, "date", None) or dt.date.today()
    day = day_of(date.isoformat())
    list_day = list_day_on(day, system.months)

    n = len(games)
    opp = np.array([gm.opponent for gm in games], dtype=np.float64)
    score = np.array([gm.score for gm in games], dtype=np.float64)
    rating = np.nan if unrated else float(args.rating)
    state = _list_state(system, args, rating, opp, day)
    # The player is White in every game; these rules ignore colours.
    period = Games(np.zeros(n, dtype=np.intp), np.arange(1, n + 1), score)
    after = float(system.rate(state, period).rating[0])

    rows = [
        {"opponent": gm.opponent, "score": gm.score, "expected": None, "change": None}
        for gm in games
    ]
    result: Result = {
        "system": name,
        "rating": None if unrated else int(rating),
        "list_date": _date_text(list_day),
        "games": rows,
        "expected": [None] * n,
        "points": float(score.sum()),
        "notes": [],
    }
    if unrated:
        ru, reason = _initial_reason(system, opp, score)
        if (ru is None) != math.isnan(after) or (ru is not None and ru != after):
            raise RuntimeError(
                f"calc {name}: the initial rating {ru} disagrees with the system's "
                f"{after} (report this bug)"
            )
        whole = None if ru is None else int(ru)
        if isinstance(system, Fide) and whole == INITIAL_MAX:
            uncapped = initial_rating(
                opp.sum(), n, score.sum(), max_rating=np.inf
            ).item()
            if uncapped > INITIAL_MAX:
                result["notes"].append(
                    f"Ru = {uncapped:g} is limited to {INITIAL_MAX:g} (FIDE 8.2.1)."
                )
        result.update(
            k=None,
            change=None,
            new_rating=whole,
            initial_rating=whole,
            initial_rating_reason=reason,
        )
        return result

    k_list = int(state.k[0])
    k = int(apply_700_rule(k_list, n)) if system.rules.rule_700 else k_list
    # PD in hundredths against the opponents' list ratings, the cap per the
    # player's own rating; with the table every term is a whole number.
    pd = rules_expected(system.rules, np.full(n, rating), opp)
    terms = k * (100.0 * score - pd)
    change = float(player_sum(np.zeros(n, dtype=np.intp), terms, 1)[0]) / 100.0
    rounded = float(round_half_away(change))
    new_rating = rating + rounded
    below_floor = math.isnan(after)
    if (below_floor and new_rating >= system.floor) or (
        not below_floor and after != new_rating
    ):
        raise RuntimeError(
            f"calc {name}: the change {rounded:+g} disagrees with the system's new "
            f"rating {after} (report this bug)"
        )
    for row, e, t in zip(rows, pd / 100.0, terms / 100.0, strict=True):
        row["expected"] = float(e)
        row["change"] = float(t)
    if args.k is not None:
        source = "given"
    elif isinstance(system, Fide):
        source = f"derived from the list of {result['list_date']}"
    else:
        source = "derived"
    notes: list[str] = result["notes"]
    if k != k_list:
        notes.append(
            f"The 700 rule: K {k_list} x {n} games > 700, so K is {k} this period."
        )
    if below_floor:
        notes.append(
            f"{new_rating:g} is below the {system.floor:g} floor: the player leaves "
            "the list and is unrated again."
        )
    result.update(
        expected=[float(e) for e in pd / 100.0],
        k=k,
        k_list=k_list,
        k_source=source,
        change=change,
        rounded_change=int(rounded),
        new_rating=int(new_rating),
        below_floor=below_floor,
    )
    return result


def _render_list(result: Result, args: argparse.Namespace) -> list[str]:
    places = 2 if args.expectation == "table" else 4
    rows = result["games"]
    if result["rating"] is None:
        head = f"{result['system']}: unrated player, list of {result['list_date']}"
        lines = [head]
        lines += _table(
            ["#", "opponent", "score"],
            [
                [str(i), f"{r['opponent']:g}", _score(r["score"])]
                for i, r in enumerate(rows, 1)
            ]
            + [["total", "", _score(result["points"])]],
        )
        if result["initial_rating"] is None:
            lines.append(f"Initial rating: none: {result['initial_rating_reason']}.")
        else:
            lines.append(
                f"Initial rating: {result['initial_rating']:g} ({len(rows)} games "
                f"against rated opponents, {_score(result['points'])} points)"
            )
        return lines + _notes(result)
    k_text = f"K {result['k']} ({result['k_source']})"
    if result["k"] != result["k_list"]:
        k_text = (
            f"K {result['k']} (K {result['k_list']} {result['k_source']}, cut by the "
            f"700 rule for {len(rows)} games)"
        )
    head = f"{result['system']}: rating {result['rating']}, {k_text}"
    expected_sum = float(sum(result["expected"]))
    lines = [head]
    lines += _table(
        ["#", "opponent", "score", "expected", "change"],
        [
            [
                str(i),
                f"{r['opponent']:g}",
                _score(r["score"]),
                _fmt(r["expected"], places),
                _fmt(r["change"], 2, sign=True, trim=True),
            ]
            for i, r in enumerate(rows, 1)
        ]
        + [
            [
                "total",
                "",
                _score(result["points"]),
                _fmt(expected_sum, places),
                _fmt(result["change"], 2, sign=True, trim=True),
            ]
        ],
    )
    lines.append(
        f"Change: {_fmt(result['change'], 4, sign=True, trim=True)}, rounded "
        f"{result['rounded_change']:+d}"
    )
    lines.append(f"New rating: {result['new_rating']}")
    return lines + _notes(result)


# --------------------------------------------------------------------------
# calc: plain Elo
# --------------------------------------------------------------------------


def _reject_rd_and_colour(system_name: str, games: list[GameInput]) -> None:
    for gm in games:
        if gm.rd is not None:
            raise CliError(
                f"game {gm.text!r}: an opponent RD makes no sense for {system_name}"
            )
        if gm.colour is not None:
            raise CliError(
                f"game {gm.text!r}: the colour only matters for lichess "
                "(its colour advantage)"
            )


def _one_game(white: int, black: int, score: float) -> Games:
    """A single game, White's score, on day 0 (the calculator's clock)."""
    return Games(
        np.array([white], dtype=np.intp),
        np.array([black], dtype=np.intp),
        np.array([score]),
        day=np.zeros(1),
    )


def _calc_elo(args: argparse.Namespace, games: list[GameInput]) -> Result:
    """Plain Elo, one game after another."""
    _reject_rd_and_colour("elo", games)
    params: dict[str, Any] = {}
    if args.k is not None:
        params["k_factor"] = args.k
    system = make_system("elo", **params)
    assert isinstance(system, Elo)
    rating = system.initial_rating if args.rating is None else float(args.rating)
    n = len(games)
    opp = np.array([gm.opponent for gm in games], dtype=np.float64)
    state = system.new_state(n + 1, rating=np.concatenate([[rating], opp]))
    rows = []
    for i, gm in enumerate(games, 1):
        e = float(system.expected_score(state, [0], [i])[0])
        before = float(state.rating[0])
        state = system.rate(state, _one_game(0, i, gm.score))
        after = float(state.rating[0])
        rows.append(
            {
                "opponent": gm.opponent,
                "score": gm.score,
                "expected": e,
                "change": after - before,
                "rating_after": after,
            }
        )
    new_rating = float(state.rating[0])
    return {
        "system": "elo",
        "rating": rating,
        "k": system.k_factor,
        "games": rows,
        "expected": [r["expected"] for r in rows],
        "points": float(sum(gm.score for gm in games)),
        "change": new_rating - rating,
        "new_rating": new_rating,
        "notes": [],
    }


def _render_elo(result: Result, args: argparse.Namespace) -> list[str]:
    rows = result["games"]
    lines = [f"elo: rating {result['rating']:g}, K {result['k']:g}, per game"]
    lines += _table(
        ["#", "opponent", "score", "expected", "change", "rating"],
        [
            [
                str(i),
                f"{r['opponent']:g}",
                _score(r["score"]),
                _fmt(r["expected"], 4),
                _fmt(r["change"], 2, sign=True),
                _fmt(r["rating_after"], 2),
            ]
            for i, r in enumerate(rows, 1)
        ]
        + [
            [
                "total",
                "",
                _score(result["points"]),
                _fmt(sum(result["expected"]), 4),
                _fmt(result["change"], 2, sign=True),
                "",
            ]
        ],
    )
    lines.append(f"Change: {_fmt(result['change'], 4, sign=True)}")
    lines.append(f"New rating: {_fmt(result['new_rating'], 2)}")
    return lines


# --------------------------------------------------------------------------
# calc: Glicko-2, Glicko-1 (one period) and Lichess (per game)
# --------------------------------------------------------------------------


def _glicko_games(
    system_name: str, games: list[GameInput], default_rd: float, *, colours: bool
) -> tuple[FloatArray, FloatArray, FloatArray, list[str]]:
    """Opponents' ratings and RDs and the player's scores; notes on defaults."""
    notes = []
    if not colours:
        for gm in games:
            if gm.colour is not None:
                raise CliError(
                    f"game {gm.text!r}: the colour only matters for lichess "
                    "(its colour advantage)"
                )
    missing = [gm.text for gm in games if gm.rd is None]
    if missing:
        notes.append(
            f"No opponent RD in {', '.join(missing)}: {system_name}'s new-player RD "
            f"{default_rd:g} is used."
        )
    opp = np.array([gm.opponent for gm in games], dtype=np.float64)
    opp_rd = np.array(
        [default_rd if gm.rd is None else gm.rd for gm in games], dtype=np.float64
    )
    score = np.array([gm.score for gm in games], dtype=np.float64)
    return opp, opp_rd, score, notes


def _check_share(name: str, shares: FloatArray, change: float) -> None:
    """The per-game shares must add up to the system's change."""
    if not math.isclose(float(shares.sum()), change, rel_tol=1e-9, abs_tol=1e-9):
        raise RuntimeError(
            f"calc {name}: per-game shares {float(shares.sum())} do not add up to the "
            f"change {change} (report this bug)"
        )


def _calc_glicko2(args: argparse.Namespace, games: list[GameInput]) -> Result:
    """Glickman's Glicko-2: one rating period."""
    params: dict[str, Any] = {}
    if args.tau is not None:
        params["tau"] = args.tau
    system = make_system("glicko2", **params)
    assert isinstance(system, Glicko2)
    rating = system.initial_rating if args.rating is None else args.rating
    rd = system.initial_rd if args.rd is None else args.rd
    vol = system.initial_volatility if args.volatility is None else args.volatility
    opp, opp_rd, score, notes = _glicko_games(
        "glicko2", games, system.initial_rd, colours=False
    )
    n = len(games)
    state = system.new_state(
        n + 1,
        rating=np.concatenate([[rating], opp]),
        rd=np.concatenate([[rd], opp_rd]),
        volatility=np.concatenate([[vol], np.full(n, system.initial_volatility)]),
    )
    white, black = np.zeros(n, dtype=np.intp), np.arange(1, n + 1)
    expected = system.expected_score(state, white, black)
    new = system.rate(state, Games(white, black, score))
    new_rating, new_rd = float(new.rating[0]), float(new.rd[0])
    change = new_rating - rating
    # Step 7: mu' - mu = phi'^2 sum_j g(phi_j)(s_j - E_j); each game's share.
    shares = new_rd**2 / SCALE * glicko2_g(opp_rd / SCALE) * (score - expected)
    _check_share("glicko2", shares, change)
    notes.append("Per-game changes are each game's share of the period's change.")
    return {
        "system": "glicko2",
        "rating": rating,
        "rd": rd,
        "volatility": vol,
        "tau": system.tau,
        "games": _glicko_rows(games, opp_rd, expected, shares),
        "expected": [float(e) for e in expected],
        "points": float(score.sum()),
        "change": change,
        "new_rating": new_rating,
        "new_rd": new_rd,
        "new_volatility": float(new.volatility[0]),
        "notes": notes,
    }


def _glicko_rows(
    games: list[GameInput],
    opp_rd: FloatArray,
    expected: FloatArray,
    shares: FloatArray,
) -> list[dict[str, Any]]:
    return [
        {
            "opponent": gm.opponent,
            "opponent_rd": float(r),
            "score": gm.score,
            "expected": float(e),
            "change": float(c),
        }
        for gm, r, e, c in zip(games, opp_rd, expected, shares, strict=True)
    ]


def _calc_glicko(args: argparse.Namespace, games: list[GameInput]) -> Result:
    """Glickman's Glicko-1: one rating period (``--c`` ages every RD first)."""
    system = make_system("glicko", c=args.c)
    assert isinstance(system, Glicko)
    rating = system.initial_rating if args.rating is None else args.rating
    rd = system.initial_rd if args.rd is None else args.rd
    opp, opp_rd, score, notes = _glicko_games(
        "glicko", games, system.initial_rd, colours=False
    )
    n = len(games)
    state = system.new_state(
        n + 1,
        rating=np.concatenate([[rating], opp]),
        rd=np.concatenate([[rd], opp_rd]),
    )
    white, black = np.zeros(n, dtype=np.intp), np.arange(1, n + 1)
    # Step 1: the RDs at the onset of the period, on which E and the update rest.
    onset = state._replace(
        rd=grow_rd(state.rd, 1.0, c=system.c, max_rd=system.initial_rd)
    )
    if np.any(state.rd > system.initial_rd):
        notes.append(
            f"RDs above {system.initial_rd:g} count as {system.initial_rd:g} "
            "(step 1's ceiling)."
        )
    # The system's own E already reads the RDs at the onset of the period.
    expected = system.expected_score(state, white, black)
    new = system.rate(state, Games(white, black, score))
    new_rating, new_rd = float(new.rating[0]), float(new.rd[0])
    change = new_rating - rating
    # r' - r = q RD'^2 sum_j g(RD_j)(s_j - E_j); each game's share.
    shares = Q * new_rd**2 * glicko_g(onset.rd[1:]) * (score - expected)
    _check_share("glicko", shares, change)
    notes.append("Per-game changes are each game's share of the period's change.")
    return {
        "system": "glicko",
        "rating": rating,
        "rd": rd,
        "c": system.c,
        "games": _glicko_rows(games, onset.rd[1:], expected, shares),
        "expected": [float(e) for e in expected],
        "points": float(score.sum()),
        "change": change,
        "new_rating": new_rating,
        "new_rd": new_rd,
        "notes": notes,
    }


def _calc_lichess(args: argparse.Namespace, games: list[GameInput]) -> Result:
    """Lichess's Glicko-2: each game its own period, the player's values carried."""
    params: dict[str, Any] = {
        "colour_advantage": not args.no_colour_advantage,
        "regulator": not args.no_regulator,
        "speed": args.speed,
    }
    if args.tau is not None:
        params["tau"] = args.tau
    system = make_system("lichess", **params)
    assert isinstance(system, Lichess)
    rating = system.initial_rating if args.rating is None else args.rating
    rd = system.initial_rd if args.rd is None else args.rd
    vol = system.initial_volatility if args.volatility is None else args.volatility
    opp, opp_rd, score, notes = _glicko_games(
        "lichess", games, system.initial_rd, colours=True
    )
    n = len(games)
    state = system.new_state(
        n + 1,
        rating=np.concatenate([[rating], opp]),
        rd=np.concatenate([[rd], opp_rd]),
        volatility=np.concatenate([[vol], np.full(n, system.initial_volatility)]),
    )
    # The player last played --idle-days before the first game (RD growth);
    # the opponents' RDs are taken as they are at their game (no growth).
    last_day = np.full(n + 1, np.nan)
    if args.idle_days:
        last_day[0] = -float(args.idle_days)
    state = state._replace(last_day=last_day)
    rows = []
    for i, gm in enumerate(games, 1):
        colour = gm.colour or args.colour[0]
        before = float(state.rating[0])
        if colour == "w":
            e = float(system.expected_score(state, [0], [i])[0])
            one = _one_game(0, i, gm.score)
        else:
            # expected_score gives White's E, with Black's RD in g. The player's
            # E as Black (g of the opponent's RD) is 1 - White's E when the
            # player carries the opponent's RD: E is logistic in the difference.
            swapped = state.rd.copy()
            swapped[0] = state.rd[i]
            e = 1.0 - float(
                system.expected_score(state._replace(rd=swapped), [i], [0])[0]
            )
            one = _one_game(i, 0, 1.0 - gm.score)
        state = system.rate(state, one)
        rows.append(
            {
                "opponent": gm.opponent,
                "opponent_rd": float(opp_rd[i - 1]),
                "colour": "white" if colour == "w" else "black",
                "score": gm.score,
                "expected": e,
                "change": float(state.rating[0]) - before,
                "rating_after": float(state.rating[0]),
                "rd_after": float(state.rd[0]),
                "volatility_after": float(state.volatility[0]),
            }
        )
    new_rating = float(state.rating[0])
    is_provisional = bool(provisional(state)[0])
    display = f"{math.trunc(new_rating)}{'?' if is_provisional else ''}"
    notes += _lichess_clamp_notes(system, rating, rd, vol, opp_rd)
    return {
        "system": "lichess",
        "rating": rating,
        "rd": rd,
        "volatility": vol,
        "tau": system.tau,
        "colour_advantage": system.colour_advantage,
        "regulator": system.speed if system.regulator else None,
        "idle_days": float(args.idle_days),
        "games": rows,
        "expected": [r["expected"] for r in rows],
        "points": float(score.sum()),
        "change": new_rating - rating,
        "new_rating": new_rating,
        "new_rd": float(state.rd[0]),
        "new_volatility": float(state.volatility[0]),
        "display": display,
        "provisional": is_provisional,
        "notes": notes,
    }


def _lichess_clamp_notes(
    system: Lichess, rating: float, rd: float, vol: float, opp_rd: FloatArray
) -> list[str]:
    """Notes on the inputs Lichess clamps before a game."""
    notes = []
    if rating < system.min_rating:
        notes.append(f"Lichess rates a rating {rating:g} as {system.min_rating:g}.")
    outside = [
        x for x in (rd, *opp_rd.tolist()) if not system.min_rd <= x <= system.max_rd
    ]
    if outside:
        shown = ", ".join(f"{x:g}" for x in outside)
        notes.append(
            f"Lichess clamps RD to [{system.min_rd:g}, {system.max_rd:g}]: RD {shown} "
            "counts as the nearest bound."
        )
    if vol > system.max_volatility:
        notes.append(
            f"Lichess rates a volatility {vol:g} as {system.max_volatility:g}."
        )
    return notes


def _render_glicko(result: Result, args: argparse.Namespace) -> list[str]:
    name = result["system"]
    head = f"{name}: rating {result['rating']:g}, RD {result['rd']:g}"
    if "volatility" in result:
        head += f", volatility {result['volatility']:g}, tau {result['tau']:g}"
    if name == "glicko":
        head += f", c {result['c']:g}"
    if name == "lichess":
        head += (
            ", colour advantage "
            + ("on" if result["colour_advantage"] else "off")
            + ", regulator "
            + (result["regulator"] or "off")
            + ", per game"
        )
    per_game = name == "lichess"
    headers = ["#", "opponent", "opp RD"]
    headers += ["colour"] if per_game else []
    headers += ["score", "expected", "change"]
    headers += ["rating", "RD"] if per_game else []
    rows = []
    for i, r in enumerate(result["games"], 1):
        row = [str(i), f"{r['opponent']:g}", f"{r['opponent_rd']:g}"]
        row += [r["colour"]] if per_game else []
        row += [
            _score(r["score"]),
            _fmt(r["expected"], 4),
            _fmt(r["change"], 2, sign=True),
        ]
        row += [_fmt(r["rating_after"], 2), _fmt(r["rd_after"], 2)] if per_game else []
        rows.append(row)
    total = ["total", "", ""] + ([""] if per_game else [])
    total += [
        _score(result["points"]),
        _fmt(sum(result["expected"]), 4),
        _fmt(result["change"], 2, sign=True),
    ]
    total += ["", ""] if per_game else []
    lines = [head, *_table(headers, [*rows, total])]
    lines.append(f"Change: {_fmt(result['change'], 4, sign=True)}")
    new = f"New rating: {result['new_rating']:.2f}, RD {result['new_rd']:.2f}"
    if "new_volatility" in result:
        new += f", volatility {result['new_volatility']:.6f}"
    lines.append(new)
    if per_game:
        lines.append(f"Lichess shows: {result['display']}")
    return lines + _notes(result)


# --------------------------------------------------------------------------
# calc: the subparsers
# --------------------------------------------------------------------------


def _add_game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--game",
        dest="games",
        action="append",
        type=parse_game,
        default=[],
        metavar="OPP[/RD]:SCORE",
        help="a game: the opponent's rating (and RD), the player's score 1, 0.5 "
        "(or =) or 0; repeat for more games, in the order played",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _add_list_options(p: argparse.ArgumentParser, *, fide: bool) -> None:
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--rating",
        type=_rating_whole,
        help="the player's published rating on the list in force",
    )
    who.add_argument(
        "--unrated",
        action="store_true",
        help="an unrated player: compute the initial rating from the games",
    )
    p.add_argument(
        "--k",
        type=_k_whole,
        help="K for the period (before the 700 rule)" if fide else "K for the period",
    )
    p.add_argument(
        "--games-played",
        type=_count,
        metavar="G",
        help="games already in the player's rating, to derive K",
    )
    p.add_argument(
        "--ever-2400",
        action="store_true",
        help="a published rating reached 2400 before (K 10 for good)",
    )
    if fide:
        p.add_argument(
            "--birth-year",
            type=_year,
            help="for the junior K 40 (age <= 18 in the list's year)",
        )
        p.add_argument(
            "--ever-2300",
            action="store_true",
            help="a published rating reached 2300 before (ends the junior K 40)",
        )
        p.add_argument(
            "--junior-2300",
            choices=("ever", "current"),
            default="ever",
            help="the junior K 40 ends once a rating reached 2300 (ever, default) "
            "or while the current rating is 2300+ (current)",
        )
        p.add_argument(
            "--date",
            type=_date,
            help="a day in the rating period (YYYY-MM-DD; default today): the "
            "list in force on it gives K and the junior year",
        )
        p.add_argument(
            "--rules",
            choices=("2025", "2024"),
            help="2025: the 400 cap below 2650 only (fide's default); 2024: the cap "
            "for everyone (fide-2024's)",
        )
    else:
        p.add_argument(
            "--initial",
            choices=("international", "national"),
            default="international",
            help="initial-rating rule for --unrated: FIDE's old one (9 games) or "
            "the German national formula (7 games)",
        )
    p.add_argument(
        "--expectation",
        choices=("table", "formula"),
        default="table",
        help="PD from FIDE's table 8.1.2 (default) or the logistic formula",
    )
    if fide:
        p.add_argument(
            "--round-expectation",
            type=_count,
            metavar="DECIMALS",
            help="with --expectation formula, round E (2: the Croatian page)",
        )
    p.add_argument(
        "--cap",
        type=_cap,
        help="the rating-difference cap (fide 400, classic 350; 'none' for no cap)",
    )


def _add_glicko_player(
    p: argparse.ArgumentParser, defaults: Glicko2 | Lichess | Glicko
) -> None:
    """The player's values; defaults are the system's new player."""
    p.add_argument(
        "--rating",
        type=_finite,
        help=f"the player's rating (default {defaults.initial_rating:g})",
    )
    p.add_argument(
        "--rd",
        type=_positive,
        help=f"the player's rating deviation (default {defaults.initial_rd:g})",
    )
    if not isinstance(defaults, Glicko):
        p.add_argument(
            "--volatility",
            type=_positive,
            help=f"the player's volatility (default {defaults.initial_volatility:g})",
        )
        p.add_argument(
            "--tau",
            type=_positive,
            help=f"the system constant tau (default {defaults.tau:g})",
        )


def _add_fide(p: argparse.ArgumentParser) -> None:
    _add_list_options(p, fide=True)


def _add_classic(p: argparse.ArgumentParser) -> None:
    _add_list_options(p, fide=False)


def _add_elo(p: argparse.ArgumentParser) -> None:
    defaults = Elo()
    p.add_argument(
        "--rating",
        type=_finite,
        help=f"the player's rating (default {defaults.initial_rating:g})",
    )
    p.add_argument(
        "--k", type=_positive, help=f"K per game (default {defaults.k_factor:g})"
    )


def _add_glicko2(p: argparse.ArgumentParser) -> None:
    _add_glicko_player(p, Glicko2())


def _add_glicko(p: argparse.ArgumentParser) -> None:
    _add_glicko_player(p, Glicko())
    p.add_argument(
        "--c",
        type=_non_negative,
        default=0.0,
        help="RD growth per period: every RD given (the opponents' too) first "
        "ages one period (step 1, capped at 350). Default 0: the RDs given are "
        "those at the period's onset, as in Glickman's example. The simulator's "
        f"default is {Glicko().c:.2f}",
    )


def _add_lichess(p: argparse.ArgumentParser) -> None:
    _add_glicko_player(p, Lichess())
    p.add_argument(
        "--no-colour-advantage",
        action="store_true",
        help="no White advantage in E (as in Lichess's own calculator tests)",
    )
    p.add_argument(
        "--no-regulator", action="store_true", help="no rating regulator on gains"
    )
    p.add_argument(
        "--speed",
        choices=tuple(REGULATOR_FACTORS),
        default=Lichess().speed,
        help="the speed whose regulator factor applies (default %(default)s)",
    )
    p.add_argument(
        "--colour",
        choices=("white", "black"),
        default="white",
        help="the player's colour in games without a :w or :b suffix (default white)",
    )
    p.add_argument(
        "--idle-days",
        type=_non_negative,
        default=0.0,
        help="days since the player's last game, for the RD growth before the "
        "first game (default 0: the RD given is the RD now)",
    )


_FIDE_HOW = (
    "One rating period: K x sum(score - PD), PD from table 8.1.2 (or the formula) "
    "against each opponent's list rating, the difference capped at 400 unless the "
    "player is rated 2650+ (2025 rules); K is cut by the 700 rule; the change is "
    "rounded half away from zero. With --unrated: the initial rating of FIDE 8.2 "
    "(5 games against rated opponents, published from 1400)."
)

_HOW: dict[str, str] = {
    "fide": _FIDE_HOW,
    "fide-2024": _FIDE_HOW,
    "classic": (
        "One rating period: K x sum(score - PD), PD from table 8.1.2, the "
        "difference capped at 350; K 25 (under 30 games), 10 (ever 2400), else "
        "15; no 700 rule; the change is rounded half away from zero. With "
        "--unrated: the old international initial rating (9 games, events with 3 "
        "rated opponents and more than half a point) or --initial national (7 "
        "games, the German formula)."
    ),
    "elo": (
        "Per game: K x (score - E), E = 1 / (1 + 10^(-D/400)), no cap, no "
        "rounding; the rating carries from game to game."
    ),
    "glicko2": (
        "One rating period (Glickman's steps 1-8) against the opponents' values "
        f"as given; an opponent without /RD has RD {Glicko2().initial_rd:g}. Each "
        "game's change is its share of the period's change."
    ),
    "glicko": (
        "One rating period (Glicko-1) against the opponents' values as given; an "
        f"opponent without /RD has RD {Glicko().initial_rd:g}. Each game's change "
        "is its share of the period's change."
    ),
    "lichess": (
        "Every game its own rating period, in the order given: the player's "
        "rating, RD and volatility carry from game to game, the opponents' come "
        f"from the command line (an opponent without /RD has RD "
        f"{Lichess().initial_rd:g}). A game may "
        "end in :w or :b, the player's colour (the colour advantage)."
    ),
}


@dataclass(frozen=True)
class _Calculator:
    add_options: Callable[[argparse.ArgumentParser], None]
    compute: Callable[[argparse.Namespace, list[GameInput]], Result]
    render: Callable[[Result, argparse.Namespace], list[str]]


#: The calculator of each registered system.
_CALCULATORS: dict[str, _Calculator] = {
    "fide": _Calculator(_add_fide, _calc_list, _render_list),
    "fide-2024": _Calculator(_add_fide, _calc_list, _render_list),
    "classic": _Calculator(_add_classic, _calc_list, _render_list),
    "elo": _Calculator(_add_elo, _calc_elo, _render_elo),
    "glicko2": _Calculator(_add_glicko2, _calc_glicko2, _render_glicko),
    "glicko": _Calculator(_add_glicko, _calc_glicko, _render_glicko),
    "lichess": _Calculator(_add_lichess, _calc_lichess, _render_glicko),
}


def _description(name: str) -> str:
    """The first line of a registered system's docstring."""
    doc = inspect.getdoc(SYSTEMS[name]) or ""
    return doc.splitlines()[0].replace("``", "") if doc else ""


def _cmd_calc(args: argparse.Namespace) -> int:
    """``ratingsim calc SYSTEM ...``: print one player's rating change."""
    games: list[GameInput] = args.games
    calculator = _CALCULATORS[args.system]
    try:
        if not games:
            raise CliError("no games: give at least one --game")
        result = calculator.compute(args, games)
    except (CliError, ValueError) as exc:
        raise CliError(f"ratingsim calc {args.system}: error: {exc}") from None
    if args.json:
        result["notes"] = result.pop("notes")  # last, after the figures
        print(json.dumps(result, indent=2, allow_nan=False, ensure_ascii=False))
    else:
        print("\n".join(calculator.render(result, args)))
    return 0


def _cmd_systems(args: argparse.Namespace) -> int:
    """``ratingsim systems``: list the registered systems."""
    names = list(SYSTEMS)
    if args.json:
        print(json.dumps({n: _description(n) for n in names}, indent=2))
        return 0
    width = max(len(n) for n in names)
    for n in names:
        calc = "" if n in _CALCULATORS else " (no calculator)"
        print(f"{n.ljust(width)}  {_description(n)}{calc}")
    return 0


_CALC_DESCRIPTION = """\
One player's rating change over a game or a rating period, computed by the
rating system itself. A game is OPPONENT[/OPPONENT_RD]:SCORE, SCORE 1, 0.5 (or
=, ½) or 0; lichess also takes :w or :b, the player's colour. Each game is
against a different opponent; for FIDE and old-style FIDE all games form one
event of one rating period. See 'ratingsim calc SYSTEM --help' for each
system's options.
"""

_CALC_EPILOG = """\
examples:
  ratingsim calc fide --rating 1500 --k 20 --game 1400:1 --game 1600:0.5 --game 1550:0
  ratingsim calc fide --unrated --game 1902:0.5 --game 1877:0.5 --game 1884:1 \\
      --game 2012:0 --game 1832:1
  ratingsim calc classic --rating 2400 --k 10 --game 2300:1
  ratingsim calc glicko2 --rating 1500 --rd 200 --volatility 0.06 --tau 0.5 \\
      --game 1400/30:1 --game 1550/100:0 --game 1700/300:0
  ratingsim calc lichess --rating 1500 --rd 500 --volatility 0.09 --game 1500/500:1
"""


def build_parser() -> argparse.ArgumentParser:
    """The ``ratingsim`` parser: one subparser per subcommand.

    Each subcommand's parser sets ``func``, the function that runs it.
    """
    return _build()[0]


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the seed {text!r} must be a whole number"
        ) from None
    if not 0 <= value < 2**128:
        raise argparse.ArgumentTypeError(f"the seed {text!r} must lie in [0, 2**128)")
    return value


def _count_positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value


def _versions() -> dict[str, str]:
    """Versions of Python and of the packages that shape the numbers."""
    import platform
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version(), "ratingsim": __version__}
    for name in ("numpy", "numba", "scipy", "pandas", "matplotlib"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:  # pragma: no cover - all are dependencies
            out[name] = "absent"
    return out


def _cmd_run(args: argparse.Namespace) -> int:
    """``ratingsim run``: run an experiment or a sweep and write its results folder."""
    from pathlib import Path

    from simulator.config import default_config, dump_config, load_config
    from simulator.evaluation.formatting import format_summary_table, format_sweep_table
    from simulator.evaluation.report import (
        sweep_table,
        write_report,
        write_sweep_report,
    )
    from simulator.tasks.run import run_sweep

    config = default_config() if args.config is None else load_config(args.config)
    seed = args.seed if args.seed is not None else config.seed
    if seed is None:
        import secrets

        seed = secrets.randbits(64)
    replicates = args.replicates if args.replicates is not None else config.replicates
    config = dataclasses.replace(config, seed=seed, replicates=replicates)
    out = Path(args.out) if args.out else Path("results") / f"run-{seed}"
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CliError(
            f"ratingsim run: error: the results folder '{out}' exists and is not "
            "empty; choose another with --out"
        )
    is_sweep = bool(config.variant or config.grid)
    where = f"on the Dask cluster at {args.dask}" if args.dask else "locally"
    print(
        f"ratingsim run: {config.title}; seed {seed}, {replicates} replicates, {where}",
        file=sys.stderr,
    )
    sweep = run_sweep(config, jobs=args.jobs, dask=args.dask, progress=not args.quiet)
    source = args.config if args.config is not None else "the default comparison"
    common: dict[str, Any] = {
        "config_text": dump_config(config),
        "seed": seed,
        "versions": _versions(),
        "title": config.title,
        "figures": not args.no_figures,
        "reproduce": (
            f"ratingsim run {'' if args.config is None else args.config + ' '}"
            f"--seed {seed} --replicates {replicates}"
        ),
    }
    if is_sweep:
        names = [p.name for p in sweep.points]
        summaries = [None if r is None else r.summary for r in sweep.results]
        print(format_sweep_table(sweep_table(names, summaries)))
        path = write_sweep_report(
            out,
            names,
            summaries,
            [vars(f) for f in sweep.failures],
            point_configs=[dump_config(p.config) for p in sweep.points],
            **common,
        )
    else:
        result = sweep.results[0]
        if result is None:
            failure = sweep.failures[0]
            print(failure.trace, file=sys.stderr)
            print(
                f"ratingsim run: every replicate failed; first: replicate "
                f"{failure.replicate} ({failure.seed}): {failure.error}",
                file=sys.stderr,
            )
            return 1
        print(format_summary_table(result.summary))
        path = write_report(out, result.summary, **common)
    for failure in sweep.failures:
        print(
            f"ratingsim run: FAILED point '{failure.point}', replicate "
            f"{failure.replicate}, seed {failure.seed}: {failure.error}",
            file=sys.stderr,
        )
    print(f"Results of {source} written to {path}/", file=sys.stderr)
    return 1 if sweep.failures else 0


# --------------------------------------------------------------------------
# rate and replay: real games (the logic is in simulator.tasks.rate and .replay)
# --------------------------------------------------------------------------


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


def _cmd_rate(args: argparse.Namespace) -> int:
    """``ratingsim rate TOURNAMENT.trf``: rate a FIDE tournament report."""
    from simulator.data.records import FormatError
    from simulator.data.trf import read_trf
    from simulator.tasks import rate

    where = "ratingsim rate: error:"
    try:
        tournament = read_trf(args.file, skip_bad=args.skip_bad)
        systems = [args.system] if args.compare is None else args.compare
        for name in systems:
            if name not in rate.RATE_SYSTEMS:
                raise CliError(
                    f"{where} {name} does not rate tournaments (a list-based system "
                    f"is needed: {', '.join(rate.RATE_SYSTEMS)})"
                )
        results = [
            rate.rate_tournament(
                tournament,
                name,
                games_played_default=args.games_played_default,
                games_played=dict(args.games_played),
            )
            for name in systems
        ]
    except FormatError as exc:
        raise CliError(f"{where} {exc}") from None
    except OSError as exc:
        raise CliError(f"{where} cannot read {args.file}: {exc.strerror}") from None
    except ValueError as exc:
        raise CliError(f"{where} {exc}") from None
    if tournament.skipped:
        print(
            f"ratingsim rate: skipped {len(tournament.skipped)} bad record(s) "
            "(listed in the output)",
            file=sys.stderr,
        )
    if args.compare is None:
        render = {"table": rate.to_table, "csv": rate.to_csv, "json": rate.to_json}
        kwargs = {} if args.format == "json" else {"detail": args.detail}
        text = render[args.format](results[0], **kwargs)
    else:
        if args.detail:
            raise CliError(f"{where} --detail shows one system: drop --compare")
        compare = {
            "table": rate.compare_table,
            "csv": rate.compare_csv,
            "json": rate.compare_json,
        }
        text = compare[args.format](results)
    print(text.rstrip("\n"))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    """``ratingsim replay GAMES``: walk-forward replay through the systems."""
    from tqdm import tqdm

    from simulator.data.records import (
        BadRecords,
        FormatError,
        Players,
        read_games,
        sort_batches,
    )
    from simulator.tasks import replay

    where = "ratingsim replay: error:"
    players = Players()
    bad = BadRecords()
    batches = read_games(
        args.file,
        players=players,
        skip_bad=args.skip_bad,
        bad=bad,
        ordered=not args.sort,
    )
    if args.sort:
        batches = sort_batches(batches, players)
    bar = tqdm(
        unit=" games",
        desc="games read",
        disable=True if args.quiet else None,
        file=sys.stderr,
        unit_scale=True,
    )
    try:
        result = replay.replay(
            batches,
            args.systems,
            players=players,
            seed=args.seed_ratings,
            start_rating=args.start_rating,
            games_played_default=args.games_played_default,
            calibration_bins=args.bins,
            progress=bar.update,
        )
    except FormatError as exc:
        raise CliError(f"{where} {exc}") from None
    except OSError as exc:
        raise CliError(f"{where} cannot read {args.file}: {exc.strerror}") from None
    finally:
        bar.close()
    for line in bad.report():
        print(f"ratingsim replay: {line.strip()}", file=sys.stderr)
    if args.ratings_out is not None:
        try:
            result.ratings.to_csv(args.ratings_out, index=False)
        except OSError as exc:
            raise CliError(
                f"{where} cannot write {args.ratings_out}: {exc.strerror}"
            ) from None
    if args.format == "json":
        body = replay.to_json_dict(result)
        body["skipped"] = {
            "count": bad.count,
            "examples": [str(b) for b in bad.examples],
        }
        print(json.dumps(body, indent=2, allow_nan=False, ensure_ascii=False))
    else:
        print(replay.to_table(result, top=args.top))
        for line in bad.report():
            print(line)
    return 0


#: ``simulator.tasks.rate.RATE_SYSTEMS`` and ``GAMES_PLAYED_DEFAULT``, as literals so
#: that building the parser loads no reader (tests/tasks/test_rate.py compares them).
_RATE_SYSTEMS = ("fide", "fide-2024", "classic")
_GAMES_PLAYED_DEFAULT = 30

_RATE_EPILOG = """\
examples:
  ratingsim rate tournament.trf
  ratingsim rate tournament.trf --system classic --detail
  ratingsim rate tournament.trf --compare --format csv
  ratingsim rate tournament.trf --games-played-default 10 --games-played 14=50
"""

_REPLAY_EPILOG = """\
examples:
  ratingsim replay games.csv
  ratingsim replay lichess_db.pgn.gz --systems lichess,glicko2,elo --seed-ratings file
  ratingsim replay games.csv --format json --ratings-out ratings.csv
"""


def _add_rate_replay(commands: Any) -> None:
    """The ``rate`` and ``replay`` subparsers."""
    rate = commands.add_parser(
        "rate",
        help="rate a FIDE tournament report (TRF-16)",
        description=(
            "Rate a tournament from a FIDE Tournament Report File (TRF-16) as one "
            "event of one rating period: for every player the games rated, the "
            "expected scores, the K used, the change and the new rating (unrated "
            "players: the performance toward an initial rating). What a TRF does "
            "not say is assumed and listed in the output."
        ),
        epilog=_RATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rate.add_argument("file", metavar="TOURNAMENT.trf", help="a TRF-16 file")
    rate.add_argument(
        "--system",
        choices=_RATE_SYSTEMS,
        default="fide",
        help="the rules (default fide: 2024 rules with the 2025 amendment)",
    )
    rate.add_argument(
        "--compare",
        type=_system_list,
        nargs="?",
        const=list(_RATE_SYSTEMS),
        metavar="SYSTEMS",
        help=f"several systems side by side (default {','.join(_RATE_SYSTEMS)})",
    )
    rate.add_argument("--format", choices=("table", "csv", "json"), default="table")
    rate.add_argument(
        "--detail", action="store_true", help="every round of every player"
    )
    rate.add_argument(
        "--games-played-default",
        type=_count,
        default=_GAMES_PLAYED_DEFAULT,
        metavar="G",
        help=(
            "games each rated player had before the event (not in a TRF; "
            f"default {_GAMES_PLAYED_DEFAULT})"
        ),
    )
    rate.add_argument(
        "--games-played",
        type=_games_played,
        action="append",
        default=[],
        metavar="START=G",
        help="games one player had before the event (repeatable)",
    )
    rate.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed lines and games (counted and listed) instead of failing",
    )
    rate.set_defaults(func=_cmd_rate)

    replay = commands.add_parser(
        "replay",
        help="replay game records (CSV, PGN) through rating systems",
        description=(
            "Replay the games of a CSV or PGN file (optionally .gz) in date order "
            "through rating systems and report walk-forward prediction metrics "
            "(log loss, Brier score, calibration; each system's pre-game "
            "prediction only) and the ratings at the end. Ratings the file carries "
            "(WhiteElo, white_rating) are scored beside them. The file is streamed."
        ),
        epilog=_REPLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("file", metavar="GAMES", help="a .csv or .pgn file (or .gz)")
    replay.add_argument(
        "--systems",
        type=_system_list,
        default=["fide", "glicko2", "lichess", "elo"],
        help="comma-separated registry names (default fide,glicko2,lichess,elo)",
    )
    replay.add_argument("--format", choices=("table", "json"), default="table")
    replay.add_argument(
        "--ratings-out", metavar="FILE.csv", help="write every player's final ratings"
    )
    replay.add_argument(
        "--top", type=_count, default=20, help="players shown at the end (default 20)"
    )
    replay.add_argument(
        "--seed-ratings",
        choices=("none", "file"),
        default="none",
        help="new players start from the systems' defaults, or the file's rating",
    )
    replay.add_argument(
        "--start-rating",
        type=_start_rating,
        default=1500.0,
        metavar="R",
        help="list rating of a new player under fide/classic (default 1500; none)",
    )
    replay.add_argument(
        "--games-played-default",
        type=_count,
        default=_GAMES_PLAYED_DEFAULT,
        metavar="G",
        help=(
            "games before of a player listed with the file's rating (default "
            f"{_GAMES_PLAYED_DEFAULT})"
        ),
    )
    replay.add_argument(
        "--bins", type=_count_positive, default=10, help="calibration bins"
    )
    replay.add_argument(
        "--sort",
        action="store_true",
        help="sort a file that is not in date order (in memory)",
    )
    replay.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed records (counted and reported) instead of failing",
    )
    replay.add_argument("--quiet", action="store_true", help="no progress bar")
    replay.set_defaults(func=_cmd_replay)


def _build() -> tuple[_Parser, dict[str, list[str]]]:
    """The parser, and each ``calc`` option with the systems that have it."""
    parser = _Parser(
        prog="ratingsim",
        description="A research simulator for chess rating systems.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )

    calc = commands.add_parser(
        "calc",
        help="one player's rating change over a game or a rating period",
        description=_CALC_DESCRIPTION,
        epilog=_CALC_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    calc.set_defaults(func=_cmd_calc)
    systems = calc.add_subparsers(
        dest="system", metavar="SYSTEM", required=True, parser_class=_Parser
    )
    calc_options: dict[str, list[str]] = {}
    for name in SYSTEMS:
        if name not in _CALCULATORS:
            continue
        sub = systems.add_parser(
            name,
            help=_description(name),
            description=_description(name),
            epilog=_HOW[name],
        )
        _CALCULATORS[name].add_options(sub)
        _add_game_options(sub)
        # argparse keeps no public list of a parser's options.
        for action in sub._actions:
            for option in action.option_strings:
                calc_options.setdefault(option, []).append(name)

    run = commands.add_parser(
        "run",
        help="run an experiment (the default comparison without a config)",
        description=(
            "Run an experiment from a TOML config (the built-in default comparison "
            "without one), print the summary table and write a results folder."
        ),
    )
    run.add_argument("config", nargs="?", help="a TOML config file")
    run.add_argument("--out", help="results folder (default results/run-SEED)")
    run.add_argument(
        "--seed", type=_seed, help="root seed (default: the config's, else random)"
    )
    run.add_argument("--replicates", type=_count_positive, help="number of replicates")
    run.add_argument(
        "--jobs", type=_count_positive, help="processes (default: all cores)"
    )
    run.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the tasks on the Dask scheduler at ADDRESS (tcp://host:port)",
    )
    run.set_defaults(func=_cmd_run)

    _add_rate_replay(commands)

    listing = commands.add_parser("systems", help="list the registered rating systems")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(func=_cmd_systems)
    return parser, calc_options


def _unrecognized(
    args: argparse.Namespace, extras: list[str], calc_options: dict[str, list[str]]
) -> CliError:
    """A one-line error for options the chosen subcommand does not have."""
    shown = " ".join(extras)
    system = getattr(args, "system", None)
    if system is None:
        return CliError(f"ratingsim: error: unrecognized arguments: {shown}")
    for extra in extras:
        option = extra.split("=", 1)[0]
        if option in calc_options:
            return CliError(
                f"ratingsim calc {system}: error: {shown}: {option} does not apply "
                f"to {system} (it applies to {', '.join(calc_options[option])})"
            )
    return CliError(f"ratingsim calc {system}: error: unrecognized arguments: {shown}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ratingsim`` with ``argv`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0, or 2 for bad input (one line on stderr, no traceback).
    """
    parser, calc_options = _build()
    try:
        try:
            args, extras = parser.parse_known_args(argv)
        except SystemExit as stop:  # --help and --version
            return stop.code if isinstance(stop.code, int) else 0
        if extras:
            raise _unrecognized(args, extras, calc_options)
        func: Callable[[argparse.Namespace], int] = args.func
        try:
            return func(args)
        except ValueError as exc:
            # In the calculator every ValueError comes from the user's numbers;
            # in a run only a ConfigError does: anything else is a bug, and
            # keeps its traceback.
            if args.command == "run" and not isinstance(exc, ConfigError):
                raise
            raise CliError(str(exc)) from None
        except KeyboardInterrupt:
            print("ratingsim: interrupted; nothing was written", file=sys.stderr)
            return 130
    except CliError as exc:
        message = " ".join(str(exc).split())
        if not message.startswith("ratingsim"):
            message = f"ratingsim: error: {message}"
        print(message, file=sys.stderr)
        return EXIT_USAGE
