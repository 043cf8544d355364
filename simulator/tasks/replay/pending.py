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

The memory of a period then grows by about 14 bytes a game for a list
system (games with a rated side), against 48 per system, and 96 at the
close, before: the list systems' first ratings, 700 rule and rounding per
event read the games of the period as a whole.

A system that rates a period from per-player sums of its games
(``period_sums``, ``add_sums``, ``rate_from_sums``: Glicko-2 and Glicko-1,
:class:`simulator.systems.glicko2.Glicko2Sums`) keeps no games at all:
:class:`Folded` adds each segment's sums as it comes, against the ratings in
force, which are the period's start values (a period's ratings change only
at its close; players who enter during it get fixed start values). Memory
then does not grow with the period. The sums are added in another order than
``rate``'s one call over the period, so ratings can differ from it in the
last bits, by about 1e-15 relative (``tests/tasks/replay/test_fold.py`` holds
the replay to 1e-9 of it): far below any rating's meaning, and the outputs
stay reproducible (the segments are the same for the same input and batch
size).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from simulator._types import BoolArray
from simulator.systems._common import FloatArray, Games, IntArray
from simulator.systems.glicko2 import Glicko2
from simulator.systems.lists.state import ListState

__all__ = ["Folded", "Pending", "close_period", "folds", "pending_for"]

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
        state: Any = None,
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
        state : object, optional
            The system's state (:meth:`Folded.add` reads it; unused here).
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


class Folded:
    """A period's games folded into a system's per-player sums as they come.

    For a system with ``period_sums(state, games)``, ``add_sums(a, b)`` and
    ``rate_from_sums(state, sums, day=...)`` (module docstring). Each segment
    is summed over its own players only (a segment is often far smaller than
    the pool), then added into the running sums, grown (by doubling) as
    players enter.

    Parameters
    ----------
    system : rating system
        The period system whose sums these are.
    """

    def __init__(self, system: Any) -> None:
        self.system = system
        self._n = 0
        self._sums: Any = None

    @property
    def n_games(self) -> int:
        """Games folded in."""
        return self._n

    def add(self, games: Games, *, state: Any, **_: Any) -> None:
        """Fold a segment's ``games``, rated against ``state`` (the period's).

        Other keywords (:meth:`Pending.add`'s) are not needed and ignored.
        """
        if games.n_games == 0:
            return
        n_players = int(state[0].shape[0])
        idx = np.unique(np.concatenate([games.white, games.black]))
        local = Games(
            np.searchsorted(idx, games.white),
            np.searchsorted(idx, games.black),
            games.score,
        )
        sub = type(state)(*(a[idx] for a in state))
        part = self.system.period_sums(sub, local)
        running = self._grown(state, n_players)
        now = self.system.add_sums(type(running)(*(a[idx] for a in running)), part)
        for a, b in zip(running, now, strict=True):
            a[idx] = b
        self._n += games.n_games

    def _grown(self, state: Any, n_players: int) -> Any:
        """The running sums, with room for ``n_players``."""
        have = 0 if self._sums is None else int(self._sums[0].shape[0])
        if have >= n_players:
            return self._sums
        size = max(2 * have, n_players, 1024)
        # A system's sums of no games are its sums' starting values.
        none = Games(np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0))
        fill = type(state)(*(np.resize(a[:1], size) for a in state))
        grown = self.system.period_sums(fill, none)
        if self._sums is not None:
            for a, b in zip(grown, self._sums, strict=True):
                a[:have] = b
        self._sums = grown
        return grown

    def take(self, state: Any) -> Any:
        """The period's sums over the players of ``state``; the next period starts.

        A period without games gives the sums of no games (its players'
        deviations still grow at the close).
        """
        n_players = int(state[0].shape[0])
        if n_players == 0:
            none = Games(np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0))
            sums = self.system.period_sums(state, none)
        else:
            running = self._grown(state, n_players)
            sums = type(running)(*(a[:n_players].copy() for a in running))
        self._sums = None
        self._n = 0
        return sums


def folds(system: Any) -> bool:
    """Whether a period system rates from sums that the replay can fold.

    It must offer ``period_sums``, ``add_sums`` and ``rate_from_sums`` from
    the class that wrote its ``rate`` (a subclass that overrides ``rate``
    below it would be bypassed), and no closing window.
    """
    cls = type(system)
    owner = next((c for c in cls.__mro__ if "rate_from_sums" in vars(c)), None)
    if owner is None or system.per_game or int(getattr(system, "closing_days", 0)):
        return False
    return all(
        getattr(cls, name, None) is getattr(owner, name, None)
        for name in ("rate", "period_sums", "add_sums", "rate_from_sums")
    )


def pending_for(system: Any, state: Any, *, fold: bool = True) -> Pending | Folded:
    """Where a period system with ``state`` keeps its open period's games.

    Folded into sums where the system allows it (:func:`folds`, and ``fold``);
    else what it reads of them: a list system its events (and its games
    between unrated players once a player), Glicko-2 no day, any other every
    field.
    """
    if fold and not isinstance(state, ListState) and folds(system):
        return Folded(system)
    if isinstance(state, ListState):
        return Pending(days=False, events=True, unrated_once=True)
    if isinstance(system, Glicko2):
        return Pending(days=False, events=False, unrated_once=False)
    return Pending(days=True, events=True, unrated_once=False)


def close_period(
    system: Any,
    state: Any,
    pending: Pending | Folded,
    *,
    close: int,
    cut: int | None,
    played: bool,
) -> tuple[Any, IntArray]:
    """Rate the open period of ``pending``: the new state, and who played.

    ``cut`` is the first day of the closing window (:meth:`Pending.take`);
    who played (with repeats) only if ``played`` is asked, else no one.
    """
    who = np.empty(0, np.intp)
    if isinstance(pending, Folded):
        sums = pending.take(state)
        if played:
            who = np.flatnonzero(sums.n_games)
        return system.rate_from_sums(state, sums, day=close), who
    games = pending.take(cut)
    if played:
        who = np.concatenate([games.white, games.black])
    return system.rate(state, games, day=close), who


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
