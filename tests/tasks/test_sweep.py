"""Tests of sweeps: expand(), run_sweep/run, the sweep report and ``ratingsim run``.

A sweep is variants crossed with a grid; every point runs the same replicate
streams (common random numbers). The module runs one small sweep once and
reads it in several tests; the CLI tests run their own small sweeps.
"""

from __future__ import annotations

import csv
import dataclasses
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import simulator.evaluation.report
import simulator.tasks.run
from simulator._atomic import OutputError
from simulator.cli import main
from simulator.config import (
    ArenaConfig,
    Comparison,
    ConfigError,
    GridAxis,
    RunConfig,
    SystemSpec,
    Variant,
    dump_config,
    expand,
    parse_config,
)
from simulator.evaluation.formatting import format_sweep_table
from simulator.evaluation.report import (
    SWEEP_COLUMNS,
    sweep_table,
    write_sweep_report,
)
from simulator.tasks.describe import complete_config
from simulator.tasks.run import SweepResult, run, run_sweep, run_task

#: Two variants x two values of Elo's K: four points. The variants differ only
#: in the title, which no game depends on, so points of equal K agree exactly.
SWEEP = """
title = "sweep"
years = 0.5
replicates = 2

[population]
n_players = 100

[[arena]]
systems = ["fide", "elo"]

[[variant]]
name = "wide"
set = {"arena.0.schedule.field_size" = 40}

[[variant]]
name = "also wide"
set = {"arena.0.schedule.field_size" = 40, "title" = "another title"}

[[grid]]
key = "arena.0.systems.1.k_factor"
values = [10, 40]
"""

#: The four point names of SWEEP, in order (variants outer, grid inner).
SWEEP_NAMES = [
    "wide, k_factor=10",
    "wide, k_factor=40",
    "also wide, k_factor=10",
    "also wide, k_factor=40",
]

#: A tiny one-point config for the tests of failures.
TINY = """
title = "tiny"
years = 0.25
replicates = 2

[population]
n_players = 60

[[arena]]
systems = ["fide", "elo"]
"""

#: A tiny grid of three points for the CLI failure test.
TINY_GRID = (
    TINY
    + """
[[grid]]
key = "arena.0.systems.1.k_factor"
values = [10, 20, 40]
"""
)

TABLES = ("summary", "timeseries", "prediction", "calibration", "convergence")


def _k(config: RunConfig) -> Any:
    """Elo's K factor of a point's config (the second system of the arena)."""
    return dict(config.arena[0].systems[1].params).get("k_factor")


@pytest.fixture(scope="module")
def sweep() -> tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]]:
    """SWEEP run once, serially, with every task's call recorded."""
    calls: list[tuple[RunConfig, np.random.SeedSequence]] = []

    def spy(tasks: list[tuple[RunConfig, np.random.SeedSequence]]) -> Any:
        for config, seed in tasks:
            calls.append((config, seed))
            yield run_task(config, seed)

    result = run_sweep(parse_config(SWEEP), seed=3, executor=spy, progress=False)
    return result, calls


# --------------------------------------------------------------------------
# expand()


def test_expand_crosses_variants_with_the_grid() -> None:
    """Points are variants (outer) x grid values (inner), named by both."""
    points = expand(parse_config(SWEEP))
    assert [p.name for p in points] == SWEEP_NAMES
    assert points[0].overrides == (
        ("arena.0.schedule.field_size", 40),
        ("arena.0.systems.1.k_factor", 10),
    )
    assert points[3].overrides == (
        ("arena.0.schedule.field_size", 40),
        ("title", "another title"),
        ("arena.0.systems.1.k_factor", 40),
    )


