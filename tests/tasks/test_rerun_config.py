"""A results folder's config.toml reruns its run bit for bit (issue 19).

The saved config names every key (None as "none") and every system's every
parameter, defaults included; loading it and running with the same seed gives
the same CSV tables, byte for byte.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from simulator.config import RunConfig, expand, load_config, parse_config
from simulator.systems import parameters
from simulator.tasks.describe import complete_config, describe_world, run_styles
from simulator.tasks.run import run_experiment

TINY = """
title = "tiny"
years = 0.5
replicates = 2

[population]
n_players = 80

[[arena]]
name = "otb"
systems = ["fide", { system = "fide", label = "no cap", cap = "none" }, "glicko2"]
"""

EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"


def _quiet(text: str) -> None:
    del text


def _run(config: Path, out: Path, seed: int) -> Path:
    done = run_experiment(
        str(config),
        seed=seed,
        out=out,
        jobs=1,
        figures=False,
        progress=False,
        show=_quiet,
        say=_quiet,
    )
    assert done.path is not None
    return done.path


def test_saved_config_reruns_bit_for_bit(tmp_path: Path, seed: int) -> None:
    """Rerunning from a results folder's config.toml gives byte-identical CSVs."""
    source = tmp_path / "tiny.toml"
    source.write_text(TINY, encoding="utf-8")
    first = _run(source, tmp_path / "first", seed)
    second = _run(first / "config.toml", tmp_path / "second", seed)
    csvs = sorted(p.name for p in first.glob("*.csv"))
    assert "summary.csv" in csvs and "paired.csv" in csvs
    assert csvs == sorted(p.name for p in second.glob("*.csv"))
    for name in csvs:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    # The saved config is a fixed point: saving it again changes nothing.
    saved = (first / "config.toml").read_text(encoding="utf-8")
    assert (second / "config.toml").read_text(encoding="utf-8") == saved


def test_saved_config_names_every_parameter(tmp_path: Path) -> None:
    """Every system's every parameter and every None key are in the saved text."""
    source = tmp_path / "tiny.toml"
    source.write_text(TINY, encoding="utf-8")
    config = load_config(source)
    data = tomllib.loads(complete_config(config))
    fide, no_cap, glicko2 = data["arena"][0]["systems"]
    assert set(parameters("fide")) <= set(fide)
    assert set(parameters("glicko2")) <= set(glicko2)
    assert no_cap["cap"] == "none" and fide["cap"] == 400.0
    assert fide["round_expectation"] == "none"  # a key whose default is None
    assert data["arena"][0]["schedule"]["participation_midpoint"] == "none"
    assert _same_run(parse_config(complete_config(config)), config)


@pytest.mark.parametrize("name", sorted(p.name for p in EXPERIMENTS.glob("*.toml")))
def test_every_experiment_saves_a_complete_config(name: str) -> None:
    """Each experiment's complete config reloads to the same points and systems.

    A sweep that swaps a system's kind (Lichess to Glicko-2) keeps that
    system's table as given, so the swap still applies.
    """
    config = load_config(EXPERIMENTS / name)
    text = complete_config(config)
    again = parse_config(text)
    points, before = expand(again), expand(config)
    assert [p.name for p in points] == [p.name for p in before]
    for a, b in zip(points, before, strict=True):
        assert _same_run(a.config, b.config), a.name
    assert complete_config(again) == text


def _same_run(a: RunConfig, b: RunConfig) -> bool:
    """The same config but for how the systems' parameters are spelt out."""

    def systems(c: RunConfig) -> list[list[tuple[str, str, object]]]:
        return [[(s.system, s.label, s.build()) for s in x.systems] for x in c.arena]

    def rest(c: RunConfig) -> RunConfig:
        arenas = tuple(dataclasses.replace(x, systems=x.systems[:1]) for x in c.arena)
        first = [dataclasses.replace(x.systems[0], params=()) for x in c.arena]
        arenas = tuple(
            dataclasses.replace(x, systems=(f,))
            for x, f in zip(arenas, first, strict=True)
        )
        return dataclasses.replace(c, arena=arenas)

    return systems(a) == systems(b) and rest(a) == rest(b)


def test_world_description_names_the_run() -> None:
    """The world section gives the players, years, curve, seeding and parameters."""
    config = load_config(EXPERIMENTS / "accuracy.toml")
    text = describe_world(config)
    assert "2000 players" in text and "15 years" in text
    assert "burn-in" in text and "**fitted** expected-score curve" in text
    assert "starts flat at 1500" in text
    assert "| `tau` | 0.5 |" in text  # glicko2's default tau, not set by the config
    # The variants' own parameters are marked; a column per fide system.
    assert "| `new_player_prediction` | constant | performance* | newcomers* |" in text
    styles = run_styles(config)
    assert styles["fide"].name == "FIDE 2025"
    assert styles["fide, new players by performance"].name == (
        "fide, new players by performance"
    )
