"""Tests of simulator.engine: every game once, presence, rounds, schedules, science.

The engine is watched through thin spies: subclasses of registered systems whose
``rate`` logs every batch of games it is handed, put into the registry with
``monkeypatch``, and a wrapper of ``make_population`` that keeps the players
drawn. Stochastic tests take the ``seed`` fixture (``RATINGSIM_SEEDS=all``
sweeps); their margins hold over seeds 0..9 with room to spare.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest

from simulator import engine, systems
from simulator.config import RunConfig, parse_config
from simulator.engine import run_replicate
from simulator.evaluation.results import ReplicateResult
from simulator.evaluation.settings import COIN_FLIP, ORACLE
from simulator.systems import Games
from simulator.systems.elo import Elo
from simulator.systems.fide import Fide
from simulator.systems.glicko2 import Glicko2
from simulator.systems.lichess import Lichess
from simulator.world.population import Population
from simulator.world.strengths import Strengths

#: A population whose true strengths never move: no random walk, a flat age
#: curve, nobody leaves, everyone equally active for their strength.
STILL_POPULATION = """
[population]
n_players = {n_players}
drift_sd = 0.0
growth_rates = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
growth_sd = 0.0
arrival_rate = {arrival_rate}
departure_rate = 0.0
activity_sd = 0.0

# Still: the simple world's keys (experiments/world-simple.toml), so that no
# exit hazard, personal rate, noise by age, drift by level, activity spread
# by level or federation offset moves the pool or its seeded ratings.
[population.entrants]
arrival = "constant"
strength = "age_curve"
activity_sds = []

[population.exits]
model = "constant"

[population.development]
junior_rate_sd = "none"
junior_rate_levels = []
junior_rate_factors = []
level_strengths = []
level_rates = []
noise_ages = []
noise_sds = []

[population.federations]
shares = [1.0]
rating_offsets = [0.0]
"""

#: Extra schedule settings of each kind in the spied runs.
KIND_SCHEDULES = {
    "swiss": "rounds_per_day = 2\nactivity_scale = 2.0",
    "random": "rounds_per_day = 4\nactivity_scale = 2.0",
    "online": "rounds_per_day = 6\nactivity_scale = 2.0\nwindow = 300.0",
}

#: The run of the spied configs ends on a FIDE month's and a Glicko-2 month's
#: last day: 2023-01-01 plus round(365.2425) days is 2023-12-31.
SPIED_CONFIG = """
start_date = "2023-01-01"
years = 1
replicates = 1

[population]
n_players = 300
arrival_rate = 0.5
departure_rate = 0.5

[population.exits]
# The constant departure_rate above (many leavers), not the default hazard.
model = "constant"

[[arena]]
name = "arena"
systems = [
    "elo",
    "fide",
    {{system = "fide", label = "fide-close5", closing_days = 5}},
    "glicko2",
    {{system = "glicko2", label = "glicko2-week", period = "week"}},
]

