"""Walk-forward replay of real games through rating systems, with prediction metrics.

Games are read in date order (:mod:`simulator.data.records`) and every system sees
each game twice: first it predicts White's score from the ratings it has
*before* the game, then, in its own time, it rates the game. The predictions
go into the same :class:`~simulator.evaluation.recorder.Recorder` the simulator uses
(log loss, Brier score, calibration), so no system is ever scored on a game it has
already rated.

How each kind of system meets the games:

* **per-game systems** (``per_game``: Lichess's Glicko-2, plain Elo, Glicko-1 in
  per-game mode) update after every game. A batch is split into rounds in
  which each player plays at most once (:func:`~simulator.systems._common.
  split_rounds`): each round is predicted, then rated, so a player's second
  game in a batch is predicted with the rating their first game left.
* **period systems** (FIDE and old-style FIDE on their list calendars, Glicko-2
  and Glicko-1 on calendar periods) keep their ratings through a period: a
  game is predicted from the list (or period ratings) in force on its day and
  waits; when the first game dated on or after the period's close is read, the
  period is rated (``rate(state, games, day=close)``) and the next one opens.
  Periods without games are rated too (Glicko RD grows; lists advance).
* **events** (FIDE's rules rate events: an event uses the list in force on its
  start day, and a newcomer's first event with no points is dropped): a game
  record carries no event, so each calendar day of play is one event, starting
  that day.
* **new players** enter when they first play
  (:mod:`~simulator.tasks.replay.start`): with a rating from a start list
  (``start``) or the file (``seed="file"``; list systems with G =
  ``games_played_default``), else, under list systems, **unrated** until
  their rules give a first rating (FIDE 8.2: games against rated opponents,
  docs/rules.md, section 1), as FIDE has it. Period-list systems need rated
  players before they can rate anyone, so a replay with no seeds rates
  nobody under them (the assumptions say so, with what they predict for an
  unrated player); ``start_rating=R`` instead puts every unseeded newcomer on
  the list at an assumed R with G = 0 (K 40 for the first 30 games), which
  the assumptions flag as not FIDE's rules. Dropping under the floor and
  re-rating follow the rules and are events of the history
  (:mod:`~simulator.tasks.replay.log`).
* at the **end of the file** every open period with games is rated, so the
  final ratings include every game.

Where the file carries ratings (PGN ``WhiteElo``/``BlackElo``, CSV
``white_rating``/``black_rating``), they are scored as one more predictor,
``"file"``, with the logistic Elo expectation ``1 / (1 + 10^(-D/400))`` of
the difference, on the games where both are known, beside every system on the
same games. (Lichess's own prediction also weighs the RDs, which a PGN does
not carry.)

Memory holds the players' states (with room for as many players again, so
that new players enter without copying the pool), one batch, the recorder's
fixed-size sums and, for each period system, its open period: Glicko-2's and
Glicko-1's as per-player sums, folded in as the games come; a list system's
games, compactly (:mod:`~simulator.tasks.replay.pending`: about 14 bytes a
game, and one game a player for the games between players unrated on a
list), since it rates a period's games as a whole. Beyond those, memory
does not grow with the file (with ``history`` or ``predictions``, those
tables do).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from simulator._types import BoolArray
from simulator.data.fide_list import ListSeeds
from simulator.data.records import GameBatch, Players
from simulator.evaluation.draws import fit_draw_parameter, outcome_probabilities
from simulator.evaluation.prediction import ALL_PAIRS
from simulator.evaluation.protocol import (
    ProtocolResult,
    Window,
    evaluate_predictions,
)
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.settings import ORACLE, MetricsConfig
from simulator.systems import RatingSystem
from simulator.systems._common import FloatArray, Games, IntArray, split_rounds
from simulator.systems.classic import Classic
from simulator.systems.elo import logistic_expectation
from simulator.systems.fide import Fide
from simulator.systems.lists.state import ListState
from simulator.tasks.replay.assumptions import assumptions as _assumptions
from simulator.tasks.replay.labels import SystemsSpec, labelled_systems
from simulator.tasks.replay.log import ReplayLog
from simulator.tasks.replay.pending import Folded, Pending, close_period, pending_for
from simulator.tasks.replay.room import Room as _Room
from simulator.tasks.replay.start import Seeds, StartList, entry_seeds, with_list

__all__ = [
    "FILE",
    "GAMES_PLAYED_DEFAULT",
    "START_RATING",
    "ReplayResult",
    "replay",
]

#: Name of the file's own ratings as a predictor.
FILE = "file"
#: A usual assumed list rating of a new player (list-based systems), when one
#: is asked for (``start_rating``); by default nobody is put on a list unrated.
START_RATING = 1500.0
#: G of a player seeded from the file's rating (list-based systems).
GAMES_PLAYED_DEFAULT = 30


@dataclass(frozen=True, eq=False)
class ReplayResult:
    """What a replay measured.

    Attributes
    ----------
    systems : tuple of str
        The systems, in the order given.
    prediction : pandas.DataFrame
        One row per system, then ``"coin flip"``: ``system``, ``n_games``,
        ``log_loss``, ``brier`` over every game.
    calibration : pandas.DataFrame
        Per system and bin of expected score: ``bin_low``, ``bin_high``,
        ``mean_expected``, ``mean_observed``, ``n``.
    file_prediction, file_calibration : pandas.DataFrame or None
        The same over the games where the file gives both ratings, with the
        ``"file"`` predictor; None if it gives none.
    ratings : pandas.DataFrame
        One row per player: ``player``, ``games``, ``last_date``, then each
        system's final published rating (NaN = unrated).
    n_games, n_players : int
        Games replayed and players seen.
    first_date, last_date : str or None
        Dates of the first and last game.
    assumptions : tuple of str
        How the replay met the systems (events, entry of new players, ...).
    history : pandas.DataFrame or None
        With ``history=True``: every player's ratings as they changed, per
        system (:mod:`~simulator.tasks.replay.log`).
    predictions : pandas.DataFrame or None
        With ``predictions=True``: every game's pre-game prediction by every
        system, with win/draw/loss probabilities
        (:mod:`~simulator.tasks.replay.log`).
    draw_parameters : dict of str to float
        Each system's draw parameter ``nu``, fitted on the warm-up games
        (:mod:`simulator.evaluation.draws`); with predictions only.
    events : dict of str to dict of str to int
        Per list system, how often each FIDE event of the history happened.
    window : Window
        The warm-up / test split the probabilities were fitted by.
    protocol : ProtocolResult or None
        With a ``window``: the scores of the test games, with intervals and
        paired differences (:mod:`simulator.evaluation.protocol`).
    """

    systems: tuple[str, ...]
    prediction: pd.DataFrame
    calibration: pd.DataFrame
    file_prediction: pd.DataFrame | None
    file_calibration: pd.DataFrame | None
    ratings: pd.DataFrame
    n_games: int
    n_players: int
    first_date: str | None
    last_date: str | None
    assumptions: tuple[str, ...]
    history: pd.DataFrame | None = None
    predictions: pd.DataFrame | None = None
    draw_parameters: dict[str, float] = field(default_factory=dict)
    events: dict[str, dict[str, int]] = field(default_factory=dict)
    window: Window = field(default_factory=Window)
    protocol: ProtocolResult | None = None


@dataclass
class _Track:
    """One system during a replay (mutable, internal)."""

    label: str
    system: RatingSystem
    state: Any = None
    close: int | None = None
    pending: Pending | Folded | None = None
    room: _Room = field(default_factory=_Room)

    @property
    def per_game(self) -> bool:
        return bool(self.system.per_game)

    @property
    def list_based(self) -> bool:
        if self.state is None:
            return isinstance(self.system, Fide | Classic)
        return isinstance(self.state, ListState)


def _is_simple(state: object, n: int) -> bool:
    """Whether ``state`` is a NamedTuple of per-player arrays of length ``n``."""
    return isinstance(state, tuple) and all(
        isinstance(a, np.ndarray) and a.ndim == 1 and a.shape[0] == n for a in state
    )


def _take(state: Any, idx: IntArray) -> Any:
    """The players ``idx`` of a per-player state, as a state of their own."""
    return type(state)(*(a[idx] for a in state))


def _put(track: _Track, idx: IntArray, sub: Any) -> Any:
    """The track's state with the players ``idx`` replaced by ``sub``.

    Written in place into the arrays the track's room holds (the replay's
    own), into copies of others.
    """
    state = track.state
    fields = []
    for name, a, b in zip(state._fields, state, sub, strict=True):
        out = a if track.room.holds(name, a) else a.copy()
        out[idx] = b
        fields.append(out)
    return type(state)(*fields)


def _grow(
    track: _Track, n_old: int, seed: FloatArray, games: IntArray, birth: FloatArray
) -> None:
    """Add ``seed.size`` new players to the track's state."""
    k = seed.size
    system, state = track.system, track.state
    if isinstance(state, ListState):
        # fide-history's floor is None (its era's): its new_state applies it.
        given = getattr(system, "floor", None)
        floor = -np.inf if given is None else float(given)
        with np.errstate(invalid="ignore"):
            rating = np.where(seed >= floor, seed, np.nan)
        fresh = system.new_state(
            k,
            day=float(state.list_day[-1]),
            rating=rating,
            n_games=games,
            birth_year=birth,
        )
        assert isinstance(fresh, ListState)
        n_lists = state.list_day.size
        older_r = np.full((n_lists - 1, k), np.nan)
        older_k = np.zeros((n_lists - 1, k), dtype=np.intp)
        room = track.room
        track.state = state._replace(
            list_rating=room.extend(
                "list_rating",
                state.list_rating,
                np.vstack([older_r, fresh.list_rating[-1:]]),
            ),
            list_k=room.extend(
                "list_k", state.list_k, np.vstack([older_k, fresh.list_k[-1:]])
            ),
            n_games=room.extend("n_games", state.n_games, fresh.n_games),
            ever_2400=room.extend("ever_2400", state.ever_2400, fresh.ever_2400),
            ever_2300=room.extend("ever_2300", state.ever_2300, fresh.ever_2300),
            birth_year=room.extend("birth_year", state.birth_year, fresh.birth_year),
            first_event_done=room.extend(
                "first_event_done", state.first_event_done, fresh.first_event_done
            ),
        )
        return
    if not _is_simple(state, n_old):
        raise TypeError(
            f"replay cannot add players to a {type(state).__name__} state "
            f"({track.label}): it knows list states and NamedTuples of per-player "
            "arrays"
        )
    fresh = system.new_state(k, rating=seed)
    track.state = type(state)(
        *(
            track.room.extend(name, a, b)
            for name, a, b in zip(state._fields, state, fresh, strict=True)
        )
    )


