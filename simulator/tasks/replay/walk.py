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
* **new players** enter when they first play. Period-list systems need rated
  players before they can rate anyone (a pool of unrated players never gets a
  first rating), so a new player enters their list at ``start_rating``
  (default 1500, with G = 0: K 40 for the first 30 games), or unrated with
  ``start_rating=None``. With ``seed="file"`` every system takes the file's
  rating at the player's first game instead, where there is one (list systems
  with G = ``games_played_default``).
* at the **end of the file** every open period with games is rated, so the
  final ratings include every game.

Where the file carries ratings (PGN ``WhiteElo``/``BlackElo``, CSV
``white_rating``/``black_rating``), they are scored as one more predictor,
``"file"``, with the logistic Elo expectation ``1 / (1 + 10^(-D/400))`` of
the difference, on the games where both are known, beside every system on the
same games. (Lichess's own prediction also weighs the RDs, which a PGN does
not carry.)

Memory holds the players' states (with room for as many players again, so
that new players enter without copying the pool), one rating period's games
for each period system, one batch, and the recorder's fixed-size sums; it
does not grow with the file.
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
from simulator.evaluation.prediction import ALL_PAIRS
from simulator.evaluation.recorder import Recorder
from simulator.evaluation.settings import ORACLE, MetricsConfig
from simulator.systems import RatingSystem, make_system
from simulator.systems._common import FloatArray, Games, IntArray, split_rounds
from simulator.systems.classic import Classic
from simulator.systems.elo import logistic_expectation
from simulator.systems.fide import Fide
from simulator.systems.lists.state import ListState

__all__ = [
    "FILE",
    "GAMES_PLAYED_DEFAULT",
    "START_RATING",
    "ReplayResult",
    "replay",
]

#: Name of the file's own ratings as a predictor.
FILE = "file"
#: The list rating a new player enters with (list-based systems).
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


class _Room:
    """Per-player arrays that grow as players come, with room kept to grow into.

    New players enter in every segment of a file that keeps naming new ones;
    concatenating each array at each entry costs the whole pool every time.
    :meth:`extend` instead writes the new players after the old ones in a
    buffer with room to spare (twice what it holds when made) and returns
    the view of what it holds: entering costs what the new players cost.
    An array it did not return itself (a system's new state) is copied into
    a new buffer first. The values are those of ``np.concatenate``.
    """

    def __init__(self) -> None:
        self._held: dict[str, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = {}

    def extend(
        self, key: str, old: np.ndarray[Any, Any], new: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any]:
        """``old`` and ``new`` end to end along their last (the players') axis."""
        if old.shape[:-1] != new.shape[:-1]:
            raise ValueError(
                f"Cannot join {key!r} arrays of shapes {old.shape} and {new.shape} "
                "along the players' axis."
            )
        n, k = old.shape[-1], new.shape[-1]
        dtype = np.result_type(old, new)
        held = self._held.get(key)
        if (
            held is not None
            and held[0] is old
            and held[1].shape[-1] >= n + k
            and held[1].dtype == dtype
        ):
            buffer = held[1]
        else:
            size = max(2 * (n + k), 64)
            buffer = np.empty((*old.shape[:-1], size), dtype=dtype)
            buffer[..., :n] = old
        buffer[..., n : n + k] = new
        view = buffer[..., : n + k]
        self._held[key] = (view, buffer)
        return view

    def holds(self, key: str, array: np.ndarray[Any, Any]) -> bool:
        """Whether ``array`` is the view :meth:`extend` returned last for ``key``."""
        held = self._held.get(key)
        return held is not None and held[0] is array


@dataclass
class _Track:
    """One system during a replay (mutable, internal)."""

    label: str
    system: RatingSystem
    state: Any = None
    close: int | None = None
    pending: list[Games] = field(default_factory=list)
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
    track: _Track,
    n_old: int,
    seed: FloatArray,
    games: IntArray,
    listed: ListSeeds | None = None,
) -> None:
    """Add ``seed.size`` new players to the track's state (``listed``: from a list)."""
    k = seed.size
    system, state = track.system, track.state
    if isinstance(state, ListState):
        floor = float(getattr(system, "floor", -np.inf))
        with np.errstate(invalid="ignore"):
            rating = np.where(seed >= floor, seed, np.nan)
        birth = None if listed is None else listed.birth_year
        fresh = system.new_state(
            k,
            day=float(state.list_day[-1]),
            rating=rating,
            n_games=games,
            birth_year=birth,
        )
        if listed is not None:
            # K as the list gives it; K 10 is for players once rated 2400.
            given = listed.matched & (listed.k > 0) & ~np.isnan(rating)
            fresh.list_k[-1, given] = listed.k[given]
            fresh.ever_2400[given & (listed.k == 10)] = True
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


