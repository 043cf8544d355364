"""A period's games by table 8.1.2, in compiled loops: the lists' fast path.

Where every game uses the list in force, PD comes from table 8.1.2 and the
change is rounded once per period (the usual case), :func:`_rate_by_table`
rates the period with one table lookup per game and side;
:func:`_sides_expected` and :func:`_expected_by_table` read expected scores
from the same table. The results are those of the general path
(:func:`simulator.systems.lists.period._rate_on_lists` and
:func:`~simulator.systems.lists.state.rules_expected`), bit for bit.

The compiled kernels call each other and read this module's constants only,
so they live together: numba checks a cached function against its own file
(see :mod:`simulator._jit`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    IntArray,
)
from simulator.systems.lists.state import (
    ListRules,
    ListState,
    _PeriodGames,
    rules_expected,
)
from simulator.systems.tables import PD_UPPER_BOUNDS, pd_hundredths


def _sides_expected(
    rules: ListRules, r_white: FloatArray, r_black: FloatArray
) -> FloatArray:
    """:func:`rules_expected` of both sides of games, White's sides then Black's.

    The same values as ``rules_expected(rules, [r_white, r_black], [r_black,
    r_white])``. With the table, Black's PD is read from White's difference:
    ``b - a == -(a - b)`` exactly in floating point, the cap's clip is
    symmetric, and so is the table (``PD(-D) = 100 - PD(D)``, rint included),
    so only the exemption is looked up per side.
    """
    if rules.expectation != "table":
        return rules_expected(
            rules,
            np.concatenate([r_white, r_black]),
            np.concatenate([r_black, r_white]),
        )
    return _sides_by_table(r_white, r_black, *rules.table_bounds, _PD_BY_D)


#: Rated players further apart than this take the general path: the lookup
#: tables of :func:`_rate_by_table` grow with the spread.
_MAX_TABLE_SPREAD = 10_000


@jit
def _list_scan(
    rating: FloatArray, exempt_from: float
) -> tuple[float, float, bool, bool]:
    """The lowest and highest ratings, whether all are whole, whether any is exempt.

    NaN (unrated) is skipped; with no rated player, the lowest and highest
    are 0. A player is exempt from the cap if rated ``exempt_from`` or more.
    """
    low, high = np.inf, -np.inf
    whole = True
    any_exempt = False
    for r in rating:
        if np.isnan(r):
            continue
        low, high = min(low, r), max(high, r)
        # rint(r) - r is 0 for a whole rating (NaN for an infinite one).
        off = np.rint(r) - r
        whole &= not (off > 0 or off < 0)
        any_exempt |= r >= exempt_from
    if low > high:
        return 0.0, 0.0, whole, any_exempt
    return low, high, whole, any_exempt


@jit
def _player_codes(
    rating: FloatArray,
    low: float,
    half: int,
    block: int,
    exempt_from: float,
    exempt_width: float,
) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Each player's codes as White and as Black (:func:`_rate_by_table`).

    An exempt player's codes move by ``exempt_width`` (White) and twice that
    (Black); an unrated player's are ``half + block`` and ``-2 * block``, in
    place of NaN. (int32, as they all fit: the games' loop reads them at
    random, and in half the bytes they stay in the CPU's cache.)
    """
    n = rating.shape[0]
    code_w = np.empty(n, dtype=np.int32)
    code_b = np.empty(n, dtype=np.int32)
    for p in range(n):
        r = rating[p]
        exempt = exempt_width if r >= exempt_from else 0.0
        w = r - low + half + exempt
        b = r - low - 2 * exempt
        code_w[p] = half + block if np.isnan(w) else min(w, half + block)
        code_b[p] = -2 * block if np.isnan(b) else max(b, -2 * block)
    return code_w, code_b


def _pd_by_difference(rules: ListRules, half: int) -> tuple[FloatArray, FloatArray]:
    """PD in hundredths (table 8.1.2) for ``D = -half .. half``, capped and real.

    Read as :func:`expected_hundredths` and :func:`_sides_expected` read it,
    value by value: a table by ``D + half`` gives their results.
    """
    d = np.arange(-half, half + 1, dtype=np.float64)
    real = pd_hundredths(d).astype(np.float64)
    capped = real
    if rules.cap is not None:
        capped = pd_hundredths(np.clip(d, -rules.cap, rules.cap)).astype(np.float64)
    return capped, real


#: Table 8.1.2 by whole difference ``D = -_D_LIMIT .. _D_LIMIT`` (index
#: ``D + _D_LIMIT``): beyond, PD is 1.00 or 0 as at the ends.
_D_LIMIT = int(PD_UPPER_BOUNDS[-1]) + 1
_PD_BY_D = pd_hundredths(np.arange(-_D_LIMIT, _D_LIMIT + 1))
#: Whole differences from here on (in size) are not int64s.
_INT64_END = 2.0**63


