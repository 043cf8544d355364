"""Average ranks and Spearman's rank correlation of ratings against true strengths.

At each checkpoint the recorder ranks every system's ratings and the true
strengths of the players that system rates (:func:`spearman`). The numbers are
those of ``scipy.stats.spearmanr``: ``np.corrcoef`` of the average ranks of
``scipy.stats.rankdata(x, method="average")``.

The ranks are an order (:func:`argsort`) walked by a compiled loop
(:func:`_ranks_in_order`), or, for whole numbers in a short range (the list
systems' ratings), counted by ``np.bincount``; the true strengths are sorted once
per checkpoint and every system's subset is ranked from that order
(:class:`TrueRanks`). Average ranks are whole or half numbers, exact however
they are computed, so these are ``rankdata``'s numbers bit for bit.

Why compiled loops rather than ``rankdata``: the end-to-end run of
``benchmarks/run.py`` (100,000 players, 7 systems, 546 weekly checkpoints,
about 78 s) ranks 7 systems' ratings and the true strengths at each
checkpoint. Measured on a checkpoint of that world (77,000 players counted),
best of several in one process: ``rankdata`` of the ratings takes 58 ms a
checkpoint against 20 ms here (+21 s a run, +27 %), and ``rankdata`` of each
distinct subset of true strengths 23 ms against 8 ms (+8 s, +11 %). The
order itself is a sort of integer keys (:func:`argsort`, 7 % of the run
against ``np.argsort``), and Spearman's correlation of the ranks one
compiled pass (:func:`_rank_correlation`, ``np.corrcoef``'s bits, about 5 %
of the run against ``np.corrcoef``).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from simulator._jit import jit
from simulator._types import FloatArray, IntArray

__all__ = [
    "TrueRanks",
    "argsort",
    "average_ranks",
    "needs_sort",
    "spearman",
    "whole_in_short_range",
]


def average_ranks(x: FloatArray) -> FloatArray:
    """Ranks 1..n of ``x``, ties at their average rank.

    ``scipy.stats.rankdata(x, method="average")`` without NaN: the same
    numbers (whole and half ranks are exact), from ``np.argsort``, or from
    counts when ``x`` holds whole numbers in a short range (the list systems'
    ratings), which needs no sort at all.
    """
    if whole_in_short_range(x):
        return _ranks_by_counting(x)
    return _ranks_in_order(x, argsort(x))


def argsort(x: FloatArray) -> IntArray:
    """An order that sorts ``x``, as ``np.argsort(x)`` but for equal values.

    numpy sorts 64-bit integers (vectorised) faster than it argsorts floats,
    so the values are sorted as keys: a value's bits, made to sort as the
    value does, with the lowest bits replaced by its index. Values too close
    to differ above those bits keep the order of their indices, and are put
    in order afterwards. NaN sorts last.

    Kept instead of ``np.argsort``: for 80,000 floats it took 3.06 ms against
    ``np.argsort``'s 4.07 ms (best of 30, one process), and it runs for every
    system with non-whole ratings and for the true strengths at every
    checkpoint. With ``np.argsort`` in its place, ``benchmarks/run.py``'s
    end-to-end run spent 35.9 s in checkpoint metrics against 28.6 s before
    (one run each, one after the other), 7 % more for the whole run. The
    keys are distinct (each ends in its index), so every sort of them gives
    the same array: from :data:`_RADIX_FROM` keys on, :func:`_radix_sort`'s.
    """
    index_bits = max(1, (x.shape[0] - 1).bit_length())
    keys = _sort_keys(np.ascontiguousarray(x).view(np.uint64), index_bits)
    if keys.shape[0] >= _RADIX_FROM:
        _radix_sort(keys)
    else:
        keys.sort()
    return _order_of_keys(x, keys, index_bits)


#: From this many keys on, :func:`argsort` sorts them by :func:`_radix_sort`
#: (below it numpy's sort is as fast: 10.7 against 10.8 us for 1,000 keys).
_RADIX_FROM = 1024
#: Bits of a key per pass of :func:`_radix_sort`: six passes of 2,048 buckets,
#: whose counts (96 KiB) stay in a core's cache.
_RADIX_BITS = 11


@jit
def _radix_sort(keys: NDArray[np.uint64]) -> None:
    """Sort ``keys`` in place, least significant digit first.

    numpy's sort of 64-bit integers compares (an introsort; its SIMD sort is
    not used on every processor: 35 ns a key for 35,000 keys on the AMD EPYC
    of benchmarks/README.md). Here every digit's counts come from one pass,
    then one stable pass per digit moves the keys; a digit all keys share is
    skipped. 35,000 keys of true strengths: 0.25 ms against numpy's 1.09 ms;
    59,000: 0.57 against 2.01 ms; 200,000: 1.65 against 8.24 ms (best of 30,
    one process). No library sorts integer keys by their digits (numpy's
    radix sort is for 16-bit types and smaller).
    """
    n = keys.shape[0]
    n_buckets = 1 << _RADIX_BITS
    mask = np.uint64(n_buckets - 1)
    n_digits = (64 + _RADIX_BITS - 1) // _RADIX_BITS
    counts = np.zeros((n_digits, n_buckets), dtype=np.intp)
    for i in range(n):
        key = keys[i]
        for d in range(n_digits):
            counts[d, (key >> np.uint64(d * _RADIX_BITS)) & mask] += 1
    src = keys
    dst = np.empty_like(keys)
    moved = False  # whether the sorted keys are in the spare array
    for d in range(n_digits):
        # One bucket holding every key: the digit is shared, the pass a copy.
        if counts[d, (keys[0] >> np.uint64(d * _RADIX_BITS)) & mask] == n:
            continue
        start = 0
        for b in range(n_buckets):  # each bucket's first slot
            count = counts[d, b]
            counts[d, b] = start
            start += count
        shift = np.uint64(d * _RADIX_BITS)
        for i in range(n):
            key = src[i]
            b = (key >> shift) & mask
            dst[counts[d, b]] = key
            counts[d, b] += 1
        src, dst = dst, src
        moved = not moved
    if moved:
        for i in range(n):
            keys[i] = src[i]


#: The sign bit of a float64 and of its sort key.
_SIGN = np.uint64(1) << np.uint64(63)


@jit
def _sort_keys(bits: NDArray[np.uint64], index_bits: int) -> NDArray[np.uint64]:
    """Keys that sort as the float64 values of ``bits``, each ending in its index.

    Flipping a negative value's bits and setting a positive one's sign bit
    orders the keys as the values; every NaN gets the largest key.
    """
    low = (np.uint64(1) << np.uint64(index_bits)) - np.uint64(1)
    inf = np.uint64(0x7FF0000000000000)  # NaN's bits, but for the sign, are above
    keys = np.empty(bits.shape[0], dtype=np.uint64)
    for i in range(bits.shape[0]):
        b = bits[i]
        if (b & ~_SIGN) > inf:  # NaN
            key = ~np.uint64(0)
        elif b & _SIGN:
            key = ~b
        else:
            key = b | _SIGN
        keys[i] = (key & ~low) | np.uint64(i)
    return keys


@jit
def _order_of_keys(
    x: FloatArray, keys: NDArray[np.uint64], index_bits: int
) -> IntArray:
    """The indices in sorted ``keys`` (:func:`_sort_keys`), put in order of ``x``.

    Only runs of keys equal but for the index can be out of order.
    """
    low = (np.uint64(1) << np.uint64(index_bits)) - np.uint64(1)
    n = keys.shape[0]
    order = np.empty(n, dtype=np.intp)
    for i in range(n):
        order[i] = keys[i] & low
    # Runs of keys equal above the index: by value, not by index.
    first = 0
    while first < n:
        end = first + 1
        while end < n and (keys[end] ^ keys[first]) <= low:
            end += 1
        if end - first > 16:
            run = order[first:end].copy()
            # Element by element: an array assigned to a slice takes seconds
            # to compile (see simulator._jit).
            for k, i in enumerate(np.argsort(x[run])):
                order[first + k] = run[i]
        else:
            for i in range(first + 1, end):  # insertion sort
                j = order[i]
                k = i
                while k > first and x[order[k - 1]] > x[j]:
                    order[k] = order[k - 1]
                    k -= 1
                order[k] = j
        first = end
    return order


def needs_sort(x: FloatArray) -> bool:
    """Whether :func:`average_ranks` of ``x`` sorts (rather than counts)."""
    return x.shape[0] > 0 and not whole_in_short_range(x)


def whole_in_short_range(x: FloatArray) -> bool:
    """Whether ``x`` (not empty) holds whole numbers spanning at most ``4n + 1024``.

    Such values are put in order by counting them (``np.bincount`` of
    ``x - x.min()``), in time and memory linear in ``n``, with no sort.
    """
    n = x.shape[0]
    if n == 0:
        return False
    # Python floats: an infinite span (or NaN, from inf - inf or a NaN) fails.
    span = float(x.max()) - float(x.min())
    return span <= 4 * n + 1024 and bool(np.all(np.floor(x) == x))


def _ranks_by_counting(x: FloatArray) -> FloatArray:
    """Average ranks of whole numbers in a short range, from their counts."""
    value = (x - x.min()).astype(np.intp)
    counts = np.bincount(value)
    # The first ordinal rank, below + 1, plus (count - 1) / 2: whole and half
    # numbers, exact either way.
    below = np.cumsum(counts) - counts
    tied: FloatArray = below + (counts + 1) / 2
    ranks: FloatArray = tied[value]
    return ranks


@jit
def _ranks_in_order(x: FloatArray, order: IntArray) -> FloatArray:
    """Average ranks of ``x`` from an ``order`` that sorts it.

    Compiled: ``rankdata`` in its place would add 27 % to the end-to-end run
    (see the module docstring).
    """
    n = order.shape[0]
    ranks = np.empty(n)
    first = 0
    while first < n:
        end = first + 1
        while end < n and x[order[end]] == x[order[first]]:
            end += 1
        # scipy's formula: the first ordinal rank plus (count - 1) / 2.
        tied = (first + 1) + (end - first - 1) / 2
        for k in range(first, end):
            ranks[order[k]] = tied
        first = end
    return ranks


@jit
def _positions(among: IntArray, sel: IntArray) -> IntArray:
    """Position in ``sel`` of each of ``among``, -1 if absent (both increasing)."""
    position = np.full(among.shape[0], -1, dtype=np.intp)
    if sel.shape[0] == 0:
        return position
    last = sel.shape[0] - 1
    k = 0
    # Selected, not branched on: who is absent follows no pattern.
    for j in range(among.shape[0]):
        present = (k <= last) & (sel[min(k, last)] == among[j])
        position[j] = k if present else -1
        k += present
    return position


@jit
def _subset_ranks(
    true: FloatArray, order: IntArray, position: IntArray, size: int
) -> FloatArray:
    """Average ranks of the ``size`` values ``true[j]`` with ``position[j] >= 0``.

    ``order`` sorts ``true``; ``position[j]`` is the rank's place in the
    result. Compiled: ``rankdata`` of each subset in its place would add 11 %
    to the end-to-end run (see the module docstring).
    """
    # A spare last slot takes the non-members' writes: no branches to mispredict.
    ranks = np.empty(size + 1)
    below = 0  # members ranked so far
    first = 0
    n = order.shape[0]
    while first < n:
        # The run of equal values from ``first``, and its members.
        end = first + 1
        while end < n and true[order[end]] == true[order[first]]:
            end += 1
        count = 0
        for k in range(first, end):
            count += position[order[k]] >= 0
        # scipy's formula: the first ordinal rank plus (count - 1) / 2.
        tied = (below + 1) + (count - 1) / 2
        for k in range(first, end):
            q = position[order[k]]
            ranks[q if q >= 0 else size] = tied
        below += count
        first = end
    return ranks[:size]


class TrueRanks:
    """Average ranks of the true strengths of any subset of some players.

    One sort of those players (``among``) per checkpoint; a subset's ranks are
    read from it in one pass, and subsets that recur (systems rating the same
    players) are ranked once. The recorder also ranks a system's ratings this
    way when it needs them over two sets of players (its own and the common
    support).
    """

    def __init__(self, true: FloatArray, among: IntArray) -> None:
        self.among = among
        self.true = true[among]
        self._order: IntArray | None = None
        self._cache: list[tuple[IntArray, FloatArray]] = []

    def ranks(self, sel: IntArray) -> FloatArray:
        """Ranks of ``true[sel]`` in that subset (``sel``: increasing, in ``among``)."""
        for known, ranks in self._cache:
            if np.array_equal(known, sel):
                return ranks
        if self._order is None:
            self._order = argsort(self.true)
        if sel.size == self.among.size:  # all of them
            ranks = _ranks_in_order(self.true, self._order)
        else:
            position = _positions(self.among, sel)
            ranks = _subset_ranks(self.true, self._order, position, sel.size)
        # ``sel`` may be a work array, overwritten for the next system.
        self._cache.append((sel.copy(), ranks))
        return ranks


#: Up to this many players, Spearman's correlation is computed exactly (below).
_EXACT_RANK_CORRELATION = 250_000


def spearman(
    rating: FloatArray, true_ranks: FloatArray, rating_ranks: FloatArray | None = None
) -> float:
    """Spearman's rho: the Pearson correlation of the ranks.

    ``rating_ranks``, if given, are the average ranks of ``rating`` (read
    from an order already known, :class:`TrueRanks` of the ratings): no sort.

    The number of ``scipy.stats.spearmanr``, which is ``np.corrcoef`` of the
    average ranks; ``true_ranks`` are those of the true strengths
    (:class:`TrueRanks`). Average ranks are half-integers summing to
    ``n (n + 1) / 2``, so their mean is ``(n + 1) / 2`` exactly, the centred
    ranks are half-integers and their products quarter-integers; no partial
    sum of products exceeds ``n^3 / 12`` in magnitude, which is below ``2^51``
    up to :data:`_EXACT_RANK_CORRELATION` players. Every sum of
    ``np.corrcoef`` is then exact, in whatever order its BLAS adds, and
    :func:`_rank_correlation` repeats the rest of its arithmetic step by
    step: the same bits, without the copies. Above that size,
    ``np.corrcoef`` itself.
    """
    ranks = average_ranks(rating) if rating_ranks is None else rating_ranks
    if rating.shape[0] <= _EXACT_RANK_CORRELATION:
        return _rank_correlation(ranks, true_ranks)
    both = np.empty((2, rating.shape[0]))
    both[0] = ranks
    both[1] = true_ranks
    return float(np.asarray(np.corrcoef(both))[1, 0])


@jit
def _rank_correlation(x: FloatArray, y: FloatArray) -> float:
    """``np.corrcoef`` of two arrays of average ranks (see :func:`spearman`).

    Compiled, one pass: for 80,000 players ``np.corrcoef`` took 1.32 ms
    against 0.066 ms here (best of 30, one process). The checkpoint runs it
    for every system, so in ``benchmarks/run.py``'s end-to-end run (7
    systems, 546 weekly checkpoints, about 80,000 counted players) it would
    add about 4.8 s, 5 to 6 % of the run; with it the package split stayed
    within its 5 % bound on the benchmarks (issue 15).
    """
    n = x.shape[0]
    mean = (n + 1) / 2
    sxx = sxy = syy = 0.0
    for i in range(n):
        dx = x[i] - mean
        dy = y[i] - mean
        sxx += dx * dx
        sxy += dy * dx
        syy += dy * dy
    # np.cov scales by 1 / (n - 1); np.corrcoef divides the row, then the
    # column by the standard deviations, then clips to [-1, 1].
    scale = 1 / (n - 1)
    rho: float = sxy * scale / math.sqrt(syy * scale) / math.sqrt(sxx * scale)
    if rho > 1.0:
        return 1.0
    if rho < -1.0:
        return -1.0
    return rho  # NaN stays NaN, as with np.clip
