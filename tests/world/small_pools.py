"""Small synthetic pools for the tests of the world's population.

Not a test module: the tests of :mod:`simulator.world.population` and
:mod:`simulator.world.strengths` import it.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from simulator.systems._common import day_of
from simulator.world.population import Population, make_population
from simulator.world.population_config import PopulationConfig

START = day_of("2024-01-01")
#: Standard errors allowed in stochastic assertions.
Z = 5.0


def pool(
    rng: np.random.Generator, n_players: int, n_days: float = 0.0, **kwargs: object
) -> Population:
    """Players drawn from a PopulationConfig of ``kwargs``, starting on START."""
    config = PopulationConfig(n_players=n_players, **kwargs)  # type: ignore[arg-type]
    return make_population(config, rng, start_day=START, n_days=n_days)


def arrays(pop: Population) -> dict[str, np.ndarray]:
    """The population's arrays by field name."""
    return {
        f.name: getattr(pop, f.name)
        for f in dataclasses.fields(pop)
        if isinstance(getattr(pop, f.name), np.ndarray)
    }
