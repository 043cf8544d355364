"""The clock: days -> events -> rounds -> games -> every system -> metrics.

One replicate of a run is :func:`run_replicate`, a pure function of the config
and one random generator. Each day the players' true strengths move on (a
player's when it is read: for their games, and everyone's at a checkpoint,
which is the same in distribution as moving everyone daily); each arena plays
the rounds its schedule has for the day; every system of the arena sees the
same games (common random numbers); per-game systems update after each round,
period systems close their periods on their own calendars; the metrics
recorder reads predictions before every round and ratings at every
checkpoint. Memory is bounded by the players plus one period's games, unless
the config's ``[output]`` keeps the rating histories and per-game
predictions (:class:`~simulator.evaluation.histories.HistoryRecorder`, fed
from the same places; it draws no random number, so the run is the same).

Within a round a player plays at most once, across all events of an arena, so
updating a round at once equals updating its games one by one.

Imports: base, systems, world, evaluation and config; never data, tasks or
the CLI.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simulator._types import BoolArray
from simulator.config import ArenaConfig, RunConfig, ScheduleConfig
from simulator.evaluation.comparison import compare_ratings
from simulator.evaluation.histories import HistoryRecorder
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.results import ReplicateResult
from simulator.systems import GrowingSystem
from simulator.systems._common import FloatArray, Games, IntArray, day_of
from simulator.systems.running import RunningSystem
from simulator.world.events import draw_rounds, form_events
from simulator.world.live import LiveWorld
from simulator.world.outcomes import OutcomeModel
from simulator.world.pairing import (
    Round,
    pair_online,
    pair_random,
    round_robin,
    swiss_start,
)
from simulator.world.pairing.swiss_events import SwissEvents
from simulator.world.population import (
    PlayerKind,
    Population,
    age,
    make_population,
)
from simulator.world.strengths import DAYS_PER_YEAR

__all__ = ["run_replicate"]

#: A player counts as active in the accuracy figures after a game within this
#: many days (FIDE lists a player inactive after a year without a game).
ACTIVE_DAYS = 365.0


@dataclass
class _Event:
    """An OTB event to come or in progress (engine-internal, mutable)."""

    id: int
    start: int
    players: IntArray
    n_rounds: int
    robin: list[Round] | None  # a round robin's Berger rounds; None for Swiss
    played: int = 0


def _seed_states(
    arena: ArenaConfig,
    population: Population,
    in_arena: np.ndarray[Any, Any],
    start: int,
    rng: np.random.Generator,
    offset: FloatArray | float = 0.0,
    rows: int | None = None,
    *,
    birth_year: FloatArray,
) -> list[RunningSystem]:
    """Each system's first state: the initial pool established, newcomers new.

    A period system that can grow its state holds the ``rows`` players
    arrived and one more (:class:`RunningSystem`), the others everyone.
    ``birth_year`` is the players' birth years as floats (FIDE's junior rule).
    """
    n = population.n_players
    seeded = in_arena & (population.kind == PlayerKind.INITIAL)
    # Drawn under either source, so that the rest of the replicate's stream
    # is the same.
    noise = rng.normal(0.0, arena.seeding.rating_sd, n)
    if arena.seeding.source == "flat":
        rating = np.where(seeded, arena.seeding.flat_rating, np.nan)
    else:
        truth = population.true_strength + offset
        rating = np.where(seeded, np.rint(truth + noise), np.nan)
    offsets = population.config.federations.rating_offsets
    if any(offsets):
        # A federation's list sits off its players' strengths (world.federations).
        shift = np.asarray(offsets)[population.federation]
        rating = np.where(seeded, np.rint(rating + shift), np.nan)
    n_games = np.where(seeded, arena.seeding.n_games, 0)
    rd = np.where(seeded, arena.seeding.rd, np.nan)
    out = []
    for spec in arena.systems:
        system = spec.build()
        # Below a list's floor a player is unrated from the start.
        floor = getattr(system, "floor", None)
        with np.errstate(invalid="ignore"):
            seeded_rating = (
                rating if floor is None else np.where(rating < floor, np.nan, rating)
            )
        grows = not system.per_game and isinstance(system, GrowingSystem)
        size = n if rows is None or not grows else min(n, rows + 1)
        state = system.new_state(
            size,
            day=start,
            birth_year=birth_year[:size],
            rating=seeded_rating[:size],
            rd=rd[:size],
            n_games=n_games[:size],
        )
        out.append(
            RunningSystem(
                spec.label,
                system,
                state,
                system.next_close(start),
                int(getattr(system, "closing_days", 0)),
                n,
                size,
            )
        )
    return out


class _Arena:
    """One arena's schedule, systems and recorder during a replicate."""

    def __init__(
        self,
        config: ArenaConfig,
        run: RunConfig,
        population: Population,
        start: int,
        rng: np.random.Generator,
        index: int = 0,
        base_offset: FloatArray | float = 0.0,
        rows: int | None = None,
    ) -> None:
        self.config = config
        self.first_day = start
        self.schedule: ScheduleConfig = config.schedule
        self.outcomes: OutcomeModel = config.outcome_model()
        n = population.n_players
        chance = np.full(n, self.schedule.participation)
        if self.schedule.participation_midpoint is not None:
            z = (
                population.true_strength - self.schedule.participation_midpoint
            ) / self.schedule.participation_width
            chance = chance / (1.0 + np.exp(-z))
        self.in_arena = (
            np.ones(n, dtype=bool) if np.all(chance >= 1.0) else rng.random(n) < chance
        )
        # The arena's own strengths (``strength_offset_sd``) on those of the
        # arena it builds on (``base_offset``, 0 for the population's): drawn
        # from a jumped copy of the stream, so that the replicate's own draws
        # are the same with and without them.
        self.offset: FloatArray | float = base_offset
        sd = config.strength_offset_sd
        if sd is not None and sd > 0:
            jumped = getattr(rng.bit_generator, "jumped", None)
            if jumped is None:  # PCG64, numpy's default, jumps
                raise TypeError("strength_offset_sd needs a jumpable bit generator")
            own = np.random.Generator(jumped(index + 1))
            self.offset = base_offset + own.normal(0.0, sd, n)
        # What a period system's state needs of its players, as it is made
        # and as it grows.
        self.birth_year = population.birth_year.astype(np.float64)
        self.rated = _seed_states(
            config,
            population,
            self.in_arena,
            start,
            rng,
            self.offset,
            rows,
            birth_year=self.birth_year,
        )
        self.labels = [r.label for r in self.rated]
        probe = population.kind == PlayerKind.PROBE
        groups = {
            f"probes at {level:g}": self.in_arena
            & probe
            & (population.true_strength == level)
            for level in run.population.probe_levels
        }
        if groups:
            groups["other newcomers"] = self.in_arena & (
                population.kind == PlayerKind.NEWCOMER
            )
        self.recorder = Recorder(
            self.labels,
            n,
            run.metrics,
            groups=groups,
            common_from=float(start + steady_from(run)),
        )
        # Opt-in per-player and per-game tables; None costs one test a round.
        self.history = (
            HistoryRecorder(self.labels, n, run.output) if run.output.any else None
        )
        self.games_played = np.zeros(n, dtype=np.intp)
        self.last_game = np.full(n, -np.inf)
        self.busy_until = np.full(n, -1, dtype=np.int64)
        self.events: list[_Event] = []
        # The running Swiss events' states, joined (pairing and recording
        # work on all of them at once).
        self.swiss_board = SwissEvents()
        self.next_event_id = 0
        # The OTB rounds played since the start of the oldest event running,
        # with their days: the games of the events to be rated.
        self.otb_rounds: list[tuple[int, Games]] = []
        low, high = run.cohort_ages
        ages = age(population, start)
        self.cohort = (
            self.in_arena
            & (population.kind == PlayerKind.INITIAL)
            & (ages >= low)
            & (ages <= high)
        )
        # Followed from their first game: those who arrive after the burn-in.
        self.measure_from = start + round(run.burn_in_years * DAYS_PER_YEAR)
        self.newcomer = (
            self.in_arena
            & (population.kind != PlayerKind.INITIAL)
            & (population.arrival_day >= self.measure_from)
        )
        # A checkpoint follows the newcomers who can play before the next
        # one: those yet to come only wait, and their first checkpoint's
        # figures would be overwritten before they could count.
        self.newcomer_arrival = np.where(self.newcomer, population.arrival_day, np.inf)
        self.checkpoint_days = run.checkpoint_days
        self.pairing_index = (
            None
            if config.pairing_rating == "true"
            else self.labels.index(config.pairing_rating)
        )

    # --- ratings used for pairing --------------------------------------------

    def pairing_rating(
        self, world: LiveWorld, players: IntArray, day: int, rng: np.random.Generator
    ) -> FloatArray:
        """The arena's designated rating of ``players`` (NaN = unrated)."""
        if self.pairing_index is None:
            return self.truth(world.strength(players, day, rng), players)
        rated = self.rated[self.pairing_index]
        return rated.system.rating_view(rated.state)[players]

    # --- the schedule ----------------------------------------------------------

    def start_events(
        self, world: LiveWorld, day: int, rng: np.random.Generator
    ) -> None:
        """Once a week: players enter OTB events by their activity."""
        population = world.drawn
        sched = self.schedule
        # An entrant must still be in the pool on the last day an event that
        # starts this week can last (it starts within 6 days), so that no one
        # plays a game after leaving.
        longest = max(*sched.rounds, sched.round_robin_size)
        last_day = day + 6 + -(-longest // sched.rounds_per_day) - 1
        # Tested among the players in the pool only (in order, as a mask).
        candidates = world.present(day)
        candidates = candidates[
            self.in_arena[candidates]
            & (population.departure_day[candidates] > last_day)
            & (self.busy_until[candidates] < day)
        ]
        per_week = (
            population.activity[candidates]
            * sched.activity_scale
            * 12.0
            / (DAYS_PER_YEAR / 7.0)
        )
        mean_rounds = float(np.mean(sched.rounds))
        enter = rng.random(candidates.size) < np.minimum(per_week / mean_rounds, 1.0)
        entrants = candidates[enter]
        if entrants.size < 4:
            return
        rating = self.pairing_rating(world, entrants, day, rng)
        # Round robins by the schedule's fill rule, Swiss opens national or
        # international (simulator.world.events).
        robins, swiss = form_events(
            entrants,
            rating,
            population.federation[entrants],
            share=sched.round_robin_share,
            size=sched.round_robin_size,
            field_size=sched.field_size,
            events=sched.events,
            rng=rng,
        )
        for group in robins:
            self._add_event(rng.permutation(group), day, rng, robin=True)
        for group in swiss:
            if group.size >= 4:
                self._add_event(group, day, rng, robin=False)

    def _add_event(
        self,
        players: IntArray,
        week_start: int,
        rng: np.random.Generator,
        *,
        robin: bool,
    ) -> None:
        sched = self.schedule
        start = week_start + int(rng.integers(0, 7))
        if robin:
            rounds = round_robin(players)
            n_rounds = len(rounds)
            event = _Event(self.next_event_id, start, players, n_rounds, rounds)
        else:
            # Small fields play fewer rounds, so that a legal pairing exists.
            drawn = draw_rounds(sched.rounds, sched.events, rng)
            n_rounds = min(drawn, players.size // 2)
            event = _Event(self.next_event_id, start, players, n_rounds, None)
        self.next_event_id += 1
        days = -(-n_rounds // sched.rounds_per_day)
        self.busy_until[players] = start + days - 1
        self.events.append(event)

    def play_day(self, world: LiveWorld, day: int, rng: np.random.Generator) -> None:
        """Play every round the schedule has on ``day``."""
        arrived = world.arrived(day)
        for rated in self.rated:
            rated.grow(arrived, birth_year=self.birth_year)
        kind = self.schedule.kind
        if kind == "swiss":
            if (day - self.first_day) % 7 == 0:
                self.start_events(world, day, rng)
            for _ in range(self.schedule.rounds_per_day):
                self._play_otb_round(world, day, rng)
            self._finish_events(day)
        else:
            self._play_pool_day(world, day, rng)

    def _play_otb_round(
        self, world: LiveWorld, day: int, rng: np.random.Generator
    ) -> None:
        todays = [e for e in self.events if e.start <= day and e.played < e.n_rounds]
        if not todays:
            return
        swiss = [e for e in todays if e.robin is None]
        # The running Swiss events' states, joined in the order of their ids.
        board = self.swiss_board
        # The Swiss order uses the designated rating at the start (read once
        # for all the events that start today: no rating changes in between).
        starting = [e for e in swiss if e.played == 0]
        if starting:
            players = [e.players for e in starting]
            rating = self.pairing_rating(world, np.concatenate(players), day, rng)
            cut = np.cumsum([p.size for p in players])[:-1]
            board.start(
                [e.id for e in starting],
                [
                    swiss_start(p, r)
                    for p, r in zip(players, np.split(rating, cut), strict=True)
                ],
            )
        if board.ids != [e.id for e in swiss]:
            raise RuntimeError("Internal error: the Swiss board lost track of events.")
        # Every Swiss event's round at once: the same rounds and the same
        # draws (a colour lot per event, in order) as event by event.
        white, black, bye, n_games, n_byes = board.pair(rng)
        board_white, board_black = white, black
        sizes = n_games
        robins = [e.robin[e.played] for e in todays if e.robin is not None]
        if robins:
            # The day's games in the order of the events: the Swiss events'
            # (joined, in order), then the round robins', taken piece by piece.
            is_swiss = np.array([e.robin is None for e in todays])
            source = np.empty(len(todays), dtype=np.intp)
            source[is_swiss] = np.arange(len(swiss))
            source[~is_swiss] = np.arange(len(swiss), len(todays))
            sizes = np.concatenate([n_games, [r.n_games for r in robins]])
            starts = np.cumsum(sizes) - sizes
            ends = np.cumsum(sizes[source])
            take = np.repeat(
                starts[source] - ends + sizes[source], sizes[source]
            ) + np.arange(ends[-1])
            white = np.concatenate([white, *(r.white for r in robins)])[take]
            black = np.concatenate([black, *(r.black for r in robins)])[take]
            sizes = sizes[source]
        games = self._play(
            world,
            white,
            black,
            day,
            day,
            np.repeat([e.id for e in todays], sizes),
            np.repeat([e.start for e in todays], sizes).astype(np.float64),
            rng,
        )
        self.otb_rounds.append((day, games))
        for event in todays:
            event.played += 1
        if swiss:
            # The Swiss games' scores: in the events' order, as paired.
            score = games.score
            if robins:
                score = score[take < int(n_games.sum())]
            board.record(board_white, board_black, bye, n_games, n_byes, score)
            finished = [e.played >= e.n_rounds for e in swiss]
            if any(finished):
                board.keep(~np.array(finished))

    def _finish_events(self, day: int) -> None:
        done = [e for e in self.events if e.played >= e.n_rounds]
        if not done:
            return
        self.events = [e for e in self.events if e.played < e.n_rounds]
        # One batch of the day's finished events, in the order (and with the
        # values) of the events' own batches one after another: event by event
        # (ids ascend along self.events), each in the order its games were
        # played.
        played = [g for _, g in self.otb_rounds]
        event = np.concatenate([g.event for g in played])
        is_done = np.zeros(self.next_event_id, dtype=bool)
        is_done[[e.id for e in done]] = True
        order = np.flatnonzero(is_done[event])
        order = order[np.argsort(event[order], kind="stable")]

        def finished(name: str) -> Any:
            return np.concatenate([getattr(g, name) for g in played])[order]

        games = Games.checked(
            finished("white"),
            finished("black"),
            finished("score"),
            finished("day"),
            event[order],
            finished("event_start"),
        )
        for rated in self.rated:
            if not rated.system.per_game:
                rated.pending.append((day, games))
        # Rounds before the oldest running event's start have no games to rate.
        oldest = min((e.start for e in self.events), default=day + 1)
        self.otb_rounds = [(d, g) for d, g in self.otb_rounds if d >= oldest]

    def _play_pool_day(
        self, world: LiveWorld, day: int, rng: np.random.Generator
    ) -> None:
        population = world.drawn
        sched = self.schedule
        present = np.flatnonzero(self.in_arena & world.active(day))
        per_day = (
            population.activity[present] * sched.activity_scale * 12.0 / DAYS_PER_YEAR
        )
        p_round = np.minimum(per_day / sched.rounds_per_day, 1.0)
        day_games: list[Games] = []
        for r in range(sched.rounds_per_day):
            players = present[rng.random(present.size) < p_round]
            if players.size < 2:
                continue
            if sched.kind == "online":
                rating = self.pairing_rating(world, players, day, rng)
                rating = np.where(np.isnan(rating), 1500.0, rating)
                rnd = pair_online(players, rating, rng, window=sched.window)
            else:
                rnd = pair_random(players, rng)
            if rnd.n_games == 0:
                continue
            when = day + (r + 0.5) / sched.rounds_per_day
            ids = np.full(rnd.n_games, self.next_event_id)
            start = np.full(rnd.n_games, float(day))
            day_games.append(
                self._play(world, rnd.white, rnd.black, day, when, ids, start, rng)
            )
        self.next_event_id += 1
        if day_games:
            games = Games.concat(day_games)
            for rated in self.rated:
                if not rated.system.per_game:
                    rated.pending.append((day, games))

    # --- one batch of games ----------------------------------------------------

    def _play(
        self,
        world: LiveWorld,
        white: IntArray,
        black: IntArray,
        today: int,
        day: float,
        event: IntArray,
        event_start: FloatArray,
        rng: np.random.Generator,
    ) -> Games:
        """Sample a round's results, record predictions, update per-game systems.

        ``today`` is the calendar day (true strengths are those of the day),
        ``day`` the games' time (a fraction into it for pool rounds). Returns
        the round's games with their results.
        """
        n = white.shape[0]
        both = np.concatenate([white, black])
        true = self.truth(world.strength(both, today, rng), both)
        true_white, true_black = true[:n], true[n:]
        score = self.outcomes.sample(true_white, true_black, rng)
        if today >= self.measure_from:
            expected = {
                r.label: r.system.expected_score(r.state, white, black)
                for r in self.rated
            }
            oracle = self.outcomes.expected_score(true_white, true_black)
            pairs = self._pair_types(both)
            self.recorder.record_games(expected, oracle, score, pairs)
            if self.history is not None:
                self.history.record_games(
                    day, white, black, score, expected, oracle, pairs
                )
        games = Games(
            white, black, score, np.full(white.size, float(day)), event, event_start
        )
        for rated in self.rated:
            if rated.system.per_game:
                # The old state is dropped: its arrays may take the new values.
                rated.state = rated.system.rate(
                    rated.state, games, day=day, overwrite_state=True
                )
        # A player plays at most once a round (module docstring): one
        # increment per index, no bincount over every player needed.
        self.games_played[white] += 1
        self.games_played[black] += 1
        self.last_game[white] = day
        self.last_game[black] = day
        return games

    def _pair_types(self, both: IntArray) -> np.ndarray[Any, Any]:
        """Per game, how many of its players some system has not rated yet (0-2).

        ``both`` is the round's White players, then its Black players. Before
        the round's games are rated, as the predictions are made.
        """
        new = np.zeros(both.shape, dtype=bool)
        for r in self.rated:
            new |= ~r.system.is_rated(r.state, both)
        n = both.shape[0] // 2
        return new[:n].astype(np.int8) + new[n:].astype(np.int8)

    # --- periods and checkpoints -------------------------------------------------

    def close_periods(self, day: int) -> None:
        """Rate every period that closes at the end of ``day``."""
        # Systems on one calendar (FIDE's lists, Glicko's months) close the
        # same batches: joined once, and read-only, so shared.
        joined: dict[tuple[int, ...], tuple[list[Games], Games]] = {}
        for rated in self.rated:
            while rated.close is not None and day + 1 >= rated.close:
                cutoff = rated.close - rated.closing_days
                now = [g for end, g in rated.pending if end < cutoff]
                rated.pending = [(end, g) for end, g in rated.pending if end >= cutoff]
                # Keyed by the batches themselves (kept alive beside the join,
                # so that no id is reused while the dict lives).
                key = tuple(id(g) for g in now)
                if key not in joined:
                    joined[key] = (now, Games.concat(now))
                rated.state = rated.system.rate(
                    rated.state, joined[key][1], day=rated.close
                )
                rated.close = rated.system.next_close(rated.close)

    def recent(self, world: LiveWorld, day: int) -> BoolArray:
        """Players present who played here within :data:`ACTIVE_DAYS`."""
        return self._recent_among(self.in_arena & world.active(day), day)

    def _recent_among(self, present: BoolArray, day: int) -> BoolArray:
        """Those of ``present`` (a mask) who played here within ACTIVE_DAYS."""
        # ``day - last_game <= ACTIVE_DAYS``, in one pass (days are whole
        # numbers, exact in floating point, so the two agree).
        return present & (self.last_game >= day - ACTIVE_DAYS)

    def published(self, label: str) -> FloatArray:
        """The published ratings of the system labelled ``label``."""
        rated = self.rated[self.labels.index(label)]
        return rated.full_rating().copy()

    def truth(
        self, strength: FloatArray, players: IntArray | None = None
    ) -> FloatArray:
        """True strengths in this arena: the population's plus the offsets."""
        if isinstance(self.offset, float):
            return strength
        return strength + (self.offset if players is None else self.offset[players])

    def checkpoint(self, world: LiveWorld, day: int) -> None:
        """Hand the recorder every system's published ratings."""
        present = self.in_arena & world.active(day)
        truth = self.truth(world.true_strength)
        recent = self._recent_among(present, day)
        # Read, not kept: views of the states (or, for a state that grows,
        # of its padded buffer), not copies of every list.
        ratings = {r.label: r.full_rating() for r in self.rated}
        if self.history is not None:
            self.history.checkpoint(day, ratings, truth, self.games_played, present)
        self.recorder.checkpoint(
            float(day),
            ratings,
            truth,
            recent,
            self.games_played,
            self.newcomer_arrival <= day + self.checkpoint_days,
            self.cohort & present,
        )


def _result(arena: _Arena) -> ReplicateResult:
    """The arena's tables, with its histories and predictions where kept."""
    result = arena.recorder.result()
    if arena.history is None:
        return result
    return dataclasses.replace(
        result,
        history=arena.history.history(),
        predictions=arena.history.predictions(),
    )


def _build_arenas(
    config: RunConfig,
    population: Population,
    start: int,
    rng: np.random.Generator,
    rows: int | None = None,
) -> list[_Arena]:
    """The run's arenas in order, each on the strengths it builds on."""
    arenas: list[_Arena] = []
    for i, a in enumerate(config.arena):
        base: FloatArray | float = 0.0
        if a.strength_from:
            base = next(b.offset for b in arenas if b.config.name == a.strength_from)
        arenas.append(_Arena(a, config, population, start, rng, i, base, rows))
    return arenas


def checkpoint_offsets(config: RunConfig) -> list[int]:
    """The checkpoints' days, counted from the first day, in order.

    Every ``checkpoint_days`` days and on the last day, after the burn-in.
    """
    n_days = round(config.years * DAYS_PER_YEAR)
    burn_in = round(config.burn_in_years * DAYS_PER_YEAR)
    return [
        i
        for i in range(burn_in, n_days)
        if (i + 1) % config.checkpoint_days == 0 or i == n_days - 1
    ]


def steady_from(config: RunConfig) -> int:
    """The offset of the first checkpoint of the steady-state window.

    The window is the recorder's: the last ``metrics.steady_fraction`` of the
    checkpoints, at least one.
    """
    offsets = checkpoint_offsets(config)
    if not offsets:
        return 0
    n_steady = config.metrics.n_steady(len(offsets))
    return offsets[len(offsets) - n_steady]


def run_replicate(
    config: RunConfig,
    rng: np.random.Generator,
    *,
    on_day: Callable[[int], None] | None = None,
) -> dict[str, ReplicateResult]:
    """Run one replicate of ``config`` with the generator ``rng``.

    Parameters
    ----------
    config : RunConfig
        The experiment.
    rng : numpy.random.Generator
        The replicate's only source of randomness.
    on_day : callable, optional
        Called with the number of days done after each day (progress bars).

    Returns
    -------
    dict
        Arena name -> the metrics of that arena.
    """
    start = day_of(config.start_date)
    n_days = round(config.years * DAYS_PER_YEAR)
    checkpoints = set(checkpoint_offsets(config))
    population = make_population(config.population, rng, start_day=start, n_days=n_days)
    world = LiveWorld(population)
    # Period states hold the players arrived (they grow day by day).
    arenas = _build_arenas(config, population, start, rng, world.arrived(start))
    for i in range(n_days):
        day = start + i
        for arena in arenas:
            arena.play_day(world, day, rng)
            arena.close_periods(day)
        if i in checkpoints:
            # Checkpoints read everyone's true strength.
            world.advance_all(day, rng)
            for arena in arenas:
                arena.checkpoint(world, day)
        if on_day is not None:
            on_day(i + 1)
    population = world.population
    results = {a.config.name: _result(a) for a in arenas}
    # Cross-arena comparisons on the last day, over players active in both.
    last = start + n_days - 1
    by_name = {a.config.name: a for a in arenas}
    tables: dict[str, list[pd.DataFrame]] = {}
    for comp in config.comparison:
        (ax, lx), (ay, ly) = comp.x.split("/"), comp.y.split("/")
        arena_x, arena_y = by_name[ax], by_name[ay]
        both = arena_x.recent(world, last) & arena_y.recent(world, last)
        table = compare_ratings(
            comp.name,
            arena_x.published(lx),
            arena_y.published(ly),
            population.true_strength,
            both,
            bin_width=comp.bin_width,
        )
        tables.setdefault(ax, []).append(table)
    for name, frames in tables.items():
        results[name] = dataclasses.replace(
            results[name], comparison=pd.concat(frames, ignore_index=True)
        )
    return results
