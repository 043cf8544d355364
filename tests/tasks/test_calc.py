"""Tests of simulator.tasks.calc: one entry point for every system's calculator."""

from __future__ import annotations

import pytest

from simulator.systems import SYSTEMS
from simulator.tasks.calc import (
    CALCULATORS,
    CalcError,
    EloInputs,
    ListInputs,
    calculate,
    parse_game,
)


def test_every_calculator_is_a_registered_system() -> None:
    """Each calculator rates a system of the registry."""
    assert set(CALCULATORS) <= set(SYSTEMS)


@pytest.mark.parametrize("system", list(CALCULATORS))
def test_every_calculator_rates_with_its_defaults(system: str) -> None:
    """With default inputs (a rating and K for the list systems) every system rates."""
    inputs = CALCULATORS[system].inputs()
    if isinstance(inputs, ListInputs):
        inputs = ListInputs(rating=1500, k=20)
    result = calculate(system, inputs, [parse_game("1500:1")])
    assert result.points == 1.0
    assert result.change is not None and result.change > 0
    assert next(iter(result.to_dict())) == "system"


def test_no_games_is_refused() -> None:
    """At least one game is needed."""
    with pytest.raises(CalcError, match="no games"):
        calculate("elo", None, [])


def test_unknown_system_is_refused() -> None:
    """A system without a calculator: a CalcError naming those that have one."""
    with pytest.raises(CalcError, match=r"'foo'.*fide"):
        calculate("foo", None, [parse_game("1500:1")])


def test_inputs_of_another_system_are_refused() -> None:
    """Elo's inputs given to FIDE: a TypeError naming the type wanted."""
    with pytest.raises(TypeError, match="ListInputs"):
        calculate("fide", EloInputs(rating=1500), [parse_game("1500:1")])
