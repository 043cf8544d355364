"""What a replay writes down beside its metrics: rating histories, per-game predictions.

Both are opt-in (they grow with the games, which the replay's metrics do not)
and come out as pandas DataFrames (:func:`~simulator.tasks.replay.walk.replay`
with ``history=True`` / ``predictions=True``):

**history**, one row per player each time a system's state of the player
changes or is published, in replay order:

* per-game systems (Lichess, plain Elo, per-game Glicko-1): a row per player
  per game, dated the game's day, with the state after the game;
* period systems (Glicko-2, period Glicko-1): a row per player who played
  in the period, dated the period's close;
* list systems (FIDE, old-style FIDE): a row per player who played in the
  period or whose list rating changed, dated the new list (its first day),
  with the list's rating (NaN = unrated), K and G; and a row when a player
  enters the list (rated from a seed, or unrated).

Columns (:data:`HISTORY_COLUMNS`, then the systems' other state, NaN where a
system has none): ``system`` (the label), ``player`` (name), ``player_id``
(the replay's index), ``date``, ``rating``, ``rd``, ``volatility``, ``k``,
``n_games``, ``event``. ``event`` marks what the FIDE rules did
(:data:`EVENTS`): entering unrated, at an assumed start rating or with a
seeded rating; a first rating (FIDE 8.2); dropping below the floor (a new
rating under 1400 leaves the list, FIDE 7.1.4 as in docs/rules.md, section
1, "Floor"); a new initial rating after such a drop ("re-rated", by the same
8.2 formula, with its two hypothetical 1800 draws under the 2024 rules).
The counts of these events are kept whether or not the history is.

**predictions**, one row per game and system (:data:`PREDICTION_COLUMNS`):
``game`` (0, 1, ... in replay order), ``date``, ``white``, ``black`` (names),
``white_id``, ``black_id``, ``result`` (White's score), ``pairs`` (the pair
type before the game: ``both rated``, ``one new``, ``both new``, a player
being new if some system of the replay does not rate them yet), ``system``,
``expected`` (White's expected score before the game), and ``p_win``,
``p_draw``, ``p_loss`` from the system's draw model
(:mod:`simulator.evaluation.draws`) fitted on its warm-up games.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simulator._types import BoolArray, FloatArray, IntArray
from simulator.evaluation.prediction import PAIRS
from simulator.systems.lists.state import ListState

__all__ = [
    "BELOW_FLOOR",
    "ENTERED_FILE",
    "ENTERED_START",
    "ENTERED_UNRATED",
    "EVENTS",
    "FIRST_RATING",
    "HISTORY_COLUMNS",
    "PREDICTION_COLUMNS",
    "RE_RATED",
    "ReplayLog",
    "to_dates",
]

ENTERED_UNRATED = "entered unrated"
ENTERED_START = "entered at the start rating"
ENTERED_FILE = "entered with a seeded rating"
FIRST_RATING = "first rating"
BELOW_FLOOR = "below the floor: unrated"
RE_RATED = "re-rated"
#: The ``event`` values, in code order ("" = none).
EVENTS = (
    "",
    ENTERED_UNRATED,
    ENTERED_START,
    ENTERED_FILE,
    FIRST_RATING,
    BELOW_FLOOR,
    RE_RATED,
)
_CODE = {name: np.int8(i) for i, name in enumerate(EVENTS)}

#: The history's leading columns; the systems' other state follows.
HISTORY_COLUMNS = ("system", "player", "player_id", "date", "rating")
#: The predictions' columns.
PREDICTION_COLUMNS = (
    "game",
    "date",
    "white",
    "black",
    "white_id",
    "black_id",
    "result",
    "pairs",
    "system",
    "expected",
    "p_win",
    "p_draw",
    "p_loss",
)
#: State fields left out of the history (the row's date says it).
_SKIP_FIELDS = ("rating", "last_day")


def to_dates(day: FloatArray) -> pd.Series:
    """Days since 1970-01-01 as dates (midnight timestamps; NaT for NaN)."""
    whole = np.floor(np.asarray(day, dtype=np.float64))
    return pd.Series(pd.to_datetime(whole, unit="D"))


def _names(names: Sequence[str], ids: IntArray) -> pd.Categorical:
    """The players' names (their index where the reader gave none)."""
    n = int(ids.max()) + 1 if ids.size else 0
    known = list(names[:n]) + [str(i) for i in range(len(names), n)]
    return pd.Categorical.from_codes(ids, categories=pd.Index(known).astype(object))


