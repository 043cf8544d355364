"""The replay protocol: warm-up and test window, scores, intervals, paired figures."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pandas as pd
import pytest

from simulator.evaluation.protocol import COIN_FLIP, Window, evaluate_predictions


def predictions(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """A long table of two predictors: the true expected score and a noisy one."""
    e = rng.uniform(0.05, 0.95, n)
    u = rng.random(n)
    score = np.where(u < e - 0.1, 1.0, np.where(u < e + 0.1, 0.5, 0.0))
    noisy = np.clip(e + rng.normal(0, 0.25, n), 0.01, 0.99)
    days = pd.to_datetime(np.arange(n) // 10, unit="D")
    rows = []
    for name, x in (("truth", e), ("noisy", noisy)):
        rows.append(
            pd.DataFrame(
                {
                    "game": np.arange(n),
                    "date": days,
                    "result": score,
                    "pairs": "both rated",
                    "system": name,
                    "expected": x,
                }
            )
        )
    return pd.concat(rows).sort_values(["game", "system"], kind="stable")


def test_window_splits_by_share_or_date() -> None:
    """The share is the last games; a date is every game from it on."""
    day = np.repeat(np.arange(5.0), 2)
    assert Window(test_share=0.3).test_mask(day).sum() == 3
    assert Window().test_mask(day).sum() == 5
    assert (
        Window(dt.date(1970, 1, 4)).test_mask(day).tolist() == [False] * 6 + [True] * 4
    )
    with pytest.raises(ValueError, match="not both"):
        Window(dt.date(2024, 1, 1), 0.5)
    with pytest.raises(ValueError, match="test_share"):
        Window(test_share=0.0)


def test_the_true_predictor_wins_on_the_test_games(seed: int) -> None:
    """The truth beats the noisy predictor and the coin flip, resolved."""
    frame = predictions(np.random.default_rng(seed), 4000)
    result = evaluate_predictions(frame, Window(test_share=0.25), reference="truth")
    assert (result.n_warmup, result.n_test) == (3000, 1000)
    m = result.metrics.set_index(["system", "pairs", "figure"])
    truth = m.loc[("truth", "all", "log_loss")]
    assert truth["lo"] <= truth["value"] <= truth["hi"]
    assert truth["value"] < m.loc[(COIN_FLIP, "all", "log_loss"), "value"]
    p = result.paired.set_index(["system", "pairs", "figure"])
    for figure in ("log_loss", "log_loss_3", "brier"):
        row = p.loc[("noisy", "all", figure)]
        assert row["lo"] > 0, figure  # the noisy predictor is worse, resolved
    # The draw model is fitted on the warm-up: 20 % draws between equals.
    nu = result.draw_parameters["truth"]
    assert nu / (2 + nu) == pytest.approx(0.2, abs=0.05)


def test_protocol_errors() -> None:
    """No warm-up or no test game, or an unknown reference, is an error."""
    frame = predictions(np.random.default_rng(0), 100)
    with pytest.raises(ValueError, match="0 warm-up"):
        evaluate_predictions(frame, Window(test_share=1.0))
    with pytest.raises(ValueError, match="reference"):
        evaluate_predictions(frame, reference="nope")
    with pytest.raises(ValueError, match="No predictions"):
        evaluate_predictions(frame.iloc[:0])
