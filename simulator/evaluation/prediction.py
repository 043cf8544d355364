"""Prediction: the log loss and the calibration bins of expected scores against results.

The recorder adds every round's games to running sums, per system, the
oracle and the coin flip: the log loss (:func:`log_loss_sum`), the Brier score,
and per bin of expected score the games, expected and observed scores
(:func:`calibrate`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from simulator._jit import jit
from simulator._types import FloatArray

__all__ = [
    "ALL_PAIRS",
    "CLIP",
    "PAIRS",
    "calibrate",
    "log_loss_sum",
    "loss_sums_by_pair",
]

#: Expected scores are clipped to ``[CLIP, 1 - CLIP]`` inside the log loss.
CLIP = 1e-9

#: Pair types of a game, by how many of its two players some compared system
#: has not rated yet (the code is that count): 0, 1 or 2 new players.
PAIRS = ("both rated", "one new", "both new")
#: The ``pairs`` value of the rows over every game.
ALL_PAIRS = "all"


def calibrate(
    expected: FloatArray,
    score: FloatArray,
    count: NDArray[np.int64],
    sum_expected: FloatArray,
    sum_observed: FloatArray,
) -> None:
    """Add a batch of games to the calibration bins (``len(count)`` of them).

    A game falls in bin ``floor(E * bins)`` (``E = 1`` in the last bin). The
    batch's sums per bin first, in game order, then added to the running
    ones: the additions of ``np.bincount`` and ``+=``.

    ``expected`` may also hold one row per predictor (shape ``(k, n)``, with
    ``count``, ``sum_expected`` and ``sum_observed`` of shape ``(k, bins)``):
    each row is added to its own bins, as by one call per row.

    Compiled, one pass, rather than the bin index and three ``np.bincount``
    calls: the recorder runs it for every round, for every system and the
    oracle. ``benchmarks/run.py``'s ``record_games`` row (1,000,000 games, 7
    systems) measured 89 to 106 ms with the bincounts against 60 to 69 ms
    with this loop, in three full runs of each, one after the other.
    """
    if expected.ndim == 1:
        _calibrate_rows(
            expected.reshape(1, -1),
            score,
            count.reshape(1, -1),
            sum_expected.reshape(1, -1),
            sum_observed.reshape(1, -1),
        )
    else:
        _calibrate_rows(expected, score, count, sum_expected, sum_observed)


@jit
def _calibrate_rows(
    expected: FloatArray,
    score: FloatArray,
    count: NDArray[np.int64],
    sum_expected: FloatArray,
    sum_observed: FloatArray,
) -> None:
    """:func:`calibrate` of each row of ``expected`` into its row of the bins."""
    bins = count.shape[1]
    n = np.zeros(bins, dtype=np.int64)
    se = np.zeros(bins)
    ss = np.zeros(bins)
    for j in range(expected.shape[0]):
        for k in range(bins):
            n[k] = 0
            se[k] = 0.0
            ss[k] = 0.0
        for i in range(expected.shape[1]):
            k = min(int(expected[j, i] * bins), bins - 1)
            n[k] += 1
            se[k] += expected[j, i]
            ss[k] += score[i]
        for k in range(bins):
            count[j, k] += n[k]
            sum_expected[j, k] += se[k]
            sum_observed[j, k] += ss[k]


def loss_sums_by_pair(
    expected: FloatArray,
    score: FloatArray,
    other: FloatArray,
    pair: NDArray[np.int8],
    log_loss: FloatArray,
    brier: FloatArray,
) -> None:
    """Add a batch's log loss and Brier score to the sums of each pair type.

    ``pair`` is each game's pair type (an index of :data:`PAIRS`) and
    ``other`` is ``1 - score``; the sums of ``-(s ln E + (1 - s) ln(1 - E))``
    (``E`` clipped to ``[CLIP, 1 - CLIP]``) and of ``(s - E)^2`` (``E`` not
    clipped) of the games of type ``k`` are added to ``log_loss[k]`` and
    ``brier[k]``. ``expected`` may also hold one row per predictor (shape
    ``(k, n)``, the sums ``(k, len(PAIRS))``): the same sums as one call per
    row, in a handful of numpy calls for all of them (the recorder's nine
    predictors of a round; numpy's logarithms give each element the same
    bits in a row of a matrix as in a vector of its own).

    The per-game terms are numpy's (vectorised logarithms); only the sums by
    pair type are a compiled pass. A compiled loop with the logarithms in it
    took ``record_games`` (1,000,000 games, 7 systems) from 63 to 223 ms in
    ``benchmarks/run.py``'s hotpaths.
    """
    own, work = _minus_log_loss(expected, score, other)
    d = np.subtract(score, expected, out=work)
    d *= d
    if own.ndim == 1:
        _sum_by_pair(
            own.reshape(1, -1),
            d.reshape(1, -1),
            pair,
            log_loss.reshape(1, -1),
            brier.reshape(1, -1),
        )
    else:
        _sum_by_pair(own, d, pair, log_loss, brier)


def _minus_log_loss(
    expected: FloatArray, score: FloatArray, other: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``s ln E + (1 - s) ln(1 - E)`` per game (E clipped), and a spent buffer.

    The same operations as the formula, in place: one temporary besides the
    result, handed back for reuse.
    """
    e = np.clip(expected, CLIP, 1.0 - CLIP)
    own = np.log(e)
    own *= score
    np.negative(e, out=e)
    np.log1p(e, out=e)
    e *= other
    own += e
    return own, e


@jit
def _sum_by_pair(
    minus_log_loss: FloatArray,
    squared: FloatArray,
    pair: NDArray[np.int8],
    log_loss: FloatArray,
    brier: FloatArray,
) -> None:
    """The sums by pair type, row by row, each in game order.

    ``log_loss[j, k] -= sum(minus_log_loss[j])`` and ``brier[j, k] +=
    sum(squared[j])`` over the games of pair type ``k``.
    """
    n_types = log_loss.shape[1]
    ll = np.zeros(n_types)
    br = np.zeros(n_types)
    for j in range(minus_log_loss.shape[0]):
        for k in range(n_types):
            ll[k] = 0.0
            br[k] = 0.0
        for i in range(pair.shape[0]):
            k = pair[i]
            ll[k] -= minus_log_loss[j, i]
            br[k] += squared[j, i]
        for k in range(n_types):
            log_loss[j, k] += ll[k]
            brier[j, k] += br[k]


def log_loss_sum(
    expected: FloatArray, score: FloatArray, other: FloatArray | None = None
) -> float:
    """``-sum(s ln E + (1 - s) ln(1 - E))``, E clipped; ``other`` is ``1 - s``."""
    if other is None:
        other = 1.0 - score
    own, _ = _minus_log_loss(expected, score, other)
    return float(-np.sum(own))
