"""Results: one replicate's tables, and replicates combined with confidence intervals.

A :class:`~simulator.evaluation.recorder.Recorder` turns what it recorded into
a :class:`ReplicateResult` (one replicate and arena, as tables);
:func:`combine` averages the replicates of an arena with Student-t confidence
intervals into a :class:`Summary`, which the report reads, with every
system's paired difference to the arena's reference system
(:mod:`~simulator.evaluation.paired`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from simulator._validate import check_choice, check_interval
from simulator.evaluation.paired import paired_differences

__all__ = ["ReplicateResult", "Summary", "combine"]

#: Columns that are counts: averaged over replicates, without an interval.
_COUNTS = frozenset({"n", "n_games", "n_rated", "n_newcomers", "n_common"})


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
        Optional: the same accuracy figures on the common support (the players
        every system of the arena rates) as ``rmse_common``, ``mae_common``,
        ``spearman_common``, ``spread_common``, ``offset_common`` with their
        count ``n_common``, and steady-state slopes ``<metric>_slope`` (units a
        year over the steady window).
    timeseries : pandas.DataFrame
        One row per checkpoint and system: ``day``, ``system``, ``offset``,
        ``rmse``, ``mae``, ``spearman``, ``spread``, ``n_rated``,
        ``cohort_drift``.
    prediction : pandas.DataFrame
        One row per system, then ``"oracle"`` and ``"coin flip"``: ``system``,
        ``n_games``, ``log_loss``, ``brier``, ``log_loss_excess``,
        ``brier_excess`` (excess over the oracle of the same games). Optional:
        a ``pairs`` column (``"all"``, ``"both rated"``, ``"one new"``,
        ``"both new"``) with one row per pair type and system.
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
        :func:`~simulator.evaluation.comparison.compare_ratings`); empty without them.
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
    reference : str
        The system the others are compared with in :attr:`paired`.
    paired : pandas.DataFrame
        Long table of paired differences (see
        :func:`~simulator.evaluation.paired.paired_differences`): ``table``
        (``"summary"`` or ``"prediction"``), ``pairs`` (the prediction's pair
        type, ``"all"`` without a split; empty for the summary), ``system``,
        ``reference``, ``figure`` (a column of that table), ``difference``
        (mean over replicates of the system's figure minus the reference's in
        the same replicate), ``lo``/``hi`` (the ``confidence`` interval of the
        paired differences), ``n_replicates`` and ``method`` (``"t"`` or
        ``"bootstrap"``). Empty for a Summary built by hand.
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
    reference: str = ""
    paired: pd.DataFrame = field(default_factory=pd.DataFrame)


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


def combine(
    results: Sequence[ReplicateResult],
    confidence: float = 0.95,
    reference: str | None = None,
) -> Summary:
    """Combine replicates: the mean of each figure with a confidence interval.

    Parameters
    ----------
    results : sequence of ReplicateResult
        The replicates of one arena, all with the same systems.
    confidence : float, default 0.95
        Confidence level of the intervals.
    reference : str, optional
        The system the others are compared with, pair by pair of replicates
        (replicate *i* of every system rated the same games); by default the
        first system.

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
        A prediction table with a ``pairs`` column is combined per pair type
        and system. :attr:`Summary.paired` holds every system's paired
        difference to ``reference`` for each figure of the summary and the
        prediction tables.

    Raises
    ------
    ValueError
        No replicates, replicates of different systems or thresholds, a
        confidence outside (0, 1) or a reference that is not a system.

    Examples
    --------
    >>> from simulator.evaluation.recorder import Recorder
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
    reference = systems[0] if reference is None else reference
    check_choice("combine", "reference", reference, tuple(systems))
    by_pairs = ["pairs"] if "pairs" in results[0].prediction.columns else []
    return Summary(
        summary=_aggregate([r.summary for r in results], ["system"], confidence),
        timeseries=_aggregate(
            [r.timeseries for r in results], ["day", "system"], confidence
        ),
        prediction=_aggregate(
            [r.prediction for r in results], [*by_pairs, "system"], confidence
        ),
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
        reference=reference,
        paired=_paired(results, reference, confidence),
    )


def _paired(
    results: Sequence[ReplicateResult], reference: str, confidence: float
) -> pd.DataFrame:
    """The paired differences of the summary and prediction tables, stacked."""
    summary = paired_differences(
        [r.summary for r in results],
        reference,
        table="summary",
        counts=_COUNTS,
        confidence=confidence,
    )
    prediction = paired_differences(
        [r.prediction for r in results],
        reference,
        table="prediction",
        counts=_COUNTS,
        by="pairs",
        confidence=confidence,
    )
    return pd.concat([summary, prediction], ignore_index=True)


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