class _Sums(NamedTuple):
    """Per-player tallies kept beside the systems."""

    games: IntArray
    last_day: FloatArray


def _cut(track: _Track) -> int | None:
    """The first day of the track's closing window; None without one."""
    assert track.close is not None
    closing_days = int(getattr(track.system, "closing_days", 0))
    return track.close - closing_days if closing_days > 0 else None


def _close(track: _Track, log: ReplayLog) -> None:
    """Rate the track's current period and open the next."""
    assert track.close is not None and track.pending is not None
    close = track.close
    # The room's two-dimensional views (a list state's lists) are not
    # contiguous: the system rates contiguous copies, as it always has.
    state = type(track.state)(
        *(
            np.ascontiguousarray(a)
            if isinstance(a, np.ndarray) and not a.flags.c_contiguous
            else a
            for a in track.state
        )
    )
    # The closing window's games stay for the next period. Who played: read by
    # the history only (a period can be millions of games).
    track.state, played = close_period(
        track.system,
        state,
        track.pending,
        close=close,
        cut=_cut(track),
        played=log.keep_history,
    )
    log.period_close(track.label, state, track.state, played, close)
    # The rated state is new arrays: the room's buffers hold the old ones.
    track.room = _Room()
    track.close = track.system.next_close(close)


def _date_text(day: float) -> str:
    return str(np.datetime64(math.floor(day), "D"))


