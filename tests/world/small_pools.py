"""Small synthetic pools for the tests of the world's population.

Not a test module: the tests of :mod:`simulator.world.population` and
:mod:`simulator.world.strengths` import it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from simulator.config import load_config
from simulator.systems._common import day_of
from simulator.world.population import Population, make_population
from simulator.world.population_config import PopulationConfig

START = day_of("2024-01-01")
#: Standard errors allowed in stochastic assertions.
Z = 5.0
#: The simple world (the default world before issue 17): every key of the
#: realistic world off.
SIMPLE_WORLD = Path(__file__).resolve().parents[2] / "experiments" / "world-simple.toml"


def simple_keys() -> dict[str, Any]:
    """The simple world's population keys, every one but ``n_players``."""
    population = load_config(SIMPLE_WORLD).population
    return {
        f.name: getattr(population, f.name)
        for f in dataclasses.fields(population)
        if f.name != "n_players"
    }


def simple_config(n_players: int, **kwargs: object) -> PopulationConfig:
    """The simple world's PopulationConfig of ``n_players``, ``kwargs`` overriding."""
    return PopulationConfig(n_players=n_players, **{**simple_keys(), **kwargs})


def pool(
    rng: np.random.Generator, n_players: int, n_days: float = 0.0, **kwargs: object
) -> Population:
    """Players drawn from a PopulationConfig of ``kwargs``, starting on START."""
    config = PopulationConfig(n_players=n_players, **kwargs)  # type: ignore[arg-type]
    return make_population(config, rng, start_day=START, n_days=n_days)


def simple_pool(
    rng: np.random.Generator, n_players: int, n_days: float = 0.0, **kwargs: object
) -> Population:
    """As :func:`pool`, in the simple world (``experiments/world-simple.toml``)."""
    config = simple_config(n_players, **kwargs)
    return make_population(config, rng, start_day=START, n_days=n_days)


def arrays(pop: Population) -> dict[str, np.ndarray]:
    """The population's arrays by field name."""
    return {
        f.name: getattr(pop, f.name)
        for f in dataclasses.fields(pop)
        if isinstance(getattr(pop, f.name), np.ndarray)
    }
