"""``ratingsim calc`` and ``ratingsim systems``: the calculator's options and tables.

``ratingsim calc SYSTEM --game OPPONENT[/OPPONENT_RD]:SCORE ...`` prints one
player's rating change over a game or a rating period, with the expected
score of each game; the rules and the figures are
:func:`simulator.tasks.calc.calculate`'s. This module builds each system's
subparser (its options are the fields of the system's inputs in
:mod:`simulator.tasks.calc_types`), turns the parsed options into those
inputs and renders the result as a table or JSON. ``ratingsim systems`` lists
the registered rating systems.
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from simulator.cli._values import (
    CliError,
    _cap,
    _count,
    _date,
    _finite,
    _k_whole,
    _non_negative,
    _Parser,
    _positive,
    _rating_whole,
    _year,
    parse_game,
)
from simulator.systems import SYSTEMS
from simulator.systems.elo import Elo
from simulator.systems.glicko import Glicko
from simulator.systems.glicko2 import Glicko2
from simulator.systems.lichess import REGULATOR_FACTORS, Lichess
from simulator.tasks.calc import CALCULATORS, CalcResult, GameInput, calculate
from simulator.tasks.calc_list import score_text

__all__ = ["add_calc", "cmd_systems"]

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


def _notes(result: CalcResult) -> list[str]:
    return [str(note) for note in result.notes]


def _total(result: CalcResult) -> float:
    """The expected scores added up."""
    return float(sum(e for e in result.expected if e is not None))


def _render_list(result: CalcResult, args: argparse.Namespace) -> list[str]:
    places = 2 if args.expectation == "table" else 4
    rows = result.games
    if result.rating is None:
        head = f"{result.system}: unrated player, list of {result.list_date}"
        lines = [head]
        lines += _table(
            ["#", "opponent", "score"],
            [
                [str(i), f"{r.opponent:g}", score_text(r.score)]
                for i, r in enumerate(rows, 1)
            ]
            + [["total", "", score_text(result.points)]],
        )
        if result.initial_rating is None:
            lines.append(f"Initial rating: none: {result.initial_rating_reason}.")
        else:
            lines.append(
                f"Initial rating: {result.initial_rating:g} ({len(rows)} games "
                f"against rated opponents, {score_text(result.points)} points)"
            )
        return lines + _notes(result)
    k_text = f"K {result.k} ({result.k_source})"
    if result.k != result.k_list:
        k_text = (
            f"K {result.k} (K {result.k_list} {result.k_source}, cut by the "
            f"700 rule for {len(rows)} games)"
        )
    head = f"{result.system}: rating {result.rating}, {k_text}"
    expected_sum = _total(result)
    lines = [head]
    lines += _table(
        ["#", "opponent", "score", "expected", "change"],
        [
            [
                str(i),
                f"{r.opponent:g}",
                score_text(r.score),
                _fmt(r.expected, places),
                _fmt(r.change, 2, sign=True, trim=True),
            ]
            for i, r in enumerate(rows, 1)
        ]
        + [
            [
                "total",
                "",
                score_text(result.points),
                _fmt(expected_sum, places),
                _fmt(result.change, 2, sign=True, trim=True),
            ]
        ],
    )
    lines.append(
        f"Change: {_fmt(result.change, 4, sign=True, trim=True)}, rounded "
        f"{result.rounded_change:+d}"
    )
    lines.append(f"New rating: {result.new_rating}")
    return lines + _notes(result)


def _render_elo(result: CalcResult, args: argparse.Namespace) -> list[str]:
    rows = result.games
    lines = [f"elo: rating {result.rating:g}, K {result.k:g}, per game"]
    lines += _table(
        ["#", "opponent", "score", "expected", "change", "rating"],
        [
            [
                str(i),
                f"{r.opponent:g}",
                score_text(r.score),
                _fmt(r.expected, 4),
                _fmt(r.change, 2, sign=True),
                _fmt(r.rating_after, 2),
            ]
            for i, r in enumerate(rows, 1)
        ]
        + [
            [
                "total",
                "",
                score_text(result.points),
                _fmt(_total(result), 4),
                _fmt(result.change, 2, sign=True),
                "",
            ]
        ],
    )
    lines.append(f"Change: {_fmt(result.change, 4, sign=True)}")
    lines.append(f"New rating: {_fmt(result.new_rating, 2)}")
    return lines


def _render_glicko(result: CalcResult, args: argparse.Namespace) -> list[str]:
    name = result.system
    head = f"{name}: rating {result.rating:g}, RD {result.rd:g}"
    if result.volatility is not None:
        head += f", volatility {result.volatility:g}, tau {result.tau:g}"
    if name == "glicko":
        head += f", c {result.c:g}"
    if name == "lichess":
        head += (
            ", colour advantage "
            + ("on" if result.colour_advantage else "off")
            + ", regulator "
            + (result.regulator or "off")
            + ", per game"
        )
    per_game = name == "lichess"
    headers = ["#", "opponent", "opp RD"]
    headers += ["colour"] if per_game else []
    headers += ["score", "expected", "change"]
    headers += ["rating", "RD"] if per_game else []
    rows = []
    for i, r in enumerate(result.games, 1):
        row = [str(i), f"{r.opponent:g}", f"{r.opponent_rd:g}"]
        row += [str(r.colour)] if per_game else []
        row += [
            score_text(r.score),
            _fmt(r.expected, 4),
            _fmt(r.change, 2, sign=True),
        ]
        row += [_fmt(r.rating_after, 2), _fmt(r.rd_after, 2)] if per_game else []
        rows.append(row)
    total = ["total", "", ""] + ([""] if per_game else [])
    total += [
        score_text(result.points),
        _fmt(_total(result), 4),
        _fmt(result.change, 2, sign=True),
    ]
    total += ["", ""] if per_game else []
    lines = [head, *_table(headers, [*rows, total])]
    lines.append(f"Change: {_fmt(result.change, 4, sign=True)}")
    new = f"New rating: {result.new_rating:.2f}, RD {result.new_rd:.2f}"
    if result.new_volatility is not None:
        new += f", volatility {result.new_volatility:.6f}"
    lines.append(new)
    if per_game:
        lines.append(f"Lichess shows: {result.display}")
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
        dest="colour_advantage",
        action="store_false",
        help="no White advantage in E (as in Lichess's own calculator tests)",
    )
    p.add_argument(
        "--no-regulator",
        dest="regulator",
        action="store_false",
        help="no rating regulator on gains",
    )
    p.add_argument(
        "--speed",
        choices=tuple(REGULATOR_FACTORS),
        default=Lichess().speed,
        metavar="SPEED",
        help="the speed whose regulator factor applies: %(choices)s "
        "(default %(default)s)",
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
    render: Callable[[CalcResult, argparse.Namespace], list[str]]


#: The options and the table of each system with a calculator.
_CALCULATORS: dict[str, _Calculator] = {
    "fide": _Calculator(_add_fide, _render_list),
    "fide-2024": _Calculator(_add_fide, _render_list),
    "classic": _Calculator(_add_classic, _render_list),
    "elo": _Calculator(_add_elo, _render_elo),
    "glicko2": _Calculator(_add_glicko2, _render_glicko),
    "glicko": _Calculator(_add_glicko, _render_glicko),
    "lichess": _Calculator(_add_lichess, _render_glicko),
}


def _inputs(args: argparse.Namespace) -> Any:
    """The system's inputs: each field from the option of the same name."""
    kind = CALCULATORS[args.system].inputs
    given = {f.name: getattr(args, f.name) for f in fields(kind) if f.name in args}
    return kind(**given)


