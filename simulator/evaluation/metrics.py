"""Metrics: convergence, accuracy against the truth, prediction, calibration, drift.

Every metric of the simulator is defined here, once (DESIGN.md, "Metrics").
A :class:`Recorder` is fed by the engine, one per replicate and arena, with

* :meth:`Recorder.record_games`: each round's pre-game expected scores of every
  system, of the oracle (the outcome model's true expectation) and the results;
* :meth:`Recorder.checkpoint`: every system's published ratings beside the
  true strengths, on the checkpoint days.

It keeps streaming sums and fixed-size arrays only, so its memory grows with
the number of players, systems and checkpoints, never with the number of games.
:meth:`Recorder.result` turns them into tables (:class:`ReplicateResult`), and
:func:`combine` averages the replicates with Student-t confidence intervals
(:class:`Summary`).

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

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from simulator._jit import jit, unliteral
from simulator._types import BoolArray, FloatArray, IntArray
from simulator._validate import check_interval

__all__ = [
    "CLIP",
    "COIN_FLIP",
    "DAYS_PER_YEAR",
    "ORACLE",
    "MetricsConfig",
    "Recorder",
    "ReplicateResult",
    "Summary",
    "combine",
    "compare_ratings",
    "drift_per_year",
    "kaplan_meier_quantiles",
    "threshold_name",
]


#: Expected scores are clipped to ``[CLIP, 1 - CLIP]`` inside the log loss.
CLIP = 1e-9
#: Row names of the two reference predictors in the prediction table.
ORACLE = "oracle"
COIN_FLIP = "coin flip"
#: Length of the year used by the drift slope, in days.
DAYS_PER_YEAR = 365.25

#: Columns of the per-checkpoint accuracy figures averaged in the steady state.
_STEADY = ("rmse", "mae", "spearman", "spread", "offset")
#: Columns that are counts: averaged over replicates, without an interval.
_COUNTS = frozenset({"n", "n_games", "n_rated", "n_newcomers"})


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
    calibration_bins : int, default 10
        Number of equal-width bins of expected score on [0, 1].
    curve_max_games : int, default 150
        The error-vs-games curve covers 0 to ``curve_max_games`` games played.
    steady_fraction : float, default 0.25
        The steady-state accuracy figures of the summary are the mean over the
        last ``steady_fraction`` of the checkpoints (at least one checkpoint).
    curve_bin_width : float, default 1.0
        Width in rating points of the error histogram behind the curve's
        quantiles (the quantiles are interpolated within a bin).
    curve_max_error : float, default 1000.0
        Errors from ``curve_max_error`` up, and unrated players, fall into one
        overflow bin; a quantile that lands in it is reported as ``inf``.
    band_edges : tuple of float
        Edges of the true-strength bands of the error-by-band table (rating
        points); default 1400, 1600, ..., 2400 with open ends.
    min_at_risk : int, default 10
        The Kaplan-Meier quantiles of N25/N50/N100 are read only where at least
        this many newcomers are still at risk (not yet converged, not yet
        censored); a quantile reached later rests on a handful of players and
        is reported as ``inf`` (not reached).
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


@dataclass(frozen=True, eq=False)
class ReplicateResult:
    """The metrics of one replicate and arena, as tables.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per system: ``system``; for each threshold stem ``nT`` (e.g.
        ``n50``) ``nT_median``, ``nT_q25``, ``nT_q75`` (games, ``inf`` where
        censored players decide the quantile) and ``nT_converged`` (share of
        newcomers converged); ``n_newcomers``; the steady-state ``rmse``,
        ``mae``, ``spearman``, ``spread`` and ``offset``; ``drift_per_year``;
        ``log_loss``, ``brier`` and ``log_loss_excess`` (over the oracle).
    timeseries : pandas.DataFrame
        One row per checkpoint and system: ``day``, ``system``, ``offset``,
        ``rmse``, ``mae``, ``spearman``, ``spread``, ``n_rated``,
        ``cohort_drift``.
    prediction : pandas.DataFrame
        One row per system, then ``"oracle"`` and ``"coin flip"``: ``system``,
        ``n_games``, ``log_loss``, ``brier``, ``log_loss_excess``,
        ``brier_excess`` (excess over the oracle of the same games).
    calibration : pandas.DataFrame
        ``system``, ``bin``, ``bin_low``, ``bin_high``, ``mean_expected``,
        ``mean_observed``, ``n`` (empty bins have NaN means).
    convergence : pandas.DataFrame
        The error-vs-games curve of newcomers: ``system``, ``games``,
        ``median_error``, ``q25``, ``q75``, ``n``.
    systems : tuple of str
        The systems, in the order of the tables.
    thresholds : tuple of float
        The convergence thresholds.
    groups : pandas.DataFrame
        Convergence of each named group of newcomers (e.g. probes of one true
        strength): ``group``, ``system``, ``n``, the ``nT_*`` columns of the
        summary and ``final_error`` (median aligned error at the last
        checkpoint). Empty without groups.
    comparison : pandas.DataFrame
        Cross-arena comparisons filled in by the engine (see
        :func:`compare_ratings`); empty without them.
    bands : pandas.DataFrame
        Error by band of true strength (``system``, ``band`` = lower edge,
        ``rmse``, ``bias`` = mean aligned error, ``n``), steady-state means
        like the summary's: a compressed scale shows as positive bias at the
        bottom and negative bias at the top.
    """

    summary: pd.DataFrame
    timeseries: pd.DataFrame
    prediction: pd.DataFrame
    calibration: pd.DataFrame
    convergence: pd.DataFrame
    systems: tuple[str, ...]
    thresholds: tuple[float, ...]
    groups: pd.DataFrame = field(default_factory=pd.DataFrame)
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    bands: pd.DataFrame = field(default_factory=pd.DataFrame)


@dataclass(frozen=True, eq=False)
class Summary:
    """Replicates combined: means with Student-t confidence intervals.

    Every figure column ``x`` of the replicate tables comes with ``x_lo`` and
    ``x_hi``, the bounds of the ``confidence`` interval of the mean across
    replicates (NaN with one replicate); counts (``n``, ``n_games``,
    ``n_rated``, ``n_newcomers``) are averaged without an interval. Each table
    has an ``n_replicates`` column: the replicates that have the row (a figure
    that is NaN in some of them is averaged over the others).

    Attributes
    ----------
    summary, prediction : pandas.DataFrame
        As in :class:`ReplicateResult`, one row per system (prediction also
        ``"oracle"`` and ``"coin flip"``). ``summary.drift_per_year`` is the
        least-squares slope of the cohort drift in rating points per year.
    timeseries : pandas.DataFrame
        Per ``day`` and ``system``.
    calibration : pandas.DataFrame
        Per ``system`` and ``bin``; ``mean_expected`` and ``mean_observed`` are
        averages of the replicates' bin means.
    convergence : pandas.DataFrame
        Per ``system`` and ``games``.
    n_replicates : int
        Number of replicates combined.
    confidence : float
        Confidence level of the intervals.
    systems : tuple of str
        The systems.
    thresholds : tuple of float
        The convergence thresholds.
    groups, comparison : pandas.DataFrame
        As in :class:`ReplicateResult`, combined over replicates.
    """

    summary: pd.DataFrame
    timeseries: pd.DataFrame
    prediction: pd.DataFrame
    calibration: pd.DataFrame
    convergence: pd.DataFrame
    n_replicates: int
    confidence: float
    systems: tuple[str, ...]
    thresholds: tuple[float, ...]
    groups: pd.DataFrame = field(default_factory=pd.DataFrame)
    comparison: pd.DataFrame = field(default_factory=pd.DataFrame)
    bands: pd.DataFrame = field(default_factory=pd.DataFrame)


def _float_vector(value: ArrayLike, name: str, n: int | None = None) -> FloatArray:
    a = np.asarray(value, dtype=np.float64)
    if a.ndim != 1 or (n is not None and a.shape[0] != n):
        want = "(n,)" if n is None else f"({n},)"
        raise ValueError(f"{name} must have shape {want}. Got shape {a.shape} instead.")
    return a


def _bool_vector(value: ArrayLike, name: str, n: int) -> BoolArray:
    a = np.asarray(value)
    if a.shape != (n,) or a.dtype != np.bool_:
        raise ValueError(
            f"{name} must be a boolean array of shape ({n},). "
            f"Got dtype {a.dtype} and shape {a.shape} instead."
        )
    return a


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

    >>> kaplan_meier_quantiles(np.array([5.0, 10, 20, 30]),
    ...                        np.array([True, True, True, True]), [0.5])
    [10.0]
    >>> kaplan_meier_quantiles(np.array([5.0, 8, 20, 30]),
    ...                        np.array([True, False, True, False]), [0.5])
    [20.0]
    """
    if time.size == 0:
        return [math.nan] * len(qs)
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