def test_expand_applies_the_overrides_to_valid_configs() -> None:
    """Each point's config is the base with its overrides, and no sweep of its own."""
    base = parse_config(SWEEP)
    points = expand(base)
    assert [_k(p.config) for p in points] == [10, 40, 10, 40]
    assert [p.config.title for p in points] == ["sweep", "sweep"] + [
        "another title"
    ] * 2
    for p in points:
        assert p.config.variant == () and p.config.grid == ()
        assert p.config.arena[0].systems[0] == base.arena[0].systems[0]
        assert p.config.population == base.population
        assert p.config.years == base.years
    # The base config is left as it was.
    assert base == parse_config(SWEEP)


def test_expand_without_sweep_is_one_base_point() -> None:
    """A config without variants or grid is the single point 'base', unchanged."""
    config = parse_config(TINY)
    (point,) = expand(config)
    assert point.name == "base" and point.overrides == ()
    assert point.config == config


def test_expand_names_of_grid_only_and_variants_only() -> None:
    """With only a grid the names are the values; with only variants, the names."""
    grid = expand(parse_config(TINY_GRID))
    assert [p.name for p in grid] == ["k_factor=10", "k_factor=20", "k_factor=40"]
    variants = expand(
        parse_config(TINY + '[[variant]]\nname = "one"\n[[variant]]\nname = "two"\n')
    )
    assert [p.name for p in variants] == ["one", "two"]
    assert variants[0].config == variants[1].config == parse_config(TINY)


def test_expand_none_override_and_list_values() -> None:
    """'none' overrides a parameter with None; a grid value may be a list."""
    config = parse_config(
        TINY
        + '[[variant]]\nname = "no cap"\nset = {"arena.0.systems.0.cap" = "none"}\n'
        + '[[grid]]\nkey = "population.strength_means"\n'
        + "values = [[1800, 2000], [1900, 2100]]\n"
    )
    points = expand(config)
    assert [p.config.population.strength_means for p in points] == [
        (1800.0, 2000.0),
        (1900.0, 2100.0),
    ]
    for p in points:
        assert p.config.arena[0].systems[0].build().cap is None
    # Without the override FIDE keeps its cap.
    assert parse_config(TINY).arena[0].systems[0].build().cap is not None


@pytest.mark.parametrize(
    ("override", "pieces"),
    [
        ('"populaton.n_players" = 5', ["populaton.n_players", "unknown key"]),
        ('"population.n_playerz" = 5', ["population.n_playerz"]),
        ('"arena.3.name" = "x"', ["arena.3.name", "'3'", "index"]),
        ('"arena.first.name" = "x"', ["arena.first.name", "'first'", "index"]),
        ('"years.x" = 1', ["years.x", "plain value"]),
        ('"population.n_players" = -5', ["Sweep point 'bad'", "-5"]),
    ],
)
def test_expand_bad_override_names_it(override: str, pieces: list[str]) -> None:
    """An unknown key, a bad index or a bad value is a ConfigError naming it."""
    text = TINY + f'[[variant]]\nname = "bad"\nset = {{{override}}}\n'
    with pytest.raises(ConfigError) as info:
        parse_config(text)
    for piece in pieces:
        assert piece in str(info.value)


def test_expand_bad_grid_key_names_it() -> None:
    """A grid axis over an unknown key fails when parsed, naming the key."""
    text = TINY + '[[grid]]\nkey = "population.n_playres"\nvalues = [10]\n'
    with pytest.raises(ConfigError, match=re.escape("population.n_playres")):
        parse_config(text)


@pytest.mark.parametrize(
    "extra",
    [
        '[[variant]]\nname = "a"\n[[variant]]\nname = "a"\n',
        '[[grid]]\nkey = "years"\nvalues = [1, 1]\n',
    ],
    ids=["variants", "grid"],
)
def test_expand_duplicate_point_names(extra: str) -> None:
    """Two points with one name are a ConfigError."""
    with pytest.raises(ConfigError, match="unique"):
        parse_config(TINY + extra)


