"""Paired differences to a reference system across replicates.

The systems of an arena rate the same games: replicate *i* of every system is
the same world, schedule and results. A figure's replicate-to-replicate
variation is then largely shared (a replicate with many strong newcomers is
hard for every system), and comparing two systems by their separate intervals
counts that shared part twice. The paired comparison takes, in each replicate,
the difference ``d_i = x_i(system) - x_i(reference)`` and summarises the
``d_i``: their mean, and a confidence interval of that mean,

* Student t by default: ``mean(d) +- t_{(1+c)/2, k-1} * sd(d) / sqrt(k)``
  over the ``k`` replicates where ``d_i`` is defined;
* a percentile bootstrap of the mean (replicates resampled with replacement,
  :data:`N_RESAMPLES` times) where the t interval's normal approximation is
  poor: the figure is a quantile (``*_median``, ``*_q25``, ``*_q75``: games to
  converge, ``inf`` where censored newcomers decide it), a difference is
  infinite, or, with at least :data:`MIN_SKEW_REPLICATES` replicates, the
  differences' sample skewness exceeds :data:`SKEW_LIMIT` in size (Efron and
  Tibshirani, *An Introduction to the Bootstrap*, 1993, ch. 13).

The bootstrap's generator is seeded from the differences themselves and the
row's name, so the same replicates give the same interval in every run. With
few replicates its interval is close to the range of the differences (with
three, the smallest and largest mean of a resample): honest, not narrow.
:func:`paired_differences` builds the long table
:attr:`~simulator.evaluation.results.Summary.paired` from the replicate tables.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from simulator._types import FloatArray

__all__ = [
    "COMPARISON_FIGURES",
    "MIN_SKEW_REPLICATES",
    "N_RESAMPLES",
    "PAIRED_COLUMNS",
    "POINT_FIGURES",
    "SKEW_LIMIT",
    "bootstrap_interval",
    "is_quantile",
    "paired_differences",
    "paired_points",
    "t_interval",
]

#: The columns of the paired table, in order.
PAIRED_COLUMNS = (
    "table",
    "pairs",
    "system",
    "reference",
    "figure",
    "difference",
    "lo",
    "hi",
    "n_replicates",
    "method",
)
#: Bootstrap resamples per interval.
N_RESAMPLES = 10_000
#: Sample skewness (adjusted Fisher-Pearson) above which the bootstrap is used.
SKEW_LIMIT = 1.0
#: Fewer replicates than this never switch to the bootstrap on skewness alone:
#: the skewness of a handful of values says little about the distribution.
MIN_SKEW_REPLICATES = 8
#: Column-name endings of figures that are quantiles of newcomers' games.
_QUANTILE_ENDINGS = ("_median", "_q25", "_q75")


def is_quantile(figure: str) -> bool:
    """Whether ``figure`` is a quantile over newcomers (it can be ``inf``)."""
    return figure.endswith(_QUANTILE_ENDINGS)


def _mean(d: FloatArray) -> float:
    """The mean of ``d``, infinite values kept (``+inf`` with ``-inf``: NaN)."""
    with np.errstate(invalid="ignore"):
        return float(np.mean(d)) if d.size else math.nan


def t_interval(d: FloatArray, confidence: float = 0.95) -> tuple[float, float, float]:
    """Mean of the paired differences ``d`` with its Student-t interval.

    Parameters
    ----------
    d : ndarray of shape (k,)
        One difference per replicate (no NaN).
    confidence : float
        Confidence level.

    Returns
    -------
    tuple of float
        ``(mean, lo, hi)``; the bounds are NaN when ``k < 2`` or ``d`` is not
        finite.
    """
    from scipy import stats  # 0.4 s to import; see results._aggregate

    mean = _mean(d)
    k = d.size
    if k < 2 or not np.all(np.isfinite(d)):
        return mean, math.nan, math.nan
    t = float(stats.t.ppf(0.5 + confidence / 2.0, k - 1))
    half = t * float(np.std(d, ddof=1)) / math.sqrt(k)
    return mean, mean - half, mean + half


def _seed(d: FloatArray, name: str) -> np.random.SeedSequence:
    """A seed from the values and the row's name: same data, same resamples."""
    digest = hashlib.blake2b(
        np.ascontiguousarray(d, dtype=np.float64).tobytes() + name.encode(),
        digest_size=16,
    ).digest()
    return np.random.SeedSequence(list(np.frombuffer(digest, dtype=np.uint32)))


