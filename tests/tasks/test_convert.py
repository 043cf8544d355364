"""``ratingsim convert`` and its table: built from a small conversion sweep.

The decomposition must add up (the parts and what remains equal the gap, at
every grid rating), every number must have an interval that contains it, the
command must answer both ways and refuse bad input in one line, and the
shipped table must be one this code reads.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from simulator.cli import main
from simulator.config import parse_config
from simulator.tasks.conversion_table import build_table, table_json
from simulator.tasks.convert import TableError, convert, load_table
from simulator.tasks.run import run_sweep

SMALL = """
years = 1.5
start_date = "2023-09-01"
replicates = 3

[population]
n_players = 400

[[arena]]
name = "otb"
systems = [{ system = "fide-history", label = "fide" }]

[[arena]]
name = "lichess-blitz"
systems = [{ system = "lichess", speed = "blitz" }]
outcomes = "online"
[arena.schedule]
kind = "online"
rounds_per_day = 2
activity_scale = 3.0
[arena.seeding]
source = "flat"
rd = 500.0
n_games = 0

[[comparison]]
x = "otb/fide"
y = "lichess-blitz/lichess"

[[variant]]
name = "base"

[[variant]]
name = "the 2024 compression"
set = { "arena.0.systems.0.compression" = false }

[[variant]]
name = "FIDE's floor"
set = { "arena.0.systems.0.compression" = false, "arena.0.systems.0.floor" = 0.0 }

