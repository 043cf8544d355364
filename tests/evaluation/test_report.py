"""Tests of simulator.evaluation.report: the terminal table and the results folder."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simulator.evaluation import report
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.report import (
    FIGURES,
    TABLES,
    format_summary_table,
    write_report,
)
from simulator.evaluation.results import ReplicateResult, Summary, combine

SYSTEMS = ("fide", "glicko2", "lichess")
CONFIG = '[run]\ntitle = "test"\nyears = 1.0\n'
VERSIONS = {"ratingsim": "0.1.0", "numpy": np.__version__}
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _replicate(seed: int, n: int = 120, n_days: int = 40) -> ReplicateResult:
    """A small synthetic replicate: ratings converge towards the truth with games."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1800.0, 300.0, n)
    newcomer = np.arange(n) % 3 == 0
    games = np.zeros(n, np.intp)
    rec = Recorder(SYSTEMS, n)
    shift = {"fide": -20.0, "glicko2": 0.0, "lichess": 300.0}
    for day in range(n_days):
        w, b = np.arange(0, n, 2), np.arange(1, n, 2)
        oracle = 1.0 / (1.0 + 10.0 ** (-(true[w] - true[b]) / 400.0))
        score = (rng.random(w.size) < oracle).astype(np.float64)
        noise = {k: rng.normal(0.0, 0.05, w.size) for k in SYSTEMS}
        rec.record_games(
            {k: np.clip(oracle + noise[k], 0.01, 0.99) for k in SYSTEMS}, oracle, score
        )
        games += 1
        scale = 400.0 / np.sqrt(games)
        ratings = {
            k: true + shift[k] + scale * rng.normal(0.0, 1.0, n) + 0.1 * day
            for k in SYSTEMS
        }
        ratings["fide"][games < 5] = np.nan
        rec.checkpoint(
            19_800.0 + 7 * day,
            ratings,
            true,
            ~newcomer,
            games,
            newcomer,
            ~newcomer,
        )
    return rec.result()


@pytest.fixture(scope="module")
def summary() -> Summary:
    return combine([_replicate(s) for s in (1, 2, 3)])


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, summary: Summary) -> Path:
    """One results folder, written once for the tests that only read it."""
    return _write(tmp_path_factory.mktemp("report") / "results", summary)


def _write(out: Path, summary: Summary | dict[str, Summary], **kw: object) -> Path:
    args: dict[str, object] = {
        "config_text": CONFIG,
        "seed": 12345,
        "versions": VERSIONS,
        "title": "Test run",
    }
    args.update(kw)
    return write_report(out, summary, **args)  # type: ignore[arg-type]


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_write_report_writes_every_file(written: Path) -> None:
    """The folder holds report.md, every CSV, every PNG, the config, seed, versions."""
    out = written
    assert out.name == "results"
    names = {p.name for p in out.iterdir()}
    expected = {"report.md", "config.toml", "seed.txt", "versions.json"}
    expected |= {f"{t}.csv" for t in TABLES} | {f"{f}.png" for f in FIGURES}
    expected |= {"bands.csv"}  # the recorded players give an error-by-band table
    assert names == expected
    assert (out / "config.toml").read_text() == CONFIG
    assert (out / "seed.txt").read_text().strip() == "12345"
    assert json.loads((out / "versions.json").read_text()) == VERSIONS
    table = pd.read_csv(out / "summary.csv")
    assert list(table["system"]) == list(SYSTEMS)
    pred = pd.read_csv(out / "prediction.csv")
    assert list(pred["system"]) == [*SYSTEMS, "oracle", "coin flip"]


def test_figures_are_valid_pngs(written: Path) -> None:
    """Every figure is a PNG of a readable size with more than a blank canvas."""
    out = written
    for stem in FIGURES:
        path = out / f"{stem}.png"
        width, height = _png_size(path)
        assert width >= 500 and height >= 400
        assert path.stat().st_size > 20_000, stem


def test_markdown_has_every_system_and_reference_row(written: Path) -> None:
    """report.md has a row per system in its tables, the references, seed, versions."""
    out = written
    text = (out / "report.md").read_text()
    assert text.startswith("# Test run\n")
    for name in SYSTEMS:
        # Summary, prediction, convergence and drift tables.
        assert text.count(f"| {name} |") >= 4, name
    assert "| oracle (true strengths) |" in text
    assert "| coin flip (E = 0.5) |" in text
    assert "12345" in text
    assert f"| numpy | {np.__version__} |" in text
    assert "ratingsim run config.toml --seed 12345" in text
    for stem in FIGURES:
        assert f"]({stem}.png)" in text


