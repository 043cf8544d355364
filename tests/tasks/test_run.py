"""Tests of simulator.tasks.run: the same numbers serially, in parallel and again.

And :func:`~simulator.tasks.run.run_experiment`: the results folder it writes.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from small_configs import TWO_ARENAS

import simulator.tasks.run
from simulator.config import load_config, parse_config
from simulator.evaluation.figures import FIGURES
from simulator.evaluation.report import TABLES as REPORT_TABLES
from simulator.evaluation.results import ReplicateResult, Summary
from simulator.tasks.describe import complete_config
from simulator.tasks.run import (
    OutFolderError,
    RunReport,
    RunResult,
    run,
    run_experiment,
    run_one,
)

#: Two arenas, so that per-arena combining is compared too.
SMALL = """
title = "parallel"
years = 1
replicates = 2

[population]
n_players = 100

[[arena]]
name = "otb"
systems = ["fide", "glicko2", {system = "elo", label = "elo-k40", k_factor = 40}]

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

TABLES = ("summary", "timeseries", "prediction", "calibration", "convergence")


def _assert_same_replicate(a: ReplicateResult, b: ReplicateResult) -> None:
    assert a.systems == b.systems and a.thresholds == b.thresholds
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def _assert_same_summary(a: Summary, b: Summary) -> None:
    assert a.n_replicates == b.n_replicates and a.systems == b.systems
    for name in TABLES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def _assert_same_run(a: RunResult, b: RunResult) -> None:
    """Every table of every replicate and arena, and the summaries, are equal."""
    assert a.seed == b.seed
    assert list(a.replicates) == list(b.replicates) == ["otb", "online"]
    for arena in a.replicates:
        assert len(a.replicates[arena]) == len(b.replicates[arena])
        for x, y in zip(a.replicates[arena], b.replicates[arena], strict=True):
            _assert_same_replicate(x, y)
        _assert_same_summary(a.summary[arena], b.summary[arena])


@functools.cache
def _serial(seed: int) -> RunResult:
    """The serial run of SMALL with ``seed`` (cached: tests only read it)."""
    return run(parse_config(SMALL), seed=seed, jobs=1, progress=False)


def test_serial_and_parallel_runs_are_identical(seed: int) -> None:
    """One process and two processes give exactly the same tables."""
    parallel = run(parse_config(SMALL), seed=seed, jobs=2, progress=False)
    _assert_same_run(_serial(seed), parallel)
    assert parallel.summary["otb"].n_replicates == 2


def test_same_seed_twice_gives_identical_results(seed: int) -> None:
    """Running a config twice with one seed repeats every number."""
    again = run(parse_config(SMALL), seed=seed, jobs=1, progress=False)
    _assert_same_run(_serial(seed), again)


def test_different_seeds_differ(seed: int) -> None:
    """Different root seeds give different numbers."""
    a = _serial(seed)
    b = run(parse_config(SMALL), seed=seed + 1, replicates=1, jobs=1, progress=False)
    for arena in ("otb", "online"):
        first, other = a.replicates[arena][0], b.replicates[arena][0]
        with pytest.raises(AssertionError):
            pd.testing.assert_frame_equal(first.summary, other.summary)
        assert not np.array_equal(
            first.prediction["log_loss"], other.prediction["log_loss"]
        )


def test_replicates_differ_within_a_run(seed: int) -> None:
    """Each replicate has its own stream: two replicates of one run differ."""
    for arena in ("otb", "online"):
        first, second = _serial(seed).replicates[arena]
        assert not first.prediction["log_loss"].equals(second.prediction["log_loss"])


def test_a_replicate_reruns_alone(seed: int) -> None:
    """Replicate i of a run is run_one on the i-th spawned stream."""
    config = parse_config(SMALL)
    result = _serial(seed)
    stream = np.random.SeedSequence(seed).spawn(2)[1]
    alone = run_one(config, stream)
    for arena in ("otb", "online"):
        _assert_same_replicate(result.replicates[arena][1], alone[arena])


def test_seed_and_replicates_come_from_config_unless_given() -> None:
    """The root seed and the replicate count default to the config's."""
    config = dataclasses.replace(parse_config(SMALL), seed=7, replicates=1, years=0.1)
    from_config = run(config, jobs=1, progress=False)
    assert from_config.seed == 7
    assert from_config.summary["otb"].n_replicates == 1
    explicit = run(config, seed=7, replicates=3, jobs=1, progress=False)
    assert explicit.summary["otb"].n_replicates == 3
    assert len(explicit.replicates["online"]) == 3
    # The first replicate is the same whatever the number of replicates.
    _assert_same_replicate(
        from_config.replicates["otb"][0], explicit.replicates["otb"][0]
    )