def test_variant_and_grid_axis_validate() -> None:
    """A variant needs a name, a grid axis a value; TOML errors name the key."""
    with pytest.raises(ValueError, match="name"):
        Variant("")
    with pytest.raises(ValueError, match="years"):
        GridAxis("years", ())
    with pytest.raises(ConfigError, match="grid"):
        parse_config(TINY + '[[grid]]\nkey = "years"\nvalues = []\n')
    with pytest.raises(ConfigError, match=r"variant\[0\]\.set"):
        parse_config(TINY + '[[variant]]\nname = "a"\nset = 3\n')
    with pytest.raises(ConfigError, match="variant"):
        parse_config(TINY + 'variant = "a"\n')


def test_dump_parse_round_trip_of_a_sweep_with_comparisons() -> None:
    """parse_config(dump_config(c)) == c with variants, a grid and comparisons."""
    config = RunConfig(
        title="round trip",
        seed=17,
        arena=(
            ArenaConfig(name="otb", systems=(SystemSpec("fide"), SystemSpec("elo"))),
            ArenaConfig(
                name="online", systems=(SystemSpec("lichess"),), outcomes="online"
            ),
        ),
        comparison=(
            Comparison("otb/fide", "online/lichess", bin_width=50.0),
            Comparison("online/lichess", "otb/elo"),
        ),
        variant=(
            Variant("no cap", (("arena.0.systems.0.cap", None),)),
            Variant("bigger", (("population.n_players", 300), ("years", 2.0))),
        ),
        grid=(
            GridAxis("arena.0.systems.1.k_factor", (10, 40)),
            GridAxis("arena.0.systems.0.cap", (None, 300)),
        ),
    )
    assert len(expand(config)) == 8
    assert parse_config(dump_config(config)) == config


# --------------------------------------------------------------------------
# run_sweep and run


def test_sweep_runs_every_point_with_common_seeds(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
) -> None:
    """Tasks are points x replicates; every point uses the same replicate seeds."""
    result, calls = sweep
    assert result.seed == 3 and not result.failures
    assert [p.name for p in result.points] == SWEEP_NAMES
    assert len(calls) == 4 * 2
    for i, (config, seed) in enumerate(calls):
        point, replicate = divmod(i, 2)
        assert config == result.points[point].config
        assert seed.entropy == 3 and seed.spawn_key == (replicate,)
    for r in result.results:
        assert r is not None and r.seed == 3
        assert len(r.replicates["otb"]) == 2
        assert r.summary["otb"].n_replicates == 2


def test_sweep_points_share_random_numbers(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
) -> None:
    """Points alike in their games agree exactly; Elo's K changes only Elo."""
    result, _ = sweep
    summaries = [r.summary["otb"] for r in result.results if r is not None]
    assert len(summaries) == 4
    # "wide" and "also wide" differ only in the title: every table is equal.
    for a, b in ((0, 2), (1, 3)):
        for name in TABLES:
            pd.testing.assert_frame_equal(
                getattr(summaries[a], name), getattr(summaries[b], name)
            )
    # FIDE pairs the games, so its row is the same at either K; Elo's is not.
    fide = [
        s.summary[s.summary["system"] == "fide"].reset_index(drop=True)
        for s in summaries
    ]
    pd.testing.assert_frame_equal(fide[0], fide[1])
    elo = [s.summary[s.summary["system"] == "elo"] for s in summaries]
    assert float(elo[0]["rmse"].iloc[0]) != float(elo[1]["rmse"].iloc[0])


def _fail(
    monkeypatch: pytest.MonkeyPatch,
    when: Any,
) -> None:
    """Make ``run_one`` raise for the tasks where ``when(config, seed)`` holds."""
    real = simulator.tasks.run.run_one

    def flaky(config: RunConfig, seed: Any) -> Any:
        if when(config, seed):
            raise RuntimeError(f"boom at K={_k(config)}")
        return real(config, seed)

    monkeypatch.setattr(simulator.tasks.run, "run_one", flaky)


