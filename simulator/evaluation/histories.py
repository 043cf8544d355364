"""Per-player rating histories and per-game predictions: opt-in, as tables and Parquet.

A run measures by streaming sums (:mod:`~simulator.evaluation.recorder`) and
keeps nothing per game. Asked for (the ``[output]`` table of a config,
:class:`~simulator.evaluation.settings.OutputConfig`), a
:class:`HistoryRecorder` beside the recorder keeps

* the **history**: each player's published rating in every system, with the
  player's true strength on the same day, read at the checkpoints
  (``checkpoint_days`` apart, after the burn-in: the days on which the
  engine moves every player's true strength to the day); a row is written
  only where the rating changed since the player's previous row (a step
  function: the rating holds until the next row), so a player who does not
  play adds nothing;
* the **predictions**: every measured game (after the burn-in) with each
  system's pre-game expected score for White, the oracle's (the outcome
  model's true expectation), White's score and the pair type.

The columns are named as the replay's (:mod:`simulator.tasks.replay`), which
has player names where the simulator has indices and no true strength.

Dates are the simulated calendar's: day 0 is the config's ``start_date``
(default 2024-01-01), and a game played a fraction into a day (online
rounds) is dated that day. Both tables are pandas DataFrames
(:attr:`~simulator.evaluation.results.ReplicateResult.history` and
``.predictions``) and, in a results folder, Parquet files compressed with
zstd (:func:`write_table`), dates stored as calendar dates (``date32``).
Keeping them draws no random number, so the run and its other tables are the
same with or without them; nothing is kept when neither is asked for.

Columns of the history: ``system``, ``player`` (index), ``date``, ``rating``,
``true_strength``, ``n_games`` (games played in the arena so far). Columns of
the predictions: ``game`` (index of the game among the replicate's measured
games of the arena, the same for every system), ``date``, ``white``, ``black``
(indices), ``result`` (White's score), ``pairs`` (``"both rated"``, ``"one
new"``, ``"both new"``: whether some system had not rated a player yet),
``true_expected``, ``system``, ``expected``. :func:`gather` stacks the
replicates and arenas of a run with leading ``arena`` and ``replicate``
columns.

Imports: the base layer and its own package (pyarrow lazily, to write and
read files).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from simulator._types import BoolArray, FloatArray, IntArray
from simulator.evaluation.settings import OutputConfig

__all__ = [
    "HISTORY_COLUMNS",
    "PAIR_NAMES",
    "PREDICTION_COLUMNS",
    "HistoryRecorder",
    "gather",
    "read_table",
    "to_dates",
    "write_table",
]

#: Columns of a history table, in order.
HISTORY_COLUMNS = ("system", "player", "date", "rating", "true_strength", "n_games")
#: Columns of a predictions table, in order.
PREDICTION_COLUMNS = (
    "game",
    "date",
    "white",
    "black",
    "result",
    "pairs",
    "true_expected",
    "system",
    "expected",
)
#: Names of the pair types, by the number of players some system had not rated
#: (the order of :data:`simulator.evaluation.prediction.PAIRS`).
PAIR_NAMES = ("both rated", "one new", "both new")


def to_dates(days: ArrayLike) -> pd.Series:
    """Calendar dates of day numbers (days since 1970-01-01; fractions dropped).

    >>> to_dates([19723.0, 19723.9]).astype(str).tolist()
    ['2024-01-01', '2024-01-01']
    """
    day = np.floor(np.asarray(days, dtype=np.float64)).astype(np.int64)
    return pd.Series(day.astype("datetime64[D]").astype("datetime64[s]"))


class HistoryRecorder:
    """Keep one replicate's histories and predictions of one arena, as asked.

    Parameters
    ----------
    systems : sequence of str
        The arena's system labels.
    n_players : int
        Size of the per-player arrays.
    config : OutputConfig
        What to keep.
    """

    def __init__(
        self, systems: Sequence[str], n_players: int, config: OutputConfig
    ) -> None:
        self.systems = tuple(systems)
        self.config = config
        # The rating of each system's last row per player (NaN: no row yet).
        self._last = np.full((len(self.systems), int(n_players)), np.nan)
        self._rows: list[tuple[int, int, IntArray, FloatArray, FloatArray, Any]] = []
        self._games: list[tuple[float, IntArray, IntArray, FloatArray, Any]] = []
        self._expected: list[FloatArray] = []
        self._true: list[FloatArray] = []

    def checkpoint(
        self,
        day: int,
        ratings: Mapping[str, FloatArray],
        true_strength: FloatArray,
        games_played: IntArray,
        present: BoolArray,
    ) -> None:
        """A row for each present player whose published rating changed."""
        if not self.config.histories:
            return
        for i, name in enumerate(self.systems):
            rating = ratings[name]
            with np.errstate(invalid="ignore"):
                # NaN != x: a player's first rating is a change.
                changed = present & ~np.isnan(rating) & (rating != self._last[i])
            who = np.flatnonzero(changed)
            self._last[i, who] = rating[who]
            self._rows.append(
                (
                    i,
                    day,
                    who,
                    rating[who],
                    true_strength[who],
                    games_played[who].astype(np.int64),
                )
            )

    def record_games(
        self,
        day: float,
        white: IntArray,
        black: IntArray,
        score: FloatArray,
        expected: Mapping[str, FloatArray],
        true_expected: FloatArray,
        pairs: Any,
    ) -> None:
        """One round's games and every system's pre-game expected score."""
        if not self.config.predictions:
            return
        # Copies: the caller may reuse its arrays for the next round.
        self._games.append(
            (
                day,
                np.array(white, dtype=np.int64),
                np.array(black, dtype=np.int64),
                np.array(score, dtype=np.float64),
                np.array(pairs, dtype=np.int8),
            )
        )
        self._expected.append(np.stack([expected[s] for s in self.systems]))
        self._true.append(np.array(true_expected, dtype=np.float64))

    def history(self) -> pd.DataFrame:
        """The history table (module docstring); empty if not kept."""
        if not self.config.histories:
            return pd.DataFrame()
        rows = sorted(self._rows, key=lambda r: r[0])  # system, then day
        sizes = np.array([r[2].size for r in rows], dtype=np.int64)
        system = np.repeat(np.array([r[0] for r in rows], dtype=np.intp), sizes)
        day = np.repeat(np.array([r[1] for r in rows], dtype=np.int64), sizes)

        def column(k: int, dtype: Any) -> np.ndarray[Any, Any]:
            parts = [np.asarray(r[k], dtype=dtype) for r in rows]
            return np.concatenate(parts) if parts else np.empty(0, dtype)

        return pd.DataFrame(
            {
                "system": _labels(self.systems, system),
                "player": column(2, np.int64),
                "date": to_dates(day),
                "rating": column(3, np.float64),
                "true_strength": column(4, np.float64),
                "n_games": column(5, np.int64),
            }
        )

    def predictions(self) -> pd.DataFrame:
        """The predictions table (module docstring); empty if not kept."""
        if not self.config.predictions:
            return pd.DataFrame()
        n_sys = len(self.systems)
        sizes = np.array([g[1].size for g in self._games], dtype=np.int64)
        n = int(sizes.sum())

        def column(k: int, dtype: Any) -> np.ndarray[Any, Any]:
            parts = [np.asarray(g[k], dtype=dtype) for g in self._games]
            return np.concatenate(parts) if parts else np.empty(0, dtype)

        day = np.repeat(np.array([g[0] for g in self._games], dtype=np.float64), sizes)
        expected = (
            np.concatenate(self._expected, axis=1)
            if self._expected
            else np.empty((n_sys, 0))
        )
        true = np.concatenate(self._true) if self._true else np.empty(0)
        pair_index = column(4, np.intp)
        # System-major: each system's games in order, then the next system's.
        return pd.DataFrame(
            {
                "game": np.tile(np.arange(n, dtype=np.int64), n_sys),
                "date": to_dates(np.tile(day, n_sys)),
                "white": np.tile(column(1, np.int64), n_sys),
                "black": np.tile(column(2, np.int64), n_sys),
                "result": np.tile(column(3, np.float64), n_sys),
                "pairs": _labels(PAIR_NAMES, np.tile(pair_index, n_sys)),
                "true_expected": np.tile(true, n_sys),
                "system": _labels(self.systems, np.repeat(np.arange(n_sys), n)),
                "expected": expected.reshape(-1),
            }
        )


def _labels(names: Sequence[str], codes: IntArray) -> pd.Categorical:
    """``names[codes]`` as a categorical of ``names`` in their order."""
    dtype = pd.CategoricalDtype(list(names), ordered=False)
    out: pd.Categorical = pd.Categorical.from_codes(
        np.asarray(codes, dtype=np.int64), dtype=dtype
    )
    return out


def gather(
    tables: Mapping[str, Sequence[pd.DataFrame]],
) -> pd.DataFrame:
    """Stack each arena's tables of every replicate, with ``arena`` and ``replicate``.

    Parameters
    ----------
    tables : mapping of str to sequence of DataFrame
        Arena name -> its table of each replicate, in replicate order.

    Returns
    -------
    pandas.DataFrame
        The tables one after another, led by ``arena`` and ``replicate``
        (0-based) columns; without a row if no table has one, and without
        columns if none was kept.
    """
    frames = []
    for arena, per_replicate in tables.items():
        for replicate, frame in enumerate(per_replicate):
            if len(frame.columns) == 0:
                continue  # not kept
            frame = frame.copy()
            frame.insert(0, "replicate", np.int64(replicate))
            frame.insert(0, "arena", arena)
            frames.append(frame)
    if not frames:
        return pd.DataFrame()
    # Kept but without a row (no measured game): the columns stay.
    rows = [f for f in frames if len(f)] or frames[:1]
    out = pd.concat(rows, ignore_index=True)
    for name in ("arena", "system", "pairs"):
        if name in out:
            out[name] = out[name].astype("category")
    return out


def write_table(frame: pd.DataFrame, path: str | os.PathLike[str]) -> Path:
    """Write ``frame`` as Parquet (zstd), its ``date`` column as calendar dates.

    Categorical columns are stored dictionary-encoded; the file is the same
    bytes for the same frame and the same pyarrow.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if "date" in table.column_names:
        i = table.schema.get_field_index("date")
        table = table.set_column(i, "date", table.column("date").cast(pa.date32()))
    out = Path(path)
    pq.write_table(table, out, compression="zstd")
    return out


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table written by :func:`write_table`; ``date`` as ``datetime64``."""
    import pyarrow.parquet as pq

    frame: pd.DataFrame = pq.read_table(Path(path)).to_pandas(date_as_object=False)
    return frame
