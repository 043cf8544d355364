"""The calibration report: its rows, the realistic preset within tolerance, the CLI."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
from calibration_runs import calibrate_config

from simulator.cli import main
from simulator.config import load_config
from simulator.engine import run_replicate
from simulator.world.calibration import COLUMNS, PUBLISHED

REALISTIC = Path(__file__).resolve().parents[2] / "experiments" / "world-realistic.toml"
SIMPLE = REALISTIC.with_name("world-simple.toml")


def test_realistic_preset_within_tolerance(seed: int) -> None:
    """Every row of the realistic world is within its stated tolerance."""
    table = calibrate_config(load_config(REALISTIC), seed)
    assert list(table.columns) == list(COLUMNS)
    checked = table[table["within"] != ""]
    assert len(checked) == len(PUBLISHED)
    out = checked[checked["within"] != "yes"]
    assert out.empty, out.to_string()


def test_simple_world_is_flagged_where_it_misses(seed: int) -> None:
    """The flag can fail: the simple world misses some rows.

    The simple world (the default before issue 17) misses the newcomers' share
    and juniors' yearly change (about 16 % and +51 a year with 20,000 players,
    beside 22 +- 4 % and +27.5 +- 12).
    """
    table = calibrate_config(load_config(SIMPLE), seed).set_index(["quantity", "group"])
    assert table.loc[("yearly change (median)", "<=18"), "within"] == "NO"
    assert table.loc[("newcomers a year", "share of active"), "within"] == "NO"


def test_no_newcomers_is_flagged() -> None:
    """The flag can fail: a pool without newcomers misses their row."""
    table = calibrate_config(
        load_config(REALISTIC), 1, years=2, n_players=3000, arrival_rate=0.0
    )
    row = table[table["quantity"] == "newcomers a year"].iloc[0]
    assert row["simulated"] == 0.0 and row["within"] == "NO"


def test_cli_world_writes_report(tmp_path: Path, capsys: object) -> None:
    """``ratingsim world`` prints the table and writes markdown and CSV."""
    code = main(
        [
            "world",
            str(REALISTIC),
            "--players",
            "2000",
            "--replicates",
            "2",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out  # type: ignore[attr-defined]
    assert "| median of the list |" in printed
    table = pd.read_csv(tmp_path / "calibration.csv", keep_default_na=False)
    assert list(table.columns) == list(COLUMNS)
    assert (tmp_path / "calibration.md").read_text().startswith("# Calibration")


def test_realistic_world_runs_through_the_engine() -> None:
    """The realistic preset, shrunk, runs a replicate (federations, fill rules)."""
    config = load_config(REALISTIC)
    small = dataclasses.replace(
        config,
        years=0.5,
        population=dataclasses.replace(config.population, n_players=400),
    )
    result = run_replicate(small, np.random.default_rng(3))
    assert set(result["otb"].summary["system"]) == {"fide", "glicko2"}
