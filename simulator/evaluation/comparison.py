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

__all__ = ["compare_ratings"]


def compare_ratings(
    name: str,
    x: FloatArray,
    y: FloatArray,
    true_strength: FloatArray,
    both: NDArray[np.bool_],
    *,
    bin_width: float = 100.0,
) -> pd.DataFrame:
    """Compare two systems' ratings of the same players (e.g. FIDE and Lichess).

    Over the players in ``both`` rated by both systems:

    * ``kind = "bin"`` rows: for each ``bin_width`` band of ``x`` (its lower
      edge in ``bin``), the mean ``x``, mean ``y``, mean true strength and
      ``n``: the conversion curve from ``x`` to ``y``;
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