def _description(name: str) -> str:
    """The first line of a registered system's docstring."""
    doc = inspect.getdoc(SYSTEMS[name]) or ""
    return doc.splitlines()[0].replace("``", "") if doc else ""


def _cmd_calc(args: argparse.Namespace) -> int:
    """``ratingsim calc SYSTEM ...``: print one player's rating change."""
    games: list[GameInput] = args.games
    try:
        result = calculate(args.system, _inputs(args), games)
    except ValueError as exc:
        raise CliError(f"ratingsim calc {args.system}: error: {exc}") from None
    if args.json:
        body = result.to_dict()  # the notes last, after the figures
        print(json.dumps(body, indent=2, allow_nan=False, ensure_ascii=False))
    else:
        print("\n".join(_CALCULATORS[args.system].render(result, args)))
    return 0


def cmd_systems(args: argparse.Namespace) -> int:
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
  ratingsim calc fide --rating 1500 --k 20 --game 1400:1 --game 1600:0.5 \\
      --game 1550:0
  ratingsim calc fide --unrated --game 1902:0.5 --game 1877:0.5 --game 1884:1 \\
      --game 2012:0 --game 1832:1
  ratingsim calc classic --rating 2400 --k 10 --game 2300:1
  ratingsim calc glicko2 --rating 1500 --rd 200 --volatility 0.06 --tau 0.5 \\
      --game 1400/30:1 --game 1550/100:0 --game 1700/300:0
  ratingsim calc lichess --rating 1500 --rd 500 --volatility 0.09 \\
      --game 1500/500:1
"""


def add_calc(commands: Any) -> dict[str, list[str]]:
    """The ``calc`` subparser; each calc option with the systems that have it."""
    calc = commands.add_parser(
        "calc",
        help="one player's rating change over a game or a rating period",
        description=_CALC_DESCRIPTION,
        epilog=_CALC_EPILOG,
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
    return calc_options
