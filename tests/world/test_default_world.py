"""The default world is unchanged by the realistic world's keys.

``data/default-world-18ec072.csv`` was written by
``default_world_reference.py`` run on main's code at 18ec072, before the keys
existed: digests of a default population's arrays (and of its strengths a
year on), then one replicate's summary of a small default run. The current
code must give the same table, value for value.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from default_world_reference import default_world_table

REFERENCE = Path(__file__).parent / "data" / "default-world-18ec072.csv"


def test_default_world_is_unchanged() -> None:
    """Every digest and every summary figure equals main's at 18ec072."""
    expected = pd.read_csv(REFERENCE, dtype=str, keep_default_na=False)
    got = default_world_table().astype(str)
    assert list(got["name"]) == list(expected["name"])
    diff = got["value"] != expected["value"]
    assert not diff.any(), got[diff].merge(expected, on=["table", "name"]).to_string()
