"""The next round of many Swiss events at once: :func:`pair_swiss_rounds`.

The engine's path: a day has thousands of small events. The events' arrays
are joined once (:class:`_SwissBatch`); the small events are paired by the
compiled loops of :mod:`~simulator.world.pairing.swiss_compiled`, the rare
event they leave short by the exact final repair of
:mod:`~simulator.world.pairing.swiss`, and large fields by
:func:`~simulator.world.pairing.swiss.pair_swiss_round`'s path from the
start. The rounds, the draws from ``rng`` and the errors are those of
pairing the events one by one.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._types import BoolArray, FloatArray, IntArray
from simulator.world.pairing.rounds import Round, _as_players, _check_rng
from simulator.world.pairing.swiss import (
    _final_repair,
    _match_swiss,
    pair_swiss_round,
)
from simulator.world.pairing.swiss_compiled import (
    _MAX_LOCAL_WINDOW,
    _NO_BYE,
    _SHORT,
    _broken_matching,
    _match_small_events,
)
from simulator.world.pairing.swiss_rules import (
    _allocate_colours,
    _Context,
    _draw_lots,
)
from simulator.world.pairing.swiss_state import (
    KeyArray,
    SwissState,
    _cut,
    _positions,
    _standard,
)

__all__ = ["pair_swiss_rounds"]


# Largest table of who has met whom in an event (booleans, entrants squared)
# that a batch of Swiss events makes; larger fields are paired event by event.
_MAX_TABLE = 1 << 24


class _Fallback(Exception):
    """A batch the vectorised path does not pair: pair it event by event."""


def _ranking(ev: IntArray, points: FloatArray, rank: IntArray) -> IntArray:
    """The order of ``np.lexsort((rank, -points, ev))``, faster.

    The three keys are packed into one integer (points by their place among
    the distinct values), whose stable sort is about three times faster than
    lexsort's with a float key; lexsort itself where the packed key would
    overflow.
    """
    if ev.size == 0:
        return np.empty(0, dtype=np.intp)
    _, level = np.unique(-points, return_inverse=True)
    low = int(rank.min())
    span = int(rank.max()) - low + 1
    n_levels = int(level.max()) + 1
    if (int(ev.max()) + 1) * n_levels * span >= 1 << 62:
        return np.lexsort((rank, -points, ev))
    key = (ev.astype(np.int64) * n_levels + level) * span + (rank - low)
    return np.asarray(key.argsort(kind="stable"))


class _SwissBatch:
    """Today's round of many Swiss events, paired together.

    The events' entrants are laid out one event after another in *slots*:
    event ``e`` has slots ``base[e]`` to ``base[e] + n[e] - 1`` for its
    entrants and ``base[e] + n[e]`` for its bye vertex. ``mate`` holds, per
    slot, the partner's position *within the event* (as
    :func:`pair_swiss_round`'s ``mate``), so that ``mate[base[e] : base[e] +
    n[e] + 1]`` is a view equal to that event's own matching, which the
    compiled loops and the exact repairs of :func:`_repair` work on in place,
    event by event.
    """

    def __init__(
        self, states: list[SwissState], absents: list[ArrayLike | None]
    ) -> None:
        self.states = states
        self.absents = absents
        e_count = len(states)
        self.n_events = e_count
        # The states' fields, each a tuple over the events (one transposition
        # rather than a pass over the events per field).
        field = dict(zip(SwissState._fields, zip(*states, strict=True), strict=True))
        n = np.array([len(p) for p in field["players"]], dtype=np.intp)
        self.n = n
        width = n + 1
        n_slots = int(width.sum())
        self.base = base = np.cumsum(width) - width
        self.ev = ev = np.repeat(np.arange(e_count), width)
        entrant = np.ones(n_slots, dtype=bool)
        entrant[base + n] = False
        slots = np.flatnonzero(entrant)

        def gather(name: str, dtype: type, fill: object) -> NDArray[Any]:
            out: NDArray[Any] = np.full(n_slots, fill, dtype=dtype)
            out[slots] = np.concatenate(field[name])
            return out

        self.players: IntArray = gather("players", np.intp, -1)
        rank: IntArray = gather("rank", np.intp, 0)
        points: FloatArray = gather("points", np.float64, 0.0)
        had_bye: BoolArray = gather("had_bye", np.bool_, True)
        # Played pairs: each event's keys, one event after another.
        n_played = np.array([len(k) for k in field["played"]], dtype=np.intp)
        self.keys: KeyArray = np.concatenate(field["played"])
        self.key_start = np.concatenate([[0], np.cumsum(n_played)])

        present = entrant.copy()
        for e, away in enumerate(absents):
            if away is not None:
                who = _as_players("pair_swiss_round", away, "absent")
                present[base[e] + _positions("pair_swiss_round", states[e], who)] = (
                    False
                )
        eligible = np.flatnonzero(present)
        order = eligible[_ranking(ev[eligible], points[eligible], rank[eligible])]
        self.order = order
        self.ev_order = ev_order = ev[order]
        self.n_present = n_present = np.bincount(ev_order, minlength=e_count)
        self.first_place = first = np.cumsum(n_present) - n_present
        pos = np.full(n_slots, -1, dtype=np.intp)
        pos[order] = np.arange(order.shape[0])
        pos[base + n] = first + n_present
        # Large fields (more than a bracket repair's window) take the
        # per-event path, whose step 4 collapses the bottom brackets; so do
        # fields of too many entrants for a dense table of who has met whom.
        self.large = (n_present + n_present % 2 > _MAX_LOCAL_WINDOW) | (
            n * n > _MAX_TABLE
        )
        self.ctx = _Context.over(
            had_bye,
            rank,
            gather("colour_diff", np.intp, 0),
            gather("last_colour", np.intp, 0),
            gather("streak", np.intp, 0),
            pos,
        )
        self.mate = np.full(n_slots, -1, dtype=np.intp)
        self.points = points
        self._contexts: dict[int, _Context] = {}

    def local_order(self, e: int) -> IntArray:
        """Event ``e``'s present entrants (positions) in ranking order."""
        f = int(self.first_place[e])
        return np.asarray(self.order[f : f + int(self.n_present[e])] - self.base[e])

    def view(self, e: int) -> IntArray:
        """Event ``e``'s matching, a view of ``mate`` (positions in the event)."""
        b = int(self.base[e])
        return self.mate[b : b + int(self.n[e]) + 1]

    def context(self, e: int) -> _Context:
        """Event ``e``'s own context, as :func:`pair_swiss_round` builds it.

        Its arrays are views of the batch's (the same values).
        """
        ctx = self._contexts.get(e)
        if ctx is None:
            b, m = int(self.base[e]), int(self.n[e])
            whole = self.ctx
            ctx = _Context.__new__(_Context)
            ctx.n = m
            ctx.played = self.states[e].played
            for name in (
                "had_bye",
                "rank",
                "colour_diff",
                "allow_white",
                "allow_black",
                "pref",
                "strength",
            ):
                setattr(ctx, name, getattr(whole, name)[b : b + m])
            pos = whole.pos[b : b + m + 1]
            ctx.pos = np.where(pos >= 0, pos - self.first_place[e], -1)
            self._contexts[e] = ctx
        return ctx

    @property
    def layout(
        self,
    ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray, KeyArray, IntArray]:
        """Where the events are, as the compiled loops take it.

        ``base``, ``n``, ``order``, ``first_place``, ``n_present``, ``keys``
        and ``key_start``: the arguments :func:`_match_small_events` and
        :func:`_broken_matching` share.
        """
        return (
            self.base,
            self.n,
            self.order,
            self.first_place,
            self.n_present,
            self.keys,
            self.key_start,
        )

    def match(self) -> None:
        """Steps 1-5 of :func:`pair_swiss_round` for every event."""
        for e in np.flatnonzero(self.large).tolist():
            try:
                _, local, _ = _match_swiss(self.states[e], self.absents[e])
            except ValueError:
                raise _Fallback from None
            self.view(e)[:] = local
        ctx = self.ctx
        status = _match_small_events(
            ~self.large,
            *self.layout,
            self.points,
            ctx.allow_white,
            ctx.allow_black,
            ctx.pref,
            ctx.strength,
            ctx.had_bye,
            self.mate,
        )
        if np.any(status == _NO_BYE):
            raise _Fallback  # Some odd field has no player without a bye.
        # Step 5 for the events the first window left short: exactly as
        # pair_swiss_round repairs them (blossom search, wider windows,
        # relaxed colours).
        for e in np.flatnonzero(status == _SHORT).tolist():
            ranked = self.local_order(e)
            seq, extra = ranked, np.empty(0, dtype=np.intp)
            if ranked.shape[0] % 2 == 1:
                seq = np.append(ranked, self.n[e])
                extra = np.array([self.n[e]], dtype=np.intp)
            try:
                _final_repair(
                    self.states[e], ranked, seq, extra, self.view(e), self.context(e)
                )
            except ValueError:
                raise _Fallback from None
        self.check()

    def check(self) -> None:
        """The contract of :func:`pair_swiss_round`, checked on every event."""
        if _broken_matching(*self.layout, self.ctx.had_bye, self.mate):
            # A bug in the compiled loops: the event-by-event path still pairs
            # the batch right, but say so, or the bug would only show as
            # slower runs.
            warnings.warn(
                "Internal error in the compiled pairing of a batch of Swiss "
                "events: a matching broke the pairing contract. The batch is "
                "paired event by event instead; please report this.",
                RuntimeWarning,
                # check <- match <- pair_swiss_rounds <- its caller.
                stacklevel=4,
            )
            raise _Fallback

    def rounds(self, lots: IntArray) -> list[Round]:
        """The events' rounds (``lots``: each event's initial colour)."""
        ctx, mate, order, ev_order = self.ctx, self.mate, self.order, self.ev_order
        partner = mate[order]
        at_bye = partner == self.n[ev_order]
        bye_slots = order[at_bye]
        games = ~at_bye
        partner_slot = self.base[ev_order] + partner
        n_byes = np.bincount(ev_order[at_bye], minlength=self.n_events)
        is_high = games & (ctx.pos[order] < ctx.pos[partner_slot])
        high = order[is_high]
        low = partner_slot[is_high]
        hev = ev_order[is_high]
        white, black = _allocate_colours(high, low, ctx, lots[hev])
        p = self.players
        return [
            Round(w, b, y)
            for w, b, y in zip(
                *_cut((p[white], p[black]), np.bincount(hev, minlength=self.n_events)),
                *_cut((p[bye_slots],), n_byes),
                strict=True,
            )
        ]


