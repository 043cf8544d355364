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


SPEEDS = """
years = 0.5
replicates = 1

[population]
n_players = 400

[[arena]]
name = "otb"
systems = ["fide"]

[[arena]]
name = "blitz"
systems = ["lichess"]
outcomes = "online"
[arena.schedule]
kind = "online"

[[arena]]
name = "rapid"
systems = ["lichess"]
outcomes = "online"
strength_from = "blitz"
OWN
[arena.schedule]
kind = "online"
"""


def _arenas(own: str, seed: int) -> dict[str, np.ndarray]:
    from simulator.engine import _build_arenas
    from simulator.world.population import make_population

    config = parse_config(SPEEDS.replace("OWN", own))
    rng = np.random.default_rng(seed)
    population = make_population(config.population, rng, start_day=0, n_days=180)
    return {
        a.config.name: np.broadcast_to(a.offset, population.n_players)
        for a in _build_arenas(config, population, 0, rng)
    }


def test_the_defaults_follow_the_arena() -> None:
    """OTB arenas keep one strength; online ones get the documented SDs."""
    from simulator.config import ONLINE_OFFSET_SD, SPEED_OFFSET_SD

    config = parse_config(SPEEDS.replace("OWN", ""))
    sds = [a.strength_offset_sd for a in config.arena]
    assert sds == [0.0, ONLINE_OFFSET_SD, SPEED_OFFSET_SD]


def test_a_speed_builds_on_the_strength_it_names(seed: int) -> None:
    """Rapid = blitz's offset + its own.

    Exactly blitz's with an own SD of 0, and otherwise off it by about the
    own SD (400 draws: the sample SD is within 15 % of 80 for any seed, its
    standard error being about 3.5 %).
    """
    from simulator.config import ONLINE_OFFSET_SD

    same = _arenas("strength_offset_sd = 0.0", seed)
    assert np.all(same["otb"] == 0.0)
    assert np.array_equal(same["rapid"], same["blitz"])
    assert abs(np.std(same["blitz"]) / ONLINE_OFFSET_SD - 1.0) < 0.15
    own = _arenas("strength_offset_sd = 80.0", seed)
    assert np.array_equal(own["blitz"], same["blitz"])
    assert abs(np.std(own["rapid"] - own["blitz"]) / 80.0 - 1.0) < 0.15


def test_strength_from_must_name_an_earlier_arena() -> None:
    with pytest.raises(ConfigError, match=r"strength_from.*'chess960'"):
        parse_config(
            SPEEDS.replace("OWN", "").replace(
                'strength_from = "blitz"', 'strength_from = "chess960"'
            )
        )
    bad = SPEEDS.replace('strength_from = "blitz"', 'strength_from = "rapid"')
    with pytest.raises(ConfigError, match=r"strength_from.*itself"):
        parse_config(bad.replace("OWN", ""))
