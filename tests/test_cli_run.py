"""Tests of ``ratingsim run``: the results folder, reproducibility, clear errors."""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import simulator.tasks.run
from simulator.cli import main
from simulator.config import load_config, parse_config
from simulator.evaluation.figures import FIGURES
from simulator.evaluation.report import TABLES

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

#: A small two-arena experiment: OTB rated by FIDE rules, online by Lichess.
SMALL = """
title = "small"
years = 1
replicates = 2

[population]
n_players = 100

[[arena]]
name = "otb"
systems = ["fide", "glicko2"]

[[arena]]
name = "online"
systems = ["lichess"]
outcomes = "online"

[arena.schedule]
kind = "online"
participation = 0.5
activity_scale = 2.0
rounds_per_day = 2
"""

#: Bad configs, each with a piece of the one-line message it must give.
BAD_CONFIGS = {
    "unknown key": ("[population]\nn_player = 5\n", "'population.n_player'"),
    "wrong type": ('years = "five"\n', "'five'"),
    "negative players": ("[population]\nn_players = -5\n", "-5"),
    "no replicates": ("replicates = 0\n", "'replicates'"),
    "unknown system": ("[[arena]]\nsystems = ['fidee']\n", "'fidee'"),
    "bad parameter": (
        "[[arena]]\nsystems = [{system = 'glicko2', tau = -1}]\n",
        "'tau'",
    ),
    "duplicate labels": ("[[arena]]\nsystems = ['elo', 'elo']\n", "unique"),
    "pairing rating": (
        "[[arena]]\nsystems = ['elo']\npairing_rating = 'fide'\n",
        "'pairing_rating'",
    ),
    "bad date": ('start_date = "2024-02-30"\n', "'2024-02-30'"),
    "not toml": ("years = = 1\n", "not valid TOML"),
}


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """``ratingsim run small.toml`` twice with one seed: with figures, then without.

    Returns the config file and the two results folders.
    """
    root = tmp_path_factory.mktemp("runs")
    config = _write(root / "small.toml", SMALL)
    first, second = root / "first", root / "second"
    common = ["run", str(config), "--seed", "123", "--quiet"]
    assert main([*common, "--out", str(first), "--jobs", "2"]) == 0
    assert main([*common, "--out", str(second), "--jobs", "1", "--no-figures"]) == 0
    return config, first, second


def test_run_writes_the_results_folder(small_runs: tuple[Path, Path, Path]) -> None:
    """The folder holds report.md, the CSVs, the PNGs, config, seed and versions."""
    _, out, _ = small_runs
    names = {p.name for p in out.iterdir()}
    pngs = {f"{stem}-{arena}.png" for stem in FIGURES for arena in ("otb", "online")}
    expected = {
        "report.md",
        "config.toml",
        "seed.txt",
        "versions.json",
        *(f"{t}.csv" for t in TABLES),
        "bands.csv",
        *pngs,
    }
    assert names == expected
    for name in pngs:
        assert (out / name).read_bytes()[:8] == PNG_SIGNATURE
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "small" in report and "otb" in report and "online" in report
    assert "--seed 123" in report
    assert (out / "seed.txt").read_text(encoding="utf-8").strip() == "123"
    versions = json.loads((out / "versions.json").read_text(encoding="utf-8"))
    assert {"python", "ratingsim", "numpy"} <= set(versions)


def test_saved_config_parses_back(small_runs: tuple[Path, Path, Path]) -> None:
    """config.toml is the resolved config: it parses back, with the seed set."""
    config, out, _ = small_runs
    saved = load_config(out / "config.toml")
    assert saved == dataclasses.replace(load_config(config), seed=123, replicates=2)