[arena.schedule]
kind = "{kind}"
{schedule}
"""

#: Unrated games of a period system may only be this close to the end of the
#: run: the last period, the closing days and an event still in progress.
UNRATED_TAIL_DAYS = 45


# --------------------------------------------------------------------------
# Spies


@dataclass
class Spied:
    """What one spied replicate saw."""

    result: dict[str, ReplicateResult]
    population: Population
    #: system instance -> the (day, games) of every non-empty call of ``rate``.
    calls: dict[Any, list[tuple[float | None, Games]]]
    end_day: int


def _overall(prediction: pd.DataFrame) -> pd.DataFrame:
    """The prediction rows over all games (not split by pair type)."""
    return prediction[prediction["pairs"] == "all"]


def _spy(cls: type, calls: dict[Any, list[tuple[float | None, Games]]]) -> type:
    """A subclass of the system ``cls`` whose ``rate`` logs its games by instance."""

    class Spy(cls):
        def rate(
            self, state: Any, games: Games, *, day: float | None = None, **kw: Any
        ) -> Any:
            if games.n_games:
                calls.setdefault(self, []).append((day, games))
            return super().rate(state, games, day=day, **kw)

    Spy.__name__ = f"Spy{cls.__name__}"
    return Spy


def _spied_run(config: RunConfig, seed: int) -> Spied:
    """Run one replicate of ``config`` with every system and the players watched."""
    calls: dict[Any, list[tuple[float | None, Games]]] = {}
    populations: list[Population] = []
    make_population = engine.make_population

    def keep(*args: Any, **kwargs: Any) -> Population:
        population = make_population(*args, **kwargs)
        populations.append(population)
        return population

    with pytest.MonkeyPatch.context() as mp:
        for name, cls in (
            ("elo", Elo),
            ("fide", Fide),
            ("glicko2", Glicko2),
            ("lichess", Lichess),
        ):
            mp.setitem(systems.SYSTEMS, name, _spy(cls, calls))
        mp.setattr(engine, "make_population", keep)
        result = run_replicate(config, np.random.default_rng(seed))
    start = int(np.datetime64(config.start_date, "D").astype(np.int64))
    end = start + round(config.years * 365.2425) - 1
    return Spied(result, populations[0], calls, end)


@functools.cache
def _spied_kind(kind: str, seed: int) -> Spied:
    """The spied run of SPIED_CONFIG with the schedule ``kind`` (cached)."""
    text = SPIED_CONFIG.format(kind=kind, schedule=KIND_SCHEDULES[kind])
    return _spied_run(parse_config(text), seed)


def _calls_of(spied: Spied, **params: Any) -> list[tuple[float | None, Games]]:
    """The calls of the one system instance whose parameters match ``params``."""
    found = [
        calls
        for system, calls in spied.calls.items()
        if all(getattr(system, k, None) == v for k, v in params.items())
    ]
    assert len(found) == 1, f"{len(found)} spied systems match {params}"
    return found[0]


def _keys(calls: list[tuple[float | None, Games]]) -> list[tuple[float, int, int]]:
    """Each game as (day, white, black)."""
    out: list[tuple[float, int, int]] = []
    for _, games in calls:
        assert games.day is not None
        out += zip(
            games.day.tolist(), games.white.tolist(), games.black.tolist(), strict=True
        )
    return out


def _events(calls: list[tuple[float | None, Games]]) -> Counter[int]:
    """Games per event id."""
    counts: Counter[int] = Counter()
    for _, games in calls:
        assert games.event is not None
        counts.update(games.event.tolist())
    return counts


PERIOD_SYSTEMS = {
    "fide": {"name": "fide", "closing_days": 0},
    "fide-close5": {"name": "fide", "closing_days": 5},
    "glicko2": {"name": "glicko2", "period": "month"},
    "glicko2-week": {"name": "glicko2", "period": "week"},
}


# --------------------------------------------------------------------------
# Every game once


@pytest.mark.parametrize("kind", list(KIND_SCHEDULES))
def test_per_game_system_sees_the_recorded_games(kind: str, seed: int) -> None:
    """A per-game system is handed exactly the games the recorder counted."""
    spied = _spied_kind(kind, seed)
    played = _keys(_calls_of(spied, name="elo"))
    assert len(played) == len(set(played))
    n_games = _overall(spied.result["arena"].prediction)["n_games"]
    assert (n_games == len(played)).all()
    assert len(played) > 1000


@pytest.mark.parametrize("label", list(PERIOD_SYSTEMS))
@pytest.mark.parametrize("kind", list(KIND_SCHEDULES))
def test_period_systems_rate_each_game_once(kind: str, label: str, seed: int) -> None:
    """A period system rates no game twice, none unplayed, misses only the tail."""
    spied = _spied_kind(kind, seed)
    played_calls = _calls_of(spied, name="elo")
    played = Counter(_keys(played_calls))
    rated_calls = _calls_of(spied, **PERIOD_SYSTEMS[label])
    rated = Counter(_keys(rated_calls))
    assert max(rated.values()) == 1
    assert set(rated) <= set(played)
    unrated_days = [day for day, _, _ in set(played) - set(rated)]
    assert all(day > spied.end_day - UNRATED_TAIL_DAYS for day in unrated_days)
    assert sum(rated.values()) > 0.8 * sum(played.values())
    # Whole events (or pool days) are rated together.
    rated_events, played_events = _events(rated_calls), _events(played_calls)
    assert all(rated_events[e] == played_events[e] for e in rated_events)


def test_finished_events_are_rated_whole_in_the_order_played(seed: int) -> None:
    """An OTB event reaches a period system as one run of games, in playing order."""
    spied = _spied_kind("swiss", seed)
    played: dict[int, list[tuple[float, int, int]]] = {}
    for _, games in _calls_of(spied, name="elo"):
        assert games.day is not None and games.event is not None
        for key in zip(
            games.event.tolist(),
            games.day.tolist(),
            games.white.tolist(),
            games.black.tolist(),
            strict=True,
        ):
            played.setdefault(key[0], []).append(key[1:])
    n_events = 0
    for _, games in _calls_of(spied, name="fide", closing_days=0):
        assert games.day is not None and games.event is not None
        event = games.event
        starts = np.flatnonzero(np.diff(event, prepend=-1))
        assert np.unique(event[starts]).size == starts.size  # one run per event
        for first, end in zip(starts, [*starts[1:], event.size], strict=True):
            rated = list(
                zip(
                    games.day[first:end].tolist(),
                    games.white[first:end].tolist(),
                    games.black[first:end].tolist(),
                    strict=True,
                )
            )
            assert rated == played[int(event[first])]
            n_events += 1
    assert n_events > 20


@pytest.mark.parametrize("kind", ["random", "online"])
def test_every_game_rated_when_the_run_ends_on_a_close(kind: str, seed: int) -> None:
    """A run ending on a month's last day: monthly systems rate every pool game."""
    spied = _spied_kind(kind, seed)
    played = sorted(_keys(_calls_of(spied, name="elo")))
    for label in ("fide", "glicko2"):
        rated = sorted(_keys(_calls_of(spied, **PERIOD_SYSTEMS[label])))
        assert rated == played, label