@jit
def _table_pd(d: float, pd_by_d: NDArray[np.int64]) -> int:
    """:func:`pd_hundredths` of one difference, looked up in ``pd_by_d``.

    The kernels take ``_PD_BY_D`` as an argument: as a global, numba would
    freeze it into its cache, which a change to ``tables.py`` does not renew.
    """
    d = np.rint(d)
    if not -_INT64_END < d < _INT64_END:
        # pd_hundredths gives PD .50 where D is not an int64 (NaN, inf).
        return 50
    half = pd_by_d.shape[0] // 2
    return int(pd_by_d[min(max(int(d), -half), half) + half])


@jit
def _capped(d: float, cap: float) -> float:
    """``np.clip(d, -cap, cap)`` (NaN stays NaN)."""
    if d > cap:
        return cap
    if d < -cap:
        return -cap
    return d


@jit
def _expected_by_table(
    rating: FloatArray,
    white: IntArray,
    black: IntArray,
    unrated: float,
    cap: float,
    exempt_from: float,
    pd_by_d: NDArray[np.int64],
) -> FloatArray:
    """White's PD (table 8.1.2) in the games, over 100, as :func:`rules_expected`.

    ``rating`` is the list (NaN, unrated, counts as ``unrated``); no cap is
    ``cap = inf`` and no exemption ``exempt_from = NaN``.
    """
    n = rating.shape[0]
    out = np.empty(white.shape[0])
    for j in range(white.shape[0]):
        if not (-n <= white[j] < n and -n <= black[j] < n):
            raise IndexError("a game's player index is out of bounds")
        own = rating[white[j]]
        opp = rating[black[j]]
        if np.isnan(own):
            own = unrated
        if np.isnan(opp):
            opp = unrated
        d = own - opp
        if not own >= exempt_from:
            d = _capped(d, cap)
        out[j] = _table_pd(d, pd_by_d) / 100.0
    return out


@jit
def _sides_by_table(
    r_white: FloatArray,
    r_black: FloatArray,
    cap: float,
    exempt_from: float,
    pd_by_d: NDArray[np.int64],
) -> FloatArray:
    """:func:`_sides_expected` with table 8.1.2 (no cap: ``inf``, no exemption: NaN).

    Black's PD is read from White's difference, as there.
    """
    n = r_white.shape[0]
    out = np.empty(2 * n)
    for j in range(n):
        d = r_white[j] - r_black[j]
        pd = _table_pd(_capped(d, cap), pd_by_d)
        # An exempt side uses the real D.
        out[j] = _table_pd(d, pd_by_d) if r_white[j] >= exempt_from else pd
        out[n + j] = 100 - (_table_pd(d, pd_by_d) if r_black[j] >= exempt_from else pd)
    return out


def _rate_by_table(
    rules: ListRules,
    state: ListState,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
) -> _PeriodGames | None:
    """The period's games through one table lookup per game and side.

    The fast path for every game on the list in force, PD from table 8.1.2
    and one rounding per period; None where it does not apply (then
    :func:`_rate_on_lists` gives the same result).

    Everything a game contributes depends only on its score, on which sides
    are rated, which are exempt from the cap and on the difference ``D`` of
    whole ratings. Each player gets one integer code per colour such that
    ``code_w[white] - code_b[black]`` numbers these cases, the score adds
    its own offset, and two small tables map the number to White's and
    Black's weight: no game array is compacted or sorted. A weight is
    ``unit + 100 * score - PD`` for a side of a rated game, ``unit`` for an
    unrated player's side and 0 for a rated player's side against an
    unrated one, so one addition per side sums both the terms and the
    games. ``unit`` is a power of two above ``200 * n_games`` and every term
    a whole number in [-100, 100]: every partial sum is a whole number below
    2**53, so the sums are exact in any order (the same as the general
    path's) and ``rint(sum / unit)`` splits them exactly into the games and
    ``sum(100 * score - PD)``.
    """
    if rules.expectation != "table" or rules.rounding != "period":
        return None
    rating = state.rating
    n_players = rating.shape[0]
    n_games = white.shape[0]
    unit = 2.0 ** (200 * n_games).bit_length()
    if (unit + 100.0) * n_games >= 2.0**53:
        return None
    # No exemption without a cap to be exempt from.
    exempt_from = np.nan if rules.cap is None else rules.table_bounds[1]
    low, high, whole, any_exempt = _list_scan(rating, exempt_from)
    # Rated players too far apart, or a rating not a whole number: no table
    # by difference.
    if not high - low <= _MAX_TABLE_SPREAD or not whole:
        return None
    half = int(high - low)

    # Cases of a game: status (0 both rated, 1 White alone unrated, 2 Black
    # alone unrated, 3 both unrated) * block + exemption (White exempt + 2 *
    # Black exempt, when anyone is) * width + D + half. The rated players'
    # codes are below half + block and above -2 * block.
    width = 2 * half + 1
    n_sub = 4 if any_exempt else 1
    block = n_sub * width
    code_w, code_b = _player_codes(
        rating, low, half, block, exempt_from, float(width) if any_exempt else 0.0
    )

    # PD of each side by D, as _sides_expected reads it: the capped
    # difference, or the real one for an exempt side.
    capped, real = _pd_by_difference(rules, half)
    pd_w = np.stack([capped, real, capped, real][:n_sub])
    pd_b = 100.0 - np.stack([capped, capped, real, real][:n_sub])
    s = np.array([0.0, 0.5, 1.0])[:, None, None]
    table_w = np.empty((3, 4, block))
    table_w[:, 0] = (unit + (100.0 * s - pd_w)).reshape(3, block)
    table_w[:, 1] = table_w[:, 3] = unit
    table_w[:, 2] = 0.0
    table_b = np.empty((3, 4, block))
    table_b[:, 0] = (unit + (100.0 * (1.0 - s) - pd_b)).reshape(3, block)
    table_b[:, 1] = 0.0
    table_b[:, 2] = table_b[:, 3] = unit

    sums = np.zeros(n_players)
    _add_by_table(
        code_w,
        code_b,
        white,
        black,
        score,
        block,
        table_w.ravel(),
        table_b.ravel(),
        sums,
    )
    unrated = np.isnan(rating)
    pool_white, pool_black = _pool_games(unrated, white, black)
    change, n_rated, candidates = _changes_by_sums(
        sums, unit, unrated, state.k, rules.rule_700
    )
    return _PeriodGames(change, n_rated, pool_white, pool_black, None, candidates)