def drift_per_year(day: ArrayLike, drift: ArrayLike) -> float:
    """Least-squares slope of ``drift`` against ``day / 365.25``: points per year.

    Checkpoints where the drift is NaN are left out; fewer than two distinct
    days give NaN.

    >>> drift_per_year([0.0, 365.25, 730.5], [1.0, 3.0, 5.0])
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


class Recorder:
    """Accumulate one replicate's metrics for one arena, in bounded memory.

    Parameters
    ----------
    systems : sequence of str
        Names of the arena's systems: the keys of the mappings handed to
        :meth:`record_games` and :meth:`checkpoint`, and the rows of the tables.
        ``"oracle"`` and ``"coin flip"`` are reserved.
    n_players : int
        Size of every per-player array.
    config : MetricsConfig, optional
        What to measure.

    Notes
    -----
    Memory: per system, ``len(thresholds)`` floats per player (convergence),
    one float per player (the pending curve value), the error histogram of
    ``(curve_max_games + 1) x (n_error_bins + 1)`` counts, and a few floats per
    checkpoint (the time series). Nothing grows with the number of games.

    Calls must come in time order (``day`` non-decreasing); the convergence of
    a newcomer is read across successive checkpoints.

    Examples
    --------
    >>> rec = Recorder(["elo"], 3)
    >>> rec.record_games({"elo": [0.5, 0.7]}, [0.5, 0.8], [1.0, 1.0])
    >>> true = np.array([1500.0, 1600.0, 1700.0])
    >>> rec.checkpoint(7.0, {"elo": true + 100.0}, true, np.ones(3, bool),
    ...                np.array([1, 1, 0]), np.zeros(3, bool), np.ones(3, bool))
    >>> row = rec.result().summary.iloc[0]
    >>> float(row["offset"]), float(row["rmse"]), float(row["spearman"])
    (100.0, 0.0, 1.0)
    """

    def __init__(
        self,
        systems: Sequence[str],
        n_players: int,
        config: MetricsConfig | None = None,
        groups: Mapping[str, ArrayLike] | None = None,
    ) -> None:
        names = tuple(systems)
        if len(names) == 0 or not all(isinstance(s, str) and s for s in names):
            raise ValueError(
                f"The 'systems' parameter of Recorder must be a non-empty sequence of "
                f"non-empty names. Got {systems!r} instead."
            )
        if len(set(names)) != len(names) or {ORACLE, COIN_FLIP} & set(names):
            raise ValueError(
                f"The 'systems' parameter of Recorder must hold distinct names other "
                f"than {ORACLE!r} and {COIN_FLIP!r}. Got {names!r} instead."
            )
        check_interval("Recorder", "n_players", n_players, 0, np.inf, kind="an int")
        self.systems = names
        self.n_players = int(n_players)
        self.config = MetricsConfig() if config is None else config
        cfg = self.config
        n_sys, n_thr = len(names), len(cfg.thresholds)
        self.groups = {
            str(k): _bool_vector(v, f"groups[{k!r}]", self.n_players)
            for k, v in (groups or {}).items()
        }
        # Error by band of true strength, one row per checkpoint and system.
        self._band_rows: list[tuple[float, str, float, float, float, float]] = []
        # The per-player state below is player by player (a player's figures of
        # every system side by side), as the checkpoints update it.
        # Each newcomer's aligned error at their last checkpoint.
        self._last_error = np.full((self.n_players, n_sys), np.nan)

        # Prediction: rows are the systems, then the oracle, then the coin flip.
        self._n_games = 0
        self._log_loss = np.zeros(n_sys + 2)
        self._brier = np.zeros(n_sys + 2)
        self._cal_n = np.zeros((n_sys, cfg.calibration_bins), dtype=np.int64)
        self._cal_expected = np.zeros((n_sys, cfg.calibration_bins))
        self._cal_observed = np.zeros((n_sys, cfg.calibration_bins))

        # Accuracy time series: one list per column.
        self._series: dict[str, list[float]] = {
            k: []
            for k in (
                "day",
                "offset",
                "rmse",
                "mae",
                "spearman",
                "spread",
                "n_rated",
                "cohort_drift",
            )
        }
        self._last_day = -math.inf

        # Convergence: games played when the current run inside each threshold
        # began (NaN = outside now), and who has ever been measured.
        self._entry = np.full((self.n_players, n_sys, n_thr), np.nan)
        # How many thresholds each player is inside (the entries not NaN).
        self._inside = np.zeros((self.n_players, n_sys), dtype=np.int8)
        self._seen = np.zeros(self.n_players, dtype=bool)
        # Games played at each newcomer's last checkpoint (censoring times).
        self._last_games = np.zeros(self.n_players, dtype=np.float64)

        # Error-vs-games curve: a histogram of errors per games-played value, and
        # each newcomer's latest error at their current games count (committed
        # once the count moves on, so each (player, games) counts once).
        self._n_bins = cfg.n_error_bins + 1  # + overflow
        self._hist = np.zeros(
            (n_sys, cfg.curve_max_games + 1, self._n_bins), dtype=np.int64
        )
        self._pending_games = np.full(self.n_players, -1, dtype=np.intp)
        self._pending_error = np.full((self.n_players, n_sys), np.nan)

    # --- games --------------------------------------------------------------

    def record_games(
        self,
        expected: Mapping[str, ArrayLike],
        oracle: ArrayLike,
        score: ArrayLike,
    ) -> None:
        """Add a batch of games (typically a round) to the prediction sums.

        Parameters
        ----------
        expected : mapping of str to ndarray of shape (n_games,)
            Each system's pre-game expected score for White.
        oracle : ndarray of shape (n_games,)
            The outcome model's true expected score for White.
        score : ndarray of shape (n_games,)
            White's score (1, 0.5, 0).

        Notes
        -----
        Per game, with ``E`` clipped to ``[1e-9, 1 - 1e-9]`` in the log loss only:

        * log loss ``-(s ln E + (1 - s) ln(1 - E))`` (natural log; a draw costs
          ``ln 2`` at ``E = 0.5``);
        * Brier score ``(s - E)^2``;
        * calibration: the game falls in bin ``floor(E * calibration_bins)``
          (``E = 1`` in the last bin), which sums its ``E`` and ``s``.

        The coin flip predicts ``E = 0.5`` for every game.
        """
        s = _float_vector(score, "score")
        n = s.shape[0]
        o = _float_vector(oracle, "oracle", n)
        self._check_keys(expected, "expected")
        columns = [
            _float_vector(expected[name], f"expected[{name!r}]", n)
            for name in self.systems
        ]
        if n == 0:
            return
        # min and max: two reductions, no temporaries; NaN fails both.
        for name, e in [*zip(self.systems, columns, strict=True), (ORACLE, o)]:
            if not (e.min() >= 0.0 and e.max() <= 1.0):
                raise ValueError(
                    f"Expected scores of {name!r} must lie in [0, 1]. "
                    f"Got values such as {e[~((e >= 0.0) & (e <= 1.0))][0]!r}."
                )
        if not (s.min() >= 0.0 and s.max() <= 1.0):
            raise ValueError("score must lie in [0, 1] (1, 0.5 or 0 for White).")
        self._n_games += n
        s_other = 1.0 - s
        for i, e in enumerate([*columns, o, np.full(n, 0.5)]):
            self._log_loss[i] += _log_loss_sum(e, s, s_other)
            d = s - e
            self._brier[i] += float(np.sum(np.multiply(d, d, out=d)))
            if i < len(columns):
                _calibrate(
                    e, s, self._cal_n[i], self._cal_expected[i], self._cal_observed[i]
                )

    # --- checkpoints ----------------------------------------------------------

    def checkpoint(
        self,
        day: float,
        ratings: Mapping[str, ArrayLike],
        true_strength: ArrayLike,
        active: ArrayLike,
        games_played: ArrayLike,
        newcomer: ArrayLike,
        cohort: ArrayLike,
    ) -> None:
        """Read every system's published ratings against the truth.

        Parameters
        ----------
        day : float
            The checkpoint's day; non-decreasing from call to call.
        ratings : mapping of str to ndarray of shape (n_players,)
            Published ratings of each system, NaN for unrated players.
        true_strength : ndarray of shape (n_players,)
            True strengths on the Elo scale of the outcome model.
        active : bool ndarray of shape (n_players,)
            Players counted in the accuracy figures (offset, RMSE, ...).
        games_played : int ndarray of shape (n_players,)
            Games each player has played in the arena so far.
        newcomer : bool ndarray of shape (n_players,)
            Players whose convergence is measured (those who entered the pool
            during the run).
        cohort : bool ndarray of shape (n_players,)
            Members of the fixed drift cohort present at this checkpoint.

        Notes
        -----
        Over the active players with a rating (``n_rated`` of them), with
        ``d = rating - true``:

        * ``offset = mean(d)``: the alignment of the system's scale;
        * ``rmse = sqrt(mean((d - offset)^2))``, ``mae = mean(|d - offset|)``;
        * ``spearman``: Spearman's rank correlation of rating and true strength;
        * ``spread = SD(rating) / SD(true)`` (population SDs, ``ddof=0``);
        * ``cohort_drift = mean(d)`` over the cohort members with a rating.

        Figures undefined at a checkpoint (no rated player, constant values)
        are NaN.

        Convergence: a newcomer with ``games_played > 0`` has error
        ``|rating - true - offset|`` (infinite when unrated). For each
        threshold ``t`` the recorder keeps the ``games_played`` of the
        checkpoint that began the current run of checkpoints with error below
        ``t``; a checkpoint with the error at ``t`` or above (or unrated) ends
        the run. At the end, that value is ``N_t``, and newcomers outside are
        right-censored (``N_t = inf``). A player left out of ``newcomer`` (or
        at zero games) at a checkpoint keeps their state unchanged.

        The curve: each newcomer contributes, for every games count ``g`` in
        ``0..curve_max_games`` seen at some checkpoint, the error at the last
        checkpoint at which they had played ``g`` games, i.e. the error of the
        rating they carried into their next game.
        """
        n = self.n_players
        day = float(day)
        if math.isnan(day) or day < self._last_day:
            raise ValueError(
                f"Checkpoints must come in time order: day {day!r} after day "
                f"{self._last_day!r}."
            )
        self._check_keys(ratings, "ratings")
        true = _float_vector(true_strength, "true_strength", n)
        act = _bool_vector(active, "active", n)
        new = _bool_vector(newcomer, "newcomer", n)
        coh = _bool_vector(cohort, "cohort", n)
        gp = np.asarray(games_played)
        if gp.shape != (n,) or not np.issubdtype(gp.dtype, np.integer):
            raise ValueError(
                f"games_played must be an integer array of shape ({n},). "
                f"Got dtype {gp.dtype} and shape {gp.shape} instead."
            )
        gp = gp.astype(np.intp, copy=False)
        self._last_day = day

        cfg = self.config
        # Convergence and the curve follow the newcomers only.
        newcomers = np.flatnonzero(new)
        errors = np.empty((len(self.systems), newcomers.size))
        # Shared by the systems: the order of the true strengths (Spearman's
        # ranks of any subset are read from it), the bands, and work arrays
        # (fresh ones for each system would cost a page fault per 4 KiB).
        counted = np.flatnonzero(act)
        true_order = _TrueRanks(true, counted)
        band = _bands(true, counted, np.asarray(cfg.band_edges))
        # Only they can be counted or in the cohort (not the players yet to
        # arrive or gone).
        candidates = np.flatnonzero(act | coh)
        sel_work = np.empty(candidates.size, dtype=np.intp)
        work = np.empty((4, candidates.size))
        for i, name in enumerate(self.systems):
            r = _float_vector(ratings[name], f"ratings[{name!r}]", n)
            sel, r_sel, true_sel, diff, cohort_diff = _rated(
                r, true, act, coh, candidates, sel_work, work
            )
            row = _accuracy(r_sel, true_sel, diff, partial(true_order.ranks, sel))
            row["cohort_drift"] = (
                _sum(cohort_diff, 0.0, _PLAIN) / cohort_diff.size
                if cohort_diff.size
                else math.nan
            )
            row["day"] = day
            for key, values in self._series.items():
                values.append(row[key])
            _newcomer_errors(r, true, row["offset"], newcomers, errors[i])
            self._record_bands(day, name, diff, sel, band, row["offset"])
        _follow_newcomers(
            newcomers,
            new,
            gp,
            errors,
            np.asarray(cfg.thresholds),
            cfg.curve_max_games,
            cfg.curve_bin_width,
            cfg.curve_max_error,
            self._seen,
            self._last_games,
            self._last_error,
            self._entry,
            self._inside,
            self._pending_games,
            self._pending_error,
            self._hist,
        )

    # --- results --------------------------------------------------------------

    def result(self) -> ReplicateResult:
        """The tables of everything recorded so far (the recorder is unchanged)."""
        cfg = self.config
        systems = self.systems
        timeseries = self._timeseries()
        prediction = self._prediction()
        calibration = self._calibration()

        hist = self._hist.copy()
        _commit_pending(
            hist,
            self._pending_games,
            self._pending_error,
            cfg.curve_bin_width,
            cfg.curve_max_error,
        )
        convergence = self._curve(hist)

        # Summary: convergence quantiles, steady state, drift, prediction.
        n_cp = len(self._series["day"]) // max(len(systems), 1)
        n_steady = max(1, math.ceil(cfg.steady_fraction * n_cp)) if n_cp else 0
        seen = np.flatnonzero(self._seen)
        rows: dict[str, list[float | str]] = {"system": list(systems)}
        for j, t in enumerate(cfg.thresholds):
            stem = threshold_name(t)
            cols: list[list[float]] = [[], [], [], []]
            for i in range(len(systems)):
                entry = self._entry[seen, i, j]
                n_t = np.where(np.isnan(entry), np.inf, entry)
                observed = ~np.isnan(entry)
                times = np.where(observed, entry, self._last_games[seen])
                q25, med, q75 = kaplan_meier_quantiles(
                    times, observed, [0.25, 0.5, 0.75], min_at_risk=cfg.min_at_risk
                )
                share = float(np.mean(np.isfinite(n_t))) if n_t.size else math.nan
                for col, v in zip(cols, [med, q25, q75, share], strict=True):
                    col.append(v)
            for suffix, col in zip(
                ["median", "q25", "q75", "converged"], cols, strict=True
            ):
                rows[f"{stem}_{suffix}"] = list(col)
        rows["n_newcomers"] = [float(seen.size)] * len(systems)
        for key in _STEADY:
            rows[key] = []
        rows["drift_per_year"] = []
        for name in systems:
            ts = timeseries[timeseries["system"] == name]
            tail = ts.iloc[len(ts) - n_steady :] if n_steady else ts.iloc[0:0]
            for key in _STEADY:
                rows[key].append(_nanmean(tail[key].to_numpy(dtype=np.float64)))
            rows["drift_per_year"].append(
                drift_per_year(
                    ts["day"].to_numpy(dtype=np.float64),
                    ts["cohort_drift"].to_numpy(dtype=np.float64),
                )
            )
        head = prediction.iloc[: len(systems)]
        for key in ("log_loss", "brier", "log_loss_excess"):
            rows[key] = head[key].tolist()
        summary = pd.DataFrame(rows)
        return ReplicateResult(
            summary=summary,
            timeseries=timeseries,
            prediction=prediction,
            calibration=calibration,
            convergence=convergence,
            systems=systems,
            thresholds=cfg.thresholds,
            groups=self._groups_table(),
            bands=self._bands_table(n_steady),
        )

    def _record_bands(
        self,
        day: float,
        name: str,
        diff: FloatArray,
        sel: IntArray,
        band: IntArray,
        offset: float,
    ) -> None:
        """Append one checkpoint's error by band of true strength.

        ``diff`` is ``rating - true`` of the players counted, ``sel``, and
        ``band`` every player's band (:func:`_bands`).
        """
        lows = (-math.inf, *self.config.band_edges)
        n, s1, s2 = _band_sums(diff, sel, band, offset, len(lows))
        with np.errstate(invalid="ignore", divide="ignore"):
            rmse = np.sqrt(s2 / n)
            bias = s1 / n
        for k, low in enumerate(lows):
            self._band_rows.append(
                (day, name, low, float(rmse[k]), float(bias[k]), float(n[k]))
            )

    def _bands_table(self, n_steady: int) -> pd.DataFrame:
        """Steady-state error by band: the mean over the last checkpoints."""
        if not self._band_rows or n_steady == 0:
            return pd.DataFrame()
        df = pd.DataFrame(
            self._band_rows, columns=["day", "system", "band", "rmse", "bias", "n"]
        )
        days = np.unique(df["day"].to_numpy())
        tail = df[df["day"].isin(days[len(days) - n_steady :])]
        out = tail.groupby(["system", "band"], sort=False)[["rmse", "bias", "n"]].mean()
        return out.reset_index()

    def _groups_table(self) -> pd.DataFrame:
        """Convergence per named group of newcomers (Kaplan-Meier, as the summary)."""
        cfg = self.config
        rows: list[dict[str, float | str]] = []
        for group, mask in self.groups.items():
            members = np.flatnonzero(mask & self._seen)
            for i, name in enumerate(self.systems):
                row: dict[str, float | str] = {
                    "group": group,
                    "system": name,
                    "n": float(members.size),
                }
                for j, t in enumerate(cfg.thresholds):
                    entry = self._entry[members, i, j]
                    observed = ~np.isnan(entry)
                    times = np.where(observed, entry, self._last_games[members])
                    q25, med, q75 = kaplan_meier_quantiles(
                        times, observed, [0.25, 0.5, 0.75], min_at_risk=cfg.min_at_risk
                    )
                    stem = threshold_name(t)
                    row[f"{stem}_median"] = med
                    row[f"{stem}_q25"] = q25
                    row[f"{stem}_q75"] = q75
                    row[f"{stem}_converged"] = (
                        float(np.mean(observed)) if members.size else math.nan
                    )
                last = self._last_error[members, i]
                row["final_error"] = (
                    float(np.median(last)) if members.size else math.nan
                )
                rows.append(row)
        return pd.DataFrame(rows)

    # --- helpers --------------------------------------------------------------

    def _check_keys(self, mapping: Mapping[str, object], what: str) -> None:
        if sorted(mapping) != sorted(self.systems):
            raise ValueError(
                f"{what} must have one entry per system {list(self.systems)!r}. "
                f"Got keys {sorted(mapping)!r} instead."
            )

    def _curve(self, hist: NDArray[np.int64]) -> pd.DataFrame:
        cfg = self.config
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
                value = (k + (target - before) / count) * cfg.curve_bin_width
            value = np.where(k == n_bins - 1, np.inf, value)
            quant[key] = np.where(total == 0, np.nan, value)
        return pd.DataFrame(
            {
                "system": [s for s in self.systems for _ in range(n_games)],
                "games": np.tile(np.arange(n_games, dtype=np.int64), n_sys),
                "median_error": quant["median_error"].ravel(),
                "q25": quant["q25"].ravel(),
                "q75": quant["q75"].ravel(),
                "n": total.ravel().astype(np.int64),
            }
        )

    def _timeseries(self) -> pd.DataFrame:
        n_sys = len(self.systems)
        n_cp = len(self._series["day"]) // n_sys
        data: dict[str, object] = {
            "day": np.asarray(self._series["day"], dtype=np.float64),
            "system": list(self.systems) * n_cp,
        }
        for key in ("offset", "rmse", "mae", "spearman", "spread"):
            data[key] = np.asarray(self._series[key], dtype=np.float64)
        data["n_rated"] = np.asarray(self._series["n_rated"], dtype=np.int64)
        data["cohort_drift"] = np.asarray(self._series["cohort_drift"], np.float64)
        return pd.DataFrame(data)

    def _prediction(self) -> pd.DataFrame:
        n = self._n_games
        with np.errstate(invalid="ignore", divide="ignore"):
            log_loss = self._log_loss / n if n else np.full_like(self._log_loss, np.nan)
            brier = self._brier / n if n else np.full_like(self._brier, np.nan)
        n_sys = len(self.systems)
        return pd.DataFrame(
            {
                "system": [*self.systems, ORACLE, COIN_FLIP],
                "n_games": np.full(n_sys + 2, n, dtype=np.int64),
                "log_loss": log_loss,
                "brier": brier,
                "log_loss_excess": log_loss - log_loss[n_sys],
                "brier_excess": brier - brier[n_sys],
            }
        )

    def _calibration(self) -> pd.DataFrame:
        bins = self.config.calibration_bins
        n_sys = len(self.systems)
        count = self._cal_n
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_e = np.where(count > 0, self._cal_expected / count, np.nan)
            mean_s = np.where(count > 0, self._cal_observed / count, np.nan)
        edges = np.arange(bins + 1) / bins
        return pd.DataFrame(
            {
                "system": [s for s in self.systems for _ in range(bins)],
                "bin": np.tile(np.arange(bins, dtype=np.int64), n_sys),
                "bin_low": np.tile(edges[:-1], n_sys),
                "bin_high": np.tile(edges[1:], n_sys),
                "mean_expected": mean_e.ravel(),
                "mean_observed": mean_s.ravel(),
                "n": count.ravel(),
            }
        )


# --- compiled loops of the checkpoints and games -----------------------------------
# One pass over the players (or games) each, in place of a dozen whole-array
# numpy passes, with the same floating-point operations in the same order: sums
# add in index order, as np.bincount does; np.mean's and np.std's pairwise sums
# are numpy's own, step by step (_sum).


@jit
def _rated(
    rating: FloatArray,
    true: FloatArray,
    active: BoolArray,
    cohort: BoolArray,
    candidates: IntArray,
    sel: IntArray,
    work: FloatArray,
) -> tuple[IntArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The rated players counted, and the cohort's ``rating - true``.

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
def _newcomer_errors(
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
def _bands(true: FloatArray, players: IntArray, edges: FloatArray) -> IntArray:
    """The players' bands of true strength: ``edges[b - 1] <= true < edges[b]``.

    ``np.searchsorted(edges, true, side="right")``, NaN in the last band; 0
    for the other players.
    """
    band = np.zeros(true.shape[0], dtype=np.intp)
    for p in players:
        b = 0
        for edge in edges:
            b += not true[p] < edge
        band[p] = b
    return band


@jit
def _band_sums(
    diff: FloatArray, sel: IntArray, band: IntArray, offset: float, n_bands: int
) -> tuple[NDArray[np.int64], FloatArray, FloatArray]:
    """Per band: count, sum of ``e = diff - offset`` and of ``e^2``.

    ``diff`` is that of the players ``sel``, ``band`` every player's band; each
    sum adds in index order, as ``np.bincount`` does.
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