def test_period_close_rates_the_periods_games(seed: int) -> None:
    """FIDE rates each month's pool games at that month's close, not later."""
    spied = _spied_kind("random", seed)
    for day, games in _calls_of(spied, name="fide", closing_days=0):
        assert day is not None and games.day is not None
        close = np.datetime64(int(day), "D")
        assert str(close)[-2:] == "01"  # FIDE lists are dated the 1st
        month_start = (close.astype("datetime64[M]") - 1).astype("datetime64[D]")
        assert games.day.min() >= month_start.astype(np.int64)
        assert games.day.max() < day


# --------------------------------------------------------------------------
# Rounds and presence


@pytest.mark.parametrize("kind", list(KIND_SCHEDULES))
def test_player_plays_at_most_once_per_round(kind: str, seed: int) -> None:
    """Within one round, across all events of an arena, nobody plays twice."""
    spied = _spied_kind(kind, seed)
    calls = _calls_of(spied, name="elo")
    assert len(calls) > 100
    for _, games in calls:
        both = np.concatenate([games.white, games.black])
        assert np.unique(both).size == both.size


@pytest.mark.parametrize("kind", list(KIND_SCHEDULES))
def test_games_only_between_present_players(kind: str, seed: int) -> None:
    """Every game is played on a day both players are in the pool."""
    spied = _spied_kind(kind, seed)
    pop = spied.population
    n_newcomer_games = 0
    for _, games in _calls_of(spied, name="elo"):
        assert games.day is not None
        day = np.floor(games.day)
        for side in (games.white, games.black):
            assert np.all(pop.arrival_day[side] <= day)
            assert np.all(day < pop.departure_day[side])
            n_newcomer_games += int(pop.newcomer[side].sum())
    # Newcomers and leavers do take part, so the check has teeth.
    assert n_newcomer_games > 100
    assert np.isfinite(pop.departure_day).sum() > 100


