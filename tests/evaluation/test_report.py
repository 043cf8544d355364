"""Tests of simulator.evaluation.report: the results folder, whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from synthetic_summary import (
    CONFIG,
    SYSTEMS,
    VERSIONS,
    three_replicates,
    write,
)

from simulator._atomic import OutputError
from simulator.evaluation import figures
from simulator.evaluation.figures import FIGURES, FORMATS
from simulator.evaluation.report import TABLES
from simulator.evaluation.results import Summary


@pytest.fixture(scope="module")
def summary() -> Summary:
    return three_replicates()


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, summary: Summary) -> Path:
    """One results folder, written once for the tests that only read it."""
    return write(tmp_path_factory.mktemp("report") / "results", summary)


def test_write_report_writes_every_file(written: Path) -> None:
    """The folder holds report.md, every CSV, every PNG, the config, seed, versions."""
    out = written
    assert out.name == "results"
    names = {p.name for p in out.iterdir()}
    expected = {"report.md", "config.toml", "seed.txt", "versions.json"}
    expected |= {f"{t}.csv" for t in TABLES}
    expected |= {f"{f}.{ext}" for f in FIGURES for ext in FORMATS}
    expected |= {"bands.csv"}  # the recorded players give an error-by-band table
    expected |= {"groups.csv"}  # and their newcomers the per-level groups
    # ... and the figure of convergence by strength level
    expected |= {f"convergence_by_level.{ext}" for ext in FORMATS}
    expected |= {"paired.csv", "paired_all.csv"}  # several systems: their differences
    assert names == expected
    assert (out / "config.toml").read_text() == CONFIG
    assert (out / "seed.txt").read_text().strip() == "12345"
    assert json.loads((out / "versions.json").read_text()) == VERSIONS
    table = pd.read_csv(out / "summary.csv")
    assert list(table["system"]) == list(SYSTEMS)
    pred = pd.read_csv(out / "prediction.csv")
    pred = pred[pred["pairs"] == "all"]
    assert list(pred["system"]) == [*SYSTEMS, "oracle", "coin flip"]


def test_existing_folder_raises_and_is_left_untouched(
    tmp_path: Path, summary: Summary
) -> None:
    """A non-empty results folder raises OutputError and keeps its content."""
    out = tmp_path / "results"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    with pytest.raises(OutputError, match="is a folder that is not empty"):
        write(out, summary)
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    assert (out / "mine.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


def test_existing_file_raises(tmp_path: Path, summary: Summary) -> None:
    """A file in the way of the results folder raises OutputError, also forced."""
    out = tmp_path / "results"
    out.write_text("not a folder")
    with pytest.raises(OutputError, match="exists; pass --force"):
        write(out, summary)
    with pytest.raises(OutputError, match="is a file; choose another"):
        write(out, summary, force=True)
    assert out.read_text() == "not a folder"


def test_empty_existing_folder_is_filled(tmp_path: Path, summary: Summary) -> None:
    """An existing empty folder is accepted and replaced by the full report."""
    out = tmp_path / "results"
    out.mkdir()
    write(out, summary, figures=False)
    assert (out / "report.md").exists()


def test_failure_midway_leaves_no_folder(
    tmp_path: Path, summary: Summary, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A figure that fails leaves neither the folder nor a temporary folder behind."""

    def broken(*args: object) -> None:
        raise RuntimeError("figure failed")

    monkeypatch.setattr(figures, "_calibration", broken)
    with pytest.raises(RuntimeError, match="figure failed"):
        write(tmp_path / "results", summary)
    assert list(tmp_path.iterdir()) == []


def test_without_figures(tmp_path: Path, summary: Summary) -> None:
    """figures=False writes tables and text but no PNG and no image link."""
    out = write(tmp_path / "results", summary, figures=False)
    assert not list(out.glob("*.png"))
    assert "![" not in (out / "report.md").read_text()


def test_missing_parents_are_created(tmp_path: Path, summary: Summary) -> None:
    """The results folder may be nested in folders that do not exist yet."""
    out = write(tmp_path / "a" / "b" / "results", summary, figures=False)
    assert (out / "summary.csv").exists()


def test_tables_and_text_are_reproducible(tmp_path: Path, summary: Summary) -> None:
    """The same summary written twice gives byte-identical files."""
    a = write(tmp_path / "a", summary)
    b = write(tmp_path / "b", three_replicates())
    for path in sorted(a.iterdir()):
        assert path.read_bytes() == (b / path.name).read_bytes(), path.name


def test_several_arenas(tmp_path: Path, summary: Summary) -> None:
    """A mapping of arenas gives an arena column and one figure set per arena."""
    out = write(tmp_path / "results", {"otb": summary, "online": summary})
    table = pd.read_csv(out / "summary.csv")
    assert list(table.columns[:2]) == ["arena", "system"]
    assert list(table["arena"]) == ["otb"] * 3 + ["online"] * 3
    for stem in FIGURES:
        assert (out / f"{stem}-otb.png").exists()
        assert (out / f"{stem}-online.png").exists()
    text = (out / "report.md").read_text()
    assert "## Arena otb" in text and "## Arena online" in text
