"""Convergence of newcomers: runs inside thresholds, Kaplan-Meier quantiles, curve.

At each checkpoint the recorder hands every newcomer's aligned error
``|rating - true - offset|`` of every system to :func:`follow_newcomers`,
which keeps, per threshold, the games played (and the day) when the current
run of checkpoints inside the threshold began, and the error-vs-games
histogram. At the end, the runs give each newcomer's ``N_t`` (observed, or
right-censored at the games played), summarised two ways, side by side:

* Kaplan-Meier (:func:`convergence_quantiles`, :func:`kaplan_meier_quantiles`):
  a newcomer not yet converged is censored at the games played so far, so
  the median is that of the games needed, ``inf`` when too many are censored;
* "so far" (:func:`so_far_median`), the convention of most published
  figures: a newcomer not yet converged counts the games played so far, as if
  converged then; the median of these numbers is below the Kaplan-Meier
  median when newcomers are censored early (it counts them as converged).

:func:`months_to_converge` is the Kaplan-Meier median of the same runs in
months from the newcomer's first checkpoint with games. The histogram gives
the curve's median and quartiles (:func:`curve_table`).

Newcomers whose rating, true strength and games stand still (those gone or
yet to arrive) are not followed at every checkpoint: :func:`catch_up` applies
the checkpoints they missed at once
(:class:`~simulator.evaluation.following.Followers`).

Following the newcomers is a compiled loop: one pass over them updates every
system's and threshold's state in place, where numpy would take a dozen
whole-array passes per system and threshold (a state machine, with no library
equivalent).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from simulator._calendar import DAYS_PER_MONTH
from simulator._jit import jit
from simulator._types import BoolArray, FloatArray, IntArray
from simulator.evaluation.ranks import whole_in_short_range

__all__ = [
    "DAYS_PER_MONTH",
    "catch_up",
    "commit_pending",
    "convergence_quantiles",
    "curve_table",
    "follow_newcomers",
    "kaplan_meier_quantiles",
    "months_to_converge",
    "newcomer_errors",
    "so_far_median",
]


def kaplan_meier_quantiles(
    time: FloatArray,
    observed: NDArray[np.bool_],
    qs: Sequence[float],
    *,
    min_at_risk: int = 1,
) -> list[float]:
    """Quantiles of right-censored times by the Kaplan-Meier estimator.

    A converged newcomer's ``N_t`` is an observed time; one still outside the
    threshold at the end has only shown that ``N_t`` exceeds the games played
    so far (censored at that count). The Kaplan-Meier survival curve uses both;
    the ``q`` quantile is the smallest observed time at which the estimated
    share not yet converged falls to ``1 - q`` or below, ``inf`` if it never
    does (too many newcomers censored early) or only where fewer than
    ``min_at_risk`` remain at risk, NaN without data.

    The times in order, events before censorings at tied times (the usual
    convention), the survival after the ``i``-th is the running product of
    ``1 - 1 / (n - i)`` over the events. Whole numbers in a short range (games
    played, days) are put in order by counting them (:func:`_km_by_counting`);
    other times by a sort. Both give the same numbers, bit for bit: the same
    factors multiplied in the same order.

    >>> kaplan_meier_quantiles(np.array([5.0, 10, 20, 30]),
    ...                        np.array([True, True, True, True]), [0.5])
    [10.0]
    >>> kaplan_meier_quantiles(np.array([5.0, 8, 20, 30]),
    ...                        np.array([True, False, True, False]), [0.5])
    [20.0]
    """
    if time.size == 0:
        return [math.nan] * len(qs)
    if _countable(time, observed, qs, min_at_risk):
        return _km_by_counting(time, observed, qs, min_at_risk)
    return _km_by_sorting(time, observed, qs, min_at_risk)


def _countable(
    time: FloatArray, observed: NDArray[np.bool_], qs: Sequence[float], min_at_risk: int
) -> bool:
    """Whether :func:`_km_by_counting` gives :func:`_km_by_sorting`'s numbers.

    float64 whole numbers in a short range (narrower types round ``time -
    min`` or overflow), none of them ``-0.0`` (a quantile is one of the
    times, and the sort would return whichever zero comes first among those
    tied); a boolean ``observed`` (integers would index); levels ``1 - q +
    1e-12`` that are floats (a longer float's would be rounded); an integer
    at-risk floor. Anything else is sorted.
    """
    if time.dtype != np.float64 or observed.dtype != np.bool_:
        return False
    if isinstance(min_at_risk, bool) or not isinstance(min_at_risk, int | np.integer):
        return False
    if not all(isinstance(1.0 - q + 1e-12, float) for q in qs):
        return False
    return whole_in_short_range(time) and not bool(
        np.any(np.signbit(time) & (time == 0))
    )


def _km_by_sorting(
    time: FloatArray, observed: NDArray[np.bool_], qs: Sequence[float], min_at_risk: int
) -> list[float]:
    """:func:`kaplan_meier_quantiles` of any times, from a sort of them."""
    # At tied times events come before censorings (the usual convention).
    order = np.lexsort((~observed, time))
    t, d = time[order], observed[order]
    at_risk = t.size - np.arange(t.size)
    survival = np.cumprod(np.where(d, 1.0 - 1.0 / at_risk, 1.0))
    out = []
    for q in qs:
        hit = np.flatnonzero(
            d & (survival <= 1.0 - q + 1e-12) & (at_risk >= min_at_risk)
        )
        out.append(float(t[hit[0]]) if hit.size else math.inf)
    return out


def _km_by_counting(
    time: FloatArray, observed: NDArray[np.bool_], qs: Sequence[float], min_at_risk: int
) -> list[float]:
    """:func:`kaplan_meier_quantiles` of whole numbers in a short range.

    The events and the players at each value, counted, stand for the sorted
    times (:func:`_km_walk`). At the end of the 40-year benchmark world
    (330,000 newcomers) the sort took 24-37 ms a call, and the summary and
    the groups table make six calls per system and group of newcomers.
    """
    lo = time.min()
    value = (time - lo).astype(np.intp)
    n_values = int(value.max()) + 1
    events = np.bincount(value[observed], minlength=n_values)
    total = np.bincount(value, minlength=n_values)
    # Each value as it was given (``lo + v`` would round beyond 2^53).
    times = np.empty(n_values)
    times[value] = time
    levels = np.array([1.0 - q + 1e-12 for q in qs], dtype=np.float64)
    hits = np.full(levels.shape[0], -2, dtype=np.intp)
    # Between 1 and n + 1 it means the same (1 <= at risk <= n), and fits
    # the compiled walk's integers.
    floor = min(max(int(min_at_risk), 1), time.shape[0] + 1)
    _km_walk(events, total, levels, floor, hits)
    return [float(times[h]) if h >= 0 else math.inf for h in hits]


@jit
def _km_walk(
    events: IntArray,
    total: IntArray,
    levels: FloatArray,
    min_at_risk: int,
    hits: IntArray,
) -> None:
    """The Kaplan-Meier walk over counted times (:func:`_km_by_counting`).

    ``events[v]`` and ``total[v]`` count the observed and all times at the
    ``v``-th value; ``hits[k]`` (``-2`` on entry) becomes the value at which
    the survival first falls to ``levels[k]`` or below, or ``-1`` where it
    never does or fewer than ``min_at_risk`` remain at risk then (``at_risk``
    only falls, so no later event qualifies either). The survival is
    :func:`_km_by_sorting`'s product, factor by factor in the same order (a
    censored time's factor there is ``1.0``, which changes nothing).
    """
    at_risk = 0
    for v in range(total.shape[0]):
        at_risk += total[v]
    survival = 1.0
    left = levels.shape[0]
    for v in range(total.shape[0]):
        if left == 0:
            return
        for _ in range(events[v]):
            survival = survival * (1.0 - 1.0 / at_risk)
            for k in range(levels.shape[0]):
                if hits[k] == -2 and survival <= levels[k]:
                    hits[k] = v if at_risk >= min_at_risk else -1
                    left -= 1
            at_risk -= 1
        at_risk -= total[v] - events[v]
    for k in range(levels.shape[0]):
        if hits[k] == -2:
            hits[k] = -1


def convergence_quantiles(
    entry: FloatArray, last_games: FloatArray, min_at_risk: int
) -> tuple[float, float, float, float]:
    """Median, lower and upper quartile of ``N_t``, and the share converged.

    ``entry`` holds each newcomer's games played when their current run inside
    the threshold began (NaN when outside: censored at ``last_games``, the
    games played at their last checkpoint); the quantiles are Kaplan-Meier's
    (:func:`kaplan_meier_quantiles`), NaN without newcomers.
    """
    observed = ~np.isnan(entry)
    times = np.where(observed, entry, last_games)
    q25, med, q75 = kaplan_meier_quantiles(
        times, observed, [0.25, 0.5, 0.75], min_at_risk=min_at_risk
    )
    share = float(np.mean(observed)) if entry.size else math.nan
    return med, q25, q75, share


def so_far_median(entry: FloatArray, last_games: FloatArray) -> float:
    """Median ``N_t`` by the "games so far if not converged" convention.

    Each newcomer counts ``N_t`` if converged (``entry`` not NaN) and
    otherwise the games played at their last checkpoint (``last_games``); the
    median is over every newcomer (the mean of the middle two for an even
    count), NaN without newcomers. Unlike the Kaplan-Meier median
    (:func:`convergence_quantiles`) it is always finite, and it is biased low
    when newcomers are censored early: they count as converged at the games
    they happen to have played.

    >>> so_far_median(np.array([10.0, 20.0, np.nan, np.nan]),
    ...               np.array([12.0, 30.0, 5.0, 50.0]))
    15.0
    """
    if entry.size == 0:
        return math.nan
    return float(np.median(np.where(np.isnan(entry), last_games, entry)))


def months_to_converge(
    entry: FloatArray,
    entry_day: NDArray[np.floating],
    first_day: FloatArray,
    last_day: FloatArray,
    min_at_risk: int,
) -> float:
    """Kaplan-Meier median of the months from a newcomer's first games to ``N_t``.

    The origin is ``first_day``, the first checkpoint at which the newcomer
    had played (their first game in the arena lies in the ``checkpoint_days``
    before it); the time is ``entry_day - first_day`` for a newcomer converged
    (``entry`` not NaN; ``entry_day`` is the checkpoint that began the run
    inside the threshold), and censored at ``last_day - first_day`` (their
    last checkpoint) otherwise, in months of :data:`DAYS_PER_MONTH` days. Both
    ends are checkpoint days, so the figure is resolved to a checkpoint
    interval, and a newcomer inside the threshold at their first checkpoint
    has converged in 0 months. ``inf`` and NaN as in
    :func:`kaplan_meier_quantiles`.

    Converged 91 and 182 days after their first checkpoint, and one censored
    after 28 days: of the two left at risk, half converged after 91 days
    (2.99 months).

    >>> m = months_to_converge(np.array([10.0, 20.0, np.nan]),
    ...                        np.array([98.0, 189.0, np.nan]),
    ...                        np.array([7.0, 7.0, 7.0]),
    ...                        np.array([98.0, 189.0, 35.0]), 1)
    >>> round(m, 2)
    2.99
    """
    observed = ~np.isnan(entry)
    days = np.where(observed, entry_day, last_day) - first_day
    if (
        days.size
        and _countable(days, observed, [0.5], min_at_risk)
        and float(np.abs(days).max()) < _DAYS_EXACT
    ):
        # Distinct whole days stay distinct, and in order, in months: the
        # same quantile, counted in days.
        (med,) = _km_by_counting(days, observed, [0.5], min_at_risk)
        return med / DAYS_PER_MONTH
    (med,) = kaplan_meier_quantiles(
        days / DAYS_PER_MONTH, observed, [0.5], min_at_risk=min_at_risk
    )
    return med


#: Below this many days, distinct whole numbers of days are distinct in
#: months (``1 / DAYS_PER_MONTH`` exceeds the spacing of floats below
#: ``2^40 / DAYS_PER_MONTH``), so months are in the order of the days.
_DAYS_EXACT = 2.0**40


def curve_table(
    hist: NDArray[np.int64], systems: Sequence[str], bin_width: float
) -> pd.DataFrame:
    """The error-vs-games curve from the histogram of errors per games played.

    ``hist[s, g, b]`` counts system ``s``'s newcomers at ``g`` games with an
    error in bin ``b`` (of width ``bin_width``; the last bin overflows). The
    quartiles are interpolated within a bin; one in the overflow bin is
    ``inf``, and NaN where no newcomer was seen at that count.
    """
    n_sys, n_games, n_bins = hist.shape
    cum = np.cumsum(hist, axis=-1)
    total = cum[..., -1]
    quant = {}
    for key, q in (("q25", 0.25), ("median_error", 0.5), ("q75", 0.75)):
        target = q * total
        k = np.argmax(cum >= target[..., None], axis=-1)
        below = np.take_along_axis(cum, k[..., None], axis=-1)[..., 0]
        count = np.take_along_axis(hist, k[..., None], axis=-1)[..., 0]
        before = below - count
        with np.errstate(invalid="ignore", divide="ignore"):
            value = (k + (target - before) / count) * bin_width
        value = np.where(k == n_bins - 1, np.inf, value)
        quant[key] = np.where(total == 0, np.nan, value)
    return pd.DataFrame(
        {
            "system": [s for s in systems for _ in range(n_games)],
            "games": np.tile(np.arange(n_games, dtype=np.int64), n_sys),
            "median_error": quant["median_error"].ravel(),
            "q25": quant["q25"].ravel(),
            "q75": quant["q75"].ravel(),
            "n": total.ravel().astype(np.int64),
        }
    )


@jit
def newcomer_errors(
    rating: FloatArray,
    true: FloatArray,
    offset: float,
    newcomers: IntArray,
    out: FloatArray,
) -> None:
    """``|rating - true - offset|`` of the newcomers, into ``out``.

    Infinite where unrated (an unrated newcomer is inside no threshold and in
    the curve's overflow bin, as NaN would be, and is counted as infinitely
    far in the final error), and everywhere when no one was counted (the
    offset is NaN: no error is known).

    Compiled, one pass, rather than a gather, ``np.abs`` and ``np.where``:
    for 230,000 newcomers of 330,000 players, a fifth of them unrated (the
    end of ``benchmarks/run.py``'s end-to-end run), numpy's took 4.2 ms
    against 0.16 ms here (best of 60, one process), for every system at
    every checkpoint: with it the run's checkpoint metrics took 29.4 to 35.3 s
    against 28.1 to 29.5 s before the package split.
    """
    if np.isnan(offset):
        out[:] = np.inf
        return
    for k in range(newcomers.shape[0]):
        p = newcomers[k]
        # Selected, not branched on: the unrated come in no order.
        e = abs(rating[p] - true[p] - offset)
        out[k] = np.inf if np.isnan(rating[p]) else e


@jit
def follow_newcomers(
    day: float,
    newcomers: IntArray,
    newcomer: BoolArray,
    games: IntArray,
    true: FloatArray,
    errors: FloatArray,
    thresholds: FloatArray,
    curve_max_games: int,
    bin_width: float,
    max_error: float,
    seen: BoolArray,
    first_day: FloatArray,
    first_true: FloatArray,
    last_day: FloatArray,
    last_games: FloatArray,
    last_error: FloatArray,
    entry: FloatArray,
    entry_day: NDArray[np.float32],
    inside: NDArray[np.int8],
    pending_games: IntArray,
    pending_error: FloatArray,
    hist: NDArray[np.int64],
) -> None:
    """Update the convergence runs and the curve (``Recorder.checkpoint``).

    ``errors[s, k]`` is system ``s``'s error of player ``newcomers[k]``; the
    other arguments from ``seen`` on are the recorder's state, updated in place
    (indexed by player first). A newcomer's first checkpoint with games sets
    ``first_day`` (the origin of :func:`months_to_converge`) and
    ``first_true`` (their true strength then: the band of the per-level
    groups); every one sets ``last_day`` and ``last_games``; ``entry_day`` is
    the day of ``entry`` (float32: days are whole numbers far below 2^24, and
    it halves the largest new array). In the loop already, these cost a few
    stores per newcomer, where numpy would take a gather and scatter per
    array: for 230,000 newcomers of 330,000 players and 7 systems, with new
    random errors at each checkpoint (more runs begin and end than in a run),
    a call took 44.6 to 45.6 ms against 41.5 to 43.6 ms without them (best of
    57, three interleaved pairs of processes on a shared machine).
    """
    n_sys, n_thr = entry.shape[1], entry.shape[2]
    # Curve: the pending values of players no longer followed are committed.
    for p in range(pending_games.shape[0]):
        if pending_games[p] >= 0 and not newcomer[p]:
            _commit(hist, p, pending_games, pending_error, bin_width, max_error)
            pending_games[p] = -1
    for k in range(newcomers.shape[0]):
        p = newcomers[k]
        g = games[p]
        # Convergence: runs of checkpoints inside each threshold, for the
        # newcomers who have played (the others keep their state).
        if g > 0:
            if not seen[p]:
                first_day[p] = day
                first_true[p] = true[p]
            seen[p] = True
            last_day[p] = day
            last_games[p] = g
            for s in range(n_sys):
                e = errors[s, k]
                last_error[p, s] = e
                # Thresholds increase, so a player inside one is inside every
                # larger one: the thresholds a player is inside are the last
                # ``count``.
                count = 0
                for t in thresholds:
                    count += e < t
                before = inside[p, s]
                if count == before:
                    continue
                # A run starts (entry = games played) where a threshold is
                # entered and ends (entry = NaN) where it is left.
                for j in range(n_thr):
                    was_in = before >= n_thr - j
                    now_in = count >= n_thr - j
                    if now_in and not was_in:
                        entry[p, s, j] = g
                        entry_day[p, s, j] = day
                    elif was_in and not now_in:
                        entry[p, s, j] = np.nan
                        entry_day[p, s, j] = np.nan
                inside[p, s] = count
        # Curve: the latest error at the current games count is pending; it is
        # committed once the count moves on.
        if g <= curve_max_games:
            if pending_games[p] != g:
                if pending_games[p] >= 0:
                    _commit(hist, p, pending_games, pending_error, bin_width, max_error)
                pending_games[p] = g
            for s in range(n_sys):
                pending_error[p, s] = errors[s, k]
        elif pending_games[p] >= 0:
            _commit(hist, p, pending_games, pending_error, bin_width, max_error)
            pending_games[p] = -1


@jit
def _commit(
    hist: NDArray[np.int64],
    p: int,
    pending_games: IntArray,
    pending_error: FloatArray,
    bin_width: float,
    max_error: float,
) -> None:
    """Count player ``p``'s pending errors in the histogram of the curve.

    Errors from ``max_error`` up, and NaN, fall in the last (overflow) bin.
    """
    n_bins = hist.shape[2]
    for s in range(hist.shape[0]):
        e = pending_error[p, s]
        if np.isnan(e) or e >= max_error:
            b = n_bins - 1
        else:
            b = min(math.floor(e / bin_width), n_bins - 1)
        hist[s, pending_games[p], b] += 1


@jit
def commit_pending(
    hist: NDArray[np.int64],
    pending_games: IntArray,
    pending_error: FloatArray,
    bin_width: float,
    max_error: float,
) -> None:
    """Count every pending error in ``hist`` (the pending state is unchanged)."""
    for p in range(pending_games.shape[0]):
        if pending_games[p] >= 0:
            _commit(hist, p, pending_games, pending_error, bin_width, max_error)


@jit
def catch_up(
    players: IntArray,
    through: int,
    days: FloatArray,
    offsets: FloatArray,
    key_rating: FloatArray,
    key_true: FloatArray,
    key_games: IntArray,
    synced: IntArray,
    deferred: BoolArray,
    thresholds: FloatArray,
    curve_max_games: int,
    last_day: FloatArray,
    last_error: FloatArray,
    entry: FloatArray,
    entry_day: NDArray[np.float32],
    inside: NDArray[np.int8],
    pending_error: FloatArray,
) -> None:
    """Apply the checkpoints ``synced[p] + 1 .. through`` to deferred ``players``.

    Over those checkpoints each player's rating in every system
    (``key_rating[p, s]``), true strength and games played stood still, so
    their error at checkpoint ``c`` is :func:`_error` of the offset
    ``offsets[s, c]``, and :func:`follow_newcomers` at each of them would
    have done what this does at once: the last error is the one at
    ``through``; a run inside threshold ``t`` ends at the last checkpoint with
    the error at ``t`` or above, and begins at the next one (or goes on from
    before, or begins at the first checkpoint applied, if none); the pending
    curve value is the last error. The games played were the same throughout,
    so a run begun here begins at them.

    The last checkpoint outside a threshold is found by bisection, not by a
    scan back over every checkpoint since the player's last update (a
    player gone in a run's first year misses most of its checkpoints). With
    ``x = rating - true``, the error ``|x - offset|`` is outside ``t`` where
    ``x - offset`` is ``t`` or more, or ``-t`` or less, and ``x - offset``
    falls as the offset rises (rounded too): some checkpoint of a stretch
    has its error outside exactly when the stretch's least or greatest
    offset does, or one has none (NaN, an infinite error). Whether one of
    the checkpoints from ``c`` to ``through`` is outside can only turn
    false as ``c`` grows, so the last one outside is found in
    ``log2(through - first)`` steps, from the least and greatest offset and
    a NaN of each such stretch (:func:`_stretch_bounds`), the same
    :func:`_error` of the same offsets as a scan back. At the end of
    ``benchmarks/run.py``'s 40-year world (273,161 newcomers deferred, 2,089
    checkpoints) the catching up took 0.10 to 0.12 s against 1.76 to 2.11 s
    scanning back (the same state after, two runs each, one process).
    """
    n_sys, n_thr = entry.shape[1], entry.shape[2]
    low, high, gap = _stretch_bounds(offsets, through)
    out_at = np.empty(n_thr, dtype=np.intp)
    for p in players:
        first = synced[p] + 1
        g = key_games[p]
        if first <= through:
            for s in range(n_sys):
                e = _error(key_rating[p, s], key_true[p], offsets[s, through])
                if g <= curve_max_games:
                    pending_error[p, s] = e
                if g == 0:
                    continue
                last_error[p, s] = e
                for j in range(n_thr):
                    out_at[j] = _last_outside(
                        key_rating[p, s],
                        key_true[p],
                        thresholds[j],
                        low[s],
                        high[s],
                        gap[s],
                        first,
                        through,
                    )
                before = inside[p, s]
                count = 0
                for j in range(n_thr):
                    count += e < thresholds[j]
                    was_in = before >= n_thr - j
                    if out_at[j] == through:
                        entry[p, s, j] = np.nan
                        entry_day[p, s, j] = np.nan
                    elif out_at[j] >= 0:
                        entry[p, s, j] = g
                        entry_day[p, s, j] = days[out_at[j] + 1]
                    elif not was_in:
                        entry[p, s, j] = g
                        entry_day[p, s, j] = days[first]
                inside[p, s] = count
            if g > 0:
                last_day[p] = days[through]
            synced[p] = through
        deferred[p] = False


@jit
def _stretch_bounds(
    offsets: FloatArray, through: int
) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Per system and checkpoint ``c``, over checkpoints ``c`` to ``through``.

    The least and greatest offset that is not NaN (``inf`` and ``-inf`` if
    none) and whether one is NaN; columns after ``through`` are not set.
    """
    n_sys = offsets.shape[0]
    low = np.empty((n_sys, through + 1))
    high = np.empty((n_sys, through + 1))
    gap = np.empty((n_sys, through + 1), dtype=np.bool_)
    for s in range(n_sys):
        lo, hi, nan = np.inf, -np.inf, False
        for c in range(through, -1, -1):
            o = offsets[s, c]
            if np.isnan(o):
                nan = True
            else:
                lo = min(lo, o)
                hi = max(hi, o)
            low[s, c], high[s, c], gap[s, c] = lo, hi, nan
    return low, high, gap


@jit
def _last_outside(
    rating: float,
    true: float,
    threshold: float,
    low: FloatArray,
    high: FloatArray,
    gap: NDArray[np.bool_],
    first: int,
    through: int,
) -> int:
    """The last checkpoint of ``first .. through`` outside ``threshold``, or -1.

    Outside: the error ``threshold`` or above, or no offset (NaN); from the
    bounds of :func:`_stretch_bounds`.
    """
    # Whether some checkpoint from c to through is outside: true, then false.
    lo, hi = first, through
    if not (
        gap[lo]
        or not _error(rating, true, low[lo]) < threshold
        or not _error(rating, true, high[lo]) < threshold
    ):
        return -1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if (
            gap[mid]
            or not _error(rating, true, low[mid]) < threshold
            or not _error(rating, true, high[mid]) < threshold
        ):
            lo = mid
        else:
            hi = mid - 1
    return lo


@jit
def _error(rating: float, true: float, offset: float) -> float:
    """``|rating - true - offset|``, infinite when unrated or with no offset.

    The arithmetic of :func:`newcomer_errors`, for one player.
    """
    if np.isnan(offset) or np.isnan(rating):
        return np.inf
    return abs(rating - true - offset)
