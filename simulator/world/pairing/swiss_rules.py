"""The rules a Swiss round keeps: who may meet, colour preferences, colours.

Sources: the FIDE Handbook C.04.1 (basic rules of Swiss systems: f and g, the
absolute colour rules) and C.04.3 (FIDE (Dutch) System, rules of 2017: A.6,
colour preferences; E, the allocation of colours).

:class:`_Context` holds a round's arrays over the entrants: who may have
White or Black, each one's colour preference and its strength, and the
ranking places; it says which pairs may meet at each legality level
(:data:`_LOOSE`: no repeated game; :data:`_STRICT`: and the absolute colour
rules; :data:`_PREFER`: and compatible preferences).
:func:`_allocate_colours` gives each pair its colours, by lot
(:func:`_draw_lot`, :func:`_draw_lots`) where neither player has a
preference.
"""

from __future__ import annotations

import numpy as np

from simulator._types import BoolArray, IntArray
from simulator.world.pairing.swiss_compiled import BLACK, WHITE
from simulator.world.pairing.swiss_state import SwissState, _contains, _pair_keys

# Legality levels of a pairing.
_LOOSE, _STRICT, _PREFER = 0, 1, 2


class _Context:
    """Per-round arrays of a Swiss pairing, over entrant positions.

    Position ``n`` (one past the last entrant) is the bye, a dummy vertex that
    can be paired with any present player who has not had a bye.

    A batch of events (:func:`pair_swiss_rounds`) uses one context over all
    of them for the colour rules and ranking places, its arrays made by the
    compiled loop that lays the batch out (the rules element by element, as
    :meth:`_setup`): positions are then slots of the concatenated events and
    ``pos`` the place in the concatenated ranking. Who has met whom it looks
    up event by event.
    """

    def __init__(self, state: SwissState, order: IntArray) -> None:
        n = state.n_entrants
        pos = np.full(n + 1, -1, dtype=np.intp)
        pos[order] = np.arange(order.shape[0])
        pos[n] = order.shape[0]
        self.n = n
        self.played = state.played
        self._setup(
            state.had_bye,
            state.rank,
            state.colour_diff,
            state.last_colour,
            state.streak,
            pos,
        )

    def _setup(
        self,
        had_bye: BoolArray,
        rank: IntArray,
        cd: IntArray,
        last: IntArray,
        streak: IntArray,
        pos: IntArray,
    ) -> None:
        self.had_bye = had_bye
        self.rank = rank
        self.colour_diff = cd
        # Absolute colour rules (C.04.1 f, g): |colour_diff| stays <= 2 and no
        # colour three times in a row.
        self.allow_white = (cd <= 1) & ~((last == WHITE) & (streak >= 2))
        self.allow_black = (cd >= -1) & ~((last == BLACK) & (streak >= 2))
        # Colour preference (C.04.3 A.6): absolute 3, strong 2, mild 1, none 0.
        pref = np.zeros(cd.shape[0], dtype=np.intp)
        strength = np.zeros(cd.shape[0], dtype=np.intp)
        for mask, direction, level in (
            (last != 0, -last, 1),
            (cd != 0, -np.sign(cd), 2),
            (streak >= 2, -last, 3),
            (np.abs(cd) >= 2, -np.sign(cd), 3),
        ):
            pref = np.where(mask, direction, pref)
            strength = np.where(mask, level, strength)
        self.pref = pref
        self.strength = strength
        # Place of each entrant (and of the bye, last) in this round's ranking.
        self.pos = pos

    def met(self, a: IntArray, b: IntArray) -> BoolArray:
        """Whether each pair ``(a[k], b[k])`` of entrants has played."""
        return _contains(self.played, _pair_keys(a, b, self.n))

    def legal(self, a: IntArray, b: IntArray, level: int) -> BoolArray:
        """Whether entrants ``a`` and ``b`` may meet at a legality ``level``."""
        ok: BoolArray = np.asarray((a != b) & ~self.met(a, b))
        if level >= _STRICT:
            ok &= (self.allow_white[a] & self.allow_black[b]) | (
                self.allow_black[a] & self.allow_white[b]
            )
        if level >= _PREFER:
            pa = self.pref[a]
            ok &= (pa == 0) | (pa != self.pref[b])
        return ok

    def adjacency(self, window: IntArray, level: int) -> BoolArray:
        """Legal pairs among ``window`` (entrants and perhaps the bye), dense."""
        is_bye = window == self.n
        nodes = np.where(is_bye, 0, window)
        adj = self.legal(nodes[:, None], nodes[None, :], level)
        if is_bye.any():
            free = ~self.had_bye[nodes] & ~is_bye
            adj[is_bye, :] = free[None, :]
            adj[:, is_bye] = free[:, None]
        np.fill_diagonal(adj, False)
        return adj


def _draw_lot(rng: np.random.Generator) -> int:
    """The initial colour of C.04.3 E.5, drawn by lot (one draw per round)."""
    return WHITE if rng.integers(2) == 0 else BLACK


def _draw_lots(rng: np.random.Generator, count: int) -> IntArray:
    """``count`` lots of :func:`_draw_lot` in one call: the same draws.

    NumPy draws a scalar bounded integer as a fill of one element, each
    element of a fill taking its own 32-bit output of the bit generator,
    so one fill of ``count`` elements makes the same draws (and leaves the
    generator in the same state) as ``count`` scalar calls, in a fraction of
    the time. The tests compare the two.
    """
    return np.where(rng.integers(2, size=count) == 0, WHITE, BLACK).astype(np.intp)


def _allocate_colours(
    high: IntArray, low: IntArray, ctx: _Context, lot: int | IntArray
) -> tuple[IntArray, IntArray]:
    """White and Black of each pair (``high`` ranked above ``low``; board order).

    C.04.3 E.1, E.2, E.4: grant both preferences; else the stronger one; if
    both are absolute, the wider colour difference; else the higher-ranked
    player's. E.5, where neither player has a preference: the higher-ranked
    player gets the initial colour ``lot`` (drawn by lot, here once per round;
    one per pair in a batch of events) if their pairing number (starting rank
    + 1) is odd, the other colour if even.
    """
    pa, pb = ctx.pref[high], ctx.pref[low]
    sa, sb = ctx.strength[high], ctx.strength[low]
    wider = np.abs(ctx.colour_diff[high]) >= np.abs(ctx.colour_diff[low])
    high_wins = (sa > sb) | ((sa == sb) & ((sa < 3) | wider))
    colour = np.where(pa != 0, pa, -pb)
    conflict = (pa == pb) & (pa != 0)
    colour = np.where(conflict, np.where(high_wins, pa, -pb), colour)
    by_lot = np.where(ctx.rank[high] % 2 == 0, lot, np.negative(lot))
    colour = np.where((pa == 0) & (pb == 0), by_lot, colour)
    white = np.where(colour == WHITE, high, low)
    black = np.where(colour == WHITE, low, high)
    return white.astype(np.intp), black.astype(np.intp)
