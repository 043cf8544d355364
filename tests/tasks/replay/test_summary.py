"""What a replay measured, printed: the metrics table, JSON and the final ratings."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from test_records import write_csv
from test_walk import run


def test_cli_replay_table_json_and_ratings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``ratingsim replay`` prints metrics, JSON, and writes the final ratings."""
    path = tmp_path / "g.csv"
    write_csv(path, 3000, n_players=50)
    code, out, err = run(capsys, "replay", str(path), "--quiet", "--top", "3")
    assert (code, err) == (0, "")
    assert "3000 games of 50 players, 2024-01-01 to 2024-01-15" in out
    for name in ("fide", "glicko2", "lichess", "elo", "coin flip"):
        assert any(line.startswith(name + " ") for line in out.splitlines()), name
    assert "Ratings at the end (top 3 by fide" in out
    ratings_path = tmp_path / "r.csv"
    code, out, _ = run(
        capsys, "replay", str(path), "--systems", "elo,lichess", "--format", "json",
        "--ratings-out", str(ratings_path), "--quiet",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["systems"] == ["elo", "lichess"]
    assert [r["system"] for r in data["prediction"]] == ["elo", "lichess", "coin flip"]
    assert data["skipped"] == {"count": 0, "examples": []}
    frame = pd.read_csv(ratings_path)
    assert list(frame.columns) == ["player", "games", "last_date", "elo", "lichess"]
    assert len(frame) == 50 and frame["games"].sum() == 6000
