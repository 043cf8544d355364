"""Accuracy against the truth at a checkpoint, by band of true strength, and drift.

At each checkpoint the recorder reads every system's published ratings beside
the true strengths of the active players: offset, RMSE, MAE, Spearman's rank
correlation and spread (:func:`accuracy`), the error by band of true strength
(:func:`bands`, :func:`band_sums`) and, over the checkpoints, the drift of a
fixed cohort (:func:`drift_per_year`).

Aligning scales
---------------
Ratings of different systems sit on different scales (a Glicko-2 pool centred
on 1500, FIDE ratings anchored by the rated opponents of newcomers), and the
true strengths on yet another. Every accuracy figure is therefore read after
removing one constant per system and checkpoint, the **offset**

    offset = mean(rating - true)   over the active players with a rating,

which is itself reported (it is what makes Lichess ratings higher than FIDE
ratings for the same players). The errors ``rating - true - offset`` are what
RMSE, MAE and convergence measure; Spearman's rank correlation and the spread
ratio need no alignment. Prediction and calibration compare expected scores
with results, which are on the same scale for every system.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._calendar import DAYS_PER_YEAR
from simulator._jit import jit
from simulator._types import BoolArray, FloatArray, IntArray
from simulator.evaluation.ranks import spearman

__all__ = [
    "DAYS_PER_YEAR",
    "accuracy",
    "band_sums",
    "bands",
    "drift_per_year",
    "moments",
    "rated_players",
]


def drift_per_year(day: ArrayLike, drift: ArrayLike) -> float:
    """Least-squares slope of ``drift`` against ``day / 365.2425``: points per year.

    Checkpoints where the drift is NaN are left out; fewer than two distinct
    days give NaN.

    >>> drift_per_year([0.0, 365.2425, 730.485], [1.0, 3.0, 5.0])
    2.0
    """
    x = np.asarray(day, dtype=np.float64) / DAYS_PER_YEAR
    y = np.asarray(drift, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    x, y = x[ok], y[ok]
    if x.size < 2:
        return math.nan
    dx = x - x.mean()
    sxx = float(np.sum(dx * dx))
    if sxx == 0.0:
        return math.nan
    return float(np.sum(dx * (y - y.mean())) / sxx)


@jit
def rated_players(
    rating: FloatArray,
    true: FloatArray,
    active: BoolArray,
    cohort: BoolArray,
    candidates: IntArray,
    sel: IntArray,
    work: FloatArray,
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The rated players counted, and the cohort's ``rating - true``.

    One pass over the players in place of a dozen whole-array numpy passes
    (a gather, not arithmetic a library does: numpy's masks and fancy indexing
    in its place cost 6.2 ms a checkpoint against 4.4 ms on the end-to-end
    run's world, +1 s of a 78 s run, more as the population grows).

    Returns, in order of player index: the active players with a rating
    (``sel``), their ratings, true strengths and ``rating - true``; and
    ``rating - true`` of the rated cohort members. ``candidates`` are the
    players active or in the cohort, increasing. The results are views of
    ``sel`` and of the rows of ``work`` (shape (4, len(candidates))), which are
    overwritten.
    """
    m = c = 0
    # Written whatever the masks, kept by moving on: no branches to mispredict.
    for p in candidates:
        rated = not np.isnan(rating[p])
        d = rating[p] - true[p]
        sel[m] = p
        work[0, m] = rating[p]
        work[1, m] = true[p]
        work[2, m] = d
        m += rated & active[p]
        work[3, c] = d
        c += rated & cohort[p]
    return sel[:m], work[0, :m], work[1, :m], work[2, :m], work[3, :c]


@jit
def bands(true: FloatArray, players: IntArray, edges: FloatArray) -> IntArray:
    """The players' bands of true strength: ``edges[b - 1] <= true < edges[b]``.

    ``np.searchsorted(edges, true, side="right")``, NaN in the last band; 0
    for the other players. Compiled, one pass: for 80,000 of 100,000 players
    and 6 edges, ``np.searchsorted`` with the gather and the scatter took
    1.90 ms against 0.45 ms here (best of 60, one process), once a checkpoint.
    """
    band = np.zeros(true.shape[0], dtype=np.intp)
    for p in players:
        b = 0
        for edge in edges:
            b += not true[p] < edge
        band[p] = b
    return band


@jit
def band_sums(
    diff: FloatArray, sel: IntArray, band: IntArray, offset: float, n_bands: int
) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
    """Per band: count, sum of ``e = diff - offset`` and of ``e^2``.

    ``diff`` is that of the players ``sel``, ``band`` every player's band; each
    sum adds in index order, as ``np.bincount`` does.

    Compiled, one pass: for 80,000 players the gather, two temporaries and
    three ``np.bincount`` calls took 1.07 ms against 0.17 ms here (best of
    60, one process). The checkpoint runs it for every system: with 7
    systems and 546 weekly checkpoints, ``benchmarks/run.py``'s end-to-end
    run would take about 3.4 s (4 %) longer with numpy's.
    """
    count = np.zeros(n_bands, dtype=np.int64)
    s1 = np.zeros(n_bands)
    s2 = np.zeros(n_bands)
    for i in range(diff.shape[0]):
        b = band[sel[i]]
        e = diff[i] - offset
        count[b] += 1
        s1[b] += e
        s2[b] += e * e
    return count, s1, s2


def accuracy(
    rating: FloatArray,
    true: FloatArray,
    diff: FloatArray,
    true_ranks: Callable[[], FloatArray],
    rating_ranks: Callable[[], FloatArray] | None = None,
) -> dict[str, float]:
    """Offset, RMSE, MAE, Spearman and spread of ``rating`` against ``true``.

    ``diff`` is ``rating - true``; ``true_ranks`` returns the average ranks of
    ``true`` when Spearman needs them, and ``rating_ranks``, if given, those
    of ``rating`` (otherwise they are computed).
    """
    n = rating.shape[0]
    out = dict.fromkeys(("offset", "rmse", "mae", "spearman", "spread"), math.nan)
    out["n_rated"] = float(n)
    if n == 0:
        return out
    offset, rmse, mae, sd_true, sd_rating = moments(rating, true, diff)
    out["offset"] = offset
    out["rmse"] = rmse
    out["mae"] = mae
    if sd_true > 0.0:
        out["spread"] = sd_rating / sd_true
    if n >= 2 and sd_true > 0.0 and rating.max() > rating.min():
        out["spearman"] = spearman(
            rating, true_ranks(), None if rating_ranks is None else rating_ranks()
        )
    return out


def moments(
    rating: FloatArray, true: FloatArray, diff: FloatArray
) -> tuple[float, float, float, float, float]:
    """Offset, RMSE, MAE and the SDs of ``true`` and ``rating`` (not empty).

    ``offset = np.mean(diff)``, ``e = diff - offset``,
    ``np.sqrt(np.mean(e * e))``, ``np.mean(np.abs(e))``, ``np.std(true)`` and
    ``np.std(rating)`` (population SDs). numpy's own pairwise sums: a
    compiled copy of them (an earlier version) gave the same bits no faster.
    """
    offset = float(np.mean(diff))
    e = diff - offset
    rmse = math.sqrt(np.mean(e * e))
    mae = float(np.mean(np.abs(e)))
    return offset, rmse, mae, float(np.std(true)), float(np.std(rating))