def _date_texts(days: FloatArray) -> list[str]:
    """:func:`_date_text` of every day, "" for NaN, in numpy calls."""
    known = ~np.isnan(days)
    whole = np.floor(np.where(known, days, 0.0)).astype(np.int64)
    text = np.datetime_as_string(whole.astype("datetime64[D]"))
    return np.where(known, text, "").tolist()  # type: ignore[no-any-return]


def _first_ratings(
    white: IntArray,
    black: IntArray,
    white_rating: FloatArray,
    black_rating: FloatArray,
    n_old: int,
    n_new: int,
) -> FloatArray:
    """The file's rating at the first game of players ``n_old .. n_new - 1``."""
    both = np.column_stack([white, black]).ravel()
    both_r = np.column_stack([white_rating, black_rating]).ravel()
    out = np.full(n_new - n_old, np.nan)
    ids, first = np.unique(both, return_index=True)
    fresh = ids >= n_old
    out[ids[fresh] - n_old] = both_r[first[fresh]]
    return out


def _enter(
    track: _Track,
    n_old: int,
    seeds: Seeds,
    start_rating: float | None,
    log: ReplayLog,
    day: float,
) -> None:
    """New players join the track's state (:mod:`~simulator.tasks.replay.start`)."""
    if isinstance(track.state, ListState):
        start = np.nan if start_rating is None else float(start_rating)
        rating = np.where(seeds.seeded, seeds.rating, start)
        _grow(track, n_old, rating, seeds.n_games, seeds.birth_year)
        state = track.state
        assert isinstance(state, ListState)
        listed = seeds.k > 0
        if listed.any():
            # The list's own K on the first list (later lists follow the rules).
            row = state.list_k[-1, n_old:]
            row[listed] = np.where(np.isnan(state.rating[n_old:]), 0, seeds.k)[listed]
            # K 10 is given only to players once rated 2400 (permanent).
            once_2400 = state.ever_2400[n_old:]
            once_2400[listed & (seeds.k == 10)] = True
        log.entered(track.label, n_old, state.rating[n_old:], seeds.seeded, day)
    else:
        _grow(track, n_old, seeds.rating, seeds.n_games, seeds.birth_year)


