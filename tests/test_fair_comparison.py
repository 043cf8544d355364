"""Like-for-like comparisons in a run: common support, pair types, flatness.

Systems of one arena rate the same games; these tests hold the engine and the
recorder to comparing them on the same players and games where they say so.
"""

import numpy as np
import pandas as pd
import pytest

from simulator.config import parse_config
from simulator.engine import run_replicate

TWO_RULES = """
years = 1.5

[population]
n_players = 400
arrival_rate = 0.3

[[arena]]
name = "otb"
systems = [
    "fide",
    { system = "fide", label = "fide, performance", \
new_player_prediction = "performance" },
    "glicko2",
]
"""


@pytest.fixture
def two_rules(seed: int) -> dict[str, pd.DataFrame]:
    result = run_replicate(parse_config(TWO_RULES), np.random.default_rng(seed))["otb"]
    return {"prediction": result.prediction, "summary": result.summary}


def test_new_player_rule_changes_only_games_with_a_new_player(two_rules):
    """Two FIDE systems identical but for the rule agree on every rated pair."""
    pred = two_rules["prediction"].set_index(["pairs", "system"])["log_loss"]
    assert pred[("both rated", "fide")] == pred[("both rated", "fide, performance")]
    for pairs in ("one new", "both new"):
        assert pred[(pairs, "fide")] != pred[(pairs, "fide, performance")]
    assert pred[("all", "fide")] != pred[("all", "fide, performance")]


def test_pair_types_partition_the_games(two_rules):
    pred = two_rules["prediction"]
    games = pred[pred["system"] == "fide"].set_index("pairs")["n_games"]
    assert games["all"] == games["both rated"] + games["one new"] + games["both new"]
    assert min(games["one new"], games["both new"], games["both rated"]) > 0
    # The mean over all games is the games-weighted mean of the pair types.
    ll = pred[pred["system"] == "glicko2"].set_index("pairs")["log_loss"]
    parts = ["both rated", "one new", "both new"]
    weighted = sum(ll[p] * games[p] for p in parts) / games["all"]
    assert weighted == pytest.approx(ll["all"], rel=1e-12)


def test_common_support_is_what_every_system_rates(two_rules):
    """FIDE rates fewer players than Glicko-2: own and common agree for FIDE.

    Glicko-2's common figures are over fewer players than its own.
    """
    s = two_rules["summary"].set_index("system")
    assert s.loc["fide", "rmse"] == s.loc["fide", "rmse_common"]
    assert s.loc["glicko2", "n_common"] == s.loc["fide", "n_common"]
    assert s.loc["glicko2", "rmse"] != s.loc["glicko2", "rmse_common"]
    assert (s["log_loss_common"] > 0).all()
    for column in ("rmse_slope", "rmse_common_slope", "spearman_slope"):
        assert np.isfinite(s[column]).all()


BURN_IN = """
years = 2.0
burn_in_years = 1.0
checkpoint_days = 14

[population]
n_players = 300
arrival_rate = 0.3

[[arena]]
name = "otb"
systems = ["fide", "glicko2"]
[arena.seeding]
source = "flat"
flat_rating = 1600.0
"""


def test_burn_in_measures_nothing_before_its_end(seed: int) -> None:
    """No checkpoint before the burn-in ends; only later newcomers are followed."""
    config = parse_config(BURN_IN)
    result = run_replicate(config, np.random.default_rng(seed))["otb"]
    days = result.timeseries["day"].to_numpy()
    start = days.min()
    # The first checkpoint is the first one after a year (at most 14 days on).
    first = (start - np.datetime64("2024-01-01", "D").astype(int)) / 365.2425
    assert 1.0 <= first <= 1.0 + 14 / 365.2425
    whole = parse_config(BURN_IN.replace("burn_in_years = 1.0", "burn_in_years = 0"))
    full = run_replicate(whole, np.random.default_rng(seed))["otb"]
    all_games = full.prediction.set_index(["pairs", "system"]).loc[("all", "fide")]
    measured = result.prediction.set_index(["pairs", "system"]).loc[("all", "fide")]
    assert 0 < measured["n_games"] < all_games["n_games"]
    assert result.summary["n_newcomers"].iloc[0] < full.summary["n_newcomers"].iloc[0]


def test_burn_in_must_leave_time_to_measure() -> None:
    with pytest.raises(ValueError, match="burn_in_years"):
        parse_config(BURN_IN.replace("burn_in_years = 1.0", "burn_in_years = 2.0"))
    with pytest.raises(ValueError, match="source"):
        parse_config(BURN_IN.replace('source = "flat"', 'source = "oracle"'))