def _close(track: _Track) -> None:
    """Rate the track's current period and open the next."""
    assert track.close is not None
    close = track.close
    games = Games.concat(track.pending)
    cut = close - int(getattr(track.system, "closing_days", 0))
    rest: list[Games] = []
    if games.n_games and games.day is not None and cut < close:
        late = games.day >= cut
        if late.any():
            rest = [games.take(late)]
            games = games.take(~late)
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
    track.state = track.system.rate(state, games, day=close)
    # The rated state is new arrays: the room's buffers hold the old ones.
    track.room = _Room()
    track.pending = rest
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
    file_rating: FloatArray,
    from_file: BoolArray,
    start_rating: float | None,
    games_played_default: int,
    listed: ListSeeds | None = None,
) -> None:
    """New players join the track's state (see the module notes).

    ``listed``: the FIDE list's entries of the new players, which win over
    the file and the defaults for the players it matches.
    """
    k = file_rating.size
    if isinstance(track.state, ListState):
        start = np.nan if start_rating is None else float(start_rating)
        rating = np.where(from_file, file_rating, start)
        g_before = np.where(from_file, games_played_default, 0).astype(np.intp)
        if listed is not None:
            rating = np.where(listed.matched, listed.rating, rating)
            g_before = np.where(listed.matched, listed.games, g_before)
    else:
        rating = np.where(from_file, file_rating, np.nan)
        if listed is not None:
            on_list = listed.matched & ~np.isnan(listed.rating)
            rating = np.where(on_list, listed.rating, rating)
        g_before = np.zeros(k, dtype=np.intp)
    _grow(track, n_old, rating, g_before, listed)


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
    systems: Sequence[str | RatingSystem],
    *,
    players: Players | None = None,
    seed: str = "none",
    start_rating: float | None = START_RATING,
    games_played_default: int = GAMES_PLAYED_DEFAULT,
    calibration_bins: int = 10,
    progress: Callable[[int], None] | None = None,
    start: Callable[[int, int], ListSeeds] | None = None,
) -> ReplayResult:
    """Replay games in date order through ``systems``, scoring their predictions.

    Parameters
    ----------
    batches : iterable of GameBatch
        The games, in date order (:func:`simulator.data.records.read_games`).
    systems : sequence of str or RatingSystem
        Registry names (built with their defaults) or built systems; their
        names must differ.
    players : Players, optional
        The reader's name mapping, for the names in ``ratings``.
    seed : {"none", "file"}
        Where a new player's rating comes from: the systems' own start values
        (``"none"``), or the file's rating at the player's first game.
    start_rating : float or None
        The list rating of a new player under list-based systems when not
        seeded from the file (None: unrated, as FIDE has it; then nobody is
        rated unless the file seeds them).
    games_played_default : int
        G of a player put on a list with the file's rating.
    calibration_bins : int
        Bins of the calibration tables.
    progress : callable, optional
        Called with the number of games of each batch as it is read.
    start : callable, optional
        ``start(lo, hi)``: the starting state of players ``lo .. hi - 1``
        from a FIDE list (:func:`simulator.data.fide_list.list_seeds`):
        rating, K, G and birth year of those it matches.

    Returns
    -------
    ReplayResult

    Raises
    ------
    ValueError
        Duplicate or unknown systems, a bad ``seed``, or games out of date
        order.

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
    tracks = [
        _Track(
            s if isinstance(s, str) else s.name,
            make_system(s) if isinstance(s, str) else s,
        )
        for s in systems
    ]
    labels = [t.label for t in tracks]
    if not labels:
        raise ValueError("replay needs at least one system.")
    if len(set(labels)) != len(labels):
        raise ValueError(f"Each system can be replayed once. Got {labels}.")
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
            # Periods that closed before this game are rated first.
            for t in tracks:
                while not t.per_game and t.close is not None and d0 >= t.close:
                    _close(t)
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
                from_file = (
                    ~np.isnan(first_r)
                    if seed == "file"
                    else np.zeros(top - n_state, bool)
                )
                listed = None if start is None else start(n_state, top)
                for t in tracks:
                    _enter(
                        t,
                        n_state,
                        first_r,
                        from_file,
                        start_rating,
                        games_played_default,
                        listed,
                    )
                sums = _Sums(
                    room.extend("games", sums.games, np.zeros(top - n_state, np.intp)),
                    room.extend(
                        "last_day", sums.last_day, np.full(top - n_state, np.nan)
                    ),
                )
                n_state = top

            expected: dict[str, FloatArray] = {}
            # Period systems: the ratings in force; the games wait for the close.
            start_day = np.floor(day)
            event = start_day.astype(np.intp)
            for t in tracks:
                if t.per_game:
                    continue
                expected[t.label] = np.asarray(
                    t.system.expected_score(t.state, white, black), dtype=np.float64
                )
                t.pending.append(
                    Games(
                        white,
                        black,
                        score,
                        day=day,
                        event=event,
                        event_start=start_day,
                    )
                )
            # Per-game systems: round by round, on the segment's players only.
            per_game = [t for t in tracks if t.per_game]
            if per_game:
                seg_games = Games(white, black, score, day=day)
                expected.update(_rate_per_game(per_game, seg_games, n_state))

            half = np.full(m, 0.5)
            recorder.record_games(expected, half, score)
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

    # The open periods with games are rated: the final ratings include them all.
    for t in tracks:
        if not t.per_game and t.close is not None and any(p.n_games for p in t.pending):
            _close(t)

    names = players.names if players is not None else []
    ratings: dict[str, Any] = {
        "player": names[:n_state] + [str(i) for i in range(len(names), n_state)],
        "games": sums.games,
        "last_date": _date_texts(sums.last_day),
    }
    for t in tracks:
        ratings[t.label] = (
            t.system.rating(t.state)[:n_state] if t.state is not None else []
        )
    prediction, calibration = _tables(recorder, labels)
    file_tables = _tables(file_recorder, [*labels, FILE]) if n_file else (None, None)
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
            _assumptions(tracks, seed, start_rating, games_played_default)
        ),
    )


def _tables(
    recorder: Recorder, labels: Sequence[str]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Prediction (without the recorder's placeholder oracle) and calibration."""
    result = recorder.result()
    table = result.prediction
    # The replay reads no pair types: every game counts as "both rated".
    prediction = table[(table["pairs"] == ALL_PAIRS) & (table["system"] != ORACLE)]
    prediction = prediction[["system", "n_games", "log_loss", "brier"]].reset_index(
        drop=True
    )
    calibration = result.calibration[result.calibration["system"].isin(labels)]
    return prediction, calibration.reset_index(drop=True)