def test_existing_folder_raises_and_is_left_untouched(
    tmp_path: Path, summary: Summary
) -> None:
    """A non-empty results folder raises FileExistsError and keeps its content."""
    out = tmp_path / "results"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="already exists"):
        _write(out, summary)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    assert (out / "mine.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


def test_existing_file_raises(tmp_path: Path, summary: Summary) -> None:
    """A file in the way of the results folder raises FileExistsError."""
    out = tmp_path / "results"
    out.write_text("not a folder")
    with pytest.raises(FileExistsError, match="not a folder"):
        _write(out, summary)
    assert out.read_text() == "not a folder"


def test_empty_existing_folder_is_filled(tmp_path: Path, summary: Summary) -> None:
    """An existing empty folder is accepted and replaced by the full report."""
    out = tmp_path / "results"
    out.mkdir()
    _write(out, summary, figures=False)
    assert (out / "report.md").exists()


def test_failure_midway_leaves_no_folder(
    tmp_path: Path, summary: Summary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A figure that fails leaves neither the folder nor a temporary folder behind."""

    def broken(*args: object) -> None:
        raise RuntimeError("figure failed")

    monkeypatch.setattr(report, "_plot_calibration", broken)
    with pytest.raises(RuntimeError, match="figure failed"):
        _write(tmp_path / "results", summary)
    assert list(tmp_path.iterdir()) == []


def test_without_figures(tmp_path: Path, summary: Summary) -> None:
    """figures=False writes tables and text but no PNG and no image link."""
    out = _write(tmp_path / "results", summary, figures=False)
    assert not list(out.glob("*.png"))
    assert "![" not in (out / "report.md").read_text()


def test_missing_parents_are_created(tmp_path: Path, summary: Summary) -> None:
    """The results folder may be nested in folders that do not exist yet."""
    out = _write(tmp_path / "a" / "b" / "results", summary, figures=False)
    assert (out / "summary.csv").exists()


def test_tables_and_text_are_reproducible(tmp_path: Path, summary: Summary) -> None:
    """The same summary written twice gives byte-identical files."""
    a = _write(tmp_path / "a", summary)
    b = _write(tmp_path / "b", combine([_replicate(s) for s in (1, 2, 3)]))
    for path in sorted(a.iterdir()):
        assert path.read_bytes() == (b / path.name).read_bytes(), path.name


def test_several_arenas(tmp_path: Path, summary: Summary) -> None:
    """A mapping of arenas gives an arena column and one figure set per arena."""
    out = _write(tmp_path / "results", {"otb": summary, "online": summary})
    table = pd.read_csv(out / "summary.csv")
    assert list(table.columns[:2]) == ["arena", "system"]
    assert list(table["arena"]) == ["otb"] * 3 + ["online"] * 3
    for stem in FIGURES:
        assert (out / f"{stem}-otb.png").exists()
        assert (out / f"{stem}-online.png").exists()
    text = (out / "report.md").read_text()
    assert "## Arena otb" in text and "## Arena online" in text


def test_summary_table_rows_and_intervals(summary: Summary) -> None:
    """The terminal table has a row per system and ± intervals with replicates."""
    text = format_summary_table(summary)
    lines = text.splitlines()
    assert "N50" in lines[1]
    for name in SYSTEMS:
        assert sum(line.startswith(name + " ") for line in lines) == 1
    assert "±" in text
    widths = {len(line) for line in lines[1:3]}
    assert len(widths) == 1  # header and rule line up


def test_summary_table_one_replicate_has_no_interval() -> None:
    """With one replicate the table shows values without ±."""
    text = format_summary_table(combine([_replicate(7)]))
    assert "±" not in text
    assert "1 replicate" in text


def test_summary_table_unconverged_reads_not_reached() -> None:
    """A median decided by censored newcomers reads 'not reached', not inf."""
    result = _replicate(5, n_days=3)
    text = format_summary_table(combine([result]))
    fide = next(line for line in text.splitlines() if line.startswith("fide"))
    assert "not reached" in fide


def test_styles_differ_between_systems() -> None:
    """The first four systems differ in colour, line style and marker alike."""
    styles = [report._style(i) for i in range(4)]
    for k in range(3):
        assert len({s[k] for s in styles}) == 4
