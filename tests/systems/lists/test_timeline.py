"""FIDE's history as one system: each era's rules on its dates, the 2024 compression.

The timeline must rate every period exactly as the system of its era would
(checked period by period against that system from the same state), switch
on the dates, and apply the one-off increase of 1 March 2024 (FIDE QC,
"New rating regulations come into force", 1 March 2024: ratings between 1000
and 2000 raised by 0.4 x (2000 - R)) to that list only.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.systems import Games, make_system
from simulator.systems._common import day_of
from simulator.systems.classic import Classic
from simulator.systems.fide import Fide
from simulator.systems.lists.state import ListState
from simulator.systems.lists.timeline import FideHistory, compress_2024

N_PLAYERS = 60


def month_games(rng: np.random.Generator, first_day: int, n_games: int) -> Games:
    """Random games inside the month that starts on ``first_day``."""
    white = rng.integers(0, N_PLAYERS, n_games)
    black = (white + rng.integers(1, N_PLAYERS, n_games)) % N_PLAYERS
    score = rng.choice([0.0, 0.5, 1.0], n_games)
    day = first_day + rng.integers(0, 27, n_games).astype(np.float64)
    return Games(white, black, score, day)


def seeded(system: FideHistory | Fide | Classic, day: int, seed: int) -> ListState:
    rng = np.random.default_rng(seed)
    rating = np.where(
        rng.random(N_PLAYERS) < 0.8, np.rint(rng.normal(1600, 300, N_PLAYERS)), np.nan
    )
    return system.new_state(
        N_PLAYERS,
        day=day,
        rating=rating,
        n_games=rng.integers(0, 80, N_PLAYERS),
        birth_year=rng.integers(1960, 2015, N_PLAYERS).astype(np.float64),
    )


def test_compression_worked_examples() -> None:
    """The old floor 1000 becomes the new floor 1400; 2000 and above stay."""
    got = compress_2024([1000.0, 1250.0, 1500.0, 1800.0, 1999.0, 2000.0, 2700.0])
    assert got.tolist() == [1400.0, 1550.0, 1700.0, 1880.0, 1999.0, 2000.0, 2700.0]
    # Order is kept: the increase is monotone, and larger the lower the rating.
    r = np.arange(1000.0, 2001.0)
    c = compress_2024(r)
    assert np.all(np.diff(c) >= 0)
    assert np.all(c - r >= 0)
    assert np.all(np.diff(c - r) <= 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_period_is_rated_by_its_era(seed: int) -> None:
    """Month by month from 2023-10 to 2026-01, the timeline equals the era's system.

    The only difference is on the switch list, 1 March 2024: compressed.
    """
    rng = np.random.default_rng(seed)
    timeline = FideHistory()
    old = Fide(initial="2014", floor=1000.0, exempt_from=None)
    rules_2024 = Fide(exempt_from=None)
    rules_2025 = Fide()
    day = day_of("2023-10-01")
    state = seeded(timeline, day, seed)
    switched = amended = False
    while day < day_of("2026-01-01"):
        games = month_games(rng, day, 150)
        close = timeline.next_close(day)
        era = old if day < day_of("2024-03-01") else rules_2024
        if day >= day_of("2025-10-01"):
            era = rules_2025
        assert timeline.era(day) == era
        np.testing.assert_array_equal(
            timeline.expected_score(state, games.white, games.black),
            era.expected_score(state, games.white, games.black),
        )
        new = timeline.rate(state, games, day=close)
        reference = era.rate(state, games, day=close)
        if close == day_of("2024-03-01"):
            switched = True
            np.testing.assert_array_equal(new.rating, compress_2024(reference.rating))
            # Nobody rated on the March 2024 list is under the new floor.
            assert np.nanmin(new.rating) >= 1400
        else:
            np.testing.assert_array_equal(new.rating, reference.rating)
            np.testing.assert_array_equal(new.k, reference.k)
        amended |= close == day_of("2025-10-01")
        state, day = new, close
    assert switched and amended


def test_without_compression_only_the_rules_change() -> None:
    rng = np.random.default_rng(7)
    plain = FideHistory(compression=False)
    day = day_of("2024-02-01")
    state = seeded(plain, day, 7)
    games = month_games(rng, day, 200)
    got = plain.rate(state, games, day=day_of("2024-03-01"))
    reference = Fide(initial="2014", floor=1000.0, exempt_from=None).rate(
        state, games, day=day_of("2024-03-01")
    )
    np.testing.assert_array_equal(got.rating, reference.rating)


def test_seeding_applies_the_floor_of_the_era() -> None:
    """A seeded 1200 is listed under the 2014 rules, unrated under the 2024 ones."""
    history = FideHistory()
    rating = np.array([1200.0, 1500.0])
    before = history.new_state(2, day=day_of("2023-06-01"), rating=rating)
    after = history.new_state(2, day=day_of("2024-06-01"), rating=rating)
    assert before.rating.tolist() == [1200.0, 1500.0]
    assert np.isnan(after.rating[0]) and after.rating[1] == 1500.0


def test_classic_before_switches_from_quarterly_lists() -> None:
    """With the old-style rules before, lists are quarterly until the switch."""
    history = FideHistory(before="classic")
    assert isinstance(history.era(day_of("2023-01-01")), Classic)
    assert history.next_close(day_of("2023-11-15")) == day_of("2024-01-01")
    # The quarter that would end on 1 April ends on the switch, 1 March.
    assert history.next_close(day_of("2024-01-01")) == day_of("2024-03-01")
    assert history.next_close(day_of("2024-03-01")) == day_of("2024-04-01")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"rules_2024_from": "2024-03-15"}, "rules_2024_from"),
        ({"rules_2024_from": "March 2024"}, "rules_2024_from"),
        ({"amendment_from": "2024-02-01"}, "amendment_from"),
        ({"before": "2009"}, "before"),
        ({"compression": "yes"}, "compression"),
        ({"new_player_prediction": "median"}, "new_player_prediction"),
    ],
)
def test_bad_parameters_name_the_field(params: dict[str, object], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        make_system("fide-history", **params)


def test_replay_takes_the_timeline(capsys: pytest.CaptureFixture[str]) -> None:
    """``replay --systems fide-history`` rates real games and says which floor."""
    from pathlib import Path

    from simulator.cli import main

    trf = Path(__file__).parents[2] / "data" / "swiss-madrid-2018.trf"
    code = main(["replay", str(trf), "--systems", "fide-history,fide", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    assert "fide-history: a player it does not rate" in out
    assert "under its era's floor" in out and "the 2014 formula before" in out
