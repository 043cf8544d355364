"""Tests of world.population_config: invalid parameters raise, naming them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from simulator.world.population_config import PopulationConfig


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"n_players": -1}, "n_players"),
        ({"n_players": 2.5}, "n_players"),
        ({"n_players": True}, "n_players"),
        ({"strength_sds": (100.0, -1.0)}, "strength_sds[1]"),
        ({"strength_means": (1700.0,)}, "strength_means"),
        ({"strength_weights": (0.0, 0.0)}, "strength_weights"),
        ({"strength_weights": ()}, "strength_weights"),
        ({"strength_means": (1700.0, np.nan)}, "strength_means"),
        ({"age_edges": (6, 19, 15, 30, 45, 65, 85, 90)}, "age_edges"),
        ({"age_weights": (0.5, 0.5)}, "age_weights"),
        ({"newcomer_age_weights": (1, 1, 1, 1, 1, 1, -1)}, "newcomer_age_weights[6]"),
        ({"growth_rates": (80.0, 0.0)}, "growth_rates"),
        ({"growth_ages": (10, 9, 17.5, 22, 35, 53, 70)}, "growth_ages"),
        ({"games_per_year": (15, 17, 22, 31, 49, -1)}, "games_per_year[5]"),
        ({"activity_strengths": (1400.0,)}, "activity_strengths"),
        ({"peak_age": -3.0}, "peak_age"),
        ({"growth_sd": -0.1}, "growth_sd"),
        ({"drift_sd": np.nan}, "drift_sd"),
        ({"activity_sd": "wide"}, "activity_sd"),
        ({"max_games_per_year": 0.0}, "max_games_per_year"),
        ({"arrival_rate": -0.1}, "arrival_rate"),
        ({"newcomer_offset": np.inf}, "newcomer_offset"),
        ({"departure_rate": 1.0}, "departure_rate"),
    ],
)
def test_invalid_config_raises(kwargs: dict[str, object], name: str) -> None:
    """A bad parameter raises ValueError naming the parameter."""
    with pytest.raises(ValueError, match=re.escape(f"'{name}'") + ".*PopulationConfig"):
        PopulationConfig(**kwargs)  # type: ignore[arg-type]


def test_config_sequences_become_tuples() -> None:
    """Lists given for sequence parameters are stored as tuples (hashable, frozen)."""
    config = PopulationConfig(
        strength_weights=[1], strength_means=[1800], strength_sds=[200]
    )  # type: ignore[arg-type]
    assert config.strength_means == (1800.0,)
    hash(config)
    with pytest.raises(AttributeError):
        config.n_players = 5  # type: ignore[misc]