def _assumptions(
    tracks: Sequence[_Track],
    seed: str,
    start_rating: float | None,
    games_played_default: int,
) -> list[str]:
    per_game = [t.label for t in tracks if t.per_game]
    period = [t.label for t in tracks if not t.per_game]
    listed = [t.label for t in tracks if t.list_based]
    out = [
        "Walk-forward: every game is predicted from the ratings before it, then "
        "rated; the metrics score those predictions only.",
    ]
    if per_game:
        out.append(f"Per-game systems ({', '.join(per_game)}) update after every game.")
    if period:
        out.append(
            f"Period systems ({', '.join(period)}) predict from the ratings in force "
            "and rate each period at its close on their calendars; the open periods "
            "are rated at the end of the file."
        )
    if listed:
        out.append(
            "FIDE events: each calendar day of play is one event, starting that day."
        )
        entry = (
            "unrated (FIDE's initial-rating rules need rated opponents)"
            if start_rating is None
            else f"on the list at {start_rating:g} with no games before (K of a "
            "new player: 40 under FIDE's rules, 25 under the old ones)"
        )
        if seed == "file":
            out.append(
                f"New players enter the lists ({', '.join(listed)}) with the file's "
                f"rating at their first game and {games_played_default} games "
                f"before, or where there is none {entry}."
            )
        else:
            out.append(f"New players enter the lists ({', '.join(listed)}) {entry}.")
    others = [t.label for t in tracks if not t.list_based]
    if others:
        source = (
            "the file's rating at their first game where there is one, else their "
            "defaults"
            if seed == "file"
            else "their defaults"
        )
        out.append(f"New players of {', '.join(others)} start at {source}.")
    return out
