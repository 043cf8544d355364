"""``experiments/world-simple.toml`` is the default world of 18ec072, exactly.

``data/default-world-18ec072.csv`` was written by ``simple_world_reference.py``
run on main's code at 18ec072, before the realistic world's keys existed and
when the simple world was the default: digests of a population's arrays (and
of its strengths a year on), then one replicate's summary of a small run. The
current code, given the simple world's keys, must give the same table, value
for value.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from simple_world_reference import simple_world_config, world_table

REFERENCE = Path(__file__).parent / "data" / "default-world-18ec072.csv"


def test_simple_world_is_the_old_default() -> None:
    """Every digest and every summary figure equals main's default at 18ec072."""
    expected = pd.read_csv(REFERENCE, dtype=str, keep_default_na=False)
    got = world_table(simple_world_config()).astype(str)
    assert list(got["name"]) == list(expected["name"])
    diff = got["value"] != expected["value"]
    assert not diff.any(), got[diff].merge(expected, on=["table", "name"]).to_string()
