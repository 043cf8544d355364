"""Two strengths per player: an arena's own offset (``strength_offset_sd``).

Issue 18: players differ in how good they are at fast online chess and at
slow over-the-board chess; that difference is what makes the residuals of
published conversions large. With an offset in the online arena, the
cross-sectional fit of FIDE on Lichess must scatter more, for any seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.config import ConfigError, parse_config
from simulator.engine import run_replicate

TWO_POOLS = """
years = 1.5
replicates = 1

[population]
n_players = 500

[[arena]]
name = "otb"
systems = ["fide"]

[[arena]]
name = "online"
systems = ["lichess"]
outcomes = "online"
strength_offset_sd = SD
[arena.schedule]
kind = "online"
rounds_per_day = 2
activity_scale = 4.0

[[comparison]]
x = "otb/fide"
y = "online/lichess"
"""


def _fit(sd: float, seed: int) -> tuple[float, float]:
    config = parse_config(TWO_POOLS.replace("SD", repr(sd)))
    result = run_replicate(config, np.random.default_rng(seed))
    fit = result["otb"].comparison.query("kind == 'fit'").iloc[0]
    return float(fit["residual_sd"]), float(fit["correlation"])


def test_an_online_offset_scatters_the_conversion(seed: int) -> None:
    """A 200-point SD of online-only strength widens the fit's residuals.

    Without it, FIDE and Lichess ratings of a player differ by the two
    systems' errors only; with it, also by the offset (about 0.6 x 200
    points of FIDE per player at the fitted slope), far more than the
    seed-to-seed spread of the residual SD (about 10 points here).
    """
    plain_sd, plain_r = _fit(0.0, seed)
    split_sd, split_r = _fit(200.0, seed)
    assert split_sd > plain_sd + 20.0
    assert split_r < plain_r


def test_the_offset_is_checked() -> None:
    with pytest.raises(ConfigError, match="strength_offset_sd"):
        parse_config(TWO_POOLS.replace("SD", "-5.0"))
    with pytest.raises(ConfigError, match="strength_offset_sd"):
        parse_config(TWO_POOLS.replace("SD", "5000.0"))
