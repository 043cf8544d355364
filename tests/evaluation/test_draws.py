"""Davidson's draw model under an expected score: exact split, fitted draw rate."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.evaluation.draws import (
    draw_parameter_for_rate,
    fit_draw_parameter,
    outcome_probabilities,
)


def test_probabilities_split_the_expected_score(seed: int) -> None:
    """The three sum to 1 and P(W) + P(D)/2 is E, for any E and nu."""
    rng = np.random.default_rng(seed)
    e = rng.uniform(0.0, 1.0, 1000)
    for nu in (0.0, 0.3, 2.0, 20.0):
        w, d, lo = outcome_probabilities(e, nu)
        assert np.all((w >= 0) & (d >= 0) & (lo >= 0))
        np.testing.assert_allclose(w + d + lo, 1.0, atol=1e-12)
        np.testing.assert_allclose(w + d / 2, np.clip(e, 1e-9, 1 - 1e-9), atol=1e-12)
    with pytest.raises(ValueError, match="'nu'"):
        outcome_probabilities(e, -1.0)


def test_fit_recovers_the_draw_parameter(seed: int) -> None:
    """Results drawn from the model give back its nu (20,000 games, 10 %)."""
    rng = np.random.default_rng(seed)
    e = rng.uniform(0.1, 0.9, 20_000)
    nu = draw_parameter_for_rate(0.3)
    w, d, _ = outcome_probabilities(e, nu)
    u = rng.random(e.size)
    score = np.where(u < w, 1.0, np.where(u < w + d, 0.5, 0.0))
    assert fit_draw_parameter(e, score) == pytest.approx(nu, rel=0.1)
    assert fit_draw_parameter(e, np.where(score == 0.5, 1.0, score)) == 0.0