def bootstrap_interval(
    d: FloatArray,
    confidence: float = 0.95,
    *,
    name: str = "",
    n_resamples: int = N_RESAMPLES,
) -> tuple[float, float, float]:
    """Mean of ``d`` with a percentile-bootstrap interval, reproducibly seeded.

    The replicates are resampled with replacement ``n_resamples`` times; the
    bounds are the ``(1 -+ confidence) / 2`` order statistics of the resample
    means (an actual resample mean, never an interpolation, so an infinite
    bound stays infinite). The generator's seed is a hash of ``d`` and
    ``name``.

    Parameters
    ----------
    d : ndarray of shape (k,)
        One difference per replicate (no NaN; ``inf`` allowed).
    confidence : float
        Confidence level.
    name : str
        Mixed into the seed, so rows with equal values do not share resamples.
    n_resamples : int
        Number of resamples.

    Returns
    -------
    tuple of float
        ``(mean, lo, hi)``; the bounds are NaN when ``k < 2``.
    """
    mean = _mean(d)
    k = d.size
    if k < 2:
        return mean, math.nan, math.nan
    rng = np.random.default_rng(_seed(d, name))
    picks = rng.integers(0, k, size=(n_resamples, k))
    with np.errstate(invalid="ignore"):
        means = np.mean(d[picks], axis=1)
    means = np.sort(means[~np.isnan(means)])
    if means.size == 0:
        return mean, math.nan, math.nan
    alpha = (1.0 - confidence) / 2.0
    lo = means[math.floor(alpha * (means.size - 1))]
    hi = means[math.ceil((1.0 - alpha) * (means.size - 1))]
    return mean, float(lo), float(hi)


def _skewed(d: FloatArray) -> bool:
    if d.size < MIN_SKEW_REPLICATES or not np.all(np.isfinite(d)):
        return False
    # Differences equal up to rounding (two systems whose ratings coincide)
    # have no skewness to speak of; scipy would warn of the cancellation.
    if np.max(np.abs(d - d.mean())) <= 1e-9 * np.max(np.abs(d)):
        return False
    from scipy import stats

    with np.errstate(invalid="ignore", divide="ignore"):
        g = float(stats.skew(d, bias=False))
    return math.isfinite(g) and abs(g) > SKEW_LIMIT


def _method(figure: str, d: FloatArray) -> str:
    """``"bootstrap"`` for quantiles, infinite or skewed differences, else ``"t"``."""
    if is_quantile(figure) or not np.all(np.isfinite(d)) or _skewed(d):
        return "bootstrap"
    return "t"


