"""Tests of simulator.api: rate a DataFrame, simulate, tune, the world with a known K.

The tuning tests check the optimum against a world built so that it is known
(:func:`simulator.api.elo_world`: the true ratings move by Elo's rule with
K = 24) and, on the synthetic world, against a grid of the same objective.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from simulator import api
from simulator.systems import make_system
from simulator.systems.elo import logistic_expectation

GAMES = pd.DataFrame(
    {
        "white": ["Ann", "Bob", "Ann", "Cy"],
        "black": ["Bob", "Cy", "Cy", "Bob"],
        "result": ["1-0", "1/2-1/2", "0-1", 1],
        "date": ["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-03"],
    }
)

#: A small synthetic world: random pairing, true strengths pair nobody.
SMALL_WORLD = """
title = "tune"
years = 1.0
replicates = 1

[population]
n_players = 60

[[arena]]
name = "otb"
systems = ["elo"]
pairing_rating = "true"

[arena.schedule]
kind = "random"
activity_scale = 4.0
"""


def _elo_by_hand(k: float) -> dict[str, float]:
    """GAMES rated game by game with plain Elo."""
    r = {"Ann": 1500.0, "Bob": 1500.0, "Cy": 1500.0}
    scores = [1.0, 0.5, 0.0, 1.0]
    for w, b, s in zip(GAMES["white"], GAMES["black"], scores, strict=True):
        e = float(logistic_expectation(r[w] - r[b]))
        r[w] += k * (s - e)
        r[b] -= k * (s - e)
    return r


def test_rate_labels_two_elo_systems_side_by_side() -> None:
    """Two K values in one replay, each rating as Elo by hand."""
    rated = api.rate(
        GAMES, {"k16": make_system("elo", k_factor=16), "k32": "elo:k_factor=32"}
    )
    assert rated.systems == ("k16", "k32")
    table = rated.ratings.set_index("player")
    for label, k in (("k16", 16.0), ("k32", 32.0)):
        expected = _elo_by_hand(k)
        for name, value in expected.items():
            assert table.loc[name, label] == pytest.approx(value, abs=1e-9)
    text = repr(rated)
    assert "\n" not in text and len(text) < 300
    assert text.startswith("Rated(k16, k32; 4 games, 3 players")


def test_rate_gives_history_and_predictions_as_dataframes() -> None:
    """One prediction per game and system; a history row per rating change."""
    rated = api.rate(GAMES, ["elo", "glicko2"])
    assert rated.predictions is not None and rated.history is not None
    assert len(rated.predictions) == len(GAMES) * 2
    assert set(rated.predictions["system"].astype(str)) == {"elo", "glicko2"}
    elo = rated.history[rated.history["system"] == "elo"]
    assert len(elo) == 2 * len(GAMES)  # per-game: both players, every game
    assert elo["date"].dtype.kind == "M"
    assert rated.metrics["system"].tolist() == ["elo", "glicko2", "coin flip"]


def test_rate_reads_every_spelling_and_sorts_by_date() -> None:
    """Numbers or texts, dates as text or timestamps, rows in any date order."""
    spelled = GAMES.assign(
        result=[1.0, 0.5, 0.0, 1.0], date=pd.to_datetime(GAMES["date"])
    )
    shuffled = spelled.iloc[[2, 0, 3, 1]]
    a = api.rate(GAMES, ["elo"], history=False, predictions=False)
    b = api.rate(shuffled, ["elo"], history=False, predictions=False)
    ra = a.ratings.set_index("player")["elo"]
    rb = b.ratings.set_index("player")["elo"]
    # Games of one date keep their order: rows 2 and 3 are both on Jan 3.
    assert ra.sort_index().tolist() == pytest.approx(rb.sort_index().tolist())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g.drop(columns="result"), "Missing: result"),
        (lambda g: g.assign(result=["1-0", "2", 0, 1]), "row 1"),
        (lambda g: g.assign(result=[1, None, 0, 1]), "row 1"),
        (lambda g: g.assign(result=[True, 1, 0, 1]), "row 0"),
        (lambda g: g.assign(white=["Ann", None, "Ann", "Cy"]), "no name in row 1"),
        (lambda g: g.assign(date=["2024-01-01", None, "x", "y"]), "'date' column"),
        (lambda g: g.assign(black=["Ann", "Cy", "Cy", "Bob"]), "themself"),
        (lambda g: g.iloc[:0], "no games"),
    ],
)
def test_rate_names_what_is_wrong(change: object, message: str) -> None:
    """A bad column, result, date or pairing is a ValueError saying which."""
    with pytest.raises(ValueError, match=message):
        api.rate(change(GAMES), ["elo"])  # type: ignore[operator]


def test_simulate_returns_tables_and_histories() -> None:
    """TOML text in, the run's summary, history and predictions out."""
    text = SMALL_WORLD.replace("years = 1.0", "years = 0.3")
    result = api.simulate(text, seed=2, histories=True, predictions=True)
    assert isinstance(result, api.RunResult)
    assert "rmse" in result.summary["otb"].summary.columns
    assert {"arena", "replicate", "player", "rating", "true_strength"} <= set(
        result.history.columns
    )
    assert len(result.predictions) > 0
    assert repr(result) == "RunResult(arenas otb; 1 replicates; seed 2)"