class ReplayLog:
    """The history rows, prediction rows and FIDE event counts of one replay.

    Internal to the replay: it calls the methods below as it goes, and
    :meth:`history_frame` / :meth:`prediction_frame` build the tables.
    """

    def __init__(
        self, labels: Sequence[str], *, history: bool, predictions: bool
    ) -> None:
        self.labels = list(labels)
        self.keep_history = history
        self.keep_predictions = predictions
        self._rows: list[dict[str, Any]] = []
        self._games: list[dict[str, Any]] = []
        self._ever: dict[str, BoolArray] = {}
        #: Per label, event name -> count (list systems' events).
        self.counts: dict[str, dict[str, int]] = {label: {} for label in labels}

    # -- history -------------------------------------------------------------

    def _count(self, label: str, codes: np.ndarray[Any, Any]) -> None:
        tally = np.bincount(codes.astype(np.intp), minlength=len(EVENTS))
        counts = self.counts[label]
        for i in np.flatnonzero(tally[1:]) + 1:
            counts[EVENTS[i]] = counts.get(EVENTS[i], 0) + int(tally[i])

    def _ever_rated(self, label: str, n: int) -> BoolArray:
        ever = self._ever.get(label, np.zeros(0, dtype=bool))
        if ever.size < n:
            ever = np.concatenate([ever, np.zeros(n - ever.size, dtype=bool)])
            self._ever[label] = ever
        return ever

    def _add(
        self,
        label: str,
        players: IntArray,
        day: FloatArray,
        values: dict[str, np.ndarray[Any, Any]],
        codes: np.ndarray[Any, Any] | None = None,
    ) -> None:
        if not self.keep_history or players.size == 0:
            return
        self._rows.append(
            {
                "system": label,
                "player_id": players,
                "day": np.broadcast_to(day, players.shape),
                "event": np.zeros(players.size, np.int8) if codes is None else codes,
                **values,
            }
        )

    def entered(
        self,
        label: str,
        first_id: int,
        rating: FloatArray,
        seeded: BoolArray,
        day: float,
    ) -> None:
        """New players ``first_id ...`` enter a list with ``rating`` (NaN = unrated)."""
        players = np.arange(first_id, first_id + rating.size, dtype=np.intp)
        rated = ~np.isnan(rating)
        codes = np.where(
            rated,
            np.where(seeded, _CODE[ENTERED_FILE], _CODE[ENTERED_START]),
            _CODE[ENTERED_UNRATED],
        ).astype(np.int8)
        self._count(label, codes)
        ever = self._ever_rated(label, first_id + rating.size)
        ever[players] = rated
        self._add(label, players, np.asarray(day), {"rating": rating}, codes)

    def per_game(
        self, label: str, state: Any, players: IntArray, day: FloatArray
    ) -> None:
        """A per-game system's state of ``players`` after their games on ``day``."""
        if not self.keep_history:
            return
        values = {"rating": np.asarray(state.rating[players], dtype=np.float64)}
        for name, a in zip(state._fields, state, strict=True):
            if name not in _SKIP_FIELDS:
                values[name] = a[players]
        self._add(label, players, day, values)

    def period_close(
        self,
        label: str,
        old: Any,
        new: Any,
        played: IntArray,
        day: float,
    ) -> None:
        """A period system closed a period on ``day``: ``old`` -> ``new`` state."""
        if isinstance(new, ListState):
            self._list_close(label, old, new, played, day)
            return
        if not self.keep_history:
            return
        players = np.unique(played)
        self.per_game(label, new, players, np.asarray(float(day)))

    def _list_close(
        self, label: str, old: ListState, new: ListState, played: IntArray, day: float
    ) -> None:
        before, after = old.rating, new.rating
        n = after.size
        was, now = ~np.isnan(before), ~np.isnan(after)
        with np.errstate(invalid="ignore"):
            changed = (was != now) | (was & now & (before != after))
        ever = self._ever_rated(label, n)
        codes = np.zeros(n, dtype=np.int8)
        codes[~was & now & ~ever[:n]] = _CODE[FIRST_RATING]
        codes[~was & now & ever[:n]] = _CODE[RE_RATED]
        codes[was & ~now] = _CODE[BELOW_FLOOR]
        self._count(label, codes)
        ever[:n] |= now
        if not self.keep_history:
            return
        show = changed.copy()
        show[played] = True
        players = np.flatnonzero(show)
        values = {
            "rating": after[players],
            "k": new.k[players],
            "n_games": new.n_games[players],
        }
        self._add(label, players, np.asarray(float(day)), values, codes[players])

    def history_frame(self, names: Sequence[str]) -> pd.DataFrame:
        """The history table (module docstring)."""
        rows = self._rows
        extra: list[str] = []
        for r in rows:
            extra += [c for c in r if c not in ("system", "player_id", "day", "event")]
        extra = [c for c in dict.fromkeys(extra) if c != "rating"]
        columns = [*HISTORY_COLUMNS, *extra, "event"]
        if not rows:
            return pd.DataFrame({c: [] for c in columns})
        ids = np.concatenate([r["player_id"] for r in rows])
        out: dict[str, Any] = {
            "system": pd.Categorical(
                np.repeat(
                    [r["system"] for r in rows], [r["player_id"].size for r in rows]
                ),
                categories=self.labels,
            ),
            "player": _names(names, ids),
            "player_id": ids.astype(np.int64),
            "date": to_dates(np.concatenate([r["day"] for r in rows])),
        }
        for c in ["rating", *extra]:
            parts = []
            for r in rows:
                a = r.get(c)
                parts.append(
                    np.full(r["player_id"].size, np.nan)
                    if a is None
                    else np.asarray(a, dtype=np.float64)
                )
            out[c] = np.concatenate(parts)
        codes = np.concatenate([r["event"] for r in rows])
        out["event"] = pd.Categorical.from_codes(
            codes, categories=pd.Index(list(EVENTS))
        )
        return pd.DataFrame(out, columns=columns)

    # -- predictions ---------------------------------------------------------

    def games(
        self,
        white: IntArray,
        black: IntArray,
        score: FloatArray,
        day: FloatArray,
        pairs: np.ndarray[Any, Any],
        expected: dict[str, FloatArray],
    ) -> None:
        """One segment's games and every system's pre-game expected score."""
        if not self.keep_predictions:
            return
        self._games.append(
            {
                "white": white.copy(),
                "black": black.copy(),
                "score": score.copy(),
                "day": day.copy(),
                "pairs": pairs.copy(),
                "expected": {
                    k: np.array(v, dtype=np.float64) for k, v in expected.items()
                },
            }
        )

    def game_arrays(self) -> dict[str, Any]:
        """The games' arrays joined (``expected`` per label)."""
        parts = self._games

        def join(key: str, dtype: Any) -> np.ndarray[Any, Any]:
            if not parts:
                return np.zeros(0, dtype=dtype)
            return np.concatenate([p[key] for p in parts]).astype(dtype, copy=False)

        return {
            "white": join("white", np.intp),
            "black": join("black", np.intp),
            "score": join("score", np.float64),
            "day": join("day", np.float64),
            "pairs": join("pairs", np.int8),
            "expected": {
                label: np.concatenate([p["expected"][label] for p in parts])
                if parts
                else np.zeros(0)
                for label in self.labels
            },
        }

    def prediction_frame(
        self,
        names: Sequence[str],
        probabilities: dict[str, tuple[FloatArray, FloatArray, FloatArray]],
    ) -> pd.DataFrame:
        """The predictions table (module docstring), long: game-major, then system."""
        g = self.game_arrays()
        n, k = g["score"].size, len(self.labels)
        if n == 0:
            return pd.DataFrame({c: [] for c in PREDICTION_COLUMNS})
        both = np.concatenate([g["white"], g["black"]])
        player = _names(names, both)
        white = pd.Categorical.from_codes(
            np.repeat(g["white"], k), categories=player.categories
        )
        black = pd.Categorical.from_codes(
            np.repeat(g["black"], k), categories=player.categories
        )

        def stack(per: dict[str, FloatArray]) -> FloatArray:
            return np.column_stack([per[label] for label in self.labels]).ravel()

        out = {
            "game": np.repeat(np.arange(n, dtype=np.int64), k),
            "date": to_dates(np.repeat(g["day"], k)),
            "white": white,
            "black": black,
            "white_id": np.repeat(g["white"], k).astype(np.int64),
            "black_id": np.repeat(g["black"], k).astype(np.int64),
            "result": np.repeat(g["score"], k),
            "pairs": pd.Categorical.from_codes(
                np.repeat(g["pairs"], k), categories=pd.Index(list(PAIRS))
            ),
            "system": pd.Categorical.from_codes(
                np.tile(np.arange(k), n), categories=pd.Index(self.labels)
            ),
            "expected": stack(g["expected"]),
        }
        for j, col in enumerate(("p_win", "p_draw", "p_loss")):
            out[col] = stack({label: probabilities[label][j] for label in self.labels})
        return pd.DataFrame(out, columns=list(PREDICTION_COLUMNS))
