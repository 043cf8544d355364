"""Tests of evaluation.settings: MetricsConfig's checks and stored values."""

from __future__ import annotations

import pytest

from simulator.evaluation.settings import MetricsConfig


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"thresholds": ()}, "thresholds"),
        ({"thresholds": (50.0, 25.0)}, "thresholds"),
        ({"thresholds": (25.0, -1.0)}, "thresholds"),
        ({"calibration_bins": 0}, "calibration_bins"),
        ({"calibration_bins": 2.5}, "calibration_bins"),
        ({"curve_max_games": -1}, "curve_max_games"),
        ({"steady_fraction": 0.0}, "steady_fraction"),
        ({"curve_bin_width": 0.0}, "curve_bin_width"),
    ],
)
def test_config_rejects_bad_values(kwargs: dict[str, object], name: str) -> None:
    """A bad MetricsConfig value raises a message naming the parameter and value."""
    with pytest.raises(ValueError, match=f"'{name}' parameter of MetricsConfig"):
        MetricsConfig(**kwargs)  # type: ignore[arg-type]


def test_config_stores_thresholds_as_float_tuple() -> None:
    """Thresholds given as a list of ints are stored as a tuple of floats."""
    cfg = MetricsConfig(thresholds=[10, 20])  # type: ignore[arg-type]
    assert cfg.thresholds == (10.0, 20.0)
    assert all(type(t) is float for t in cfg.thresholds)
