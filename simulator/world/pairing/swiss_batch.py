"""The next round of many Swiss events at once: :func:`pair_swiss_rounds`.

The engine's path: a day has thousands of small events. The events' arrays
are joined once and laid out, ranked and given their colour rules in one
compiled pass (:class:`_SwissBatch`, with the loops of
:mod:`~simulator.world.pairing.swiss_batch_compiled`, which also give the
games their colours); the small events are paired by the
compiled loops of :mod:`~simulator.world.pairing.swiss_compiled`, the rare
event they leave short by the exact final repair of
:mod:`~simulator.world.pairing.swiss`, and large fields by
:func:`~simulator.world.pairing.swiss.pair_swiss_round`'s path from the
start. The rounds, the draws from ``rng`` and the errors are those of
pairing the events one by one.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import BoolArray, FloatArray, IntArray
from simulator.world.pairing.rounds import Round, _as_players, _check_rng
from simulator.world.pairing.swiss import (
    _final_repair,
    _match_swiss,
    pair_swiss_round,
)
from simulator.world.pairing.swiss_batch_compiled import _colours_at, _lay_out
from simulator.world.pairing.swiss_compiled import (
    _MAX_LOCAL_WINDOW,
    _NO_BYE,
    _SHORT,
    BLACK,
    WHITE,
    _broken_matching,
    _match_small_events,
)
from simulator.world.pairing.swiss_rules import _Context, _draw_lots
from simulator.world.pairing.swiss_state import (
    KeyArray,
    SwissState,
    _positions,
    _standard,
)

__all__ = ["pair_swiss_rounds"]


# Largest table of who has met whom in an event (booleans, entrants squared)
# that a batch of Swiss events makes; larger fields are paired event by event.
_MAX_TABLE = 1 << 24


class _Fallback(Exception):
    """A batch the vectorised path does not pair: pair it event by event."""


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
        # The states' fields, each a tuple over the events (one transposition
        # rather than a pass over the events per field), joined once each;
        # the rest is one compiled pass (_lay_out).
        field = dict(zip(SwissState._fields, zip(*states, strict=True), strict=True))
        n = np.array(list(map(len, field["players"])), dtype=np.intp)
        join = np.concatenate
        # Who plays, over the joined entrants; empty: everyone.
        present = np.empty(0, dtype=bool)
        if any(away is not None for away in absents):
            offset = np.cumsum(n) - n
            present = np.ones(int(n.sum()), dtype=bool)
            for e, away in enumerate(absents):
                if away is not None:
                    who = _as_players("pair_swiss_round", away, "absent")
                    at = _positions("pair_swiss_round", states[e], who)
                    present[offset[e] + at] = False
        self._set_up(
            states.__getitem__,
            absents,
            n,
            (
                join(field["players"]),
                join(field["rank"]),
                join(field["points"]),
                join(field["colour_diff"]),
                join(field["last_colour"]),
                join(field["streak"]),
                join(field["had_bye"]),
            ),
            present,
            join(field["played"]),
            np.array(list(map(len, field["played"])), dtype=np.intp),
        )

    @classmethod
    def joined(
        cls,
        state: Callable[[int], SwissState],
        n: IntArray,
        fields: tuple[
            IntArray, IntArray, FloatArray, IntArray, IntArray, IntArray, BoolArray
        ],
        keys: KeyArray,
        n_played: IntArray,
    ) -> _SwissBatch:
        """A batch of events already joined, everyone present.

        ``state(e)`` is event ``e``'s state (asked for only by the rare
        paths); ``fields`` its players, rank, points, colour_diff,
        last_colour, streak and had_bye, one event after another; ``keys``
        the events' played keys, ``n_played`` per event.
        """
        batch = cls.__new__(cls)
        batch._set_up(
            state,
            [None] * n.shape[0],
            n,
            fields,
            np.empty(0, dtype=bool),
            keys,
            n_played,
        )
        return batch

    def _set_up(
        self,
        state: Callable[[int], SwissState],
        absents: list[ArrayLike | None],
        n: IntArray,
        fields: tuple[
            IntArray, IntArray, FloatArray, IntArray, IntArray, IntArray, BoolArray
        ],
        present: BoolArray,
        keys: KeyArray,
        n_played: IntArray,
    ) -> None:
        self.state = state
        self.absents = absents
        self.n_events = n.shape[0]
        self.n = n
        # Played pairs: each event's keys, one event after another.
        self.keys: KeyArray = keys
        (
            self.players,
            rank,
            self.points,
            had_bye,
            colour_diff,
            allow_white,
            allow_black,
            pref,
            strength,
            pos,
            self.base,
            self.first_place,
            self.n_present,
            self.key_start,
            # Large fields (more than a bracket repair's window) take the
            # per-event path, whose step 4 collapses the bottom brackets; so
            # do fields of too many entrants for a dense table of who has met
            # whom. The others are small: paired by the compiled loops.
            self.small,
            self.order,
            self.mate,
            comparable,
        ) = _lay_out(
            n,
            *fields,
            present,
            n_played,
            WHITE,
            BLACK,
            _MAX_LOCAL_WINDOW,
            _MAX_TABLE,
        )
        if not comparable:
            raise _Fallback  # NaN points: the reference path ranks them.
        ctx = _Context.__new__(_Context)
        ctx.had_bye, ctx.rank, ctx.colour_diff = had_bye, rank, colour_diff
        ctx.pos = pos
        ctx.allow_white, ctx.allow_black = allow_white, allow_black
        ctx.pref, ctx.strength = pref, strength
        self.ctx = ctx
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
            ctx.played = self.state(e).played
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
        if not self.small.all():
            for e in np.flatnonzero(~self.small).tolist():
                try:
                    _, local, _ = _match_swiss(self.state(e), self.absents[e])
                except ValueError:
                    raise _Fallback from None
                self.view(e)[:] = local
        ctx = self.ctx
        status = _match_small_events(
            self.small,
            *self.layout,
            self.points,
            ctx.allow_white,
            ctx.allow_black,
            ctx.pref,
            ctx.strength,
            ctx.had_bye,
            self.mate,
        )
        if status.any():  # Not all _PAIRED (0).
            self._repair(status)
        self.check()

    def _repair(self, status: IntArray) -> None:
        """Step 5 for the events the first window left short (``status``)."""
        if np.any(status == _NO_BYE):
            raise _Fallback  # Some odd field has no player without a bye.
        # Exactly as pair_swiss_round repairs them (blossom search, wider
        # windows, relaxed colours).
        for e in np.flatnonzero(status == _SHORT).tolist():
            ranked = self.local_order(e)
            seq, extra = ranked, np.empty(0, dtype=np.intp)
            if ranked.shape[0] % 2 == 1:
                seq = np.append(ranked, self.n[e])
                extra = np.array([self.n[e]], dtype=np.intp)
            try:
                _final_repair(
                    self.state(e), ranked, seq, extra, self.view(e), self.context(e)
                )
            except ValueError:
                raise _Fallback from None

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
        white, black, bye, game_end, bye_end = self.games(lots)
        games = [0, *game_end.tolist()]
        byes = [0, *bye_end.tolist()]
        return [
            Round(white[g0:g1], black[g0:g1], bye[y0:y1])
            for g0, g1, y0, y1 in zip(games, games[1:], byes, byes[1:], strict=False)
        ]

    def games(
        self, lots: IntArray
    ) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
        """The events' games and byes, joined: :func:`_colours_at`'s arrays.

        White and Black of every event's games, one event after another, the
        byes likewise, and where each event's games and byes end.
        """
        ctx = self.ctx
        return _colours_at(
            self.base,
            self.n,
            self.order,
            self.first_place,
            self.n_present,
            self.mate,
            self.players,
            ctx.rank,
            ctx.colour_diff,
            ctx.pref,
            ctx.strength,
            ctx.pos,
            lots,
            WHITE,
        )


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
