"""The table ``ratingsim convert`` reads, made from the conversion experiment.

The experiment (``experiments/conversion.toml``) is a sweep whose first
variant is the world as it is and whose every later variant switches one
more cause of the Lichess-FIDE gap off, keeping the ones before off too (each
variant's overrides contain the previous variant's; checked). Its
comparisons set FIDE (``x``, the OTB arena's system labelled ``fide``)
against each Lichess pool (``y``, an online arena named after the pool, such
as ``lichess-blitz``); comparisons without FIDE (two online pools) stay in
the experiment's report and out of the table. In each replicate the engine
reads the two smoothed conversions of every comparison on a common grid of
ratings
(:func:`~simulator.evaluation.comparison.compare_ratings`); every variant
runs the same replicate seeds, so the replicates pair across variants.

At each grid rating, over the replicates where every variant has a value:
the expected rating in the other pool and the gap (online minus FIDE) are
means over replicates, each cause's part is the mean of the paired drop of
the gap when it is switched off, and what remains is the last variant's gap;
the parts and what remains add up to the gap in every replicate, so also in
the means. Intervals are Student-t intervals over replicates (of the paired
differences for the parts).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from simulator import __version__
from simulator.evaluation.comparison import GRID
from simulator.tasks.convert import TABLE_FORMAT
from simulator.tasks.run import SweepResult

__all__ = ["MIN_REPLICATES", "build_table", "table_json"]

#: Replicates with a value in every variant needed at a grid rating.
MIN_REPLICATES = 3
#: The comparison kinds: (kind, direction from y to x?).
_KINDS = (("x_given_y", True), ("y_given_x", False))


def build_table(
    sweep: SweepResult,
    *,
    confidence: float = 0.95,
    experiment: str = "",
    command: str = "",
) -> dict[str, Any]:
    """The conversion table of a finished conversion experiment, as plain data.

    Raises
    ------
    ValueError
        If a task failed, the variants are not cumulative, there is no
        comparison, or the comparisons do not name FIDE and a pool.
    """
    if sweep.failures:
        f = sweep.failures[0]
        raise ValueError(f"sweep point {f.point!r} replicate {f.replicate} failed")
    points = sweep.points
    if len(points) < 2:
        raise ValueError("the conversion experiment needs a base and a cause")
    for before, after in itertools.pairwise(points):
        if not _settings(before.overrides) <= _settings(after.overrides):
            raise ValueError(
                f"variant {after.name!r} must keep every override of "
                f"{before.name!r}: the causes are switched off cumulatively"
            )
    values = [_point_values(r) for r in sweep.results]
    keys = set(values[0])
    if not keys:
        raise ValueError("the experiment has no [[comparison]] of FIDE and a pool")
    causes: list[dict[str, Any]] = [
        {
            "name": _slug(p.name),
            "label": p.name,
            "overrides": {k: _plain(v) for k, v in p.overrides},
        }
        for p in points[1:]
    ]
    directions = {
        key: _direction(
            [v[key] for v in values],
            [c["name"] for c in causes],
            online_first=key.split(">")[0] != "fide",
            confidence=confidence,
        )
        for key in sorted(keys)
    }
    n_rep = min(len(next(iter(v.values()))[0]) for v in values)
    fits = _fits(sweep.results[0], confidence)
    return {
        "format": TABLE_FORMAT,
        "meta": {
            "experiment": experiment,
            "command": command,
            "seed": str(sweep.seed),
            "replicates": n_rep,
            "confidence": confidence,
            "version": __version__,
            "base": points[0].name,
        },
        "causes": causes,
        "directions": directions,
        "fits": fits,
    }


#: The columns of a comparison's ``fit`` row the table keeps.
FIT_FIELDS = ("slope", "intercept", "residual_sd", "correlation", "n")


def _fits(result: Any, confidence: float) -> dict[str, dict[str, list[float]]]:
    """Per pool: the base world's fit of FIDE on the pool's rating.

    The least-squares regression across players that published conversions
    report (``FIDE = slope x online + intercept``, its residual SD, the
    correlation, the players), each as ``[mean, lo, hi]`` over replicates.
    """
    out: dict[str, dict[str, list[float]]] = {}
    for name, pool, tables in _fide_comparisons(result):
        rows = [t[(t["comparison"] == name) & (t["kind"] == "fit")] for t in tables]
        values = np.array(
            [[float(r[f].iloc[0]) for f in FIT_FIELDS] for r in rows if len(r)]
        )
        columns = _interval(values, confidence)
        out[pool] = dict(zip(FIT_FIELDS, columns, strict=True))
    return out


def _fide_comparisons(result: Any) -> Iterator[tuple[str, str, list[pd.DataFrame]]]:
    """Each comparison of FIDE with a pool: (name, pool, the replicates' tables).

    Comparisons without FIDE (two online pools) are skipped; FIDE as ``y``
    is an error.
    """
    if result is None:
        raise ValueError("a sweep point has no result")
    for replicates in result.replicates.values():
        tables = [r.comparison for r in replicates]
        if not tables or tables[0].empty:
            continue
        for name in tables[0]["comparison"].unique():
            x_ref, y_ref = str(name).split(" vs ")
            if y_ref.split("/")[1] == "fide":
                raise ValueError(
                    f"comparison {name!r}: x must be the system labelled 'fide'"
                )
            if x_ref.split("/")[1] == "fide":
                yield str(name), y_ref.split("/")[0], tables


def _settings(overrides: Sequence[tuple[str, Any]]) -> set[tuple[str, str]]:
    """Overrides as comparable pairs (a value may be a table, e.g. a system)."""
    return {(k, json.dumps(v, sort_keys=True, default=str)) for k, v in overrides}


def _slug(name: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in name).split()).lower()


def _point_values(result: Any) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per direction ``source>target``: (converted, gap), each (replicates, grid)."""
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, pool, tables in _fide_comparisons(result):
        for kind, from_online in _KINDS:
            conv = np.full((len(tables), GRID.size), np.nan)
            for i, t in enumerate(tables):
                rows = t[(t["comparison"] == name) & (t["kind"] == kind)]
                at = np.searchsorted(GRID, rows["bin"].to_numpy())
                column = "mean_x" if from_online else "mean_y"
                conv[i, at] = rows[column].to_numpy()
            if from_online:
                key, gap = f"{pool}>fide", GRID[None, :] - conv
            else:
                key, gap = f"fide>{pool}", conv - GRID[None, :]
            out[key] = (conv, gap)
    return out


def _interval(values: np.ndarray, confidence: float) -> list[list[float]]:
    """``[mean, lo, hi]`` per column over the rows (replicates)."""
    n = values.shape[0]
    mean = values.mean(axis=0)
    sd = values.std(axis=0, ddof=1) if n > 1 else np.zeros(values.shape[1])
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return [
        [float(m), float(m - h), float(m + h)] for m, h in zip(mean, half, strict=True)
    ]


def _direction(
    per_point: Sequence[tuple[np.ndarray, np.ndarray]],
    causes: list[str],
    *,
    online_first: bool,
    confidence: float,
) -> dict[str, Any]:
    n_rep = min(c.shape[0] for c, _ in per_point)
    conv = np.stack([c[:n_rep] for c, _ in per_point])  # (points, rep, grid)
    gap = np.stack([g[:n_rep] for _, g in per_point])
    complete = np.isfinite(gap).all(axis=0)  # (rep, grid)
    ratings, rows = [], []
    for j in np.flatnonzero(complete.sum(axis=0) >= MIN_REPLICATES):
        use = complete[:, j]
        ratings.append(float(GRID[j]))
        rows.append((conv[:, use, j], gap[:, use, j]))
    out: dict[str, Any] = {
        "online_first": online_first,
        "rating": ratings,
        "n_replicates": [int(c.shape[1]) for c, _ in rows],
        "expected": [],
        "gap": [],
        "parts": {name: [] for name in causes},
        "remaining": [],
    }
    for c, g in rows:
        out["expected"] += _interval(c[0][:, None], confidence)
        out["gap"] += _interval(g[0][:, None], confidence)
        for k, name in enumerate(causes):
            out["parts"][name] += _interval((g[k] - g[k + 1])[:, None], confidence)
        out["remaining"] += _interval(g[-1][:, None], confidence)
    return out


def _plain(value: Any) -> Any:
    """A TOML value as JSON data."""
    return json.loads(json.dumps(value, default=str))


def table_json(table: dict[str, Any]) -> str:
    """The table as the JSON text the package ships."""
    return json.dumps(table, indent=1, sort_keys=False) + "\n"
