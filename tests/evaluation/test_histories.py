"""Tests of simulator.evaluation.histories and the run's opt-in histories/predictions.

The engine's tables are checked against the recorder's own figures (the log
loss of the kept predictions is the prediction table's), and a run with the
outputs on against one with them off (the same tables: they draw nothing).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from simulator.config import ConfigError, parse_config
from simulator.engine import run_replicate
from simulator.evaluation.histories import (
    HISTORY_COLUMNS,
    PREDICTION_COLUMNS,
    HistoryRecorder,
    gather,
    read_table,
    write_table,
)
from simulator.evaluation.settings import OutputConfig
from simulator.tasks.run import run_experiment

BOTH = OutputConfig(histories=True, predictions=True)

#: A small run: a burn-in, a Swiss arena with a period and two per-game systems.
SMALL = """
title = "histories"
start_date = "2023-01-01"
years = 1.0
burn_in_years = 0.25
replicates = 1

[population]
n_players = 120

[[arena]]
name = "otb"
systems = ["fide", {system = "elo", label = "elo k10", k_factor = 10}, "elo"]
"""


def test_checkpoint_writes_a_row_only_where_a_rating_changed() -> None:
    """Rows for present players whose rating is new or changed; none for NaN."""
    rec = HistoryRecorder(["a"], 4, BOTH)
    true = np.array([1500.0, 1600.0, 1700.0, 1800.0])
    games = np.array([1, 2, 3, 4])
    present = np.array([True, True, True, False])
    rec.checkpoint(19723, {"a": np.array([1510.0, np.nan, 1700.0, 1800.0])},
                   true, games, present)  # fmt: skip
    rec.checkpoint(19730, {"a": np.array([1510.0, 1550.0, 1690.0, 1790.0])},
                   true + 1, games + 1, present)  # fmt: skip
    table = rec.history()
    assert list(table.columns) == list(HISTORY_COLUMNS)
    assert table["player"].tolist() == [0, 2, 1, 2]
    assert table["rating"].tolist() == [1510.0, 1700.0, 1550.0, 1690.0]
    assert table["true_strength"].tolist() == [1500.0, 1700.0, 1601.0, 1701.0]
    assert table["n_games"].tolist() == [1, 3, 3, 4]
    assert table["date"].astype(str).tolist() == ["2024-01-01"] * 2 + ["2024-01-08"] * 2


def test_predictions_are_one_row_per_game_and_system() -> None:
    """Long table, system-major, the same game index for every system."""
    rec = HistoryRecorder(["a", "b"], 4, BOTH)
    rec.record_games(
        19723.5,
        np.array([0, 2]),
        np.array([1, 3]),
        np.array([1.0, 0.5]),
        {"a": np.array([0.6, 0.4]), "b": np.array([0.7, 0.3])},
        np.array([0.65, 0.35]),
        np.array([0, 2], dtype=np.int8),
    )
    table = rec.predictions()
    assert list(table.columns) == list(PREDICTION_COLUMNS)
    assert table["system"].tolist() == ["a", "a", "b", "b"]
    assert table["game"].tolist() == [0, 1, 0, 1]
    assert table["expected"].tolist() == [0.6, 0.4, 0.7, 0.3]
    assert table["pairs"].tolist() == ["both rated", "both new"] * 2
    assert table["date"].astype(str).unique().tolist() == ["2024-01-01"]


def test_nothing_is_kept_when_not_asked() -> None:
    """Off: the tables are empty whatever was recorded."""
    rec = HistoryRecorder(["a"], 2, OutputConfig())
    rec.checkpoint(0, {"a": np.ones(2)}, np.ones(2), np.ones(2, np.intp),
                   np.ones(2, bool))  # fmt: skip
    assert rec.history().empty and rec.predictions().empty
    assert not OutputConfig().any


def test_a_kept_table_without_rows_keeps_its_columns(tmp_path: Path) -> None:
    """Asked for but no game measured: a file with the columns and no row."""
    rec = HistoryRecorder(["a"], 2, BOTH)
    frame = gather({"otb": [rec.predictions()]})
    assert len(frame) == 0
    assert list(frame.columns) == ["arena", "replicate", *PREDICTION_COLUMNS]
    back = read_table(write_table(frame, tmp_path / "p.parquet"))
    assert list(back.columns) == list(frame.columns) and len(back) == 0
    assert gather({"otb": [pd.DataFrame()]}).columns.empty


def test_parquet_round_trip_keeps_dates_as_dates(tmp_path: Path) -> None:
    """Parquet with zstd and a date32 column; read back as datetime64."""
    rec = HistoryRecorder(["a"], 2, BOTH)
    rec.checkpoint(19723, {"a": np.array([1.0, 2.0])}, np.zeros(2),
                   np.zeros(2, np.intp), np.ones(2, bool))  # fmt: skip
    frame = gather({"otb": [rec.history()]})
    path = write_table(frame, tmp_path / "h.parquet")
    schema = pq.read_schema(path)
    assert str(schema.field("date").type) == "date32[day]"
    meta = pq.ParquetFile(path).metadata.row_group(0).column(0)
    assert meta.compression == "ZSTD"
    back = read_table(path)
    assert back["date"].dtype.kind == "M"
    assert back["rating"].tolist() == [1.0, 2.0]
    assert back["arena"].astype(str).tolist() == ["otb", "otb"]


def test_output_keys_are_checked() -> None:
    """``[output]`` keys are booleans; a wrong one names the key."""
    config = parse_config("[output]\nhistories = true\n")
    assert config.output == OutputConfig(histories=True)
    with pytest.raises(ConfigError, match=r"output\.histories"):
        parse_config("[output]\nhistories = 1\n")
    with pytest.raises(ConfigError, match=r"output\.history"):
        parse_config("[output]\nhistory = true\n")


def test_run_keeps_histories_and_predictions_without_changing_the_run(
    seed: int,
) -> None:
    """On: the same tables as off; histories and predictions agree with them."""
    off = parse_config(SMALL)
    on = dataclasses.replace(off, output=BOTH)
    plain = run_replicate(off, np.random.default_rng(seed))["otb"]
    kept = run_replicate(on, np.random.default_rng(seed))["otb"]
    assert plain.history.empty and plain.predictions.empty
    for name in ("summary", "timeseries", "prediction", "calibration", "bands"):
        pd.testing.assert_frame_equal(getattr(plain, name), getattr(kept, name))

    pred = kept.predictions
    table = kept.prediction
    for system, rows in pred.groupby("system", observed=True):
        row = table[(table["system"] == system) & (table["pairs"] == "all")]
        assert len(rows) == int(row["n_games"].iloc[0])
        e = np.clip(rows["expected"].to_numpy(), 1e-9, 1 - 1e-9)
        s = rows["result"].to_numpy()
        loss = -np.mean(s * np.log(e) + (1 - s) * np.log(1 - e))
        assert loss == pytest.approx(float(row["log_loss"].iloc[0]), rel=1e-9)
    # Only measured games: from the end of the burn-in on.
    assert pred["date"].min() >= pd.Timestamp("2023-04-02")

    hist = kept.history
    assert set(hist["system"].astype(str)) == {"fide", "elo k10", "elo"}
    assert hist["date"].min() >= pd.Timestamp("2023-04-02")
    assert hist["date"].max() <= pd.Timestamp("2023-12-31")
    # Rows are changes: no player has the same rating twice running.
    for _, rows in hist.groupby(["system", "player"], observed=True):
        assert (np.diff(rows["rating"].to_numpy()) != 0).all()
    # The truth beside the rating is the world's: the last checkpoint's rows
    # match the true strengths the accuracy figures used.
    last = hist[hist["date"] == hist["date"].max()]
    err = last["rating"] - last["true_strength"]
    assert err.abs().median() < 400


def test_cli_flag_writes_the_history_only(tmp_path: Path) -> None:
    """``ratingsim run --histories``: history.parquet, no predictions file."""
    from simulator.cli import main

    config = tmp_path / "small.toml"
    config.write_text(SMALL.replace("n_players = 120", "n_players = 60"))
    out = tmp_path / "out"
    code = main(
        [
            *("run", str(config), "--out", str(out), "--seed", "3", "--jobs", "1"),
            *("--no-figures", "--quiet", "--histories"),
        ]
    )
    assert code == 0
    history = read_table(out / "history.parquet")
    assert {"arena", "replicate", *HISTORY_COLUMNS} <= set(history.columns)
    assert not (out / "predictions.parquet").exists()
    saved = parse_config((out / "config.toml").read_text())
    assert saved.output == OutputConfig(histories=True)


def test_sweep_points_get_their_own_files(tmp_path: Path) -> None:
    """A sweep writes each point's predictions into the point's folder."""
    config = tmp_path / "sweep.toml"
    config.write_text(
        SMALL.replace("n_players = 120", "n_players = 80")
        + "\n[output]\npredictions = true\n\n"
        + '[[variant]]\nname = "a"\n\n[[variant]]\nname = "b"\n'
        + '[variant.set]\n"arena.0.systems.2.k_factor" = 40\n'
    )
    done = run_experiment(
        str(config),
        seed=1,
        out=tmp_path / "out",
        jobs=1,
        figures=False,
        progress=False,
        show=lambda _: None,
        say=lambda _: None,
    )
    assert done.path is not None
    tables = [read_table(done.path / "points" / p / "predictions.parquet")
              for p in ("a", "b")]  # fmt: skip
    elo = [t[t["system"] == "elo"]["expected"].to_numpy() for t in tables]
    same = [t[t["system"] == "fide"]["expected"].to_numpy() for t in tables]
    # The same games (common random numbers), another K: other predictions.
    assert np.array_equal(same[0], same[1])
    assert not np.array_equal(elo[0], elo[1])
