"""The default world is the realistic world (issue 17).

A config that sets none of the world's keys is the pool of docs/world.md:
its calibration report puts every row within its tolerance, and
``experiments/world-realistic.toml`` (the documented list of the values with
their sources) states the defaults. ``data/default-world-realistic.csv``,
written by ``simple_world_reference.py``'s :func:`world_table` on this
default (``python tests/world/test_default_world.py OUT.csv``), pins the
default world's players, strengths and a small run's figures for a fixed
seed, value for value: a change to them is a decision, not an accident.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest
from calibration_runs import calibrate_config
from simple_world_reference import CONFIG, world_table

from simulator.cli import main
from simulator.config import default_config, load_config, parse_config
from simulator.world.calibration import PUBLISHED
from simulator.world.development import DevelopmentConfig
from simulator.world.entrants import EntrantsConfig
from simulator.world.exits import ExitsConfig
from simulator.world.population_config import PopulationConfig

ROOT = Path(__file__).resolve().parents[2]
REALISTIC = ROOT / "experiments" / "world-realistic.toml"
REFERENCE = Path(__file__).parent / "data" / "default-world-realistic.csv"


def test_default_world_within_tolerance(seed: int) -> None:
    """Every calibration row of the default world is within its tolerance.

    A large pool (20,000 players, two replicates), so that the rows of the
    top bands (0.07 % and 0.7 % of the list) are not a handful of players.
    """
    table = calibrate_config(default_config(), seed)
    checked = table[table["within"] != ""]
    assert len(checked) == len(PUBLISHED)
    out = checked[checked["within"] != "yes"]
    assert out.empty, out.to_string()


def test_default_report_reads_within_tolerance(capsys: object) -> None:
    """``ratingsim world`` with no config: the report the issue asks to read.

    Its default seed; the default pool of 2,000 players drawn in enough
    replicates for 20,000 players in all.
    """
    assert main(["world"]) == 0
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "(seed 0, 10 replicates of 2,000 players)" in printed
    n = len(PUBLISHED)
    assert f"{n} of {n} rows within tolerance." in printed, printed


def test_realistic_file_states_the_defaults() -> None:
    """``experiments/world-realistic.toml`` lists the default world's values."""
    config = load_config(REALISTIC)
    default = default_config()
    assert config.population == PopulationConfig(n_players=config.population.n_players)
    assert config.arena[0].schedule == default.arena[0].schedule


def test_default_world_is_reproducible() -> None:
    """Every digest and figure of the small default run equals the recorded one."""
    expected = pd.read_csv(REFERENCE, dtype=str, keep_default_na=False)
    got = world_table(parse_config(CONFIG)).astype(str)
    assert list(got["name"]) == list(expected["name"])
    diff = got["value"] != expected["value"]
    assert not diff.any(), got[diff].merge(expected, on=["table", "name"]).to_string()


@pytest.mark.parametrize(
    ("keys", "name", "fix"),
    [
        (
            {"departure_rate": 0.05},
            "departure_rate",
            {"exits": ExitsConfig("constant")},
        ),
        (
            {"newcomer_offset": -200.0},
            "newcomer_offset",
            {"entrants": EntrantsConfig(strength="age_curve")},
        ),
        (
            {"activity_sd": 0.5},
            "activity_sd",
            {"entrants": EntrantsConfig(activity_sds=())},
        ),
        (
            {"drift_sd": 0.0},
            "drift_sd",
            {"development": DevelopmentConfig(noise_ages=(), noise_sds=())},
        ),
    ],
)
def test_simple_keys_need_their_model(
    keys: dict[str, float], name: str, fix: dict[str, object]
) -> None:
    """A simple-world key the default world overrides is refused.

    Unless its model is chosen: a config that sets it would otherwise change
    nothing.
    """
    with pytest.raises(ValueError, match=f"'{name}'.*no effect") as info:
        PopulationConfig(**keys)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)
    config = PopulationConfig(**keys, **fix)  # type: ignore[arg-type]
    assert getattr(config, name) == keys[name]


if __name__ == "__main__":
    world_table(parse_config(CONFIG)).to_csv(sys.argv[1], index=False)
