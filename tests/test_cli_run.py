"""Tests of ``ratingsim run``: clear errors, the folder checks, a run's output.

The results folder itself is tested through the task, in tests/tasks/test_run.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from small_configs import TWO_ARENAS

import simulator.tasks.run
from simulator.cli import main
from simulator.config import parse_config

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
    monkeypatch.setattr(simulator.tasks.run, "run_sweep", _no_run)
    config = _write(tmp_path / "small.toml", TWO_ARENAS)
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
    monkeypatch.setattr(simulator.tasks.run, "run_sweep", _no_run)
    config = _write(tmp_path / "small.toml", TWO_ARENAS)
    out = _write(tmp_path / "out", "a file")
    assert main(["run", str(config), "--out", str(out)]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1
    assert out.read_text(encoding="utf-8") == "a file"


def test_empty_out_folder_is_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An existing empty --out folder is filled, and the summary table printed."""
    tiny = TWO_ARENAS.replace("years = 1", "years = 0.1").replace(
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


def test_python_dash_m_simulator_is_the_command() -> None:
    """``python -m simulator`` runs the CLI (a checkout without the script)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "simulator", "--version"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    from simulator import __version__

    assert done.stdout.strip() == __version__


def test_a_mistyped_system_parameter_names_the_closest() -> None:
    """A typo in a system's parameter is a one-line error that suggests the key."""
    from simulator.config import ConfigError, parse_config

    with pytest.raises(
        ConfigError, match=r"no parameter 'taux' \(did you mean 'tau'\?\)"
    ):
        parse_config('[[arena]]\nsystems = [{ system = "glicko2", taux = 0.5 }]\n')
