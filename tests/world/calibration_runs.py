"""The calibration report of a whole config, as the tests ask for it.

Imported by name (tests/world is on the path, as for
``simple_world_reference``). The pool, the outcome model of the first arena
and the start date come from the config, as ``ratingsim world`` takes them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from simulator.config import RunConfig
from simulator.systems._common import day_of
from simulator.world.calibration import calibrate


def calibrate_config(
    config: RunConfig,
    seed: int,
    *,
    years: int = 3,
    replicates: int = 2,
    **population: object,
) -> pd.DataFrame:
    """``config``'s calibration table; ``population`` overrides its pool's keys.

    By default a large pool (20,000 players), so that the rows of the top
    bands (0.07 % and 0.7 % of the list) are not a handful of players.
    """
    population.setdefault("n_players", 20_000)
    return calibrate(
        dataclasses.replace(config.population, **population),  # type: ignore[arg-type]
        config.arena[0].outcome_model(),
        np.random.default_rng(seed),
        start_day=day_of(config.start_date),
        years=years,
        replicates=replicates,
    )