def test_failed_tasks_are_reported_and_the_rest_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A point whose tasks all fail has no result; others keep theirs."""
    _fail(monkeypatch, lambda config, seed: _k(config) == 20)
    result = run_sweep(parse_config(TINY_GRID), seed=5, jobs=1, progress=False)
    assert [f.point for f in result.failures] == ["k_factor=20"] * 2
    assert [f.replicate for f in result.failures] == [0, 1]
    assert [f.seed for f in result.failures] == [
        "SeedSequence(5).spawn(2)[0]",
        "SeedSequence(5).spawn(2)[1]",
    ]
    for f in result.failures:
        assert f.error == "RuntimeError: boom at K=20"
        assert "boom at K=20" in f.trace and "Traceback" in f.trace
    assert result.results[1] is None
    assert result.results[0] is not None and result.results[2] is not None


def test_run_equals_the_sweep_of_one_point() -> None:
    """run() of a single config gives the sweep's only point, table for table."""
    config = parse_config(TINY)
    single = run(config, seed=9, jobs=1, progress=False)
    swept = run_sweep(config, seed=9, jobs=1, progress=False)
    assert len(swept.points) == 1 and swept.points[0].name == "base"
    other = swept.results[0]
    assert other is not None and single.seed == other.seed == 9
    for name in TABLES:
        pd.testing.assert_frame_equal(
            getattr(single.summary["otb"], name), getattr(other.summary["otb"], name)
        )


def test_run_refuses_a_sweep_and_reports_a_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """run() of a sweep is an error; a failed replicate raises with its seed."""
    with pytest.raises(RuntimeError, match="run_sweep"):
        run(parse_config(TINY_GRID), seed=1, jobs=1, progress=False)
    _fail(monkeypatch, lambda config, seed: seed.spawn_key == (1,))
    with pytest.raises(RuntimeError, match=re.escape("Replicate 1 (SeedSequence(4)")):
        run(parse_config(TINY), seed=4, jobs=1, progress=False)


# --------------------------------------------------------------------------
# The sweep table and report


def _summaries(result: SweepResult) -> list[Any]:
    return [None if r is None else r.summary for r in result.results]


def test_sweep_table_has_a_row_per_point_arena_and_system(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
) -> None:
    """One row per point x arena x system, with intervals; failed points left out."""
    result, _ = sweep
    names = [p.name for p in result.points]
    table = sweep_table(names, _summaries(result))
    assert list(zip(table["point"], table["system"], strict=True)) == [
        (n, s) for n in SWEEP_NAMES for s in ("fide", "elo")
    ]
    assert set(table["arena"]) == {"otb"}
    for c in ("n50_median", "rmse", "log_loss", "offset"):
        assert {c, f"{c}_lo", f"{c}_hi"} <= set(table.columns)
    summaries = _summaries(result)
    summaries[1] = None
    partial = sweep_table(names, summaries)
    assert SWEEP_NAMES[1] not in set(partial["point"]) and len(partial) == 6
    empty = sweep_table(names, [None] * 4)
    assert empty.empty and list(empty.columns)[:3] == ["point", "arena", "system"]
    assert set(SWEEP_COLUMNS) <= set(empty.columns)


def test_format_sweep_table_shows_every_row(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
) -> None:
    """The terminal table has a header and a line per row, with the point names."""
    result, _ = sweep
    text = format_sweep_table(
        sweep_table([p.name for p in result.points], _summaries(result))
    )
    lines = [line for line in text.splitlines() if line.strip()]
    assert "N50" in lines[0] and "RMSE" in lines[0]
    for name in SWEEP_NAMES:
        assert sum(name in line for line in lines) >= 2  # fide and elo rows


def _write(out: Path, result: SweepResult, **kwargs: Any) -> Path:
    names = kwargs.pop("names", [p.name for p in result.points])
    return write_sweep_report(
        out,
        names,
        kwargs.pop("summaries", _summaries(result)),
        kwargs.pop("failures", []),
        config_text="title = 'sweep'\n",
        point_configs=[dump_config(p.config) for p in result.points],
        seed=result.seed,
        versions={"ratingsim": "test"},
        title="sweep",
        figures=False,
        **kwargs,
    )