def _is_rated(track: _Track, players: IntArray) -> BoolArray:
    """The system's ``is_rated``, or its ratings where it has none."""
    is_rated = getattr(track.system, "is_rated", None)
    if is_rated is not None:
        return np.asarray(is_rated(track.state, players), dtype=bool)
    return ~np.isnan(track.system.rating(track.state)[players])


def _one_call(system: Any) -> Any:
    """The system's ``predict_and_rate``, if it stands for its own methods.

    A subclass that overrides ``expected_score`` or ``rate`` below the class
    that wrote ``predict_and_rate`` would be bypassed by it: such a system is
    replayed round by round (None).
    """
    cls = type(system)
    owner = next((c for c in cls.__mro__ if "predict_and_rate" in vars(c)), None)
    if owner is None:
        return None
    for name in ("expected_score", "rate"):
        if getattr(cls, name, None) is not getattr(owner, name, None):
            return None
    return system.predict_and_rate


def _rate_per_game(
    tracks: Sequence[_Track], games: Games, n_players: int
) -> dict[str, FloatArray]:
    """Predict, then rate, round by round; each system's pre-game predictions.

    The rounds are :func:`~simulator.systems._common.split_rounds` of the
    games (each player at most once a round, order kept per player). A state
    of per-player arrays is cut down to the games' players for the rounds
    and put back after, so a round costs what its players cost.

    A system with a ``predict_and_rate(state, games, overwrite_state=...)``
    method (the per-game systems of the registry: :meth:`~simulator.systems.
    elo.Elo.predict_and_rate`) does the rounds itself, in one call;
    others are called round by round: ``expected_score``, then ``rate``.
    """
    assert games.day is not None
    day, score = games.day, games.score
    idx = np.unique(np.concatenate([games.white, games.black]))
    lw, lb = np.searchsorted(idx, games.white), np.searchsorted(idx, games.black)
    rounds: list[IntArray] | None = None
    batch: dict[bool, Games] = {}
    out = {}
    for t in tracks:
        local = _is_simple(t.state, n_players)
        sub = _take(t.state, idx) if local else t.state
        w, b = (lw, lb) if local else (games.white, games.black)
        predict_and_rate = _one_call(t.system)
        if predict_and_rate is not None:
            if local not in batch:
                batch[local] = Games(w, b, score, day=day)
            # A local state is this call's own copy: the rounds may write
            # into it.
            sub, e = predict_and_rate(sub, batch[local], overwrite_state=local)
        else:
            if rounds is None:
                rounds = split_rounds(lw, lb)
            e = np.empty(games.n_games)
            for r in rounds:
                e[r] = t.system.expected_score(sub, w[r], b[r])
                sub = t.system.rate(sub, Games(w[r], b[r], score[r], day=day[r]))
        t.state = _put(t, idx, sub) if local else sub
        out[t.label] = e
    return out


