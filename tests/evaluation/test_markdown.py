"""Tests of simulator.evaluation.markdown: the text of report.md."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from synthetic_summary import SYSTEMS, three_replicates, write

from simulator.evaluation.figures import FIGURES


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One results folder, written once for the tests that only read it."""
    return write(tmp_path_factory.mktemp("report") / "results", three_replicates())


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
