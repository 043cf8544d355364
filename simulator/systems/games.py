"""A batch of games as parallel arrays: :class:`Games`, what every system rates.

Players are integer indices; a batch is checked once, on construction, and
read-only from then on, so no system can write into a caller's data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import FloatArray, IntArray

__all__ = ["Games"]


def _as_index(name: str, value: ArrayLike) -> IntArray:
    a = np.asarray(value)
    if a.ndim != 1:
        raise ValueError(f"Games.{name} must be one-dimensional, got shape {a.shape}.")
    if (
        a.size
        and not np.issubdtype(a.dtype, np.integer)
        and not np.all(np.equal(np.mod(a, 1), 0))
    ):
        raise ValueError(f"Games.{name} must hold integer player indices.")
    out = a.astype(np.intp, copy=True)
    if out.size and out.min() < 0:
        raise ValueError(
            f"Games.{name} must hold non-negative indices. Got {int(out.min())}."
        )
    return out


@dataclass(frozen=True, eq=False)
class Games:
    """One batch of games as parallel arrays (``n_games`` each).

    Parameters
    ----------
    white, black : ndarray of shape (n_games,)
        Player indices.
    score : ndarray of shape (n_games,)
        White's score: 1, 0.5 or 0.
    day : ndarray of shape (n_games,), optional
        The day each game was played (days since 1970-01-01, may be fractional
        for online play). Per-game systems read it for RD growth.
    event : ndarray of shape (n_games,), optional
        The event a game belongs to. FIDE rates an event on the list in force at
        its start; without events all of a player's games in a period form one.
    event_start : ndarray of shape (n_games,), optional
        The start day of each game's event.

    The arrays are copied on construction and made read-only, so a system can
    never write into a caller's data.
    """

    white: IntArray
    black: IntArray
    score: FloatArray
    day: FloatArray | None = None
    event: IntArray | None = None
    event_start: FloatArray | None = None

    def __post_init__(self) -> None:
        white = _as_index("white", self.white)
        black = _as_index("black", self.black)
        score = np.array(self.score, dtype=np.float64)
        n = white.shape[0]
        if black.shape != (n,) or score.shape != (n,):
            raise ValueError(
                "Games.white, Games.black and Games.score must have equal lengths. "
                f"Got {white.shape[0]}, {black.shape[0]}, {score.shape[0]}."
            )
        # Three comparisons, not np.isin: this runs for every round of a run.
        bad = ~((score == 0.0) | (score == 0.5) | (score == 1.0))
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise ValueError(
                "Games.score must be 0, 0.5 or 1. "
                f"Got {float(score[first])!r} at game {first}."
            )
        if np.any(white == black):
            i = int(np.flatnonzero(white == black)[0])
            raise ValueError(f"Game {i} pairs player {int(white[i])} with themself.")
        fields: dict[str, np.ndarray[Any, Any]] = {
            "white": white,
            "black": black,
            "score": score,
        }
        for name, dtype in (
            ("day", np.float64),
            ("event", np.intp),
            ("event_start", np.float64),
        ):
            value = getattr(self, name)
            if value is not None:
                arr = np.array(value, dtype=dtype)
                if arr.shape != (n,):
                    raise ValueError(
                        f"Games.{name} must have one entry per game ({n}). "
                        f"Got shape {arr.shape}."
                    )
                fields[name] = arr
        if (self.event is None) != (self.event_start is None):
            raise ValueError("Games.event and Games.event_start go together.")
        for name, arr in fields.items():
            arr.flags.writeable = False
            object.__setattr__(self, name, arr)

    @property
    def n_games(self) -> int:
        """Number of games."""
        return int(self.white.shape[0])

    def take(self, index: ArrayLike) -> Games:
        """The games at ``index`` (a boolean mask or integer positions)."""
        idx = np.asarray(index)

        def pick(a: np.ndarray[Any, Any] | None) -> Any:
            return None if a is None else a[idx]

        return Games(
            self.white[idx],
            self.black[idx],
            self.score[idx],
            pick(self.day),
            pick(self.event),
            pick(self.event_start),
        )

    @classmethod
    def checked(
        cls,
        white: IntArray,
        black: IntArray,
        score: FloatArray,
        day: FloatArray | None = None,
        event: IntArray | None = None,
        event_start: FloatArray | None = None,
    ) -> Games:
        """Games from new arrays taken from checked :class:`Games`, not copied.

        For the engine's own joins and selections (every round's games, every
        period's), whose arrays are new (``np.concatenate``, fancy indexing)
        and whose values come from games that passed the checks of
        ``__post_init__``, which would only repeat them and copy the arrays
        again. The arrays are made read-only and kept. Not for anything else.
        """
        games = object.__new__(cls)
        for name, arr in (
            ("white", white),
            ("black", black),
            ("score", score),
            ("day", day),
            ("event", event),
            ("event_start", event_start),
        ):
            if arr is not None:
                arr.flags.writeable = False
            object.__setattr__(games, name, arr)
        return games

    @staticmethod
    def concat(parts: list[Games]) -> Games:
        """Join batches of games in order."""
        if not parts:
            return Games(np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0))

        def cat(name: str) -> Any:
            values = [getattr(p, name) for p in parts]
            if any(v is None for v in values):
                return None
            return np.concatenate(values)

        # The parts were checked; their join is new arrays of valid games.
        return Games.checked(
            cat("white"),
            cat("black"),
            cat("score"),
            cat("day"),
            cat("event"),
            cat("event_start"),
        )

    def check_players(self, n_players: int) -> None:
        """Raise ``ValueError`` if a game names a player ``>= n_players``."""
        if self.n_games:
            top = int(max(self.white.max(), self.black.max()))
            if top >= n_players:
                raise ValueError(
                    f"Games name player {top}, but the state has {n_players} players."
                )