@jit
def _follow_newcomers(
    newcomers: IntArray,
    newcomer: BoolArray,
    games: IntArray,
    errors: FloatArray,
    thresholds: FloatArray,
    curve_max_games: int,
    bin_width: float,
    max_error: float,
    seen: BoolArray,
    last_games: FloatArray,
    last_error: FloatArray,
    entry: FloatArray,
    inside: NDArray[np.int8],
    pending_games: IntArray,
    pending_error: FloatArray,
    hist: NDArray[np.int64],
) -> None:
    """Update the convergence runs and the curve (:meth:`Recorder.checkpoint`).

    ``errors[s, k]`` is system ``s``'s error of player ``newcomers[k]``; the
    other arguments from ``seen`` on are the recorder's state, updated in place
    (indexed by player first).
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
            seen[p] = True
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
                    elif was_in and not now_in:
                        entry[p, s, j] = np.nan
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
def _commit_pending(
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
def _calibrate(
    expected: FloatArray,
    score: FloatArray,
    count: NDArray[np.int64],
    sum_expected: FloatArray,
    sum_observed: FloatArray,
) -> None:
    """Add a batch of games to the calibration bins (``len(count)`` of them).

    The batch's sums per bin first, in game order, then added to the running
    ones: the additions of ``np.bincount`` and ``+=``.
    """
    bins = count.shape[0]
    n = np.zeros(bins, dtype=np.int64)
    se = np.zeros(bins)
    ss = np.zeros(bins)
    for i in range(expected.shape[0]):
        k = min(int(expected[i] * bins), bins - 1)
        n[k] += 1
        se[k] += expected[i]
        ss[k] += score[i]
    for k in range(bins):
        count[k] += n[k]
        sum_expected[k] += se[k]
        sum_observed[k] += ss[k]


def _log_loss_sum(
    expected: FloatArray, score: FloatArray, other: FloatArray | None = None
) -> float:
    """``-sum(s ln E + (1 - s) ln(1 - E))``, E clipped; ``other`` is ``1 - s``."""
    e = np.clip(expected, CLIP, 1.0 - CLIP)
    if other is None:
        other = 1.0 - score
    # The same operations as the formula, in place.
    own = np.log(e)
    own *= score
    np.negative(e, out=e)
    np.log1p(e, out=e)
    e *= other
    own += e
    return float(-np.sum(own))


def _nanmean(values: FloatArray) -> float:
    ok = ~np.isnan(values)
    return float(np.mean(values[ok])) if ok.any() else math.nan


def _average_ranks(x: FloatArray) -> FloatArray:
    """Ranks 1..n of ``x``, ties at their average rank.

    ``scipy.stats.rankdata(x, method="average")`` without NaN: the same
    numbers (whole and half ranks are exact), from one sort of any kind, or
    from counts when ``x`` holds whole numbers in a short range (the list
    systems' ratings), which needs no sort at all.
    """
    if _whole_in_short_range(x):
        return _ranks_by_counting(x)
    return _ranks_in_order(x, _argsort(x))


def _argsort(x: FloatArray) -> IntArray:
    """An order that sorts ``x``, as ``np.argsort(x)`` but for equal values.

    numpy sorts 64-bit integers (vectorised) about three times faster than it
    argsorts floats, so the values are sorted as keys: a value's bits, made to
    sort as the value does, with the lowest bits replaced by its index. Values
    too close to differ above those bits keep the order of their indices, and
    are put in order afterwards. NaN sorts last.
    """
    index_bits = max(1, (x.shape[0] - 1).bit_length())
    keys = _sort_keys(np.ascontiguousarray(x).view(np.uint64), index_bits)
    keys.sort()
    return _order_of_keys(x, keys, index_bits)


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


@jit
def _whole_in_short_range(x: FloatArray) -> bool:
    """Whether ``x`` (not empty) holds whole numbers spanning at most ``4n + 1024``."""
    n = x.shape[0]
    if n == 0:
        return False
    low = high = x[0]
    for v in x:
        if v != math.floor(v):  # also NaN
            return False
        low = min(low, v)
        high = max(high, v)
    # An infinite span fails too.
    return bool(high - low <= 4 * n + 1024)


@jit
def _ranks_by_counting(x: FloatArray) -> FloatArray:
    """Average ranks of whole numbers in a short range, from their counts."""
    # Loops rather than x.min() and np.bincount, which are slow to compile.
    low = x[0]
    for v in x:
        low = min(low, v)
    value = np.empty(x.shape[0], dtype=np.intp)
    top = 0
    for i in range(x.shape[0]):
        value[i] = int(x[i] - low)
        top = max(top, value[i])
    counts = np.zeros(top + 1, dtype=np.intp)
    for v in value:
        counts[v] += 1
    tied = np.empty(counts.shape[0])
    below = 0
    for v in range(counts.shape[0]):
        # The first ordinal rank, below + 1, plus (count - 1) / 2: whole and
        # half numbers, exact either way.
        tied[v] = below + (counts[v] + 1) / 2
        below += counts[v]
    ranks = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        ranks[i] = tied[value[i]]
    return ranks


@jit
def _ranks_in_order(x: FloatArray, order: IntArray) -> FloatArray:
    """Average ranks of ``x`` from an ``order`` that sorts it."""
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
    result.
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


class _TrueRanks:
    """Average ranks of the true strengths of any subset of some players.

    One sort of those players (``among``) per checkpoint; a subset's ranks are
    read from it in one pass, and subsets that recur (systems rating the same
    players) are ranked once.
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
            self._order = _argsort(self.true)
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


def _spearman(rating: FloatArray, true_ranks: FloatArray) -> float:
    """Spearman's rho: the Pearson correlation of the ranks.

    The number of ``scipy.stats.spearmanr``, which is ``np.corrcoef`` of the
    average ranks. Average ranks are half-integers summing to ``n (n + 1) / 2``,
    so their mean is ``(n + 1) / 2`` exactly, the centred ranks are
    half-integers and their products quarter-integers; no partial sum of
    products exceeds ``n^3 / 12`` in magnitude, which is below ``2^51`` up to
    :data:`_EXACT_RANK_CORRELATION` players. Every sum of ``np.corrcoef`` is
    then exact, in whatever order its BLAS adds, and :func:`_rank_correlation`
    repeats the rest of its arithmetic step by step: the same bits, without
    the copies.
    """
    ranks = _average_ranks(rating)
    if rating.shape[0] <= _EXACT_RANK_CORRELATION:
        return _rank_correlation(ranks, true_ranks)
    both = np.empty((2, rating.shape[0]))
    both[0] = ranks
    both[1] = true_ranks
    return float(np.asarray(np.corrcoef(both))[1, 0])


@jit
def _rank_correlation(x: FloatArray, y: FloatArray) -> float:
    """``np.corrcoef`` of two arrays of average ranks (see :func:`_spearman`)."""
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


def _accuracy(
    rating: FloatArray,
    true: FloatArray,
    diff: FloatArray,
    true_ranks: Callable[[], FloatArray],
) -> dict[str, float]:
    """Offset, RMSE, MAE, Spearman and spread of ``rating`` against ``true``.

    ``diff`` is ``rating - true``; ``true_ranks`` returns the average ranks of
    ``true`` when Spearman needs them.
    """
    n = rating.shape[0]
    out = dict.fromkeys(("offset", "rmse", "mae", "spearman", "spread"), math.nan)
    out["n_rated"] = float(n)
    if n == 0:
        return out
    offset, rmse, mae, sd_true, sd_rating = _moments(rating, true, diff)
    out["offset"] = offset
    out["rmse"] = rmse
    out["mae"] = mae
    if sd_true > 0.0:
        out["spread"] = sd_rating / sd_true
    if n >= 2 and sd_true > 0.0 and rating.max() > rating.min():
        out["spearman"] = _spearman(rating, true_ranks())
    return out


@jit
def _moments(
    rating: FloatArray, true: FloatArray, diff: FloatArray
) -> tuple[float, float, float, float, float]:
    """Offset, RMSE, MAE and the SDs of ``true`` and ``rating`` (not empty).

    As numpy computes them: ``offset = np.mean(diff)``, ``e = diff - offset``,
    ``np.sqrt(np.mean(e * e))``, ``np.mean(np.abs(e))``, ``np.std(true)`` and
    ``np.std(rating)``, with the same pairwise sums (:func:`_sum`).
    """
    n = diff.shape[0]
    offset = _sum(diff, 0.0, _PLAIN) / n
    rmse = math.sqrt(_sum(diff, offset, _SQUARED) / n)
    mae = _sum(diff, offset, _ABSOLUTE) / n
    return offset, rmse, mae, _std(true), _std(rating)


@jit
def _std(x: FloatArray) -> float:
    """``np.std(x)``: the root of the mean squared deviation from the mean."""
    n = x.shape[0]
    mean = _sum(x, 0.0, _PLAIN) / n
    return math.sqrt(_sum(x, mean, _SQUARED) / n)


#: Terms of :func:`_sum`: ``x - shift``, its square, its magnitude.
#: (Not literal ints, by which numba would compile :func:`_sum` once per term.)
_PLAIN, _SQUARED, _ABSOLUTE = unliteral(0), unliteral(1), unliteral(2)


@jit
def _sum(x: FloatArray, shift: float, term: int) -> float:
    """``np.sum`` of the terms ``x - shift`` (or their squares or magnitudes).

    numpy's ``pairwise_sum``, as ``np.add.reduce`` runs it over a contiguous
    array (numpy 2.3 on; older versions restart it every 8,192 terms), step
    by step: fewer than 8 terms are added in turn; up to 128 with
    eight accumulators, combined as a tree, then the rest in turn; more are
    split in two at a multiple of 8 below the half and the halves' sums added.
    The reduction adds the result to the identity, 0. The same additions in
    the same order give the same bits as ``np.sum`` of the terms made into an
    array, without making it (``x - 0.0`` is ``x``).
    """
    # The splits walked with a stack (numba cannot cache recursive functions):
    # a part is summed if small, else replaced by its halves and a mark that
    # adds their sums, which then lie on top of the stack of sums.
    start = np.empty(128, dtype=np.intp)
    size = np.empty(128, dtype=np.intp)  # -1 marks "add the last two sums"
    sums = np.empty(64)
    start[0], size[0] = 0, x.shape[0]
    parts = 1
    n_sums = 0
    while parts:
        parts -= 1
        n = size[parts]
        if n < 0:
            n_sums -= 1
            sums[n_sums - 1] += sums[n_sums]
        elif n <= 128:
            sums[n_sums] = _block_sum(x, shift, term, start[parts], n)
            n_sums += 1
        else:
            half = n // 2
            half -= half % 8
            first = start[parts]
            # Popped in reverse: the first half, the second, then the mark.
            size[parts] = -1
            start[parts + 1], size[parts + 1] = first + half, n - half
            start[parts + 2], size[parts + 2] = first, half
            parts += 3
    total: float = sums[0]
    return 0.0 + total


@jit
def _block_sum(x: FloatArray, shift: float, term: int, start: int, n: int) -> float:
    """The pairwise sum of at most 128 terms, as numpy adds them (see :func:`_sum`)."""
    if n < 8:
        res = -0.0
        for i in range(start, start + n):
            res += _term(x[i], shift, term)
        return res
    r0 = _term(x[start], shift, term)
    r1 = _term(x[start + 1], shift, term)
    r2 = _term(x[start + 2], shift, term)
    r3 = _term(x[start + 3], shift, term)
    r4 = _term(x[start + 4], shift, term)
    r5 = _term(x[start + 5], shift, term)
    r6 = _term(x[start + 6], shift, term)
    r7 = _term(x[start + 7], shift, term)
    for i in range(start + 8, start + n - n % 8, 8):
        r0 += _term(x[i], shift, term)
        r1 += _term(x[i + 1], shift, term)
        r2 += _term(x[i + 2], shift, term)
        r3 += _term(x[i + 3], shift, term)
        r4 += _term(x[i + 4], shift, term)
        r5 += _term(x[i + 5], shift, term)
        r6 += _term(x[i + 6], shift, term)
        r7 += _term(x[i + 7], shift, term)
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(start + n - n % 8, start + n):
        res += _term(x[i], shift, term)
    return res


@jit
def _term(value: float, shift: float, term: int) -> float:
    """One term of :func:`_sum`."""
    d = value - shift
    if term == _SQUARED:
        return d * d
    if term == _ABSOLUTE:
        return abs(d)
    return d


# --- combining replicates ------------------------------------------------------


def _aggregate(
    frames: Sequence[pd.DataFrame], keys: list[str], confidence: float
) -> pd.DataFrame:
    """Mean of every figure column over replicates with a Student-t interval."""
    # Imported here: scipy.stats takes 0.4 s to import, which every process
    # (a CLI call, a worker) would pay for this one function.
    from scipy import stats

    stacked = pd.concat(list(frames), ignore_index=True)
    values = [c for c in stacked.columns if c not in keys]
    grouped = stacked.groupby(keys, sort=False, dropna=False)
    mean = grouped[values].mean()
    std = grouped[values].std(ddof=1)
    count = grouped[values].count()
    out = mean.reset_index()
    half = {}
    for c in values:
        k = count[c].to_numpy(dtype=np.float64)
        s = std[c].to_numpy(dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            t = np.asarray(
                stats.t.ppf(0.5 + confidence / 2.0, np.where(k > 1, k - 1, np.nan)),
                dtype=np.float64,
            )
            half[c] = np.where(k > 1, t * s / np.sqrt(k), np.nan)
    columns: dict[str, object] = {k: out[k] for k in keys}
    for c in values:
        m = out[c].to_numpy(dtype=np.float64)
        columns[c] = m
        if c not in _COUNTS:
            columns[f"{c}_lo"] = m - half[c]
            columns[f"{c}_hi"] = m + half[c]
    columns["n_replicates"] = grouped.size().to_numpy(dtype=np.int64)
    return pd.DataFrame(columns)


def combine(results: Sequence[ReplicateResult], confidence: float = 0.95) -> Summary:
    """Combine replicates: the mean of each figure with a confidence interval.

    Parameters
    ----------
    results : sequence of ReplicateResult
        The replicates of one arena, all with the same systems.
    confidence : float, default 0.95
        Confidence level of the intervals.

    Returns
    -------
    Summary
        Every figure ``x`` averaged over the replicates where it is defined
        (NaN values are left out; an ``inf`` makes the mean ``inf``), with
        ``x_lo``/``x_hi`` the Student-t interval
        ``mean +- t_{(1+confidence)/2, k-1} * sd / sqrt(k)`` over those ``k``
        replicates (NaN when ``k < 2``). The time series, calibration bins and
        the error-vs-games curve are averaged point by point the same way.
        ``drift_per_year`` of the summary is each replicate's least-squares
        slope of cohort drift against ``day / 365.25``, combined likewise.

    Examples
    --------
    >>> rec = Recorder(["elo"], 2)
    >>> rec.record_games({"elo": [0.5]}, [0.6], [1.0])
    >>> s = combine([rec.result()])
    >>> round(float(s.prediction["log_loss"].iloc[0]), 4), s.n_replicates
    (0.6931, 1)
    """
    check_interval("combine", "confidence", confidence, 0, 1, closed="neither")
    if len(results) == 0:
        raise ValueError("combine needs at least one ReplicateResult. Got none.")
    systems = results[0].systems
    thresholds = results[0].thresholds
    for r in results[1:]:
        if r.systems != systems or r.thresholds != thresholds:
            raise ValueError(
                f"Replicates must share systems and thresholds: {systems!r} and "
                f"{thresholds!r}, but one has {r.systems!r} and {r.thresholds!r}."
            )
    return Summary(
        summary=_aggregate([r.summary for r in results], ["system"], confidence),
        timeseries=_aggregate(
            [r.timeseries for r in results], ["day", "system"], confidence
        ),
        prediction=_aggregate([r.prediction for r in results], ["system"], confidence),
        calibration=_aggregate(
            [r.calibration for r in results],
            ["system", "bin", "bin_low", "bin_high"],
            confidence,
        ),
        convergence=_aggregate(
            [r.convergence for r in results], ["system", "games"], confidence
        ),
        n_replicates=len(results),
        confidence=float(confidence),
        systems=systems,
        thresholds=thresholds,
        groups=_aggregate_optional(
            [r.groups for r in results], ["group", "system"], confidence
        ),
        comparison=_in_band_order(
            _aggregate_optional(
                [r.comparison for r in results],
                ["comparison", "kind", "bin"],
                confidence,
            )
        ),
        bands=_aggregate_optional(
            [r.bands for r in results], ["system", "band"], confidence
        ),
    )


def _aggregate_optional(
    frames: Sequence[pd.DataFrame], keys: list[str], confidence: float
) -> pd.DataFrame:
    """:func:`_aggregate` for tables that may be empty in every replicate."""
    kept = [f for f in frames if not f.empty]
    if not kept:
        return pd.DataFrame()
    return _aggregate(kept, keys, confidence)


def _in_band_order(table: pd.DataFrame) -> pd.DataFrame:
    """Each comparison's bins in increasing order, then its fit row.

    Combined replicates list rows in order of first appearance, so a band seen
    only in a later replicate would otherwise follow the fit row.
    """
    if table.empty:
        return table
    first = {name: i for i, name in enumerate(dict.fromkeys(table["comparison"]))}
    order = np.lexsort(
        (
            table["bin"].to_numpy(dtype=np.float64),
            (table["kind"] == "fit").to_numpy(),
            table["comparison"].map(first).to_numpy(),
        )
    )
    return table.iloc[order].reset_index(drop=True)


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
