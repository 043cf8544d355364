"""Tests of simulator.evaluation.figures: the PNGs of a results folder."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
from synthetic_summary import three_replicates, write

from simulator.evaluation import figures
from simulator.evaluation.figures import FIGURES

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One results folder, written once for the tests that only read it."""
    return write(tmp_path_factory.mktemp("report") / "results", three_replicates())


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return int(width), int(height)


def test_figures_are_valid_pngs(written: Path) -> None:
    """Every figure is a PNG of a readable size with more than a blank canvas."""
    out = written
    for stem in FIGURES:
        path = out / f"{stem}.png"
        width, height = _png_size(path)
        assert width >= 500 and height >= 400
        assert path.stat().st_size > 20_000, stem


def test_styles_differ_between_systems() -> None:
    """The first four systems differ in colour, line style and marker alike."""
    styles = [figures._style(i) for i in range(4)]
    for k in range(3):
        assert len({s[k] for s in styles}) == 4
