"""A period system's games waiting for their period's close, kept compactly.

A period system (FIDE's lists, Glicko-2 and Glicko-1 on calendar periods)
rates a period's games in one ``rate(state, games, day=close)`` call, so the
replay keeps them until the close (:mod:`~simulator.tasks.replay.walk`). A
Lichess month is one period and millions of games; :class:`Pending` keeps
them in as few bytes as give the same ``Games`` back, bit for bit:

* player indices as ``int32`` (``int64`` once an index needs it), White's
  score as ``float16`` (0, 0.5 and 1 are exact in it), and only the days the
  system reads: a list system reads each game's event and its start
  (``event_start``, the day of play, and ``event``, the same whole number: a
  calendar day of play is one event), kept as ``float32`` (every whole day
  number below 2**24 is exact in it); Glicko-2 reads no day; any other
  system gets every field, the fractional day as ``float64``;
* in arrays grown by doubling, never joined: the close reads views of them
  (the old list of batches was joined into a second copy first);
* for a list system, a game between two players both unrated on the list in
  force (on the list its event uses) is kept only if it is a player's first
  such game in the rating call: under the list rules (docs/rules.md, section
  1) such a game is neither rated (both sides must be rated) nor a pool
  result for a first rating (one side must be rated); it only makes its
  players candidates for an initial rating, which any one of their games
  does. So a month of games between unrated newcomers costs one game per
  player, not one per game. A player's pool rows, rated games and events
  come from the other games, all kept, in their order.

The memory of a period then grows by about 10 bytes a game for Glicko-2
and 14 for a list system (games with a rated side), against 48 per system,
and 96 at the close, before. The games of a period themselves must stay:
Glicko-2 sums each player's terms White's sides first, then Black's
(:func:`simulator.systems.glicko2._side_sums`), so a running sum would round
differently; the list systems' first ratings, 700 rule and rounding per
event read the games of the period as a whole.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator._types import BoolArray
from simulator.systems._common import FloatArray, Games
from simulator.systems.glicko2 import Glicko2
from simulator.systems.lists.state import ListState

__all__ = ["Pending", "pending_for"]

#: Whole day numbers are exact in float32 below this magnitude (2**24).
_FLOAT32_DAYS = float(2**24)


class Pending:
    """The games of one system's open period, compactly (module docstring).

    Parameters
    ----------
    days : bool
        Keep each game's (fractional) day for ``Games.day``.
    events : bool
        Keep each game's day of play for ``Games.event`` and
        ``Games.event_start`` (also what a closing window is cut by).
    unrated_once : bool
        A list system: keep a game between two players unrated on the list
        in force only as a player's first such game in its rating call.
    """

    def __init__(self, *, days: bool, events: bool, unrated_once: bool) -> None:
        self.days = days
        self.events = events
        self.unrated_once = unrated_once
        self._n = 0
        self._arrays: dict[str, np.ndarray[Any, Any]] = {
            "white": np.empty(0, np.int32),
            "black": np.empty(0, np.int32),
            "score": np.empty(0, np.float16),
        }
        if days:
            self._arrays["day"] = np.empty(0, np.float64)
        if events:
            self._arrays["start"] = np.empty(0, np.float32)
        # Per player, whether a game between two unrated players is kept for
        # them in this rating call (row 0) and in the closing window, which
        # the next call rates (row 1).
        self._seen = np.zeros((2, 0), dtype=bool)

    @property
    def n_games(self) -> int:
        """Games kept."""
        return self._n

    def add(
        self,
        games: Games,
        *,
        unrated_w: BoolArray | None = None,
        unrated_b: BoolArray | None = None,
        late: BoolArray | None = None,
    ) -> None:
        """Keep a segment's games, in order.

        Parameters
        ----------
        games : Games
            The segment's games, with ``day`` (and ``event_start`` for a
            system whose events are kept).
        unrated_w, unrated_b : ndarray of bool, optional
            Whether White, Black is unrated on the list in force (with
            ``unrated_once``).
        late : ndarray of bool, optional
            The games in the closing window, which the next call rates.
        """
        keep = None
        if self.unrated_once:
            assert unrated_w is not None and unrated_b is not None
            keep = self._first_unrated(games, unrated_w & unrated_b, late)
        fields: dict[str, Any] = {
            "white": games.white,
            "black": games.black,
            "score": games.score,
        }
        if self.days:
            fields["day"] = games.day
        if self.events:
            start = games.event_start
            assert start is not None
            finite = start[np.isfinite(start)]
            if finite.size and not np.abs(finite).max() < _FLOAT32_DAYS:
                bad = finite[np.argmax(np.abs(finite))]
                raise ValueError(
                    f"A game's day must be within 2**24 days of 1970-01-01. "
                    f"Got {bad:g}."
                )
            fields["start"] = start
        if keep is not None:
            fields = {k: v[keep] for k, v in fields.items()}
        self._append(fields)

    def _first_unrated(
        self, games: Games, both_unrated: BoolArray, late: BoolArray | None
    ) -> BoolArray | None:
        """Which games to keep: all but the repeats between unrated players."""
        at = np.flatnonzero(both_unrated)
        if at.size == 0:
            return None
        n_players = int(max(games.white.max(), games.black.max())) + 1
        if self._seen.shape[1] < n_players:
            grown = np.zeros((2, max(2 * self._seen.shape[1], n_players)), bool)
            grown[:, : self._seen.shape[1]] = self._seen
            self._seen = grown
        row = np.zeros(at.size, np.intp) if late is None else late[at].astype(np.intp)
        # Both sides of each such game; the first of each (call, player) not
        # seen yet keeps its game.
        side_game = np.concatenate([at, at])
        side_player = np.concatenate([games.white[at], games.black[at]])
        side_row = np.concatenate([row, row])
        _, first = np.unique(side_player * 2 + side_row, return_index=True)
        new = first[~self._seen[side_row[first], side_player[first]]]
        self._seen[side_row[new], side_player[new]] = True
        keep = ~both_unrated
        keep[side_game[new]] = True
        return keep

    def _append(self, fields: dict[str, Any]) -> None:
        m = int(fields["white"].shape[0])
        if m == 0:
            return
        n = self._n
        top = int(max(fields["white"].max(), fields["black"].max()))
        wide = top > np.iinfo(self._arrays["white"].dtype).max
        for name, a in self._arrays.items():
            dtype = np.int64 if wide and name in ("white", "black") else a.dtype
            if a.shape[0] < n + m or dtype != a.dtype:
                # Doubling: a buffer's untouched end costs no memory.
                grown = np.empty(max(2 * a.shape[0], n + m, 1024), dtype=dtype)
                grown[:n] = a[:n]
                self._arrays[name] = a = grown
            a[n : n + m] = fields[name]
        self._n = n + m

    def take(self, cut: int | None = None) -> Games:
        """The games to rate now; those played on or after ``cut`` stay.

        ``cut`` is the first day of the closing window (None: no window):
        its games are rated in the next period, as before the close.
        """
        n = self._n
        view = {name: a[:n] for name, a in self._arrays.items()}
        now: slice | BoolArray = slice(None)
        rest: dict[str, np.ndarray[Any, Any]] = {}
        if cut is not None and n:
            late = (view["start"] if self.events else view["day"]) >= cut
            if late.any():
                now = ~late
                rest = {name: a[late] for name, a in view.items()}
        games = _games({name: a[now] for name, a in view.items()})
        # The closing window's games (and who has one between unrated
        # players) are the next call's.
        self._n = 0
        self._arrays = {name: a[:0].copy() for name, a in self._arrays.items()}
        if rest:
            self._append(rest)
        self._seen[0] = self._seen[1]
        self._seen[1] = False
        return games


def pending_for(system: Any, state: Any) -> Pending:
    """Where a period system with ``state`` keeps its open period's games.

    What it reads of them: a list system its events (and its games between
    unrated players once a player), Glicko-2 no day, any other every field.
    """
    if isinstance(state, ListState):
        return Pending(days=False, events=True, unrated_once=True)
    if isinstance(system, Glicko2):
        return Pending(days=False, events=False, unrated_once=False)
    return Pending(days=True, events=True, unrated_once=False)


def _games(fields: dict[str, np.ndarray[Any, Any]]) -> Games:
    """``Games`` from kept fields (it converts them to its own dtypes)."""
    start: FloatArray | None = fields.get("start")
    return Games(
        fields["white"],
        fields["black"],
        fields["score"],
        day=fields.get("day"),
        event=None if start is None else start.astype(np.intp),
        event_start=start,
    )
