"""``ratingsim run --set KEY=VALUE``: a config key overridden from the command line."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from simulator.cli import main
from simulator.config import ConfigError, default_config, override_config

SMALL = """
title = "small"
years = 0.3
replicates = 1

[population]
n_players = 80

[[arena]]
name = "otb"
systems = ["elo"]
"""


def test_set_overrides_keys_and_the_saved_config_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    out = tmp_path / "out"
    code = main(
        [
            "run", str(config), "--out", str(out), "--quiet", "--no-figures",
            "--jobs", "1", "--seed", "3",
            "--set", "population.n_players=120",
            "--set", "arena.0.systems.0.k_factor=32",
            "--set", 'title="bigger"',
        ]
    )  # fmt: skip
    assert code == 0, capsys.readouterr().err
    saved = tomllib.loads((out / "config.toml").read_text())
    assert saved["population"]["n_players"] == 120
    assert saved["title"] == "bigger"
    assert saved["arena"][0]["systems"][0]["k_factor"] == 32


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("population.n_players", "not KEY=VALUE"),
        ("population.n_players=lots", "is not a TOML value"),
        ("population.n_players=-5", "n_players"),
        ("population.nope.x=1", "unknown key 'nope'"),
    ],
)
def test_a_bad_setting_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], setting: str, message: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(SMALL)
    code = main(["run", str(config), "--out", str(tmp_path / "o"), "--set", setting])
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "o").exists()


def test_override_config_validates_the_result() -> None:
    with pytest.raises(ConfigError, match="years"):
        override_config(default_config(), ["years=-1"])
    assert override_config(default_config(), []) == default_config()