def replay(
    batches: Iterable[GameBatch],
    systems: SystemsSpec,
    *,
    players: Players | None = None,
    seed: str = "none",
    start: StartList | None = None,
    start_rating: float | None = None,
    games_played_default: int = GAMES_PLAYED_DEFAULT,
    calibration_bins: int = 10,
    history: bool = False,
    predictions: bool = False,
    window: Window | None = None,
    reference: str | None = None,
    progress: Callable[[int], None] | None = None,
    fide_list: Callable[[int, int], ListSeeds] | None = None,
) -> ReplayResult:
    """Replay games in date order through ``systems``, scoring their predictions.

    Parameters
    ----------
    batches : iterable of GameBatch
        The games, in date order (:func:`simulator.data.records.read_games`).
        Read once: an iterator already read is an error, not 0 games.
    systems : sequence or mapping
        Registry names, built systems, ``(label, system)`` pairs or
        ``"LABEL=NAME:KEY=VALUE"`` texts; or a mapping label -> system
        (:mod:`~simulator.tasks.replay.labels`). Labels must differ.
    players : Players, optional
        The reader's name mapping, for the names in the tables (needed with
        ``start``).
    seed : {"none", "file"}
        Where a new player's rating comes from: the systems' own start values
        (``"none"``), or the file's rating at the player's first game.
    start : StartList, optional
        Ratings (and G, K, birth years) before the first game, by name; they
        take precedence over the file's (:mod:`~simulator.tasks.replay.start`).
    start_rating : float or None
        An assumed list rating for a new player under list-based systems when
        nothing seeds them; None: unrated, as FIDE has it, until the rules
        give a first rating.
    games_played_default : int
        G of a player put on a list with a seeded rating.
    calibration_bins : int
        Bins of the calibration tables.
    history, predictions : bool
        Keep every player's rating history / every game's predictions
        (:mod:`~simulator.tasks.replay.log`); they grow with the games.
    window : Window, optional
        The warm-up / test split: with it, the test games are scored by the
        evaluation protocol (``protocol``,
        :func:`simulator.evaluation.protocol.evaluate_predictions`); the draw
        model of the predictions' probabilities is fitted on its warm-up
        (without it, on the first half of the games).
    reference : str, optional
        The label the protocol's paired differences are taken against
        (default the first system).
    progress : callable, optional
        Called with the number of games of each batch as it is read.
    fide_list : callable, optional
        ``fide_list(lo, hi)``: what a FIDE rating list says of players
        ``lo .. hi - 1`` (:func:`simulator.data.fide_list.list_seeds`, matched
        by FIDE ID, else by name): their rating, K, G and birth year win over
        ``start`` and the file's for the players it matches.

    Returns
    -------
    ReplayResult

    Raises
    ------
    ValueError
        Duplicate labels or unknown systems, a bad ``seed``, games out of
        date order, or no games at all (an empty or already read input).

    Examples
    --------
    >>> from simulator.data.csv_records import csv_batches
    >>> rows = ["white,black,score,date"] + [
    ...     f"A,B,{s},2024-01-{d:02d}" for d, s in zip(range(1, 9), "10101111")]
    >>> result = replay(csv_batches(rows), ["elo", "lichess"])
    >>> result.prediction["system"].tolist()
    ['elo', 'lichess', 'coin flip']
    >>> int(result.prediction["n_games"].iloc[0])
    8
    """
    if seed not in ("none", "file"):
        raise ValueError(f"seed must be 'none' or 'file'. Got {seed!r}.")
    if start is not None and players is None:
        raise ValueError("A start list matches players by name: pass 'players'.")
    evaluate = window is not None
    window = Window() if window is None else window
    tracks = [_Track(label, system) for label, system in labelled_systems(systems)]
    labels = [t.label for t in tracks]
    if reference is not None and reference not in labels:
        raise ValueError(f"The reference {reference!r} is not one of {labels}.")
    log = ReplayLog(labels, history=history, predictions=predictions or evaluate)
    # Only the prediction sums are used: the convergence histogram is cut to
    # its minimum (one games count, one error bin).
    config = MetricsConfig(
        calibration_bins=calibration_bins,
        curve_max_games=0,
        curve_bin_width=1000.0,
        curve_max_error=1000.0,
    )
    recorder = Recorder(labels, 0, config)
    file_recorder = Recorder([*labels, FILE], 0, config)
    n_file = 0
    n_seeded = 0

    n_state = 0
    sums = _Sums(np.zeros(0, dtype=np.intp), np.zeros(0))
    room = _Room()
    n_games = 0
    first_day: float | None = None
    last_day: float | None = None
    started = False

    for batch in batches:
        g = batch.games
        if progress is not None:
            progress(g.n_games)
        if g.n_games == 0:
            continue
        assert g.day is not None
        days = g.day
        if last_day is not None and days[0] < last_day:
            raise ValueError(
                f"Games must come in date order: a batch starts on "
                f"{_date_text(days[0])}, after a game on {_date_text(last_day)}."
            )
        pos = 0
        while pos < g.n_games:
            d0 = float(days[pos])
            if not started:
                started = True
                first_day = d0
                for t in tracks:
                    t.state = t.system.new_state(0, day=d0)
                    t.close = t.system.next_close(d0)
                    if not t.per_game:
                        t.pending = pending_for(t.system, t.state)
            # Periods that closed before this game are rated first.
            for t in tracks:
                while not t.per_game and t.close is not None and d0 >= t.close:
                    _close(t, log)
            limit = min(
                (t.close for t in tracks if not t.per_game and t.close is not None),
                default=math.inf,
            )
            end = pos + int(np.searchsorted(days[pos:], limit, side="left"))
            seg = slice(pos, end)
            white, black = g.white[seg], g.black[seg]
            score, day = g.score[seg], days[seg]
            wr, br = batch.white_rating[seg], batch.black_rating[seg]
            m = end - pos

            # New players enter, seeded from their first game in the segment.
            top = int(max(white.max(), black.max())) + 1
            if top > n_state:
                first_r = _first_ratings(white, black, wr, br, n_state, top)
                names = [] if players is None else players.names[n_state:top]
                seeds = entry_seeds(
                    names,
                    first_r,
                    seed=seed,
                    start=start,
                    games_played_default=games_played_default,
                )
                if fide_list is not None:
                    seeds = with_list(seeds, fide_list(n_state, top))
                n_seeded += int(seeds.seeded.sum())
                for t in tracks:
                    _enter(t, n_state, seeds, start_rating, log, d0)
                sums = _Sums(
                    room.extend("games", sums.games, np.zeros(top - n_state, np.intp)),
                    room.extend(
                        "last_day", sums.last_day, np.full(top - n_state, np.nan)
                    ),
                )
                n_state = top

            # Pair types: a player is new if some system does not rate them.
            new_w = np.zeros(m, dtype=bool)
            new_b = np.zeros(m, dtype=bool)
            unrated: dict[str, tuple[BoolArray, BoolArray]] = {}
            for t in tracks:
                unrated[t.label] = (~_is_rated(t, white), ~_is_rated(t, black))
                new_w |= unrated[t.label][0]
                new_b |= unrated[t.label][1]
            pairs = (new_w.astype(np.int8) + new_b).astype(np.int8)

            expected: dict[str, FloatArray] = {}
            # Period systems: the ratings in force; the games wait for the close.
            period = [t for t in tracks if not t.per_game]
            if period:
                start_day = np.floor(day)
                # (Made once: it checks the games as each system's did.)
                event = start_day.astype(np.intp)
                seg_period = Games(white, black, score, day, event, start_day)
            for t in period:
                assert t.pending is not None
                expected[t.label] = np.asarray(
                    t.system.expected_score(t.state, white, black), dtype=np.float64
                )
                cut = _cut(t)
                t.pending.add(
                    seg_period,
                    state=t.state,
                    unrated_w=unrated[t.label][0],
                    unrated_b=unrated[t.label][1],
                    late=None if cut is None else start_day >= cut,
                )
            # Per-game systems: round by round, on the segment's players only.
            per_game = [t for t in tracks if t.per_game]
            if per_game:
                seg_games = Games(white, black, score, day=day)
                expected.update(_per_game_segment(per_game, seg_games, n_state, log))

            half = np.full(m, 0.5)
            recorder.record_games(expected, half, score)
            log.games(white, black, score, day, pairs, expected)
            known = ~np.isnan(wr) & ~np.isnan(br)
            if known.any():
                n_file += int(known.sum())
                sub_expected = {k: v[known] for k, v in expected.items()}
                sub_expected[FILE] = logistic_expectation(wr[known] - br[known])
                file_recorder.record_games(sub_expected, half[known], score[known])

            np.add.at(sums.games, white, 1)
            np.add.at(sums.games, black, 1)
            np.fmax.at(sums.last_day, white, day)
            np.fmax.at(sums.last_day, black, day)
            n_games += m
            last_day = float(day[-1])
            pos = end

    if n_games == 0:
        raise ValueError(
            "No games to replay: the input is empty, or an iterator of batches "
            "that was already read (batches can be read once)."
        )
    # The open periods with games are rated: the final ratings include them all.
    for t in tracks:
        if not t.per_game and t.pending is not None and t.pending.n_games:
            _close(t, log)

    names = players.names if players is not None else []
    ratings: dict[str, Any] = {
        "player": names[:n_state] + [str(i) for i in range(len(names), n_state)],
        "games": sums.games,
        "last_date": _date_texts(sums.last_day),
    }
    for t in tracks:
        ratings[t.label] = t.system.rating(t.state)[:n_state]
    prediction, calibration = _tables(recorder, labels)
    file_tables = _tables(file_recorder, [*labels, FILE]) if n_file else (None, None)
    nu: dict[str, float] = {}
    prediction_frame = None
    if predictions or evaluate:
        arrays = log.game_arrays()
        warm = ~window.test_mask(arrays["day"])
        probabilities = {}
        for label in labels:
            e = arrays["expected"][label]
            nu[label] = fit_draw_parameter(e[warm], arrays["score"][warm])
            fitted = 0.0 if math.isnan(nu[label]) else nu[label]
            probabilities[label] = outcome_probabilities(e, fitted)
        prediction_frame = log.prediction_frame(names, probabilities)
    protocol = None
    if evaluate:
        assert prediction_frame is not None
        protocol = evaluate_predictions(
            prediction_frame, window, reference=reference, bins=calibration_bins
        )
    return ReplayResult(
        systems=tuple(labels),
        prediction=prediction,
        calibration=calibration,
        file_prediction=file_tables[0],
        file_calibration=file_tables[1],
        ratings=pd.DataFrame(ratings),
        n_games=n_games,
        n_players=n_state,
        first_date=None if first_day is None else _date_text(first_day),
        last_date=None if last_day is None else _date_text(last_day),
        assumptions=tuple(
            _assumptions(
                [(t.label, t.system, t.per_game, t.list_based) for t in tracks],
                seed=seed,
                start_rating=start_rating,
                games_played_default=games_played_default,
                counts=log.counts,
                n_seeded=n_seeded,
            )
        ),
        history=log.history_frame(names) if history else None,
        predictions=prediction_frame if predictions else None,
        protocol=protocol,
        draw_parameters=nu,
        events={k: dict(v) for k, v in log.counts.items() if v},
        window=window,
    )