@pytest.mark.parametrize("kind", ["random", "online"])
def test_pool_schedules_deliver_one_round_per_call(kind: str, seed: int) -> None:
    """Online and random pool days reach per-game systems one round at a time."""
    spied = _spied_kind(kind, seed)
    calls = _calls_of(spied, name="elo")
    for _, games in calls:
        assert games.day is not None
        assert np.unique(games.day).size == 1
    # Several rounds a day: more calls than days.
    assert len(calls) > 2 * 365


# --------------------------------------------------------------------------
# Schedules and arenas

TWO_ARENAS = """
years = 1

[population]
n_players = 200

[[arena]]
name = "otb"
systems = ["fide"]

[[arena]]
name = "online"
systems = ["lichess"]
outcomes = "online"

[arena.schedule]
kind = "online"
participation = 0.5
activity_scale = 5.0
rounds_per_day = 4
"""


def _players(calls: list[tuple[float | None, Games]]) -> set[int]:
    return {p for _, g in calls for p in (*g.white.tolist(), *g.black.tolist())}


@pytest.mark.parametrize("kind", ["online", "random"])
def test_pool_schedule_kinds_produce_games(kind: str, seed: int) -> None:
    """The 'online' and 'random' schedules run and every system rates their games."""
    spied = _spied_kind(kind, seed)
    prediction = _overall(spied.result["arena"].prediction)
    assert (prediction["n_games"] > 1000).all()
    summary = spied.result["arena"].summary
    assert summary["rmse"].notna().all()


def test_two_arenas_run_and_report_both(seed: int) -> None:
    """An OTB arena and an online arena with half the players both report."""
    spied = _spied_run(parse_config(TWO_ARENAS), seed)
    assert list(spied.result) == ["otb", "online"]
    assert spied.result["otb"].systems == ("fide",)
    assert spied.result["online"].systems == ("lichess",)
    for result in spied.result.values():
        assert result.prediction["n_games"].iloc[0] > 500
        assert result.timeseries["rmse"].notna().any()
    otb = _players(_calls_of(spied, name="fide"))
    online = _players(_calls_of(spied, name="lichess"))
    # Online players come from half the population: about half of the OTB
    # players also play online (binomial SD about 0.045 here).
    assert 0.3 < len(otb & online) / len(otb) < 0.7
    # Half the players, five times as active: more games online than OTB.
    n_online = spied.result["online"].prediction["n_games"].iloc[0]
    assert n_online > 1.5 * spied.result["otb"].prediction["n_games"].iloc[0]


