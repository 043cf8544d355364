"""The examples run: ``examples/quickstart.py`` as a plain script, in a subprocess.

It is the notebook of the README (jupytext "percent" format); run here as CI
runs it, with matplotlib's non-interactive backend and its figures drawn into
a temporary folder.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "examples" / "quickstart.py"
#: The figures the quickstart draws through the API.
FIGURES = (
    "history_rated.png",
    "history_simulated.png",
    "error_vs_games.png",
    "calibration.png",
    "offset.png",
)


def test_quickstart_is_a_percent_notebook() -> None:
    """Jupytext's header and ``# %%`` cells, Markdown cells among them."""
    text = QUICKSTART.read_text(encoding="utf-8")
    assert "format_name: percent" in text
    assert text.count("\n# %%\n") >= 4
    assert text.count("# %% [markdown]") >= 4


def test_quickstart_runs_and_draws_its_figures(tmp_path: Path) -> None:
    """The script ends cleanly and writes every figure (a PNG, not empty)."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(QUICKSTART), str(tmp_path)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Rated(Elo K16, Elo K40, Glicko-2;" in done.stdout
    assert "Tuned(k_factor=" in done.stdout
    assert "RunResult(arenas otb; 2 replicates; seed 1)" in done.stdout
    for name in FIGURES:
        png = (tmp_path / name).read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 10_000, name
