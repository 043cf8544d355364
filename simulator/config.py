"""Run configurations: frozen dataclasses, TOML loading and validation.

A config file maps onto :class:`RunConfig`; every key is checked: an unknown
key, a wrong type or an impossible value is a :class:`ConfigError` whose one-
line message names the key (as a dotted path) and the value. The resolved
config (every default filled in) is written beside every result.

A minimal config::

    title = "Two systems"
    years = 3

    [population]
    n_players = 500

    [[arena]]
    name = "otb"
    systems = ["fide", "glicko2"]

A system is a registry name or a table ``{system = "fide", label = "fide no
cap", cap = "none"}``: the keys besides ``system`` and ``label`` are the
system's parameters, and the string ``"none"`` stands for Python's ``None``
(TOML has no null). Every key, with its type, default, unit and meaning, is
in ``docs/config.md``, generated from these dataclasses' docstrings.

Why one module: the sections' dataclasses, the loader that maps TOML onto
them and the dump that maps them back change together (a new key is
declared, documented, checked and written here), and a reader finds a key's
whole story in one file; the sections of other layers live in those layers.

Imports: base, systems, world and evaluation (each section of a config is the
parameter dataclass of the layer it configures); never the engine, data,
tasks or the CLI.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import tomllib
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union, get_args, get_origin, get_type_hints

import numpy as np
import tomli_w

from simulator._validate import check_choice, check_interval
from simulator.evaluation.settings import MetricsConfig, OutputConfig
from simulator.systems import SYSTEMS, RatingSystem, make_system
from simulator.world.events import EventsConfig, check_rounds
from simulator.world.outcomes import CURVES, OutcomeModel
from simulator.world.population_config import PopulationConfig

__all__ = [
    "DEFAULT_SYSTEMS",
    "ArenaConfig",
    "Comparison",
    "ConfigError",
    "GridAxis",
    "Point",
    "RunConfig",
    "ScheduleConfig",
    "SeedingConfig",
    "SystemSpec",
    "Variant",
    "default_config",
    "dump_config",
    "expand",
    "load_config",
    "parse_config",
]

#: The SD of a player's online strength about their OTB strength (rating
#: points): the default ``strength_offset_sd`` of an online arena on the
#: population's strength. Calibrated so that the correlation of FIDE and
#: Lichess blitz ratings in the conversion experiment is near the published
#: 0.861 (docs/world.md, "One player, several strengths").
ONLINE_OFFSET_SD = 110.0
#: The SD of a player's strength at one online speed about their strength at
#: the speed it builds on (rating points): the default ``strength_offset_sd``
#: of an online arena with a ``strength_from``. Our assumption, short of the
#: about 300 that the published correlation of a player's classical and
#: blitz ratings (0.778, not reviewed) would need (docs/world.md, "One
#: player, several strengths").
SPEED_OFFSET_SD = 200.0
#: The systems of the default comparison, in report order.
DEFAULT_SYSTEMS = (
    "fide",
    "fide-2024",
    "classic",
    "glicko2",
    "lichess",
    "glicko",
    "elo",
)


class ConfigError(ValueError):
    """A bad configuration: the message names the key and the value."""


@dataclass(frozen=True)
class SystemSpec:
    """One rating system in an arena: a registry name, a label and parameters.

    Parameters
    ----------
    system : str
        Registry name (``ratingsim systems`` lists them).
    label : str
        Name in tables and figures; defaults to ``system``. Labels are unique
        within an arena.
    params : tuple of (str, value) pairs
        Keyword parameters of the system.
    """

    system: str
    label: str = ""
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        check_choice("SystemSpec", "system", self.system, tuple(SYSTEMS))
        if not self.label:
            object.__setattr__(self, "label", self.system)

    def build(self) -> RatingSystem:
        """The configured system."""
        return make_system(self.system, **dict(self.params))


@dataclass(frozen=True)
class ScheduleConfig:
    """Who plays when in an arena.

    Parameters
    ----------
    kind : {"swiss", "online", "random"}, default "swiss"
        ``swiss``: OTB events, Swiss opens and some round robins, a round a
        day; ``online``: rating-window pairing in many rounds a day;
        ``random``: random pairing each day (for tests and baselines).
    rounds : tuple of int, default (5, 7, 9)
        Swiss events have one of these numbers of rounds, as often as
        ``events.round_weights`` says (by default 0.4, 0.35 and 0.25 for 5, 7
        and 9; equally often for other rounds). docs/world.md: opens of 5, 7
        or 9 rounds dominate. Unit: rounds.
    field_size : int, default 40
        Mean entrants of a Swiss event. Unit: players.
    round_robin_share : float, default 0.1
        Share of OTB event entries that go to round robins.
        Unit: share of entries (0 to 1).
    round_robin_size : int, default 10
        Players in a round robin (docs/world.md: about 10); grouped by rating.
        Unit: players.
    rounds_per_day : int, default 1
        OTB rounds played per day of an event; online rounds per day.
        Unit: rounds per day.
    participation : float, default 1.0
        Share of the population that plays in this arena.
        Unit: share of the players (0 to 1).
    participation_midpoint : float or None, default None
        If given, a player's chance to play in this arena is ``participation``
        times a logistic curve of their true strength on entry, one half at
        this strength: weaker players are less likely to play here (e.g. an
        OTB arena within a larger, weaker online pool). Unit: rating points.
    participation_width : float, default 150
        Scale (points) of that logistic curve. Unit: rating points.
    activity_scale : float, default 1.0
        Multiplies each player's games a year in this arena (e.g. 50 for an
        online arena where players play far more than over the board). Unit: factor.
    window : float, default 200
        Online pairing: the largest rating difference paired. Unit: rating points.
    events : EventsConfig
        Swiss sizes and rounds, round-robin fill, national and international
        events (``[arena.schedule.events]``, :mod:`simulator.world.events`).
    """

    kind: str = "swiss"
    rounds: tuple[int, ...] = (5, 7, 9)
    field_size: int = 40
    round_robin_share: float = 0.1
    round_robin_size: int = 10
    rounds_per_day: int = 1
    participation: float = 1.0
    participation_midpoint: float | None = None
    participation_width: float = 150.0
    activity_scale: float = 1.0
    window: float = 200.0
    events: EventsConfig = field(default_factory=EventsConfig)

    def __post_init__(self) -> None:
        owner = "ScheduleConfig"
        check_choice(owner, "kind", self.kind, ("swiss", "online", "random"))
        check_rounds(owner, self.rounds, self.events)
        check_interval(owner, "field_size", self.field_size, 4, 100_000, kind="an int")
        check_interval(owner, "round_robin_share", self.round_robin_share, 0, 1)
        check_interval(
            owner, "round_robin_size", self.round_robin_size, 3, 30, kind="an int"
        )
        check_interval(
            owner, "rounds_per_day", self.rounds_per_day, 1, 500, kind="an int"
        )
        check_interval(owner, "participation", self.participation, 0, 1, closed="right")
        if self.participation_midpoint is not None:
            check_interval(
                owner, "participation_midpoint", self.participation_midpoint, 0, 4000
            )
        check_interval(owner, "participation_width", self.participation_width, 1, 2000)
        check_interval(
            owner, "activity_scale", self.activity_scale, 0, 1e4, closed="right"
        )
        check_interval(owner, "window", self.window, 0, 4000, closed="right")


@dataclass(frozen=True)
class SeedingConfig:
    """How the initial pool's ratings are set on the first day.

    The initial pool is established: by default every system starts it at the
    player's true strength plus a normal error, with ``n_games`` games played
    and, for Glicko systems, deviation ``rd``. Newcomers start new under every
    system.

    Seeding from the truth favours no system but flatters every one of them
    at first: their errors start at ``rating_sd`` and grow or shrink from
    there. With ``source = "flat"`` the truth plays no part: everyone in the
    initial pool starts at ``flat_rating``, and the systems spread the pool
    themselves, which takes a burn-in (``burn_in_years`` of the run) before
    any figure is read.

    Parameters
    ----------
    source : {"truth", "flat"}, default "truth"
        Where the initial pool's ratings come from.
    flat_rating : float, default 1500
        Every initial rating under ``source = "flat"``. Unit: rating points.
    rating_sd : float, default 60
        SD of the error of the initial pool's ratings (rating points), under
        ``source = "truth"``. Unit: rating points.
    n_games : int, default 60
        Games already in each initial rating (K tiers, Glicko counts). Unit: games.
    rd : float, default 60
        Glicko deviation of the initial pool. Unit: rating points.
    """

    source: str = "truth"
    flat_rating: float = 1500.0
    rating_sd: float = 60.0
    n_games: int = 60
    rd: float = 60.0

    def __post_init__(self) -> None:
        check_choice("SeedingConfig", "source", self.source, ("truth", "flat"))
        check_interval("SeedingConfig", "flat_rating", self.flat_rating, 0, 4000)
        check_interval("SeedingConfig", "rating_sd", self.rating_sd, 0, 1000)
        check_interval(
            "SeedingConfig", "n_games", self.n_games, 0, 10**6, kind="an int"
        )
        check_interval("SeedingConfig", "rd", self.rd, 0, 1000, closed="right")


@dataclass(frozen=True)
class ArenaConfig:
    """A schedule plus the systems that rate its games.

    Parameters
    ----------
    name : str
        The arena's name.
    systems : tuple of SystemSpec
        The systems rating every game of the arena.
    pairing_rating : str
        Label of the system whose rating pairs players (Swiss order, online
        window), or ``"true"`` for the true strength; by default the first
        system.
    reference : str
        Label of the system the report compares every other system with
        (paired differences over replicates); by default the first system.
    outcomes : str, default "otb"
        The outcome model preset: ``"otb"`` or ``"online"``.
    curve : str, optional
        White's expected-score curve under that preset (issue 16, "Truth
        curves"; :class:`~simulator.world.outcomes.OutcomeModel`):
        ``"logistic"`` (the Elo curve), ``"normal"`` (the curve behind FIDE's
        table 8.1.2, docs/rules.md, section 1) or ``"fitted"`` (the level-dependent
        fit of real OTB results, docs/world.md, "Draws and White's edge", (L) E14
        "v2"). By default ``"fitted"`` for ``"otb"`` and ``"logistic"`` for
        ``"online"`` (docs/world.md has no online fit). Filled in when the config
        is built, so a variant that changes ``outcomes`` sets ``curve`` too.
    schedule : ScheduleConfig
        Who plays when.
    seeding : SeedingConfig
        The initial pool's ratings.
    strength_from : str, default ""
        The name of an earlier arena whose strengths this arena's build on
        (e.g. Lichess rapid on Lichess blitz: one online strength, and each
        speed's own part on top); ``""``: the population's strength.
    strength_offset_sd : float, optional
        A player's true strength in this arena is the strength it builds on
        (``strength_from``) plus a personal offset, normal with this SD,
        drawn once per player from a stream of its own (how much better or
        worse they are at this form of chess; docs/world.md, "One player,
        several strengths"). 0: the same strength. By default (filled in
        when the config is built, as ``curve`` is) 0 for an ``"otb"`` arena,
        :data:`ONLINE_OFFSET_SD` for an ``"online"`` arena on the
        population's strength and :data:`SPEED_OFFSET_SD` for an online
        arena built on another. The offset moves the results, the seeded
        ratings, pairing by the truth and the truth every accuracy figure of
        the arena is measured against; participation and probe levels follow
        the population's strength. Unit: rating points.
    """

    name: str = "otb"
    systems: tuple[SystemSpec, ...] = tuple(SystemSpec(s) for s in DEFAULT_SYSTEMS)
    pairing_rating: str = ""
    reference: str = ""
    outcomes: str = "otb"
    curve: str = ""
    schedule: ScheduleConfig = field(default_factory=ScheduleConfig)
    seeding: SeedingConfig = field(default_factory=SeedingConfig)
    strength_from: str = ""
    strength_offset_sd: float | None = None

    def __post_init__(self) -> None:
        check_choice("ArenaConfig", "outcomes", self.outcomes, ("otb", "online"))
        if self.strength_offset_sd is None:
            sd = 0.0
            if self.outcomes == "online":
                sd = SPEED_OFFSET_SD if self.strength_from else ONLINE_OFFSET_SD
            object.__setattr__(self, "strength_offset_sd", sd)
        check_interval(
            "ArenaConfig", "strength_offset_sd", self.strength_offset_sd, 0, 1000
        )
        if self.strength_from == self.name:
            raise ValueError(
                f"ArenaConfig.strength_from names the arena itself ({self.name!r}); "
                "it must name an earlier arena, or be empty for the population's."
            )
        if not self.systems:
            raise ValueError("An arena needs at least one system. Got none.")
        labels = [s.label for s in self.systems]
        dup = sorted({x for x in labels if labels.count(x) > 1})
        if dup:
            raise ValueError(f"System labels must be unique in an arena. Got {dup}.")
        if not self.pairing_rating:
            object.__setattr__(self, "pairing_rating", labels[0])
        check_choice(
            "ArenaConfig", "pairing_rating", self.pairing_rating, (*labels, "true")
        )
        if not self.reference:
            object.__setattr__(self, "reference", labels[0])
        check_choice("ArenaConfig", "reference", self.reference, tuple(labels))
        if self.curve == "":
            default = "fitted" if self.outcomes == "otb" else "logistic"
            object.__setattr__(self, "curve", default)
        check_choice("ArenaConfig", "curve", self.curve, CURVES)

    def outcome_model(self) -> OutcomeModel:
        """The arena's outcome model: the ``outcomes`` preset with ``curve``."""
        if self.outcomes == "otb":
            return OutcomeModel.otb(curve=self.curve)
        return OutcomeModel.online(curve=self.curve)


@dataclass(frozen=True)
class Comparison:
    """Two systems of two arenas compared on the players rated by both.

    Parameters
    ----------
    x, y : str
        ``"arena/label"`` of each system, e.g. ``"otb/fide"`` and
        ``"online/lichess"``; ``x`` is regressed on ``y`` as published
        conversion tables do (``FIDE = slope * Lichess + intercept``).
    bin_width : float, default 100
        Width of the bands of ``x`` in the conversion table. Unit: rating points.
    """

    x: str
    y: str
    bin_width: float = 100.0

    def __post_init__(self) -> None:
        for name in ("x", "y"):
            value = getattr(self, name)
            if not isinstance(value, str) or value.count("/") != 1:
                raise ValueError(
                    f"The {name!r} parameter of Comparison must be 'arena/label'. "
                    f"Got {value!r} instead."
                )
        check_interval("Comparison", "bin_width", self.bin_width, 1, 4000)

    @property
    def name(self) -> str:
        """``"x vs y"``."""
        return f"{self.x} vs {self.y}"


@dataclass(frozen=True)
class Variant:
    """One named point of a sweep: dotted-key overrides of the base config.

    Parameters
    ----------
    name : str
        Shown in the sweep's tables.
    set : tuple of (key, value) pairs
        Overrides, e.g. ``("arena.0.systems.0.cap", None)``; list entries are
        addressed by index (``arena.0``, ``systems.2``).
    """

    name: str
    set: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("A variant needs a non-empty 'name'.")


@dataclass(frozen=True)
class GridAxis:
    """One axis of a sweep's grid: a dotted key and the values it takes.

    Parameters
    ----------
    key : str
        The dotted key it sets, as in a variant's ``set`` (``"years"``).
    values : tuple
        The values the key takes, one grid point each; ``"none"`` is None.
    """

    key: str
    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        if not self.values:
            raise ValueError(f"The grid axis {self.key!r} needs at least one value.")


@dataclass(frozen=True)
class RunConfig:
    """A whole experiment.

    Parameters
    ----------
    title : str
        Shown in the report.
    seed : int or None
        Root seed; None draws one (printed and saved with the results). Unit: none.
    replicates : int, default 8
        Independent replicates (streams from ``SeedSequence.spawn``). Unit: replicates.
    start_date : str, default "2024-01-01"
        The first simulated day (ISO date, YYYY-MM-DD).
    years : float, default 5
        Length of the run. Unit: years.
    checkpoint_days : int, default 7
        Days between the checkpoints at which accuracy and convergence are read.
        Unit: days.
    burn_in_years : float, default 0
        The first part of the run, in which the systems rate but nothing is
        measured: no prediction, no checkpoint, and only newcomers who arrive
        after it are followed. The steady-state figures are read over the last
        ``metrics.steady_fraction`` of the checkpoints after it. Unit: years.
    cohort_ages : tuple of float, default (25, 45)
        The drift cohort: initial-pool players of these ages on the first day.
        Unit: years of age.
    population : PopulationConfig
        The players.
    arena : tuple of ArenaConfig
        The arenas.
    metrics : MetricsConfig
        Metric settings.
    output : OutputConfig
        Opt-in outputs (``[output]``): rating histories, per-game predictions.
    comparison : tuple of Comparison
        Cross-arena comparisons (``[[comparison]]`` tables): the conversion
        between two systems over the players active in both arenas.
    variant : tuple of Variant
        A sweep's named points (``[[variant]]`` tables); none for a single run.
    grid : tuple of GridAxis
        A sweep's grid (``[[grid]]`` tables), crossed with the variants.

    Notes
    -----
    Every point of a sweep runs the same replicate seeds (common random
    numbers), so differences between points are not noise between streams.
    """

    title: str = "ratingsim: default comparison"
    seed: int | None = None
    replicates: int = 8
    start_date: str = "2024-01-01"
    years: float = 5.0
    checkpoint_days: int = 7
    burn_in_years: float = 0.0
    cohort_ages: tuple[float, ...] = (25.0, 45.0)
    population: PopulationConfig = field(default_factory=PopulationConfig)
    arena: tuple[ArenaConfig, ...] = (ArenaConfig(),)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    comparison: tuple[Comparison, ...] = ()
    variant: tuple[Variant, ...] = ()
    grid: tuple[GridAxis, ...] = ()

    def __post_init__(self) -> None:
        owner = "RunConfig"
        if self.seed is not None:
            check_interval(owner, "seed", self.seed, 0, 2**128, kind="an int")
        check_interval(owner, "replicates", self.replicates, 1, 100_000, kind="an int")
        try:
            # Only YYYY-MM-DD: numpy also reads "2024" and, as the year
            # 20240101, "20240101".
            ok = str(np.datetime64(self.start_date, "D")) == self.start_date
        except (ValueError, TypeError):
            ok = False
        if not ok:
            raise ValueError(
                f"The 'start_date' parameter of {owner} must be an ISO date "
                f"(YYYY-MM-DD) such as '2024-01-01'. Got {self.start_date!r} instead."
            )
        check_interval(owner, "years", self.years, 0, 200, closed="right")
        check_interval(
            owner, "checkpoint_days", self.checkpoint_days, 1, 3650, kind="an int"
        )
        check_interval(owner, "burn_in_years", self.burn_in_years, 0, 200)
        if self.burn_in_years >= self.years:
            raise ValueError(
                f"The 'burn_in_years' parameter of {owner} must be below 'years' "
                f"({self.years:g}), or nothing is measured. Got "
                f"{self.burn_in_years!r} instead."
            )
        if len(self.cohort_ages) != 2 or self.cohort_ages[0] > self.cohort_ages[1]:
            raise ValueError(
                f"The 'cohort_ages' parameter of {owner} must be (low, high). "
                f"Got {self.cohort_ages!r} instead."
            )
        if not self.arena:
            raise ValueError("A run needs at least one arena. Got none.")
        pop = self.population
        if pop.probe_levels and pop.probe_arrival_years >= self.years:
            raise ValueError(
                f"Probes arrive {pop.probe_arrival_years:g} years after the start, "
                f"but the run lasts {self.years:g} years: set "
                "population.probe_arrival_years below years."
            )
        if pop.probe_levels and pop.probe_arrival_years < self.burn_in_years:
            raise ValueError(
                f"Probes arrive {pop.probe_arrival_years:g} years after the start, "
                f"within the burn-in of {self.burn_in_years:g} years, and would not "
                "be followed: set population.probe_arrival_years to burn_in_years "
                "or later."
            )
        names = [a.name for a in self.arena]
        if len(set(names)) != len(names):
            raise ValueError(f"Arena names must be unique. Got {names}.")
        for i, a in enumerate(self.arena):
            if a.strength_from and a.strength_from not in names[:i]:
                raise ValueError(
                    f"ArenaConfig.strength_from of arena {a.name!r} is "
                    f"{a.strength_from!r}, which is no earlier arena "
                    f"({', '.join(map(repr, names[:i])) or 'none'})."
                )
        known = {f"{a.name}/{s.label}" for a in self.arena for s in a.systems}
        for c in self.comparison:
            for ref in (c.x, c.y):
                if ref not in known:
                    raise ValueError(
                        f"The comparison {c.name!r} names {ref!r}, which is no "
                        f"arena/label of this run ({', '.join(sorted(known))})."
                    )


def default_config() -> RunConfig:
    """The built-in default comparison: every system on one Swiss-event world."""
    return RunConfig()


# --- TOML -> dataclasses -------------------------------------------------------


def _type_name(tp: Any) -> str:
    names = {int: "an int", float: "a number", str: "a string", bool: "true or false"}
    if tp in names:
        return names[tp]
    if get_origin(tp) is tuple:
        return "a list"
    if dataclasses.is_dataclass(tp):
        return "a table"
    return str(tp)


def _coerce(tp: Any, value: Any, key: str) -> Any:
    """Check ``value`` against the annotation ``tp``; convert lists to tuples."""
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        args = [a for a in get_args(tp) if a is not type(None)]
        if value == "none" and type(None) in get_args(tp):
            return None
        return _coerce(args[0], value, key)
    if tp is Any:
        return value
    is_number = isinstance(value, int | float) and not isinstance(value, bool)
    if tp is float and is_number:
        # TOML has nan and inf; no key of a config means either (a NaN age
        # passed every comparison), and a huge int is no float.
        if not math.isfinite(value) or abs(value) > _MAX_NUMBER:
            raise ConfigError(
                f"Key '{key}' must be a finite number in "
                f"[-{_MAX_NUMBER:g}, {_MAX_NUMBER:g}]. Got {value!r}."
            )
        return float(value)
    if tp is int and is_number and isinstance(value, int):
        return value
    if tp in (str, bool) and isinstance(value, tp):
        return value
    if origin is tuple and isinstance(value, list):
        item = get_args(tp)[0]
        return tuple(_coerce(item, v, f"{key}[{i}]") for i, v in enumerate(value))
    if dataclasses.is_dataclass(tp) and isinstance(value, dict):
        return _build(tp, value, key)
    raise ConfigError(f"Key '{key}' must be {_type_name(tp)}. Got {value!r}.")


#: The largest magnitude of a config number: beyond any of its quantities,
#: and small enough that sums and squares of a few stay finite.
_MAX_NUMBER = 1e12
#: Bounds of the keys whose extremes validation took and every replicate then
#: failed on (out of memory, overflow): (class, key) -> (low, high, why).
_KEY_BOUNDS: dict[tuple[str, str], tuple[float, float, str]] = {
    ("PopulationConfig", "n_players"): (0, 5_000_000, "players held in memory"),
    ("PopulationConfig", "arrival_rate"): (0, 10, "newcomers a year per player"),
    ("PopulationConfig", "strength_weights"): (0, 1e6, "relative weights"),
}


def _check_bounds(cls: Any, kwargs: Mapping[str, Any], path: str) -> None:
    """Raise ConfigError for a value outside :data:`_KEY_BOUNDS`."""
    for key, value in kwargs.items():
        bound = _KEY_BOUNDS.get((cls.__name__, key))
        if bound is None:
            continue
        low, high, why = bound
        values = value if isinstance(value, tuple) else (value,)
        for v in values:
            if isinstance(v, int | float) and not low <= v <= high:
                full = f"{path}.{key}" if path else key
                raise ConfigError(
                    f"Key '{full}' must lie in [{low:g}, {high:g}] ({why}). "
                    f"Got {value!r}."
                )


def _build(cls: Any, data: Mapping[str, Any], path: str) -> Any:
    """Build the dataclass ``cls`` from ``data``, naming ``path`` in every error."""
    hints = get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls) if f.init}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        full = f"{path}.{key}" if path else key
        if key not in fields:
            known = ", ".join(sorted(fields))
            raise ConfigError(f"Unknown key '{full}'. Known keys here: {known}.")
        if cls is ArenaConfig and key == "systems":
            kwargs[key] = _systems(value, full)
        elif cls is Variant and key == "set":
            if not isinstance(value, dict):
                raise ConfigError(f"Key '{full}' must be a table of overrides.")
            # "none" stands for None, as in a system's parameters.
            kwargs[key] = tuple(sorted((k, _none(v)) for k, v in value.items()))
        elif cls is GridAxis and key == "values":
            if not isinstance(value, list):
                raise ConfigError(f"Key '{full}' must be a list. Got {value!r}.")
            kwargs[key] = tuple(_none(v) for v in value)
        elif cls is RunConfig and key in ("variant", "grid", "comparison"):
            if not isinstance(value, list):
                raise ConfigError(f"Key '{full}' must be a list of tables ([[{key}]]).")
            item = {"variant": Variant, "grid": GridAxis, "comparison": Comparison}[key]
            kwargs[key] = tuple(
                _coerce(item, v, f"{full}[{i}]") for i, v in enumerate(value)
            )
        elif cls is RunConfig and key == "arena":
            if not isinstance(value, list):
                raise ConfigError(f"Key '{full}' must be a list of tables ([[arena]]).")
            kwargs[key] = tuple(
                _coerce(ArenaConfig, v, f"{full}[{i}]") for i, v in enumerate(value)
            )
        else:
            kwargs[key] = _coerce(hints[key], value, full)
    try:
        built = cls(**kwargs)
    except (ValueError, TypeError) as exc:
        where = path or "config"
        raise ConfigError(f"{where}: {exc}") from None
    _check_bounds(cls, kwargs, path)  # what the class takes, the run may not
    return built