@pytest.mark.parametrize("pairing", ["fide", "true"])
def test_strengths_read_are_the_days_own(
    pairing: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every strength the engine reads is moved to that day first.

    Two arenas (the same players on the same days), pairing by rating or by
    true strength: after each move of some players they stand on the day;
    at each checkpoint everyone does.
    """
    real = Strengths.advance
    moves: list[tuple[float, bool]] = []

    def spy(self: Strengths, day: float, rng: Any, *, players: Any = None) -> None:
        real(self, day, rng, players=players)
        moved = self.population().strength_day
        on_day = moved if players is None else moved[players]
        assert np.all(on_day == day)
        moves.append((day, players is None))

    monkeypatch.setattr(Strengths, "advance", spy)
    text = TWO_ARENAS.replace(
        'name = "otb"', f'name = "otb"\npairing_rating = "{pairing}"'
    )
    config = parse_config(text)
    run_replicate(config, np.random.default_rng(seed))
    everyone = [day for day, full in moves if full]
    n_days = round(config.years * 365.2425)
    assert len(everyone) == -(-n_days // config.checkpoint_days)
    assert sum(not full for _, full in moves) > n_days


# --------------------------------------------------------------------------
# The science: ratings find the truth when the truth stands still


def _still(
    arena: str, *, n_players: int, arrival_rate: float, years: float = 1
) -> RunConfig:
    """A run over a still population (no drift, no growth, nobody leaves)."""
    population = STILL_POPULATION.format(n_players=n_players, arrival_rate=arrival_rate)
    return parse_config(f"years = {years}\n{population}\n{arena}")


SEEDED_200 = """
[[arena]]
name = "otb"

[arena.schedule]
activity_scale = 3.0

[arena.seeding]
rating_sd = 200.0
rd = 200.0
"""


@functools.cache
def _converging(seed: int) -> ReplicateResult:
    """Every default system, the initial pool seeded with an error SD of 200."""
    config = _still(SEEDED_200, n_players=300, arrival_rate=0.0, years=2)
    return run_replicate(config, np.random.default_rng(seed))["otb"]


def test_every_system_ends_well_below_the_seeding_error(seed: int) -> None:
    """Without drift, every system's final RMSE falls below 60 % of the seeding SD."""
    result = _converging(seed)
    ts = result.timeseries
    first = ts[ts["day"] == ts["day"].min()].set_index("system")
    last = ts[ts["day"] == ts["day"].max()].set_index("system")
    assert list(last.index) == list(result.systems)
    assert len(result.systems) == 7
    # The seeding error is there at the start (seen by the first players)...
    assert (first["rmse"] > 0.4 * 200.0).all()
    # ... and gone at the end, for everyone in the pool (who all have played).
    assert (last["rmse"] < 0.6 * 200.0).all(), last["rmse"].to_dict()
    assert (last["n_rated"] >= 0.95 * 300).all()


def test_oracle_log_loss_below_every_system(seed: int) -> None:
    """The oracle, knowing the true strengths, predicts better than every system."""
    prediction = _overall(_converging(seed).prediction).set_index("system")
    oracle = prediction.loc[ORACLE, "log_loss"]
    systems_only = prediction.drop(index=[ORACLE, COIN_FLIP])
    assert (systems_only["log_loss"] > oracle + 0.005).all()
    assert (systems_only["log_loss"] < prediction.loc[COIN_FLIP, "log_loss"]).all()


TWO_K = """
[[arena]]
name = "otb"
systems = [
    {system = "elo", label = "elo-k10", k_factor = 10},
    {system = "elo", label = "elo-k40", k_factor = 40},
]

[arena.schedule]
activity_scale = 3.0

[arena.seeding]
rating_sd = 0.0
"""


def test_higher_k_converges_faster(seed: int) -> None:
    """Newcomers reach 50 points of their strength in fewer games with K 40 than 10."""
    config = _still(TWO_K, n_players=300, arrival_rate=0.5)
    summary = run_replicate(config, np.random.default_rng(seed))["otb"].summary
    by_system = summary.set_index("system")
    n50 = by_system["n50_median"]
    converged = by_system["n50_converged"]
    assert summary["n_newcomers"].iloc[0] > 80
    assert np.isfinite(n50["elo-k40"])
    assert n50["elo-k40"] < n50["elo-k10"]
    # K 40 brings more newcomers within 50 points by the end (about 0.38
    # against 0.16 over seeds 0..29; the least gap seen is 0.10).
    assert converged["elo-k40"] > converged["elo-k10"] + 0.04


def test_higher_k_settles_to_a_larger_error(seed: int) -> None:
    """Started at the truth, K 40 wanders further from it than K 10."""
    config = _still(TWO_K, n_players=200, arrival_rate=0.0)
    summary = run_replicate(config, np.random.default_rng(seed))["otb"].summary
    rmse = summary.set_index("system")["rmse"]
    assert summary["n_newcomers"].iloc[0] == 0
    assert rmse["elo-k40"] > 1.5 * rmse["elo-k10"]
    assert rmse["elo-k10"] > 5.0  # the ratings do move


def test_replicate_is_a_function_of_config_and_rng(seed: int) -> None:
    """Two replicates from equal generators give equal tables."""
    config = _still(TWO_K, n_players=100, arrival_rate=0.2)
    a = run_replicate(config, np.random.default_rng(seed))["otb"]
    b = run_replicate(config, np.random.default_rng(seed))["otb"]
    for name in ("summary", "timeseries", "prediction", "calibration", "convergence"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def test_newcomers_followed_before_they_can_play_give_every_table(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Following newcomers from the checkpoint before they can play changes nothing.

    The engine hands the recorder, at each checkpoint, only the newcomers who
    arrive by the next one; following every newcomer from the first
    checkpoint, as before, must give the same tables to the last bit (a
    newcomer's figures before their first game are overwritten at each
    checkpoint until then).
    """
    config = parse_config(
        SPIED_CONFIG.format(kind="swiss", schedule=KIND_SCHEDULES["swiss"])
    )
    windowed = run_replicate(config, np.random.default_rng(seed))["arena"]
    init = engine._Arena.__init__

    def follow_all(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **kwargs)
        self.newcomer_arrival = np.where(self.newcomer, -np.inf, np.inf)

    monkeypatch.setattr(engine._Arena, "__init__", follow_all)
    every = run_replicate(config, np.random.default_rng(seed))["arena"]
    assert windowed.summary["n_newcomers"].iloc[0] > 10
    # The curve's point at no games: the error each newcomer carried into
    # their first game, read at the last checkpoint before it.
    at_zero = windowed.convergence["games"] == 0
    assert windowed.convergence.loc[at_zero, "n"].min() > 10
    for name in ("summary", "timeseries", "convergence", "groups", "bands"):
        pd.testing.assert_frame_equal(
            getattr(windowed, name), getattr(every, name), check_exact=True
        )


GROWN_CONFIG = """
start_date = "2023-01-01"
years = 1.5
replicates = 1

[population]
n_players = 300
arrival_rate = 0.5
departure_rate = 0.3
# Drawn after the newcomers, arriving after a year: the states grow to
# everyone then.
probe_levels = [1600.0]
probes_per_level = 3
probe_arrival_years = 1.0

[population.exits]
model = "constant"

[[arena]]
name = "otb"
systems = [
    "fide", "fide-history", "classic", "glicko2", "glicko", "elo",
    {system = "glicko2", label = "glicko2-week", period = "week"},
]
pairing_rating = "fide"

[arena.schedule]
kind = "swiss"
rounds_per_day = 2
activity_scale = 2.0

[[arena]]
name = "online"
systems = ["glicko2", "lichess"]
pairing_rating = "glicko2"

[arena.schedule]
kind = "online"
rounds_per_day = 4
activity_scale = 2.0
window = 300.0

[output]
histories = true
predictions = true
"""


def test_period_states_grown_with_the_pool_give_every_table(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Period states that grow as players arrive give the full-size run's tables.

    The engine holds a period system's state for the players arrived (and
    one more, whose entry every newcomer's copies), grows it as they come
    and reads everyone's ratings padded from it; the same run with every
    state at full size from the start must give every table, histories and
    predictions included, to the last bit. The states did grow (not all
    the players drawn were there at the start), and probes, drawn last but
    arriving after a year, take them to full size then.
    """
    config = parse_config(GROWN_CONFIG)
    sizes: list[tuple[int, int, int]] = []
    grow = engine.RunningSystem.grow

    def spy(self: Any, arrived: int, **kwargs: Any) -> None:
        before = self.size
        grow(self, arrived, **kwargs)
        if self.size != before:
            sizes.append((before, self.size, self.n_total))

    monkeypatch.setattr(engine.RunningSystem, "grow", spy)
    grown = run_replicate(config, np.random.default_rng(seed))
    assert len(sizes) > 5
    assert sizes[0][0] < sizes[0][2]  # held fewer than everyone at first
    assert any(after == n_total for _, after, n_total in sizes)
    seed_states = engine._seed_states

    def full_size(*args: Any, **kwargs: Any) -> Any:
        # Without ``rows``: every state full.
        return seed_states(*args[:6], **kwargs)

    monkeypatch.setattr(engine, "_seed_states", full_size)
    full = run_replicate(config, np.random.default_rng(seed))
    for arena in ("otb", "online"):
        for name in (
            "summary",
            "timeseries",
            "prediction",
            "calibration",
            "convergence",
            "bands",
            "history",
            "predictions",
        ):
            pd.testing.assert_frame_equal(
                getattr(grown[arena], name),
                getattr(full[arena], name),
                check_exact=True,
                obj=f"{arena}.{name}",
            )