def pair_swiss_rounds(
    states: Sequence[SwissState],
    rng: np.random.Generator,
    *,
    absent: Sequence[ArrayLike | None] | None = None,
) -> list[Round]:
    """Pair the next round of many Swiss events at once.

    Equal to ``[pair_swiss_round(s, rng, absent=a) for s, a in zip(states,
    absent)]``: the same rounds, the same draws from ``rng`` in the same
    order (one colour lot per event), and the same exceptions; only faster
    when there are many events. The events' arrays are joined once, and the
    algorithm of :func:`pair_swiss_round` runs event by event in compiled
    loops (the bye, the score groups with their short repairs, and the first
    window of the final repair); the rare event that leaves players short
    gets the exact final repair of :func:`pair_swiss_round`, and fields of
    more than 1,000 present players are paired by it from the start.

    Parameters
    ----------
    states : sequence of SwissState
        The events so far.
    rng : numpy.random.Generator
        Draws each event's colour lot, in the order of ``states``.
    absent : sequence of array_like of int or None, optional
        Per event, the entrants who do not play this round (or None).

    Returns
    -------
    list of Round
        One round per event, as :func:`pair_swiss_round` returns it.

    Raises
    ------
    ValueError
        As :func:`pair_swiss_round`, for the first event that raises (the lots
        of the events before it are drawn).

    Examples
    --------
    >>> from simulator.world.pairing import swiss_start
    >>> states = [swiss_start(np.arange(6), np.arange(6.0)),
    ...           swiss_start([7, 8, 9], [1500.0, 1600.0, np.nan])]
    >>> one = pair_swiss_rounds(states, np.random.default_rng(1))
    >>> rng = np.random.default_rng(1)
    >>> two = [pair_swiss_round(s, rng) for s in states]
    >>> all(np.array_equal(x, y) for a, b in zip(one, two) for x, y in zip(a, b))
    True
    """
    _check_rng("pair_swiss_rounds", rng)
    states = list(states)
    absents: list[ArrayLike | None] = (
        [None] * len(states) if absent is None else list(absent)
    )
    if len(absents) != len(states):
        raise ValueError(
            "The 'absent' parameter of pair_swiss_rounds must have one entry per "
            f"event ({len(states)}). Got {len(absents)}."
        )
    if not states:
        return []
    try:
        if not all(_standard(s) for s in states):
            raise _Fallback
        batch = _SwissBatch(states, absents)
        batch.match()
    except (_Fallback, ValueError):
        # Some event raises: pair event by event, which raises where
        # pair_swiss_round would, after the same draws.
        return [
            pair_swiss_round(s, rng, absent=a)
            for s, a in zip(states, absents, strict=True)
        ]
    return batch.rounds(_draw_lots(rng, len(states)))