@jit
def _changes_by_sums(
    sums: FloatArray, unit: float, unrated: BoolArray, k: IntArray, rule_700: bool
) -> tuple[FloatArray, IntArray, BoolArray]:
    """Changes, rated games and candidates from :func:`_rate_by_table`'s sums.

    What :func:`apply_700_rule` and ``round_half_away(K * total / 100)`` give
    per player, with ``total = sum(100 * score - PD)`` over rated games.
    """
    n = sums.shape[0]
    change = np.empty(n)
    n_rated = np.empty(n, dtype=np.intp)
    candidates = np.empty(n, dtype=np.bool_)
    for p in range(n):
        n_seen = np.rint(sums[p] / unit)
        total = sums[p] - n_seen * unit  # sum(100 * score - PD) over rated games
        n_rated[p] = 0 if unrated[p] else int(n_seen)
        k_p = k[p]
        if rule_700:
            k_p = min(k_p, 700 // max(n_rated[p], 1))
        # K * sum(...) is the sum of K * (...): whole numbers, exactly.
        change[p] = _round_half_away(k_p * total / 100.0)
        candidates[p] = unrated[p] and n_seen > 0
    return change, n_rated, candidates


@jit
def _round_half_away(x: float) -> float:
    """``round_half_away`` of one number, to the bit (the sign of 0 included)."""
    whole = float(np.trunc(x))
    half_or_more = abs(x - whole) >= 0.5
    # np.sign's: 0 for either zero, NaN for NaN.
    sign = 1.0 if x > 0 else -1.0 if x < 0 else 0.0 if x == 0 else x
    return whole + sign * half_or_more


@jit
def _add_by_table(
    code_w: NDArray[np.int32],
    code_b: NDArray[np.int32],
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    block: int,
    table_w: FloatArray,
    table_b: FloatArray,
    sums: FloatArray,
) -> None:
    """Add both sides' weights of the games (:func:`_rate_by_table`) to ``sums``.

    In one pass over the games: the sums are exact in any order.
    """
    for j in range(white.shape[0]):
        case = code_w[white[j]] - code_b[black[j]]
        # The score's tables: 0, 1 and 2 on (a score is 0, 0.5 or 1).
        at = int(score[j] * (8 * block)) + case
        sums[white[j]] += table_w[at]
        sums[black[j]] += table_b[at]


@jit
def _pool_games(
    unrated: BoolArray, white: IntArray, black: IntArray
) -> tuple[IntArray, IntArray]:
    """The games whose White alone is unrated, and those whose Black alone is."""
    n = white.shape[0]
    # Every position is written and the count alone says which are kept: a
    # branch would be mispredicted at random. (The buffers' untouched ends
    # cost nothing.)
    pool_white, pool_black = np.empty(n, np.intp), np.empty(n, np.intp)
    n_white = n_black = 0
    for j in range(n):
        w, b = unrated[white[j]], unrated[black[j]]
        pool_white[n_white] = j
        n_white += w and not b
        pool_black[n_black] = j
        n_black += b and not w
    return pool_white[:n_white], pool_black[:n_black]
