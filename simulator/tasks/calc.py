"""The rating calculator: one player's rating change over a game or a rating period.

The calculator of the seed pages (docs/rules.md) and of ``ratingsim calc``: the
player's values and the games in, the expected score and change of each game
and the new rating out. It computes through the systems themselves, never a
copy of their rules: it builds a small state of the player plus one opponent
per game, rates it with the system's ``rate``, and reads the per-game figures
from the same pure functions the system uses
(:func:`~simulator.systems.lists.state.rules_expected`,
:func:`~simulator.systems.lists.state.apply_700_rule`, the systems'
``expected_score``, :func:`~simulator.systems.fide.initial_rating`, ...).

The rules live in :mod:`~simulator.tasks.calc_list` (fide, fide-2024, classic)
and :mod:`~simulator.tasks.calc_glicko` (elo, glicko2, glicko, lichess); the
inputs and the result in :mod:`~simulator.tasks.calc_types`.

Examples
--------
>>> r = calculate("classic", ListInputs(rating=2400, k=10), [parse_game("2300:1")])
>>> r.expected, round(r.change, 6), r.new_rating
((0.64,), 3.6, 2404)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from simulator.tasks.calc_glicko import (
    calc_elo,
    calc_glicko,
    calc_glicko2,
    calc_lichess,
)
from simulator.tasks.calc_list import calc_list
from simulator.tasks.calc_types import (
    CalcError,
    CalcResult,
    EloInputs,
    GameInput,
    GameRow,
    Glicko2Inputs,
    GlickoInputs,
    LichessInputs,
    ListInputs,
    parse_game,
)

__all__ = [
    "CALCULATORS",
    "CalcError",
    "CalcResult",
    "Calculator",
    "EloInputs",
    "GameInput",
    "GameRow",
    "Glicko2Inputs",
    "GlickoInputs",
    "LichessInputs",
    "ListInputs",
    "calculate",
    "parse_game",
]

Inputs = ListInputs | EloInputs | Glicko2Inputs | GlickoInputs | LichessInputs


@dataclass(frozen=True)
class Calculator:
    """A system's calculator: the type of its inputs and the function that rates."""

    inputs: type[Any]
    compute: Callable[[str, Any, list[GameInput]], CalcResult]


#: The calculator of each registered system that has one.
CALCULATORS: dict[str, Calculator] = {
    "fide": Calculator(ListInputs, calc_list),
    "fide-2024": Calculator(ListInputs, calc_list),
    "classic": Calculator(ListInputs, calc_list),
    "elo": Calculator(EloInputs, calc_elo),
    "glicko2": Calculator(Glicko2Inputs, calc_glicko2),
    "glicko": Calculator(GlickoInputs, calc_glicko),
    "lichess": Calculator(LichessInputs, calc_lichess),
}


def calculate(
    system: str, inputs: Inputs | None, games: Sequence[GameInput]
) -> CalcResult:
    """One player's rating change under ``system`` over ``games``.

    Parameters
    ----------
    system : str
        A key of :data:`CALCULATORS`.
    inputs : ListInputs, EloInputs, Glicko2Inputs, GlickoInputs or LichessInputs
        The player's values, of the system's type (None: the defaults).
    games : sequence of GameInput
        The games, in the order played (:func:`parse_game` reads the text form).

    Raises
    ------
    CalcError
        Bad input (a :class:`ValueError`); the message names the bad value.
    """
    if system not in CALCULATORS:
        raise CalcError(
            f"no calculator for {system!r}; there is one for {', '.join(CALCULATORS)}"
        )
    calculator = CALCULATORS[system]
    if inputs is None:
        inputs = calculator.inputs()
    if not isinstance(inputs, calculator.inputs):
        raise TypeError(
            f"{system} takes {calculator.inputs.__name__}, not {type(inputs).__name__}"
        )
    if not games:
        raise CalcError("no games: give at least one --game")
    return calculator.compute(system, inputs, list(games))
