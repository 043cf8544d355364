"""What the metrics measure and how finely, and the names of their rows and columns.

:class:`MetricsConfig` holds the settings of every metric of the simulator
(docs/design.md, "Metrics"): the convergence thresholds, the calibration bins, the
error-vs-games curve, the steady state and the bands of true strength.
:class:`OutputConfig` says which per-player and per-game tables a run keeps
besides (:mod:`~simulator.evaluation.histories`).
:func:`threshold_name` names a threshold's columns; :data:`ORACLE` and
:data:`COIN_FLIP` are the reference rows of the prediction table. The
:class:`~simulator.evaluation.recorder.Recorder` reads them, and so do the
report and the replay.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from simulator._validate import check_interval

#: The most bins of the error-vs-games curve (``curve_max_games /
#: curve_bin_width``).
MAX_CURVE_BINS = 100_000

__all__ = ["COIN_FLIP", "ORACLE", "MetricsConfig", "OutputConfig", "threshold_name"]

#: Row names of the two reference predictors in the prediction table.
ORACLE = "oracle"
COIN_FLIP = "coin flip"


def threshold_name(threshold: float) -> str:
    """Column stem of a convergence threshold: ``25.0 -> "n25"``, ``12.5 -> "n12.5"``.

    >>> threshold_name(50.0)
    'n50'
    """
    return f"n{threshold:g}"


@dataclass(frozen=True)
class MetricsConfig:
    """What the metrics measure and how finely.

    Parameters
    ----------
    thresholds : tuple of float, default (25.0, 50.0, 100.0)
        Convergence thresholds in rating points, increasing: N25, N50, N100 are
        the games a newcomer needs until the aligned error stays below each.
        A list is accepted and stored as a tuple.
        Unit: rating points.
    calibration_bins : int, default 10
        Number of equal-width bins of expected score on [0, 1].
        Unit: bins.
    curve_max_games : int, default 150
        The error-vs-games curve covers 0 to ``curve_max_games`` games played.
        Unit: games.
    steady_fraction : float, default 0.25
        The steady-state accuracy figures of the summary are the mean over the
        last ``steady_fraction`` of the checkpoints (at least one checkpoint).
        Unit: share of the checkpoints (0 to 1).
    curve_bin_width : float, default 1.0
        Width in rating points of the error histogram behind the curve's
        quantiles (the quantiles are interpolated within a bin).
        Unit: rating points.
    curve_max_error : float, default 1000.0
        Errors from ``curve_max_error`` up, and unrated players, fall into one
        overflow bin; a quantile that lands in it is reported as ``inf``.
        Unit: rating points.
    band_edges : tuple of float
        Edges of the true-strength bands of the error-by-band table (rating
        points); default 1400, 1600, ..., 2400 with open ends.
        Unit: rating points.
    min_at_risk : int, default 10
        The Kaplan-Meier quantiles of N25/N50/N100 are read only where at least
        this many newcomers are still at risk (not yet converged, not yet
        censored); a quantile reached later rests on a handful of players and
        is reported as ``inf`` (not reached).
        Unit: newcomers.
    """

    thresholds: tuple[float, ...] = (25.0, 50.0, 100.0)
    calibration_bins: int = 10
    curve_max_games: int = 150
    steady_fraction: float = 0.25
    curve_bin_width: float = 1.0
    curve_max_error: float = 1000.0
    min_at_risk: int = 10
    band_edges: tuple[float, ...] = (1400.0, 1600.0, 1800.0, 2000.0, 2200.0, 2400.0)

    def __post_init__(self) -> None:
        owner = "MetricsConfig"
        check_interval(owner, "min_at_risk", self.min_at_risk, 1, np.inf, kind="an int")
        edges = tuple(float(e) for e in self.band_edges)
        if not edges or any(b <= a for a, b in itertools.pairwise(edges)):
            raise ValueError(
                f"The 'band_edges' parameter of {owner} must be increasing numbers. "
                f"Got {self.band_edges!r} instead."
            )
        object.__setattr__(self, "band_edges", edges)
        t = self.thresholds
        ok = isinstance(t, tuple | list) and len(t) > 0
        if ok:
            for v in t:
                try:
                    check_interval(owner, "thresholds", v, 0, np.inf, closed="neither")
                except ValueError:
                    ok = False
                    break
        if ok:
            values = [float(v) for v in t]
            names = [threshold_name(v) for v in values]
            ok = all(a < b for a, b in itertools.pairwise(values)) and len(
                set(names)
            ) == len(names)
        if not ok:
            raise ValueError(
                f"The 'thresholds' parameter of {owner} must be a non-empty increasing "
                f"sequence of distinct floats in (0, inf). Got {t!r} instead."
            )
        object.__setattr__(self, "thresholds", tuple(float(v) for v in t))
        check_interval(
            owner, "calibration_bins", self.calibration_bins, 1, 10_000, kind="an int"
        )
        check_interval(
            owner, "curve_max_games", self.curve_max_games, 0, 100_000, kind="an int"
        )
        check_interval(
            owner, "steady_fraction", self.steady_fraction, 0, 1, closed="right"
        )
        check_interval(
            owner, "curve_bin_width", self.curve_bin_width, 0, np.inf, closed="neither"
        )
        # The curve has curve_max_games / curve_bin_width bins per system and
        # checkpoint: 1e-9 asked for 1.5e11 and failed every replicate.
        check_interval(
            owner,
            "curve_bin_width",
            self.curve_bin_width,
            max(self.curve_max_games, 1) / MAX_CURVE_BINS,
            np.inf,
        )
        check_interval(
            owner,
            "curve_max_error",
            self.curve_max_error,
            self.curve_bin_width,
            np.inf,
            closed="left",
        )

    @property
    def n_error_bins(self) -> int:
        """Finite bins of the error histogram (the overflow bin comes on top)."""
        return math.ceil(self.curve_max_error / self.curve_bin_width)

    def n_steady(self, n_checkpoints: int) -> int:
        """Checkpoints in the steady-state window: the last ``steady_fraction``.

        At least one when there is any checkpoint; none otherwise. The
        recorder averages over them; the engine computes the common-support
        figures at them only.
        """
        if n_checkpoints <= 0:
            return 0
        return max(1, math.ceil(self.steady_fraction * n_checkpoints))


@dataclass(frozen=True)
class OutputConfig:
    """What a run writes besides its tables (the ``[output]`` table of a config).

    Parameters
    ----------
    histories : bool, default False
        Keep every player's rating history beside their true strength
        (``history.parquet``; ``ratingsim run --histories``).
    predictions : bool, default False
        Keep every measured game's predictions (``predictions.parquet``;
        ``ratingsim run --predictions``).

    Notes
    -----
    Both grow with the run (the predictions by one row per game and system),
    unlike the rest of the results: off by default.
    """

    histories: bool = False
    predictions: bool = False

    def __post_init__(self) -> None:
        for name in ("histories", "predictions"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(
                    f"The {name!r} parameter of OutputConfig must be true or false. "
                    f"Got {value!r} instead."
                )

    @property
    def any(self) -> bool:
        """Whether anything is kept."""
        return self.histories or self.predictions