def test_write_sweep_report_files(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
    tmp_path: Path,
) -> None:
    """The folder: sweep.md/csv, config, seed, a report per point, failures.csv."""
    result, _ = sweep
    failure = {
        "point": SWEEP_NAMES[1],
        "replicate": 1,
        "seed": "SeedSequence(3).spawn(2)[1]",
        "error": "RuntimeError: boom",
        "trace": "Traceback\n  line\nRuntimeError: boom",
    }
    out = _write(tmp_path / "out", result, failures=[failure])
    assert {p.name for p in out.iterdir()} == {
        "sweep.md",
        "sweep.csv",
        "failures.csv",
        "config.toml",
        "seed.txt",
        "versions.json",
        "points",
    }
    slugs = {p.name for p in (out / "points").iterdir()}
    assert slugs == {
        "wide-k_factor=10",
        "wide-k_factor=40",
        "also-wide-k_factor=10",
        "also-wide-k_factor=40",
    }
    for slug in slugs:
        report = (out / "points" / slug / "report.md").read_text(encoding="utf-8")
        assert report.startswith("# sweep: ")
        assert (out / "points" / slug / "config.toml").is_file()
    rows = list(csv.DictReader((out / "failures.csv").open(encoding="utf-8")))
    assert rows == [{k: str(v) for k, v in failure.items()}]
    md = (out / "sweep.md").read_text(encoding="utf-8")
    assert "## Failed tasks" in md and "SeedSequence(3).spawn(2)[1]" in md
    assert (out / "seed.txt").read_text(encoding="utf-8") == "3\n"
    assert len(pd.read_csv(out / "sweep.csv")) == 8


def test_write_sweep_report_distinct_folders_for_names_alike(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
    tmp_path: Path,
) -> None:
    """Point names that make the same folder name still get a folder each."""
    result, _ = sweep
    names = ["a b", "a-b", "a/b", ".."]
    out = _write(tmp_path / "out", result, names=names)
    folders = sorted((out / "points").iterdir())
    assert len(folders) == 4
    titles = {
        (f / "report.md").read_text(encoding="utf-8").splitlines()[0] for f in folders
    }
    assert titles == {f"# sweep: {n}" for n in names}
    assert not (out / "report.md").exists()


