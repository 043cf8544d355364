"""Writes the default world's reference outputs (not a test module).

Run from a checkout whose ``simulator`` package is the one to record (main at
18ec072 made ``data/default-world-18ec072.csv``)::

    cd /work/main && .venv/bin/python PATH/default_world_reference.py OUT.csv

``test_default_world`` runs :func:`default_world_table` on the current code
and compares it with the recorded file, so the default world (the players
drawn, their strengths over time, the events and every system's figures)
stays exactly what it was before the realistic world's keys were added.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np
import pandas as pd

from simulator.config import parse_config
from simulator.engine import run_replicate
from simulator.systems._common import day_of
from simulator.world.population import make_population
from simulator.world.strengths import advance

#: A small default world: two systems, defaults everywhere else.
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


def default_world_table() -> pd.DataFrame:
    """Digests of the default population's arrays, then one replicate's summary."""
    config = parse_config(CONFIG)
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
    default_world_table().to_csv(sys.argv[1], index=False)