def test_fresh_seed_is_recorded() -> None:
    """Without any seed a fresh 128-bit one is drawn and recorded."""
    config = dataclasses.replace(
        parse_config(SMALL), seed=None, replicates=1, years=0.05
    )
    a = run(config, jobs=1, progress=False)
    b = run(config, jobs=1, progress=False)
    assert 0 <= a.seed < 2**128 and a.seed != b.seed
    again = run(config, seed=a.seed, jobs=1, progress=False)
    _assert_same_run(a, again)


# --------------------------------------------------------------------------
# run_experiment: a config into its results folder
# --------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _ignore(text: str) -> None:
    """A ``show``/``say`` that drops what it is given."""


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """``small.toml`` run twice with one seed: with figures, then without.

    Returns the config file and the two results folders.
    """
    root = tmp_path_factory.mktemp("runs")
    config = root / "small.toml"
    config.write_text(TWO_ARENAS, encoding="utf-8")
    first, second = root / "first", root / "second"
    for out, jobs, figures in ((first, 2, True), (second, 1, False)):
        done = run_experiment(
            str(config),
            seed=123,
            out=out,
            jobs=jobs,
            figures=figures,
            progress=False,
            show=_ignore,
            say=_ignore,
        )
        assert done == RunReport(123, out, ())
    return config, first, second


def test_run_writes_the_results_folder(small_runs: tuple[Path, Path, Path]) -> None:
    """The folder holds report.md, the CSVs, the PNGs, config, seed and versions."""
    _, out, _ = small_runs
    names = {p.name for p in out.iterdir()}
    # Every figure of each arena (and the convergence by strength band of its
    # newcomers), as PNG and SVG.
    stems = [*FIGURES, "convergence_by_level"]
    pngs = {f"{stem}-{arena}.png" for stem in stems for arena in ("otb", "online")}
    svgs = {f"{stem}-{arena}.svg" for stem in stems for arena in ("otb", "online")}
    expected = {
        "report.md",
        "config.toml",
        "seed.txt",
        "versions.json",
        *(f"{t}.csv" for t in REPORT_TABLES),
        "bands.csv",
        "groups.csv",  # the newcomers by band of true strength
        "paired.csv",  # each arena's systems against its reference
        "paired_all.csv",  # every two systems of each arena
        *pngs,
        *svgs,
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
    expected = dataclasses.replace(load_config(config), seed=123, replicates=2)
    # The saved config spells out every parameter of every system.
    assert complete_config(saved) == complete_config(expected)
    assert (out / "config.toml").read_text(encoding="utf-8") == complete_config(saved)


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
    for name in REPORT_TABLES:
        assert (first / f"{name}.csv").read_bytes() == (
            second / f"{name}.csv"
        ).read_bytes(), name


def _no_sweep(*args: object, **kwargs: object) -> None:
    raise AssertionError("the run started")


def test_non_empty_out_folder_raises_before_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A non-empty ``out``: OutFolderError (a ValueError) naming it, nothing run."""
    monkeypatch.setattr(simulator.tasks.run, "run_sweep", _no_sweep)
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutFolderError, match="is a folder that is not empty") as info:
        run_experiment(out=tmp_path, seed=1, say=_ignore)
    assert str(tmp_path) in str(info.value)
    assert isinstance(info.value, ValueError)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_messages_and_table_go_to_the_callbacks(tmp_path: Path) -> None:
    """The summary table goes to ``show``; the start and the folder to ``say``."""
    config = tmp_path / "tiny.toml"
    config.write_text(
        TWO_ARENAS.replace("years = 1", "years = 0.1").replace(
            "replicates = 2", "replicates = 1"
        ),
        encoding="utf-8",
    )
    shown: list[str] = []
    said: list[str] = []
    out = tmp_path / "out"
    done = run_experiment(
        str(config),
        seed=5,
        out=out,
        jobs=1,
        figures=False,
        progress=False,
        show=shown.append,
        say=said.append,
    )
    assert done == RunReport(5, out, ())
    assert len(shown) == 1 and "fide" in shown[0] and "lichess" in shown[0]
    assert said == [
        "ratingsim run: small; seed 5, 1 replicates, locally",
        f"Results of {config} written to {out}/",
    ]


def test_seed_is_drawn_and_folder_named_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a seed anywhere a fresh one is drawn; the folder is results/run-SEED."""
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "tiny.toml"
    config.write_text(
        TWO_ARENAS.replace("years = 1", "years = 0.05").replace(
            "replicates = 2", "replicates = 1"
        ),
        encoding="utf-8",
    )
    done = run_experiment(
        str(config), jobs=1, figures=False, progress=False, show=_ignore, say=_ignore
    )
    assert 0 <= done.seed < 2**64
    assert done.path == Path("results") / f"run-{done.seed}"
    assert (tmp_path / "results" / f"run-{done.seed}" / "report.md").is_file()