def paired_differences(
    frames: Sequence[pd.DataFrame],
    reference: str,
    *,
    table: str,
    counts: Collection[str] = (),
    by: str | None = None,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Each system's paired difference to ``reference``, per figure.

    Parameters
    ----------
    frames : sequence of pandas.DataFrame
        One table per replicate, in replicate order, with a ``system`` column
        (one row per system, or per system and ``by`` value). Replicate *i* of
        every system must be the same games: the rows are paired by position.
    reference : str
        The system every other row is compared with.
    table : str
        The table's name, written in the ``table`` column.
    counts : collection of str
        Columns that are counts, not figures: left out.
    by : str, optional
        A column that splits the rows (the prediction table's ``pairs``); the
        rows are paired with the reference's row of the same value. A table
        without the column counts as one group, ``"all"``.
    confidence : float
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIRED_COLUMNS`: for each group (``pairs``, ``""``
        without ``by``), system other than the reference and numeric figure,
        the mean over replicates of ``x_i(system) - x_i(reference)``, the
        interval ``lo``-``hi``, the replicates where the difference is defined
        (both values present and not both infinite alike) and the method
        (``"t"`` or ``"bootstrap"``, see the module docstring). Empty when
        ``reference`` has no row.
    """
    if not frames:
        return pd.DataFrame(columns=list(PAIRED_COLUMNS))
    stacked = pd.concat(
        [f.assign(_replicate=i) for i, f in enumerate(frames)], ignore_index=True
    )
    group = by if by is not None else "_group"
    if group not in stacked.columns:
        stacked[group] = "all" if by is not None else ""
    skip = {"system", group, "_replicate", *counts}
    figures = [
        c
        for c in stacked.columns
        if c not in skip and pd.api.types.is_numeric_dtype(stacked[c])
    ]
    keyed = stacked.set_index([group, "system", "_replicate"])[figures]
    if reference not in keyed.index.get_level_values("system"):
        return pd.DataFrame(columns=list(PAIRED_COLUMNS))
    ref = keyed.xs(reference, level="system")
    rows: list[dict[str, object]] = []
    pairs = dict.fromkeys(zip(stacked[group], stacked["system"], strict=True))
    for g, name in pairs:
        if name == reference or (g, reference) not in pairs:
            continue
        own = keyed.xs((g, name), level=[group, "system"])
        base = ref.xs(g, level=group).reindex(own.index)
        with np.errstate(invalid="ignore"):
            diff = own.to_numpy(np.float64) - base.to_numpy(np.float64)
        for j, figure in enumerate(figures):
            d = diff[:, j][~np.isnan(diff[:, j])]
            method = _method(figure, d)
            if method == "t":
                mean, lo, hi = t_interval(d, confidence)
            else:
                label = f"{table}/{g}/{name}/{figure}"
                mean, lo, hi = bootstrap_interval(d, confidence, name=label)
            rows.append(
                {
                    "table": table,
                    "pairs": g,
                    "system": name,
                    "reference": reference,
                    "figure": figure,
                    "difference": mean,
                    "lo": lo,
                    "hi": hi,
                    "n_replicates": int(d.size),
                    "method": method,
                }
            )
    return pd.DataFrame(rows, columns=list(PAIRED_COLUMNS))


#: The figures of :func:`paired_points`: per system (summary table) and per
#: comparison (its ``fit`` row).
POINT_FIGURES = ("rmse_common", "rmse", "log_loss", "offset", "drift_per_year")
COMPARISON_FIGURES = ("slope", "intercept", "residual_sd", "correlation", "gap")


def paired_points(
    points: Sequence[str],
    replicates: Sequence[Mapping[str, Sequence[Any]] | None],
    *,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """Each sweep point's paired difference to the first point, per figure.

    Every point of a sweep runs the same replicate seeds, so replicate *i* of
    every point is the same population drawn before the point's settings act;
    a point's figure minus the first point's in the same replicate removes
    what the replicates share, as :func:`paired_differences` does for the
    systems of one run.

    Parameters
    ----------
    points : sequence of str
        The points' names; the first is the reference.
    replicates : sequence
        Per point, arena -> its replicates'
        :class:`~simulator.evaluation.results.ReplicateResult` in replicate
        order (None for a point whose tasks failed).
    confidence : float
        Confidence level of the intervals.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`PAIRED_COLUMNS` with ``table`` the arena and ``system``
        (a system's :data:`POINT_FIGURES`) or the arena and comparison (its
        fit's :data:`COMPARISON_FIGURES`), ``pairs`` the point and
        ``reference`` the first point. Empty without two points.
    """
    columns = list(PAIRED_COLUMNS)
    if len(points) < 2 or replicates[0] is None:
        return pd.DataFrame(columns=columns)
    base = replicates[0]
    out: list[pd.DataFrame] = []
    for name, arenas in zip(points[1:], replicates[1:], strict=True):
        if arenas is None:
            continue
        for arena, reps in arenas.items():
            ref = base.get(arena)
            if not ref:
                continue
            n = min(len(ref), len(reps))
            pairs = [(ref[i], reps[i]) for i in range(n)]
            for system in reps[0].summary["system"]:
                frames = [
                    _point_rows(points[0], name, a.summary, b.summary, system)
                    for a, b in pairs
                ]
                out.append(_against(frames, points[0], f"{arena}/{system}", name))
            fits = [
                (_fit_rows(a.comparison), _fit_rows(b.comparison)) for a, b in pairs
            ]
            for comparison in fits[0][1]["comparison"] if fits else []:
                frames = [
                    _point_rows(points[0], name, a, b, comparison, key="comparison")
                    for a, b in fits
                ]
                out.append(_against(frames, points[0], comparison, name))
    out = [f for f in out if not f.empty]
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=columns)


def _fit_rows(comparison: pd.DataFrame) -> pd.DataFrame:
    """A replicate's comparison fits (none if it compared nothing)."""
    if "kind" not in comparison.columns:
        return pd.DataFrame(columns=["comparison"])
    return comparison[comparison["kind"] == "fit"]


def _point_rows(
    reference: str,
    point: str,
    a: pd.DataFrame,
    b: pd.DataFrame,
    label: str,
    *,
    key: str = "system",
) -> pd.DataFrame:
    """One replicate's two rows (reference point, point) of one system or fit."""
    figures = POINT_FIGURES if key == "system" else COMPARISON_FIGURES
    rows = []
    for name, table in ((reference, a), (point, b)):
        row = table[table[key] == label]
        values = {
            f: float(row[f].iloc[0]) if len(row) and f in row else math.nan
            for f in figures
        }
        rows.append({"system": name, **values})
    return pd.DataFrame(rows)


def _against(
    frames: list[pd.DataFrame], reference: str, table: str, point: str
) -> pd.DataFrame:
    d = paired_differences(frames, reference, table=table)
    return d.assign(pairs=point)
