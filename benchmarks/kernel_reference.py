"""Reference loops for the kernel scenario: the same rules, one compiled loop each.

Issue 22, item 4: ratingsim's per-game Elo and its FIDE period should be
within 1.3x of the best compiled loop written for the same exact rules. The
loops here are that reference: plain numba (ratingsim's settings:
``simulator._jit.jit``), no validation, no state objects,
no bit-for-bit constraints (they must agree with ratingsim to 1e-9, which
``benchmarks/run.py`` asserts before timing and
``tests/test_kernel_reference.py`` checks on small random inputs).

- :func:`elo_games`: plain per-game Elo (``simulator.systems.elo.Elo``):
  ``E = 1 / (1 + 10^(-D/400))``, ``K * (score - E)`` to White and from
  Black, every game in order. The rounds of disjoint games that ratingsim
  rates at once are the same as the games one by one, so the reference is
  one loop over the concatenated rounds. It calls the C library's ``pow``
  (ratingsim uses numpy's SIMD ``power``; the two may differ in the last
  bit, hence 1e-9, not equality).
- :func:`fide_period`: one period of the ``fide`` system (FIDE 2025,
  docs/rules.md, section 1) as the kernel scenario gives it, every event on
  the list in force: PD from table 8.1.2 with the 400-point cap and the
  2650 exemption (8.3.1), K per player with the 700 rule (8.3.3.1), the
  change rounded once per period, unrated players' results against rated
  opponents pooled (a first event with zero points dropped, 8.2.2), first
  ratings by 8.2.1 (two hypothetical 1800 draws, at most 2200, published at
  the floor or above), the floor (7.1.4), G, the 2400 and 2300 flags and K
  on the new list (8.3.3). It handles what that period exercises (every
  event starting on or after the list in force, no NaN starts) and nothing
  else: it is a yardstick, not a second implementation.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from simulator._jit import jit as _jit

__all__ = ["FidePeriod", "elo_games", "fide_period"]


@_jit
def _elo_loop(
    rating: Any, n_games: Any, white: Any, black: Any, score: Any, k: float
) -> None:
    for j in range(white.shape[0]):
        w, b = white[j], black[j]
        e = 1.0 / (1.0 + 10.0 ** (-(rating[w] - rating[b]) / 400.0))
        change = k * (score[j] - e)
        rating[w] += change
        rating[b] -= change
        n_games[w] += 1
        n_games[b] += 1


def elo_games(
    rating: Any, n_games: Any, white: Any, black: Any, score: Any, k: float
) -> tuple[Any, Any]:
    """Ratings and game counts after ``white``-``black`` games, one by one.

    ``rating`` (float64, no NaN) and ``n_games`` (intp) are not modified;
    the games are intp, intp and float64 arrays.
    """
    r, g = rating.copy(), n_games.copy()
    _elo_loop(r, g, white, black, score, float(k))
    return r, g


class FidePeriod(NamedTuple):
    """The new list and pool after one period, as :func:`fide_period` gives them."""

    rating: Any
    n_games: Any
    k: Any
    ever_2400: Any
    ever_2300: Any
    first_event_done: Any
    pool_player: Any
    pool_opp: Any
    pool_opp_rating: Any
    pool_score: Any
    pool_period: Any


# FIDE's tables transcribed here again from the regulations (docs/rules.md),
# not imported from simulator.systems.tables: the reference must not share
# a transcription error with what it checks.
#: Table 8.1.2: the largest |D| for each PD of the higher-rated player, .50 to
#: .99 (above 735: 1.00).
_PD_BOUNDS = np.array(
    [
        3, 10, 17, 25, 32, 39, 46, 53, 61, 68,
        76, 83, 91, 98, 106, 113, 121, 129, 137, 145,
        153, 162, 170, 179, 188, 197, 206, 215, 225, 235,
        245, 256, 267, 278, 290, 302, 315, 328, 344, 357,
        374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
    ],
    dtype=np.int64,
)  # fmt: skip
#: Table 8.1.1: dp for p = .50 .. 1.00.
_DP = np.array(
    [
        0, 7, 14, 21, 29, 36, 43, 50, 57, 65,
        72, 80, 87, 95, 102, 110, 117, 125, 133, 141,
        149, 158, 166, 175, 184, 193, 202, 211, 220, 230,
        240, 251, 262, 273, 284, 296, 309, 322, 336, 351,
        366, 383, 401, 422, 444, 470, 501, 538, 589, 677,
        800,
    ],
    dtype=np.int64,
)  # fmt: skip
_D_MAX = 736
#: PD in hundredths of the side whose D is ``index - 736`` (|D| <= 736).
_PD_BY_D = np.array(
    [
        50 + np.searchsorted(_PD_BOUNDS, d) if d >= 0
        else 50 - np.searchsorted(_PD_BOUNDS, -d)
        for d in range(-_D_MAX, _D_MAX + 1)
    ],
    dtype=np.int64,
)  # fmt: skip

# FIDE 2025 as the ``fide`` system's defaults set them.
_CAP = 400
_EXEMPT = 2650.0
_FLOOR = 1400.0
_POOL_PERIODS = 26
_MIN_GAMES = 5
_HYPOTHETICAL = 1800.0
_INITIAL_MAX = 2200.0


#: One game in a player's packed sum (:func:`_games`): the count is in the
#: high 32 bits, the signed sum of ``100 s - PD`` in the low ones.
_GAME = 1 << 32


@_jit
def _games(
    code: Any, white: Any, black: Any, score: Any, pd_by_d: Any
) -> tuple[Any, Any, int, Any, int]:
    """One pass over the games: packed per-player sums and the pool games.

    ``code`` is a player's whole rating, or -1 (unrated). A rated side adds
    ``_GAME + 100 s - PD``, an unrated side ``_GAME`` (its games played),
    the other side of a game with one unrated player nothing. Without
    branches on who is rated (they would be mispredicted at random); the
    games whose White (Black) alone is unrated are listed as
    ``row_w[:nw]`` (``row_b[:nb]``).
    """
    n = code.shape[0]
    acc = np.zeros(n, np.int64)
    row_w = np.empty(white.shape[0], np.int64)
    row_b = np.empty(white.shape[0], np.int64)
    nw = nb = 0
    for j in range(white.shape[0]):
        w, b = white[j], black[j]
        cw, cb = code[w], code[b]
        uw, ub = cw < 0, cb < 0
        rated = not (uw or ub)
        d = int(cw) - int(cb)
        dc = min(max(d, -_CAP), _CAP)
        dw = min(max(d if cw >= _EXEMPT else dc, -_D_MAX), _D_MAX)
        db = min(max(d if cb >= _EXEMPT else dc, -_D_MAX), _D_MAX)
        s = int(score[j] * 100.0)
        tw = _GAME + s - pd_by_d[dw + _D_MAX]
        tb = _GAME + 100 - s - pd_by_d[_D_MAX - db]
        acc[w] += tw if rated else (_GAME if uw else 0)
        acc[b] += tb if rated else (_GAME if ub else 0)
        row_w[nw] = j
        nw += uw and not ub
        row_b[nb] = j
        nb += ub and not uw
    return acc, row_w, nw, row_b, nb


@_jit
def _round_half_up(x: float, scale: float) -> float:
    scaled = x * scale
    return float(np.floor(scaled + 0.5 + 1e-9 * max(1.0, abs(scaled))) / scale)


@_jit
def _round_half_away(x: float) -> float:
    whole = float(np.trunc(x))
    sign = 1.0 if x > 0 else -1.0 if x < 0 else 0.0
    return whole + sign * (abs(x - whole) >= 0.5)


@_jit
def _rest(
    rating: Any,
    k: Any,
    n_games: Any,
    ever_2400: Any,
    ever_2300: Any,
    birth_year: Any,
    first_done: Any,
    old_player: Any,
    old_opp: Any,
    old_opp_rating: Any,
    old_score: Any,
    old_period: Any,
    period: int,
    white: Any,
    black: Any,
    score: Any,
    event: Any,
    event_start: Any,
    acc: Any,
    row_w: Any,
    nw: int,
    row_b: Any,
    nb: int,
    new_year: int,
    dp: Any,
) -> Any:
    n = rating.shape[0]
    # 8.2.2: a player's first event (earliest start, then lowest id) with
    # zero points against rated opponents is dropped.
    earliest = np.full(n, np.inf)
    first = np.full(n, np.iinfo(np.int64).max)
    for side in range(2):
        rows, m, own = (row_w, nw, white) if side == 0 else (row_b, nb, black)
        for i in range(m):
            j = rows[i]
            p, st = own[j], event_start[j]
            if st < earliest[p] or (st == earliest[p] and event[j] < first[p]):
                earliest[p], first[p] = st, event[j]
    first_points = np.zeros(n)
    for side in range(2):
        rows, m, own = (row_w, nw, white) if side == 0 else (row_b, nb, black)
        for i in range(m):
            j = rows[i]
            if event[j] == first[own[j]]:
                first_points[own[j]] += score[j] if side == 0 else 1.0 - score[j]
    keep_w = np.empty(nw, np.bool_)
    keep_b = np.empty(nb, np.bool_)
    # Count, points and opponents' ratings side by side (one cache line).
    sums = np.zeros((n, 3))
    window = period - _POOL_PERIODS
    for i in range(old_player.shape[0]):
        if old_period[i] > window:
            p = old_player[i]
            sums[p, 0] += 1
            sums[p, 1] += old_score[i]
            sums[p, 2] += old_opp_rating[i]
    done = first_done.copy()
    for side in range(2):
        rows, m, own, other, keep = (
            (row_w, nw, white, black, keep_w)
            if side == 0
            else (row_b, nb, black, white, keep_b)
        )
        for i in range(m):
            j = rows[i]
            p = own[j]
            keep[i] = first_done[p] or event[j] != first[p] or first_points[p] != 0
            done[p] = True
            if keep[i]:
                sums[p, 0] += 1
                sums[p, 1] += score[j] if side == 0 else 1.0 - score[j]
                sums[p, 2] += rating[other[j]]
    new = np.empty(n)
    g = np.empty(n, np.int64)
    k_new = np.empty(n, np.int64)
    e24 = np.empty(n, np.bool_)
    e23 = np.empty(n, np.bool_)
    published = np.zeros(n, np.bool_)
    for p in range(n):
        seen = (acc[p] + (1 << 31)) >> 32
        if np.isnan(rating[p]):
            g[p] = n_games[p]
            new[p] = np.nan
            m = sums[p, 0]
            if seen > 0 and m >= _MIN_GAMES:
                ra = (sums[p, 2] + 2 * _HYPOTHETICAL) / (m + 2)
                p_score = _round_half_up((sums[p, 1] + 1.0) / (m + 2), 100.0)
                pc = int(np.rint(p_score * 100))
                d = dp[pc - 50] if pc >= 50 else -dp[50 - pc]
                ru = min(_round_half_up(ra + d, 1.0), _INITIAL_MAX)
                if ru >= _FLOOR:
                    published[p] = True
                    new[p] = ru
                    g[p] += int(m)
                    done[p] = False
        else:
            g[p] = n_games[p] + seen
            kp = min(k[p], 700 // max(seen, 1))
            total = acc[p] - (seen << 32)
            new[p] = rating[p] + _round_half_away(kp * total / 100.0)
        if new[p] < _FLOOR:
            new[p] = np.nan
            done[p] = False
        e24[p] = ever_2400[p] or new[p] >= 2400
        e23[p] = ever_2300[p] or new[p] >= 2300
        if np.isnan(new[p]):
            k_new[p] = 0
        elif e24[p]:
            k_new[p] = 10
        elif new_year - birth_year[p] <= 18 and not e23[p]:
            k_new[p] = 40
        else:
            k_new[p] = 40 if g[p] < 30 else 20
    # The pool: old rows still in the window, then the new kept rows, of
    # players not published.
    size = 0
    for i in range(old_player.shape[0]):
        size += old_period[i] > window and not published[old_player[i]]
    for side in range(2):
        rows, m, own, keep = (
            (row_w, nw, white, keep_w) if side == 0 else (row_b, nb, black, keep_b)
        )
        for i in range(m):
            size += keep[i] and not published[own[rows[i]]]
    player = np.empty(size, np.int64)
    opp = np.empty(size, np.int64)
    opp_rating = np.empty(size)
    row_score = np.empty(size)
    row_period = np.empty(size, np.int64)
    at = 0
    for i in range(old_player.shape[0]):
        if old_period[i] > window and not published[old_player[i]]:
            player[at], opp[at] = old_player[i], old_opp[i]
            opp_rating[at], row_score[at] = old_opp_rating[i], old_score[i]
            row_period[at] = old_period[i]
            at += 1
    for side in range(2):
        rows, m, own, other, keep = (
            (row_w, nw, white, black, keep_w)
            if side == 0
            else (row_b, nb, black, white, keep_b)
        )
        for i in range(m):
            j = rows[i]
            if keep[i] and not published[own[j]]:
                player[at], opp[at] = own[j], other[j]
                opp_rating[at] = rating[other[j]]
                row_score[at] = score[j] if side == 0 else 1.0 - score[j]
                row_period[at] = period
                at += 1
    return (
        new, g, k_new, e24, e23, done,
        player, opp, opp_rating, row_score, row_period,
    )  # fmt: skip


@_jit
def _codes(rating: Any) -> Any:
    code = np.empty(rating.shape[0], np.int32)
    for p in range(rating.shape[0]):
        r = rating[p]
        code[p] = -1 if np.isnan(r) else int(r)
    return code


def fide_period(
    rating: Any,
    k: Any,
    n_games: Any,
    ever_2400: Any,
    ever_2300: Any,
    birth_year: Any,
    first_event_done: Any,
    pool: tuple[Any, ...],
    period: int,
    white: Any,
    black: Any,
    score: Any,
    event: Any,
    event_start: Any,
    new_year: int,
) -> FidePeriod:
    """One FIDE 2025 period on the list in force (see the module docstring).

    ``rating`` holds whole ratings between 0 and 2**31 - 1 or NaN (unrated);
    ``k`` is K on the list in force; ``pool`` the old pool's player,
    opponent, opponent's rating, score and period; ``period`` the index of
    the list in force; ``new_year`` the calendar year of the new list. The
    games are intp, intp, float64, intp and float64 arrays whose events all
    start on or after the list in force (no NaN).
    """
    acc, row_w, nw, row_b, nb = _games(_codes(rating), white, black, score, _PD_BY_D)
    player, opp, opp_rating, row_score, row_period = pool
    out = _rest(
        rating, k, n_games, ever_2400, ever_2300, birth_year, first_event_done,
        player, opp, opp_rating, row_score, row_period,
        period, white, black, score, event, event_start,
        acc, row_w, nw, row_b, nb, new_year, _DP,
    )  # fmt: skip
    return FidePeriod(*out)