def test_summary_csv_covers_both_arenas(small_runs: tuple[Path, Path, Path]) -> None:
    """The summary table has a row per system of each arena."""
    _, out, _ = small_runs
    lines = (out / "summary.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith("arena,system,")
    rows = [line.split(",")[:2] for line in lines[1:]]
    assert rows == [["otb", "fide"], ["otb", "glicko2"], ["online", "lichess"]]


def test_same_seed_gives_byte_identical_csvs(
    small_runs: tuple[Path, Path, Path],
) -> None:
    """Re-running with the seed (serially, into another folder) repeats every CSV."""
    _, first, second = small_runs
    assert not list(second.glob("*.png"))
    for name in TABLES:
        assert (first / f"{name}.csv").read_bytes() == (
            second / f"{name}.csv"
        ).read_bytes(), name


@pytest.mark.parametrize("case", list(BAD_CONFIGS))
def test_bad_config_exits_2_with_one_line(
    case: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A bad config: exit 2, one line on stderr naming the problem, nothing written."""
    text, needle = BAD_CONFIGS[case]
    config = _write(tmp_path / "bad.toml", text)
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(config), "--quiet"]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("ratingsim: error: ")
    assert needle in lines[0]
    assert "Traceback" not in captured.err
    assert captured.out == ""
    assert [p.name for p in tmp_path.iterdir()] == ["bad.toml"]


def test_missing_config_file_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A config path that does not exist: exit 2, one line, nothing written."""
    monkeypatch.chdir(tmp_path)
    assert main(["run", "absent.toml"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "absent.toml" in err
    assert list(tmp_path.iterdir()) == []


def _ratingsim() -> str:
    """The installed ``ratingsim`` console script."""
    beside = Path(sys.executable).with_name("ratingsim")
    found = str(beside) if beside.exists() else shutil.which("ratingsim")
    assert found is not None, "the ratingsim script is not installed"
    return found


def test_script_reports_a_bad_config_without_traceback(tmp_path: Path) -> None:
    """The installed script: exit 2, one line on stderr, no results folder."""
    config = _write(tmp_path / "bad.toml", "[population]\nn_players = -5\n")
    done = subprocess.run(
        [_ratingsim(), "run", "bad.toml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert "'n_players'" in done.stderr and "-5" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    assert [p.name for p in tmp_path.iterdir()] == [config.name]


def _no_run(*args: object, **kwargs: object) -> None:
    raise AssertionError("the run started")


def test_non_empty_out_folder_is_refused_before_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing non-empty --out: exit 2 before any replicate, folder untouched."""
    monkeypatch.setattr(simulator.tasks.run, "run", _no_run)
    config = _write(tmp_path / "small.toml", SMALL)
    out = tmp_path / "out"
    out.mkdir()
    _write(out / "keep.txt", "mine")
    assert main(["run", str(config), "--out", str(out), "--seed", "1"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and str(out) in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert (out / "keep.txt").read_text(encoding="utf-8") == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "small.toml"]


def test_out_that_is_a_file_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An --out that names a file: exit 2 before running, the file untouched."""
    monkeypatch.setattr(simulator.tasks.run, "run", _no_run)
    config = _write(tmp_path / "small.toml", SMALL)
    out = _write(tmp_path / "out", "a file")
    assert main(["run", str(config), "--out", str(out)]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert out.read_text(encoding="utf-8") == "a file"


def test_empty_out_folder_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing empty --out folder is filled, and the summary table printed."""
    tiny = SMALL.replace("years = 1", "years = 0.1").replace(
        "replicates = 2", "replicates = 1"
    )
    config = _write(tmp_path / "tiny.toml", tiny)
    out = tmp_path / "out"
    out.mkdir()
    argv = ["run", str(config), "--out", str(out), "--seed", "5", "--quiet"]
    assert main([*argv, "--no-figures"]) == 0
    captured = capsys.readouterr()
    assert "fide" in captured.out and "lichess" in captured.out
    assert (out / "report.md").is_file()
    assert parse_config((out / "config.toml").read_text(encoding="utf-8")).seed == 5
