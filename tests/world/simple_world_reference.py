"""Writes the simple world's reference outputs (not a test module).

Run from a checkout whose ``simulator`` package is the one to record (main at
18ec072, whose default world was the simple world, made
``data/default-world-18ec072.csv`` with :data:`CONFIG` alone)::

    cd /work/main && .venv/bin/python PATH/simple_world_reference.py OUT.csv

``test_simple_world`` runs :func:`world_table` on the current code with
:data:`CONFIG` on ``experiments/world-simple.toml`` and compares it with the
recorded file, so the simple world (the players drawn, their strengths over
time, the events and every system's figures) stays exactly the default world
of 18ec072.
"""

from __future__ import annotations

import dataclasses
import hashlib
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from simulator.config import RunConfig, SystemSpec, load_config, parse_config
from simulator.engine import run_replicate
from simulator.systems._common import day_of
from simulator.world.population import make_population
from simulator.world.strengths import advance

#: The simple world's keys (the default world of 18ec072).
SIMPLE = Path(__file__).resolve().parents[2] / "experiments" / "world-simple.toml"

#: A small world: two systems, the world's keys from the file it is run on.
CONFIG = """
title = "default world reference"
years = 1.5
seed = 20240117

[population]
n_players = 300

[[arena]]
name = "otb"
systems = ["fide", "glicko2"]
"""


def _digest(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


def simple_world_config() -> RunConfig:
    """:data:`CONFIG`'s run (pool size, years, seed, systems) on the simple world."""
    small = parse_config(CONFIG)
    simple = load_config(SIMPLE)
    arena = dataclasses.replace(
        simple.arena[0], systems=(SystemSpec("fide"), SystemSpec("glicko2"))
    )
    return dataclasses.replace(
        simple,
        title=small.title,
        years=small.years,
        seed=small.seed,
        population=dataclasses.replace(
            simple.population, n_players=small.population.n_players
        ),
        arena=(arena,),
    )


def world_table(config: RunConfig) -> pd.DataFrame:
    """Digests of the population's arrays, then one replicate's summary."""
    rng = np.random.default_rng(17)
    start = day_of("2024-01-01")
    pop = make_population(config.population, rng, start_day=start, n_days=730)
    later = advance(pop, start + 365, rng)
    rows = [
        {"table": "population", "name": name, "value": _digest(getattr(pop, name))}
        for name in (
            "true_strength",
            "birth_day",
            "arrival_day",
            "departure_day",
            "activity",
            "growth",
            "kind",
        )
    ]
    rows.append(
        {
            "table": "population",
            "name": "advanced",
            "value": _digest(later.true_strength),
        }
    )
    result = run_replicate(config, np.random.default_rng(config.seed))["otb"]
    for system, row in result.summary.set_index("system").iterrows():
        for column, value in row.items():
            rows.append(
                {"table": f"summary {system}", "name": column, "value": repr(value)}
            )
    return pd.DataFrame(rows)


if __name__ == "__main__":
    world_table(parse_config(CONFIG)).to_csv(sys.argv[1], index=False)
