"""Two systems' ratings of the same players compared: a conversion table and a fit.

The engine calls :func:`compare_ratings` at the end of a replicate for each
cross-arena comparison of the configuration (e.g. FIDE over the board against
Lichess online, over the players active in both arenas); the rows go into
:attr:`~simulator.evaluation.results.ReplicateResult.comparison`.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from simulator._types import FloatArray

__all__ = ["GRID", "MIN_WEIGHT", "compare_ratings", "conditional_mean"]

#: The ratings at which the smoothed conversions are read: every 25 points
#: from 600 to 3000, common to every replicate so that they pair.
GRID: FloatArray = np.arange(600.0, 3000.0 + 1.0, 25.0)
#: Kernel-weighted players a smoothed conversion needs near a grid point.
MIN_WEIGHT = 10.0


def compare_ratings(
    name: str,
    x: FloatArray,
    y: FloatArray,
    true_strength: FloatArray,
    both: NDArray[np.bool_],
    *,
    bin_width: float = 100.0,
    bandwidth: float = 50.0,
) -> pd.DataFrame:
    """Compare two systems' ratings of the same players (e.g. FIDE and Lichess).

    Over the players in ``both`` rated by both systems:

    * ``kind = "bin"`` rows: for each ``bin_width`` band of ``x`` (its lower
      edge in ``bin``), the mean ``x``, mean ``y``, mean true strength and
      ``n``: the conversion curve from ``x`` to ``y``;
    * ``kind = "x_given_y"`` rows: at each rating ``bin`` of :data:`GRID`,
      ``mean_x`` is the expected ``x`` of a player whose ``y`` is ``bin``
      (``mean_y = bin``), by local linear regression
      (:func:`conditional_mean`); ``kind = "y_given_x"`` the other way. The
      conversion in each direction, on a grid that is the same in every
      replicate (so replicates and variants pair), where ``n``, the
      kernel-weighted number of players near the point, is at least
      :data:`MIN_WEIGHT`;
    * one ``kind = "fit"`` row: the cross-sectional least-squares regression
      ``x = slope * y + intercept`` (the method of published conversion
      tables), its residual SD, the correlation of ``x`` and ``y``, the mean
      gap ``y - x`` and ``n``.

    Parameters
    ----------
    name : str
        The comparison's name (e.g. ``"otb/fide vs online/lichess"``).
    x, y : ndarray of shape (n_players,)
        The two systems' published ratings (NaN = unrated).
    true_strength : ndarray of shape (n_players,)
        True strengths.
    both : bool ndarray of shape (n_players,)
        Players active in both arenas.
    bin_width : float
        Width of the bands of ``x``.
    bandwidth : float
        The Gaussian kernel's SD of the smoothed conversions, in rating points.
    """
    keep = both & ~np.isnan(x) & ~np.isnan(y)
    xs, ys, ts = x[keep], y[keep], true_strength[keep]
    rows: list[dict[str, float | str]] = []
    if xs.size:
        band = np.floor(xs / bin_width) * bin_width
        for b in np.unique(band):
            m = band == b
            rows.append(
                {
                    "comparison": name,
                    "kind": "bin",
                    "bin": float(b),
                    "n": float(m.sum()),
                    "mean_x": float(xs[m].mean()),
                    "mean_y": float(ys[m].mean()),
                    "mean_true": float(ts[m].mean()),
                }
            )
    for kind, given, other in (("x_given_y", ys, xs), ("y_given_x", xs, ys)):
        mean, weight = conditional_mean(given, other, GRID, bandwidth)
        true_mean, _ = conditional_mean(given, ts, GRID, bandwidth)
        for g, m, t, w in zip(GRID, mean, true_mean, weight, strict=True):
            if w >= MIN_WEIGHT:
                rows.append(
                    {
                        "comparison": name,
                        "kind": kind,
                        "bin": float(g),
                        "n": float(w),
                        "mean_x": float(g if kind == "y_given_x" else m),
                        "mean_y": float(g if kind == "x_given_y" else m),
                        "mean_true": float(t),
                    }
                )
    fit: dict[str, float | str] = {
        "comparison": name,
        "kind": "fit",
        "bin": math.nan,
        "n": float(xs.size),
        "mean_x": float(xs.mean()) if xs.size else math.nan,
        "mean_y": float(ys.mean()) if xs.size else math.nan,
        "mean_true": float(ts.mean()) if xs.size else math.nan,
    }
    if xs.size >= 3 and np.std(ys) > 0:
        slope, intercept = np.polyfit(ys, xs, 1)
        resid = xs - (slope * ys + intercept)
        fit.update(
            slope=float(slope),
            intercept=float(intercept),
            residual_sd=float(np.sqrt(np.sum(resid**2) / (xs.size - 2))),
            correlation=float(np.corrcoef(xs, ys)[0, 1]),
            gap=float(np.mean(ys - xs)),
        )
    else:
        fit.update(
            slope=math.nan,
            intercept=math.nan,
            residual_sd=math.nan,
            correlation=math.nan,
            gap=math.nan,
        )
    rows.append(fit)
    return pd.DataFrame(rows)


def conditional_mean(
    given: FloatArray, value: FloatArray, at: FloatArray, bandwidth: float
) -> tuple[FloatArray, FloatArray]:
    """Expected ``value`` of a player whose ``given`` rating is each of ``at``.

    Local linear regression with a Gaussian kernel (Fan and Gijbels, *Local
    Polynomial Modelling and Its Applications*, 1996, chapter 3): unlike a
    mean by band it has no bias from a band's slope and none at the edges of
    the data where it is thin on one side. Also returns the players near each
    point, ``sum w`` (the kernel is 1 at the point): a mean read far from the
    data has almost no weight there, however evenly that weight is spread.

    >>> y = np.arange(1000.0, 2001.0, 10.0)
    >>> m, n = conditional_mean(y, 0.8 * y + 180, np.array([1500.0, 2000.0]), 50)
    >>> np.round(m, 6).tolist()  # a straight line is reproduced exactly
    [1380.0, 1780.0]
    """
    if given.size == 0:
        return np.full(at.shape, np.nan), np.zeros(at.shape)
    w = np.exp(-0.5 * ((given[None, :] - at[:, None]) / bandwidth) ** 2)
    sw = w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mg = (w @ given) / sw
        mv = (w @ value) / sw
        dg = given[None, :] - mg[:, None]
        sxx = (w * dg * dg).sum(axis=1)
        sxy = (w * dg * (value[None, :] - mv[:, None])).sum(axis=1)
        slope = np.where(sxx > 0, sxy / sxx, 0.0)
        mean = mv + slope * (at - mg)
    return np.where(sw > 0, mean, np.nan), sw
