"""Replay histories and predictions: labelled systems, tables, files, empty inputs."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simulator.cli import main
from simulator.data.csv_records import csv_batches
from simulator.data.records import Players
from simulator.systems import make_system
from simulator.tasks.replay.labels import labelled_systems, parse_system
from simulator.tasks.replay.output import read_table, write_table
from simulator.tasks.replay.walk import replay


def random_rows(rng: np.random.Generator, n_games: int, n_players: int) -> list[str]:
    """A CSV of random games between ``n_players`` players, four a day."""
    out = ["white,black,score,date"]
    for i in range(n_games):
        a, b = rng.choice(n_players, 2, replace=False)
        day = dt.date(2024, 1, 1) + dt.timedelta(days=i // 4)
        out.append(f"P{a},P{b},{rng.choice(['1', '0', '1/2'])},{day}")
    return out


def test_two_elo_k_values_share_one_replay(seed: int) -> None:
    """Labelled Elo K 20 and K 40 in one replay equal each replayed alone."""
    rows = random_rows(np.random.default_rng(seed), 300, 12)
    both = replay(
        csv_batches(rows), {"elo-k20": "elo:k_factor=20", "elo-k40": "elo:k_factor=40"}
    )
    alone = replay(csv_batches(rows), [make_system("elo", k_factor=20)])
    assert both.systems == ("elo-k20", "elo-k40")
    np.testing.assert_array_equal(both.ratings["elo-k20"], alone.ratings["elo"])
    assert not np.allclose(both.ratings["elo-k20"], both.ratings["elo-k40"])


def test_labels_and_their_errors() -> None:
    """Specs parse; a label twice or a bad parameter is an error naming it."""
    assert parse_system("g=glicko2:tau=0.3")[1].tau == 0.3
    assert [label for label, _ in labelled_systems([("a", "elo"), "elo"])] == [
        "a",
        "elo",
    ]
    with pytest.raises(ValueError, match="elo is given more than once"):
        labelled_systems(["elo", make_system("elo")])
    with pytest.raises(ValueError, match="'k_facto'"):
        parse_system("x=elo:k_facto=3")
    with pytest.raises(ValueError, match="KEY=VALUE"):
        parse_system("x=elo:k_factor")


def test_history_ends_at_the_final_ratings(seed: int) -> None:
    """Each player's last history row is their final rating, in every system."""
    rows = random_rows(np.random.default_rng(seed), 200, 10)
    players = Players()
    result = replay(
        csv_batches(rows, players=players),
        ["elo", "lichess", "glicko2", "fide"],
        players=players,
        start_rating=1500.0,
        history=True,
    )
    h = result.history
    assert h is not None
    assert pd.api.types.is_datetime64_any_dtype(h["date"])
    assert h["date"].min() == pd.Timestamp("2024-01-01")
    for label in result.systems:
        last = h[h["system"] == label].groupby("player_id")["rating"].last()
        final = result.ratings[label].to_numpy()[last.index.to_numpy()]
        np.testing.assert_allclose(last.to_numpy(), final)
    # Per-game systems: two rows per game (both players' state after it).
    assert (h["system"] == "elo").sum() == 2 * result.n_games
    assert {"rd", "volatility", "k", "n_games"} <= set(h.columns)
    names = dict(zip(h["player_id"], h["player"].astype(str), strict=True))
    assert names == {i: players.names[i] for i in names}


def test_predictions_match_the_metrics(seed: int) -> None:
    """One row per game and system; probabilities keep E; log loss as printed."""
    rows = random_rows(np.random.default_rng(seed), 240, 8)
    result = replay(csv_batches(rows), ["elo", "glicko2"], predictions=True)
    p = result.predictions
    assert p is not None and len(p) == 2 * result.n_games
    np.testing.assert_allclose(p["p_win"] + p["p_draw"] + p["p_loss"], 1.0)
    np.testing.assert_allclose(p["p_win"] + p["p_draw"] / 2, p["expected"])
    for label in result.systems:
        mine = p[p["system"] == label]
        e, s = mine["expected"].to_numpy(), mine["result"].to_numpy()
        ll = -np.mean(s * np.log(e) + (1 - s) * np.log(1 - e))
        row = result.prediction.set_index("system").loc[label]
        assert ll == pytest.approx(row["log_loss"], rel=1e-12)
        assert result.draw_parameters[label] > 0


def test_empty_or_consumed_input_is_an_error() -> None:
    """No games is an error, not NaN metrics: also an iterator read before."""
    with pytest.raises(ValueError, match="No games to replay"):
        replay(iter([]), ["elo"])
    batches = csv_batches(random_rows(np.random.default_rng(0), 10, 4))
    replay(batches, ["elo"])
    with pytest.raises(ValueError, match="already read"):
        replay(batches, ["elo"])


@pytest.mark.parametrize("suffix", [".parquet", ".csv.gz"])
def test_tables_round_trip(tmp_path: Path, suffix: str) -> None:
    """A history written and read back keeps its values and dates."""
    rows = random_rows(np.random.default_rng(1), 60, 6)
    result = replay(csv_batches(rows), ["fide", "elo"], history=True)
    assert result.history is not None
    path = tmp_path / f"h{suffix}"
    write_table(result.history, path)
    back = read_table(path)
    assert list(back.columns) == list(result.history.columns)
    np.testing.assert_array_equal(
        back["date"].to_numpy("datetime64[D]"),
        result.history["date"].to_numpy("datetime64[D]"),
    )
    np.testing.assert_allclose(back["rating"], result.history["rating"])
    with pytest.raises(ValueError, match=r"\.parquet or \.csv\.gz"):
        write_table(result.history, tmp_path / "h.csv")


def test_cli_history_and_predictions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--history/--predictions write their files; bad ones fail before reading."""
    games = tmp_path / "g.csv"
    games.write_text("\n".join(random_rows(np.random.default_rng(2), 80, 6)) + "\n")
    hist, pred = tmp_path / "h.parquet", tmp_path / "p.csv.gz"
    argv = ["replay", str(games), "--quiet", "--systems", "k20=elo:k_factor=20,elo"]
    assert main([*argv, "--history", str(hist), "--predictions", str(pred)]) == 0
    capsys.readouterr()
    assert set(read_table(hist)["system"]) == {"k20", "elo"}
    assert len(read_table(pred)) == 2 * 80
    assert main([*argv, "--history", str(hist)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main([*argv, "--history", str(tmp_path / "h.txt")]) == 2
    assert ".parquet or .csv.gz" in capsys.readouterr().err
    empty = tmp_path / "e.pgn"
    empty.write_text("")
    assert main(["replay", str(empty), "--quiet"]) == 2
    assert "No games to replay" in capsys.readouterr().err


def test_cli_protocol_on_the_shipped_tournament(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The shipped TRF replays with a test window; the JSON holds its scores."""
    trf = str(Path(__file__).parents[2] / "data" / "swiss-madrid-2018.trf")
    argv = ["replay", trf, "--quiet", "--seed-ratings", "file", "--systems"]
    code = main([*argv, "fide,elo", "--test-from", "2018-05-13", "--format", "json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["n_games"] == 396
    protocol = data["protocol"]
    assert protocol["n_test"] + protocol["n_warmup"] == 396
    assert protocol["n_warmup"] > 0 and protocol["reference"] == "fide"
    assert {r["system"] for r in protocol["paired"]} == {"elo", "coin flip"}
    assert main([*argv, "elo", "--test-share", "0"]) == 2
    assert "(0, 1]" in capsys.readouterr().err