[[variant]]
name = "Lichess's dynamics"
set = { "arena.0.systems.0.compression" = false, "arena.0.systems.0.floor" = 0.0, \
"arena.1.systems.0" = { system = "glicko2", label = "lichess" } }
"""


@pytest.fixture(scope="module")
def table_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sweep = run_sweep(parse_config(SMALL), seed=5, jobs=1, progress=False)
    table = build_table(sweep, experiment="small", command="test")
    path = tmp_path_factory.mktemp("convert") / "table.json"
    path.write_text(table_json(table), encoding="utf-8")
    return path


def test_parts_add_up_to_the_gap(table_file: Path) -> None:
    data = json.loads(table_file.read_text())
    assert [c["label"] for c in data["causes"]] == [
        "the 2024 compression",
        "FIDE's floor",
        "Lichess's dynamics",
    ]
    assert set(data["directions"]) == {"lichess-blitz>fide", "fide>lichess-blitz"}
    for d in data["directions"].values():
        assert len(d["rating"]) > 5
        for i in range(len(d["rating"])):
            parts = sum(d["parts"][c["name"]][i][0] for c in data["causes"])
            assert parts + d["remaining"][i][0] == pytest.approx(
                d["gap"][i][0], abs=1e-9
            )
            for field in ("expected", "gap", "remaining"):
                est, lo, hi = d[field][i]
                assert lo <= est <= hi


def test_directions_are_consistent(table_file: Path) -> None:
    """The gap is online minus FIDE both ways, and the conversion is increasing."""
    table = load_table(table_file)
    d = table.directions["lichess-blitz>fide"]
    mid = d["rating"][len(d["rating"]) // 2]
    there = convert("lichess-blitz", mid, table=table)
    assert there.target == "fide"
    assert there.gap.estimate == pytest.approx(mid - there.expected.estimate)
    assert there.parts[-1].name == "remaining"
    assert sum(p.estimate for p in there.parts) == pytest.approx(there.gap.estimate)
    fide = table.directions["fide>lichess-blitz"]
    mid_f = fide["rating"][len(fide["rating"]) // 2]
    back = convert("fide", mid_f, table=table)
    assert back.target == "lichess-blitz"
    assert back.gap.estimate == pytest.approx(back.expected.estimate - mid_f)
    lo, hi = d["rating"][1], d["rating"][-2]
    assert (
        convert("lichess-blitz", lo, table=table).expected.estimate
        < convert("lichess-blitz", hi, table=table).expected.estimate
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["lichess-bullet", "1900"], "unknown pool 'lichess-bullet'"),
        (["lichess-blitz", "99999"], "must be a rating"),
        (["lichess-blitz", "abc"], "is not a number"),
        (["lichess-blitz", "50"], "outside what the table covers"),
        (["lichess-blitz", "1800", "--to", "lichess-blitz"], "does not convert"),
        (["lichess-blitz"], "give a pool and a rating"),
        (["--build", "c.toml", "--seed", "-1"], "must lie in [0, 2**128)"),
        (["--build", "c.toml", "--replicates", "0"], "must be at least 1"),
    ],
)
def test_bad_queries_are_one_line_errors(
    table_file: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["convert", *args, "--table", str(table_file)])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert message in err and len(err.splitlines()) == 1 and "Traceback" not in err


def test_cli_prints_the_decomposition(
    table_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mid = load_table(table_file).directions["lichess-blitz>fide"]["rating"][5]
    assert main(["convert", "lichess-blitz", str(mid), "--table", str(table_file)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"lichess-blitz {mid:.0f} -> fide ")
    for label in ("the 2024 compression", "FIDE's floor", "what remains"):
        assert label in out
    assert (
        main(
            ["convert", "lichess-blitz", str(mid), "--json", "--table", str(table_file)]
        )
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "lichess-blitz" and len(data["parts"]) == 4


def test_a_malformed_table_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 1}')
    with pytest.raises(TableError, match="not a conversion table"):
        load_table(bad)
    bad.write_text("not json")
    with pytest.raises(TableError, match="not a conversion table"):
        load_table(bad)
    with pytest.raises(TableError, match="no conversion table"):
        load_table(tmp_path / "missing.json")


def test_non_cumulative_variants_are_refused() -> None:
    config = parse_config(
        SMALL.replace(
            '"arena.0.systems.0.compression" = false, "arena.0.systems.0.floor"',
            '"arena.0.systems.0.floor"',
        ).replace("years = 1.5", "years = 0.2")
    )
    sweep = run_sweep(config, seed=5, jobs=1, progress=False, replicates=1)
    with pytest.raises(ValueError, match="cumulatively"):
        build_table(sweep)


def test_the_shipped_table_answers_every_pool_both_ways() -> None:
    """The package's table is readable and covers FIDE and every Lichess speed."""
    table = load_table()
    assert table.pools[0] == "fide"
    speeds = [p for p in table.pools if p != "fide"]
    assert {"lichess-blitz", "lichess-rapid", "lichess-classical"} <= set(speeds)
    for pool in speeds:
        for source, target in ((pool, "fide"), ("fide", pool)):
            grid = table.directions[f"{source}>{target}"]["rating"]
            c = convert(source, grid[len(grid) // 2], target, table=table)
            assert math.isfinite(c.expected.estimate)
            assert sum(p.estimate for p in c.parts) == pytest.approx(c.gap.estimate)


def test_convert_answers_without_the_simulation_stack() -> None:
    """The command's path imports no numpy, pandas or numba."""
    code = (
        "import sys; from simulator.__main__ import main; "
        "rc = main(['convert', 'lichess-blitz', '1800']); "
        "print(sorted(m for m in ('numpy', 'pandas', 'numba') if m in sys.modules)); "
        "sys.exit(rc)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


TWO_SPEEDS = (
    SMALL.replace("n_players = 400", "n_players = 250")
    .replace("years = 1.5", "years = 1.0")
    .replace(
        """[[comparison]]""",
        """[[arena]]
name = "lichess-rapid"
systems = [{ system = "lichess", speed = "rapid" }]
outcomes = "online"
strength_from = "lichess-blitz"
[arena.schedule]
kind = "online"
[arena.seeding]
source = "flat"
rd = 500.0
n_games = 0

[[comparison]]
x = "lichess-blitz/lichess"
y = "lichess-rapid/lichess"

[[comparison]]""",
        1,
    )
)


def test_build_with_out_writes_the_folder_and_the_same_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--build --out`` writes the folder and the table from one run.

    The table is the one ``--build`` alone makes; a comparison of two online
    pools goes into the report, not the table.
    """
    config = tmp_path / "two.toml"
    config.write_text(TWO_SPEEDS.split('[[variant]]\nname = "FIDE\'s floor"')[0])
    alone, with_out = tmp_path / "alone.json", tmp_path / "with.json"
    common = ["convert", "--build", str(config), "--seed", "3", "--jobs", "1"]
    assert main([*common, "--table-out", str(alone)]) == 0
    folder = tmp_path / "results"
    assert main([*common, "--table-out", str(with_out), "--out", str(folder)]) == 0
    capsys.readouterr()
    assert (
        json.loads(alone.read_text())["directions"]
        == (json.loads(with_out.read_text())["directions"])
    )
    assert set(json.loads(alone.read_text())["directions"]) == {
        "fide>lichess-blitz",
        "lichess-blitz>fide",
    }
    report = (folder / "points" / "base" / "report.md").read_text()
    assert "lichess-blitz/lichess vs lichess-rapid/lichess" in report
    assert (folder / "sweep.md").is_file()
    for ext in ("png", "svg"):
        assert (folder / f"conversion.{ext}").is_file()
    # The table's regression is the base world's, as its report gives it.
    fit = json.loads(with_out.read_text())["fits"]["lichess-blitz"]
    rows = pd.read_csv(folder / "points" / "base" / "comparison.csv")
    blitz = rows["comparison"].str.endswith("blitz/lichess")
    row = rows[(rows["kind"] == "fit") & blitz]
    for field in ("slope", "intercept", "residual_sd", "correlation"):
        mean, lo, hi = fit[field]
        assert lo <= mean <= hi
        assert mean == pytest.approx(float(row[field].iloc[0]), rel=1e-9)


@pytest.mark.parametrize(
    "option", [["--out", "x"], ["--table-out", "t.json"], ["--seed", "3"], ["--force"]]
)
def test_build_options_without_build_are_refused(
    option: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["convert", "lichess-blitz", "1500", *option])
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.endswith(f"{option[0]} needs --build")
    assert len(err.splitlines()) == 1