def test_write_sweep_report_leaves_nothing_when_it_fails(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A failure midway (the second point's report) leaves no folder behind."""
    result, _ = sweep
    real = simulator.evaluation.report.write_report
    done: list[Path] = []

    def second_fails(out: Path, *args: Any, **kwargs: Any) -> Path:
        if done:
            raise OSError("disk full")
        done.append(real(out, *args, **kwargs))
        return done[-1]

    monkeypatch.setattr(simulator.evaluation.report, "write_report", second_fails)
    with pytest.raises(OSError, match="disk full"):
        _write(tmp_path / "out", result)
    assert done and not done[0].exists()
    assert list(tmp_path.iterdir()) == []


def test_write_sweep_report_refuses_a_full_folder(
    sweep: tuple[SweepResult, list[tuple[RunConfig, np.random.SeedSequence]]],
    tmp_path: Path,
) -> None:
    """A folder that exists and is not empty is refused and left as it was."""
    result, _ = sweep
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    with pytest.raises(OutputError, match="not empty"):
        _write(out, result)
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


# --------------------------------------------------------------------------
# ratingsim run with a sweep


def _cli(config: Path, out: Path, *extra: str) -> int:
    return main(
        [
            "run",
            str(config),
            "--out",
            str(out),
            "--seed",
            "3",
            "--jobs",
            "1",
            "--quiet",
            "--no-figures",
            *extra,
        ]
    )


def test_cli_sweep_writes_the_sweep_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """sweep.md, sweep.csv (a row per point x system) and points/<slug>/report.md."""
    config = tmp_path / "sweep.toml"
    config.write_text(SWEEP, encoding="utf-8")
    out = tmp_path / "out"
    assert _cli(config, out) == 0
    printed = capsys.readouterr().out
    for name in SWEEP_NAMES:
        assert name in printed
    table = pd.read_csv(out / "sweep.csv")
    assert list(zip(table["point"], table["system"], strict=True)) == [
        (n, s) for n in SWEEP_NAMES for s in ("fide", "elo")
    ]
    assert "# sweep" in (out / "sweep.md").read_text(encoding="utf-8")
    assert not (out / "failures.csv").exists()
    for slug in ("wide-k_factor=10", "also-wide-k_factor=40"):
        assert (out / "points" / slug / "report.md").is_file()
        assert not list((out / "points" / slug).glob("*.png"))
    saved = parse_config((out / "config.toml").read_text(encoding="utf-8"))
    assert complete_config(saved) == complete_config(
        dataclasses.replace(parse_config(SWEEP), seed=3)
    )
    point = parse_config(
        (out / "points" / "wide-k_factor=40" / "config.toml").read_text(
            encoding="utf-8"
        )
    )
    assert _k(point) == 40 and point.variant == () and point.seed == 3


def test_cli_sweep_with_a_failed_task_exits_1(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A failed task: exit 1, failures.csv names it, the other reports exist."""
    _fail(
        monkeypatch,
        lambda config, seed: (
            _k(config) == 20 or (_k(config) == 40 and seed.spawn_key == (1,))
        ),
    )
    config = tmp_path / "grid.toml"
    config.write_text(TINY_GRID, encoding="utf-8")
    out = tmp_path / "out"
    assert _cli(config, out) == 1
    err = capsys.readouterr().err
    assert "FAILED point 'k_factor=20', replicate 0" in err
    failures = pd.read_csv(out / "failures.csv")
    assert list(
        zip(failures["point"], failures["replicate"], failures["seed"], strict=True)
    ) == [
        ("k_factor=20", 0, "SeedSequence(3).spawn(2)[0]"),
        ("k_factor=20", 1, "SeedSequence(3).spawn(2)[1]"),
        ("k_factor=40", 1, "SeedSequence(3).spawn(2)[1]"),
    ]
    assert set(failures["error"]) == {
        "RuntimeError: boom at K=20",
        "RuntimeError: boom at K=40",
    }
    assert (out / "points" / "k_factor=10" / "report.md").is_file()
    assert (out / "points" / "k_factor=40" / "report.md").is_file()
    assert not (out / "points" / "k_factor=20").exists()
    assert set(pd.read_csv(out / "sweep.csv")["point"]) == {
        "k_factor=10",
        "k_factor=40",
    }
    assert "Failed tasks" in (out / "sweep.md").read_text(encoding="utf-8")


def test_cli_run_sends_tasks_to_dask(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--dask ADDRESS hands every task to the Dask executor at that address."""
    seen: list[str] = []

    def fake_dask(calls: list[tuple[RunConfig, Any]], address: str) -> Any:
        seen.append(address)
        for config, seed in calls:
            yield run_task(config, seed)

    def no_local(*args: Any) -> Any:
        raise AssertionError("ran locally")

    monkeypatch.setattr(simulator.tasks.run, "_dask", fake_dask)
    monkeypatch.setattr(simulator.tasks.run, "_local", no_local)
    config = tmp_path / "tiny.toml"
    config.write_text(TINY, encoding="utf-8")
    out = tmp_path / "out"
    assert _cli(config, out, "--dask", "tcp://127.0.0.1:8786") == 0
    assert seen == ["tcp://127.0.0.1:8786"]
    assert "on the Dask cluster at tcp://127.0.0.1:8786" in capsys.readouterr().err
    assert (out / "report.md").is_file()