def _per_game_segment(
    tracks: Sequence[_Track], games: Games, n_players: int, log: ReplayLog
) -> dict[str, FloatArray]:
    """:func:`_rate_per_game` over a segment; round by round when histories are kept.

    The history needs each player's state after every game, so it rates one
    round (each player at most once) per call; the ratings are the same
    (a batch is rated round by round either way).
    """
    if not log.keep_history:
        return _rate_per_game(tracks, games, n_players)
    assert games.day is not None
    out = {t.label: np.empty(games.n_games) for t in tracks}
    for r in split_rounds(games.white, games.black):
        sub = Games(games.white[r], games.black[r], games.score[r], day=games.day[r])
        for label, e in _rate_per_game(tracks, sub, n_players).items():
            out[label][r] = e
        who = np.concatenate([sub.white, sub.black])
        when = np.concatenate([games.day[r], games.day[r]])
        for t in tracks:
            log.per_game(t.label, t.state, who, when)
    return out


def _tables(
    recorder: Recorder, labels: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Prediction (without the recorder's placeholder oracle) and calibration."""
    result = recorder.result()
    table = result.prediction
    # The replay's sums are over every game ("all"): the pair types are in the
    # per-game predictions and the protocol (simulator.evaluation.protocol).
    prediction = table[(table["pairs"] == ALL_PAIRS) & (table["system"] != ORACLE)]
    prediction = prediction[["system", "n_games", "log_loss", "brier"]].reset_index(
        drop=True
    )
    calibration = result.calibration[result.calibration["system"].isin(labels)]
    return prediction, calibration.reset_index(drop=True)