def _none(value: Any) -> Any:
    """TOML's stand-in ``"none"`` as Python's None."""
    return None if isinstance(value, str) and value == "none" else value


def _systems(value: Any, key: str) -> tuple[SystemSpec, ...]:
    if not isinstance(value, list):
        raise ConfigError(f"Key '{key}' must be a list of systems. Got {value!r}.")
    specs = []
    for i, item in enumerate(value):
        where = f"{key}[{i}]"
        if isinstance(item, str):
            item = {"system": item}
        if not isinstance(item, dict) or "system" not in item:
            raise ConfigError(
                f"Key '{where}' must be a system name or a table with 'system'. "
                f"Got {item!r}."
            )
        label = item.get("label", "")
        if not isinstance(label, str):
            raise ConfigError(f"Key '{where}.label' must be a string. Got {label!r}.")
        params = {k: v for k, v in item.items() if k not in ("system", "label")}
        params = {k: (None if v == "none" else v) for k, v in params.items()}
        try:
            spec = SystemSpec(item["system"], label, tuple(sorted(params.items())))
            spec.build()
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{where}: {exc}") from None
        specs.append(spec)
    return tuple(specs)


def parse_config(text: str, *, source: str = "config") -> RunConfig:
    """Parse TOML text into a validated :class:`RunConfig`."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid TOML: nested too deep") from None
    try:
        result: RunConfig = _build(RunConfig, data, "")
        expand(result)  # every point of a sweep must be a valid config
    except RecursionError:
        raise ConfigError(f"{source}: a value is nested too deep") from None
    return result


#: The largest config file read (a config is a few kilobytes; this keeps
#: ``/dev/zero`` or a wrong file from filling the memory).
MAX_CONFIG_BYTES = 4 * 1024 * 1024


def load_config(path: str | Path) -> RunConfig:
    """Read and validate a TOML config file."""
    p = Path(path)
    try:
        with open(p, "rb") as handle:
            data = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"Cannot read config file '{p}': {exc.strerror}.") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"{p}: larger than {MAX_CONFIG_BYTES:,} bytes: not a config file"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError(f"{p}, line {line}: not UTF-8 text ({exc.reason})") from None
    return parse_config(text, source=str(p))


# --- dataclasses -> TOML -------------------------------------------------------


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, SystemSpec):
            out = {"system": value.system, "label": value.label}
            out.update({k: _plain(v) for k, v in value.params})
            return out
        if isinstance(value, Variant):
            return {"name": value.name, "set": {k: _plain(v) for k, v in value.set}}
        return {
            f.name: _plain(getattr(value, f.name))
            for f in dataclasses.fields(value)
            if f.init  # None as "none": a saved config names every key
        }
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if value is None:
        return "none"
    return value


def _set_path(data: Any, key: str, value: Any) -> None:
    """Set the dotted ``key`` in nested dicts and lists (indices for lists)."""
    parts = key.split(".")
    node = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, list):
            if not (part.isascii() and part.isdigit()) or int(part) >= len(node):
                raise ConfigError(
                    f"Override '{key}': '{part}' is not an index of a list of "
                    f"{len(node)}."
                )
            if last:
                node[int(part)] = value
            else:
                node = node[int(part)]
        elif isinstance(node, dict):
            if last:
                node[part] = value
            elif part not in node:
                raise ConfigError(f"Override '{key}': unknown key '{part}'.")
            else:
                node = node[part]
        else:
            raise ConfigError(f"Override '{key}': '{part}' is below a plain value.")


def override_config(config: RunConfig, settings: Sequence[str]) -> RunConfig:
    """``config`` with dotted-key settings ``KEY=VALUE`` applied (``--set``).

    A value is TOML (``20000``, ``"flat"``, ``[1, 2]``, ``false``); the keys
    are those of a ``[[variant]]``'s ``set``. The result is validated anew.

    >>> c = override_config(default_config(), ["population.n_players=300"])
    >>> c.population.n_players
    300
    """
    data = _plain(config)
    for setting in settings:
        key, sep, text = setting.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--set {setting!r}: not KEY=VALUE.")
        try:
            value = tomllib.loads(f"v = {text.strip()}")["v"]
        except tomllib.TOMLDecodeError:
            raise ConfigError(
                f"--set {setting!r}: {text.strip()!r} is not a TOML value "
                '(a string needs quotes: KEY="text").'
            ) from None
        _set_path(data, key.strip(), value)
    result: RunConfig = _build(RunConfig, data, "")
    expand(result)
    return result


@dataclass(frozen=True)
class Point:
    """One point of a sweep: its name, its overrides and its config."""

    name: str
    overrides: tuple[tuple[str, Any], ...]
    config: RunConfig


def expand(config: RunConfig) -> list[Point]:
    """The points of a sweep: variants crossed with the grid, each validated.

    A config without variants or grid is one point named ``"base"``.
    """
    import itertools

    variants = config.variant or (Variant("base"),)
    axes = config.grid
    base = _plain(dataclasses.replace(config, variant=(), grid=()))
    points = []
    for variant in variants:
        for values in itertools.product(*(a.values for a in axes)):
            overrides = list(variant.set) + [
                (a.key, v) for a, v in zip(axes, values, strict=True)
            ]
            name = ", ".join(
                [variant.name] * (variant.name != "base" or not axes)
                + [
                    f"{a.key.split('.')[-1]}={v}"
                    for a, v in zip(axes, values, strict=True)
                ]
            )
            data = copy.deepcopy(base)
            for key, value in overrides:
                _set_path(data, key, "none" if value is None else value)
            try:
                point_config: RunConfig = _build(RunConfig, data, "")
            except ConfigError as exc:
                raise ConfigError(f"Sweep point '{name}': {exc}") from None
            points.append(Point(name, tuple(overrides), point_config))
    names = [p.name for p in points]
    if len(set(names)) != len(names):
        raise ConfigError(f"Sweep point names must be unique. Got {names}.")
    return points


def dump_config(config: RunConfig) -> str:
    """The resolved config as TOML text; :func:`parse_config` reads it back."""
    return tomli_w.dumps(_plain(config))