def test_elo_world_moves_true_ratings_by_elo(seed: int) -> None:
    """Elo with the world's K reproduces its true ratings exactly."""
    games = api.elo_world(20, 30, k_factor=24, seed=seed)
    rated = api.rate(games, {"k24": "elo:k_factor=24"}, history=False)
    assert rated.predictions is not None
    pred = rated.predictions.sort_values("game")
    true = logistic_expectation(games["true_white"] - games["true_black"])
    # The replay keeps each day's games in order: game i is row i.
    assert np.allclose(pred["expected"].to_numpy(), true, atol=1e-12)


def test_tune_finds_the_known_best_k_on_a_replay(seed: int) -> None:
    """Tuning K on a replay of an Elo world with K = 24 finds 24 within 15 %.

    In :func:`simulator.api.elo_world` the true ratings move by Elo's rule
    with K = 24 from Elo's start of 1500, so plain Elo with K = 24 predicts
    every game with its true probability; the log loss is a proper scoring
    rule, minimised in expectation by the true probabilities, so 24 is the
    best K and any other loses a Kullback-Leibler divergence per game. On
    80,000 games the sample minimum lies within about 3 % of it (SD over
    seeds 0-15: 2.7 %, largest 5.3 %): 15 % is five standard deviations.
    """
    games = api.elo_world(100, 800, k_factor=24, seed=seed)
    tuned = api.tune("elo", games, {"k_factor": (2, 100)})
    assert tuned.params["k_factor"] == pytest.approx(24, rel=0.15)
    assert tuned.system == make_system("elo", k_factor=tuned.params["k_factor"])
    # The optimum beats K far from it on the same games.
    for k in (12.0, 48.0):
        worse = api.rate(games, {"k": make_system("elo", k_factor=k)}, history=False)
        assert float(worse.metrics["log_loss"].iloc[0]) > tuned.value
    assert tuned.metric == "log_loss" and len(tuned.trials) >= 5
    assert repr(tuned).startswith("Tuned(k_factor=")


def test_tune_on_a_synthetic_world_matches_a_grid() -> None:
    """On the engine's world the tuned K is no worse than a grid of K."""
    tuned = api.tune(
        "elo", SMALL_WORLD, {"k_factor": (2, 80)}, "log_loss", seed=1, xatol=1.0
    )
    k = tuned.params["k_factor"]
    assert 2 < k < 80
    grid = [
        api.tune("elo", SMALL_WORLD, {"k_factor": (x, x + 1e-6)}, "log_loss", seed=1)
        for x in (8.0, 70.0)
    ]
    assert all(g.value > tuned.value for g in grid)


def test_tune_several_parameters_and_callable_metric() -> None:
    """Nelder-Mead within bounds finds a known minimum of two parameters."""

    def bowl(p: dict[str, float]) -> float:
        return (p["k_factor"] - 20) ** 2 + ((p["initial_rating"] - 1600) / 100) ** 2

    tuned = api.tune(
        "elo",
        GAMES,
        {"k_factor": (1, 50), "initial_rating": (1000, 2000)},
        bowl,
        xatol=1e-4,
    )
    assert tuned.params["k_factor"] == pytest.approx(20, abs=0.05)
    assert tuned.params["initial_rating"] == pytest.approx(1600, abs=5)


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"k": (1, 2)}, "no parameter 'k'"),
        ({"k_factor": (5, 1)}, "low < high"),
        ({"k_factor": "x"}, r"\(low, high\)"),
        ({}, "at least one"),
    ],
)
def test_tune_checks_its_parameters(params: object, message: str) -> None:
    """Unknown parameters and bad bounds are ValueErrors naming them."""
    with pytest.raises(ValueError, match=message):
        api.tune("elo", GAMES, params)  # type: ignore[arg-type]


def test_rate_can_start_players_at_the_ratings_the_games_carry() -> None:
    """``seed_from_games``: each player starts at their first game's rating."""
    games = GAMES.assign(
        white_rating=[1800, 1600, 1810, 1400], black_rating=[1600, 1400, 1390, 1590]
    )
    rated = api.rate(games.iloc[:1], ["elo"], seed_from_games=True)
    ratings = rated.ratings.set_index("player")["elo"]
    e = float(logistic_expectation(200.0))
    assert ratings["Ann"] == pytest.approx(1800 + 20 * (1 - e))
    assert ratings["Bob"] == pytest.approx(1600 - 20 * (1 - e))
