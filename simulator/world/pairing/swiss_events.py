"""An arena's running Swiss events, their states joined: :class:`SwissEvents`.

The engine plays every running Swiss event's round each day. Held as one
:class:`~simulator.world.pairing.swiss_state.SwissState` per event, each round
joins the events' arrays to pair them (:func:`pair_swiss_rounds`) and to record
them (:func:`record_swiss_rounds`), and cuts the results back into events.
:class:`SwissEvents` keeps the states joined instead, one event after another:
events join when they start and leave when they finish, and pairing and
recording work on the joined arrays directly, with the compiled loops of
:mod:`~simulator.world.pairing.swiss_batch_compiled`. The rounds, the draws
from ``rng`` and the states are those of the per-event functions (the tests
compare them); an event's own state is still at hand (:meth:`SwissEvents.state`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from simulator._types import BoolArray, FloatArray, IntArray
from simulator.world.pairing.rounds import Round, _check_rng
from simulator.world.pairing.swiss_batch import (
    _Fallback,
    _SwissBatch,
    pair_swiss_rounds,
)
from simulator.world.pairing.swiss_batch_compiled import _record_at
from simulator.world.pairing.swiss_compiled import BLACK, WHITE
from simulator.world.pairing.swiss_rules import _draw_lots
from simulator.world.pairing.swiss_state import (
    _MAX_LOOKUP,
    BYE_SCORE,
    KeyArray,
    SwissState,
    _standard,
    record_swiss_rounds,
)

__all__ = ["SwissEvents"]


def _gather(sizes: IntArray, order: IntArray) -> IntArray:
    """Indices taking consecutive pieces of ``sizes`` in the order ``order``."""
    starts = np.cumsum(sizes) - sizes
    lengths = sizes[order]
    ends = np.cumsum(lengths)
    return np.asarray(
        np.repeat(starts[order] - (ends - lengths), lengths)
        + np.arange(int(ends[-1]) if ends.size else 0)
    )


class SwissEvents:
    """Running Swiss events, their states joined one event after another.

    Attributes
    ----------
    ids : list of int
        The events' identifiers, ascending (the order of the events).
    n : ndarray of shape (n_events,)
        Each event's entrants.
    """

    def __init__(self) -> None:
        self.ids: list[int] = []
        self.n = np.empty(0, dtype=np.intp)
        self._n_played = np.empty(0, dtype=np.intp)
        self._n_rounds = np.empty(0, dtype=np.intp)
        self._fields: list[np.ndarray[Any, Any]] = [
            np.empty(0, dtype=d) for d in _DTYPES[:8]
        ]
        self._played: KeyArray = np.empty(0, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.ids)

    def state(self, e: int) -> SwissState:
        """Event ``e``'s own state (views of the joined arrays)."""
        i = int(self.n[:e].sum())
        k = int(self._n_played[:e].sum())
        m = int(self.n[e])
        f = [a[i : i + m] for a in self._fields]
        return SwissState(
            f[0],
            f[1],
            f[2],
            f[3],
            f[4],
            f[5],
            f[6],
            f[7],
            self._played[k : k + int(self._n_played[e])],
            int(self._n_rounds[e]),
        )

    def states(self) -> list[SwissState]:
        """Every event's state, in order."""
        return [self.state(e) for e in range(len(self.ids))]

    def start(self, ids: Sequence[int], states: Sequence[SwissState]) -> None:
        """Add events (``states`` as :func:`swiss_start` makes them), by id.

        Raises
        ------
        ValueError
            For an id already here, or a state not of :func:`swiss_start`'s
            dtypes.
        """
        ids, states = list(ids), list(states)
        if len(ids) != len(states):
            raise ValueError(
                "SwissEvents.start: 'ids' and 'states' must have equal lengths. "
                f"Got {len(ids)} and {len(states)}."
            )
        if not all(_standard(s) for s in states):
            raise ValueError(
                "SwissEvents.start: the states must have swiss_start's dtypes."
            )
        if not ids:
            return
        every = self.ids + ids
        if len(set(every)) != len(every):
            raise ValueError(f"SwissEvents.start: repeated event ids in {every}.")
        field = list(zip(*states, strict=True))
        n = np.array(list(map(len, field[0])), dtype=np.intp)
        n_played = np.array(list(map(len, field[8])), dtype=np.intp)
        joined = [
            np.concatenate([a, *f]) for a, f in zip(self._fields, field, strict=False)
        ]
        played = np.concatenate([self._played, *field[8]])
        all_n = np.concatenate([self.n, n])
        all_played = np.concatenate([self._n_played, n_played])
        n_rounds = np.concatenate([self._n_rounds, np.array(field[9], dtype=np.intp)])
        order = np.argsort(np.array(every, dtype=np.int64), kind="stable")
        if np.any(order != np.arange(order.size)):
            at = _gather(all_n, order)
            joined = [a[at] for a in joined]
            played = played[_gather(all_played, order)]
            all_n, all_played, n_rounds = (
                all_n[order],
                all_played[order],
                n_rounds[order],
            )
            every = [every[i] for i in order.tolist()]
        self.ids = every
        self.n, self._n_played, self._n_rounds = all_n, all_played, n_rounds
        self._fields, self._played = joined, played

    def keep(self, kept: BoolArray) -> None:
        """Keep only the events where ``kept`` is True (drop finished ones)."""
        kept = np.asarray(kept, dtype=bool)
        if kept.all():
            return
        at = np.repeat(kept, self.n)
        self._fields = [a[at] for a in self._fields]
        self._played = self._played[np.repeat(kept, self._n_played)]
        self.n, self._n_played = self.n[kept], self._n_played[kept]
        self._n_rounds = self._n_rounds[kept]
        self.ids = [i for i, k in zip(self.ids, kept.tolist(), strict=True) if k]

    def pair(
        self, rng: np.random.Generator
    ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
        """Pair every event's next round, as :func:`pair_swiss_rounds`.

        The same rounds and draws from ``rng`` (one colour lot per event, in
        order) as ``pair_swiss_rounds(self.states(), rng)``, joined: White
        and Black of the games, one event after another, the byes likewise,
        and each event's number of games and of byes.
        """
        _check_rng("SwissEvents.pair", rng)
        if not self.ids:
            empty = np.empty(0, dtype=np.intp)
            return empty, empty, empty, empty, empty
        try:
            batch = _SwissBatch.joined(
                self.state,
                self.n,
                # Every field but the rating.
                (self._fields[0], *self._fields[2:]),  # type: ignore[arg-type]
                self._played,
                self._n_played,
            )
            batch.match()
        except (_Fallback, ValueError):
            rounds = pair_swiss_rounds(self.states(), rng)
            return _join_rounds(rounds)
        white, black, bye, game_end, bye_end = batch.games(
            _draw_lots(rng, len(self.ids))
        )
        return (
            white,
            black,
            bye,
            np.diff(game_end, prepend=0),
            np.diff(bye_end, prepend=0),
        )

    def record(
        self,
        white: IntArray,
        black: IntArray,
        bye: IntArray,
        n_games: IntArray,
        n_byes: IntArray,
        score: FloatArray,
    ) -> None:
        """Add a round's results, as :func:`record_swiss_rounds`, in place.

        The arguments are :meth:`pair`'s, with White's score of each game.

        Raises
        ------
        ValueError
            As :func:`record_swiss_rounds` (and nothing is changed).
        """
        n_games = np.asarray(n_games, dtype=np.intp)
        n_byes = np.asarray(n_byes, dtype=np.intp)
        # A writeable copy, as record_swiss_rounds passes: a read-only array
        # (the games' own) would make numba compile the pass a second time.
        score = np.array(score, dtype=np.float64)
        named = np.concatenate([white, black, bye])
        ok = (
            named.dtype.kind in "iu"
            and n_games.shape == n_byes.shape == (len(self.ids),)
            and white.shape == black.shape == score.shape == (int(n_games.sum()),)
            and bye.shape == (int(n_byes.sum()),)
        )
        if ok:
            points, colour_diff, last, streak, had_bye = (
                a.copy() for a in self._fields[3:8]
            )
            ok, played = _record_at(
                self.n,
                self._fields[0],
                named.astype(np.intp),
                n_games,
                n_byes,
                score,
                self._played,
                self._n_played,
                points,
                colour_diff,
                last,
                streak,
                had_bye,
                BYE_SCORE,
                _MAX_LOOKUP,
                WHITE,
                BLACK,
            )
        if not ok:
            # Something to reject (or an unusual input): event by event,
            # which raises where record_swiss_rounds would.
            g, y = np.cumsum(n_games) - n_games, np.cumsum(n_byes) - n_byes
            rounds = [
                Round(white[a : a + c], black[a : a + c], bye[b : b + d])
                for a, c, b, d in zip(g, n_games, y, n_byes, strict=True)
            ]
            scores = [score[a : a + c] for a, c in zip(g, n_games, strict=True)]
            states = record_swiss_rounds(self.states(), rounds, scores)
            ids = self.ids
            self.__init__()  # type: ignore[misc]
            self.start(ids, states)
            return
        self._fields[3:8] = [points, colour_diff, last, streak, had_bye]
        self._played = played
        self._n_played = self._n_played + n_games
        self._n_rounds = self._n_rounds + 1


# The dtypes of swiss_start's states, field by field (players to played).
_DTYPES = (
    np.intp,
    np.float64,
    np.intp,
    np.float64,
    np.intp,
    np.intp,
    np.intp,
    np.bool_,
    np.int64,
)


def _join_rounds(
    rounds: list[Round],
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
    """Rounds joined as :meth:`SwissEvents.pair` returns them."""
    return (
        np.concatenate([r.white for r in rounds]).astype(np.intp),
        np.concatenate([r.black for r in rounds]).astype(np.intp),
        np.concatenate([r.bye for r in rounds]).astype(np.intp),
        np.array([r.white.shape[0] for r in rounds], dtype=np.intp),
        np.array([r.bye.shape[0] for r in rounds], dtype=np.intp),
    )
