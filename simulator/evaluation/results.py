"""Results: one replicate's tables, and replicates combined with confidence intervals.

A :class:`~simulator.evaluation.recorder.Recorder` turns what it recorded into
a :class:`ReplicateResult` (one replicate and arena, as tables);
:func:`combine` averages the replicates of an arena with Student-t confidence
intervals into a :class:`Summary`, which the report reads. Kaplan-Meier
figures that are ``inf`` (not reached) in some replicate have no mean: they
are combined as the median across replicates with a distribution-free
interval (:func:`median_interval`),
with every system's paired difference to the arena's reference system
(:mod:`~simulator.evaluation.paired`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

import numpy as np
import pandas as pd

from simulator._validate import check_choice, check_interval
from simulator.evaluation.paired import paired_differences
from simulator.evaluation.settings import threshold_name

__all__ = ["ReplicateResult", "Summary", "band_name", "combine", "median_interval"]

#: Columns that are counts: averaged over replicates, without an interval.
_COUNTS = frozenset({"n", "n_games", "n_rated", "n_newcomers", "n_common"})


@dataclass(frozen=True, eq=False)
class ReplicateResult:
    """The metrics of one replicate and arena, as tables.

    Attributes
    ----------
    summary : pandas.DataFrame
        One row per system: ``system``; for each threshold stem ``nT`` (e.g.
        ``n50``), over the newcomers who have played:

        * ``nT_median``, ``nT_q25``, ``nT_q75``: the Kaplan-Meier ("KM")
          quantiles of ``N_t`` in games, a newcomer not converged by the end
          being censored at the games played so far (``inf``, "not reached",
          where censored players decide the quantile);
        * ``nT_converged``: the share of newcomers converged;
        * ``nT_so_far``: the median by the "games so far if not converged"
          convention of most published figures (``N_t`` if converged, else
          the games played so far; always finite, biased low where newcomers
          are censored early);
        * ``nT_months``: the KM median of the months (365.2425 / 12 days) from
          the newcomer's first checkpoint with games to the checkpoint that
          began their run inside the threshold (resolved to the checkpoint
          interval).

        Then ``n_newcomers``; the steady-state ``rmse``,
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
        strength), then of the newcomers by band of true strength when first
        seen (groups ``"true <1400"``, ``"true 1400-1600"``, ..., ``"true
        2400+"`` for the default ``band_edges``; lower edge included; every
        band once any newcomer has played): ``group``, ``system``, ``n``, the
        ``nT_*`` columns of the summary and ``final_error`` (median aligned
        error at the last checkpoint). Empty without groups and newcomers.
    comparison : pandas.DataFrame
        Cross-arena comparisons filled in by the engine (see
        :func:`~simulator.evaluation.comparison.compare_ratings`); empty without them.
    bands : pandas.DataFrame
        Error by band of true strength (``system``, ``band`` = lower edge,
        ``rmse``, ``bias`` = mean aligned error, ``n``; and ``rmse_common``,
        ``bias_common``, ``n_common`` over the players every system rates,
        aligned by the offset over those players), steady-state means
        like the summary's: a compressed scale shows as positive bias at the
        bottom and negative bias at the top.
    history, predictions : pandas.DataFrame
        Per-player rating histories and per-game predictions, kept only when
        the run's ``[output]`` asks (:mod:`~simulator.evaluation.histories`);
        empty otherwise.
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
    history: pd.DataFrame = field(default_factory=pd.DataFrame)
    predictions: pd.DataFrame = field(default_factory=pd.DataFrame)

    def __repr__(self) -> str:
        return _short_repr(self, "one replicate")


@dataclass(frozen=True, eq=False)
class Summary:
    """Replicates combined: means with Student-t confidence intervals.

    Every figure column ``x`` of the replicate tables comes with ``x_lo`` and
    ``x_hi``, the bounds of the ``confidence`` interval of the mean across
    replicates (NaN with one replicate); counts (``n``, ``n_games``,
    ``n_rated``, ``n_newcomers``) are averaged without an interval. The
    Kaplan-Meier columns of the summary and groups (``nT_median``,
    ``nT_q25``, ``nT_q75``, ``nT_months``) also have ``x_inf``, the number of
    replicates where ``x`` is ``inf`` (not reached); where it is above zero,
    ``x`` is the median across replicates instead of the mean (``inf`` if half
    or more are), and ``x_lo``/``x_hi`` its :func:`median_interval`. Each table
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
        (``"summary"``, ``"prediction"``, ``"groups"`` or ``"bands"``),
        ``pairs`` (the prediction's pair type, ``"all"`` without a split; the
        group; the band of true strength by its lower edge, ``"1600+"``, or
        ``"below"`` the first edge; empty for the summary), ``system``,
        ``reference``, ``figure`` (a column of that table), ``difference``
        (mean over replicates of the system's figure minus the reference's in
        the same replicate), ``lo``/``hi`` (the ``confidence`` interval of the
        paired differences), ``n_replicates`` and ``method`` (``"t"`` or
        ``"bootstrap"``). Empty for a Summary built by hand.
    paired_all : pandas.DataFrame
        The same columns for the summary and prediction tables, every system
        against every later one (``reference`` the earlier in
        :attr:`systems`' order), so that any two systems are compared
        replicate by replicate, not by their separate intervals. Empty for a
        Summary built by hand.
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
    paired_all: pd.DataFrame = field(default_factory=pd.DataFrame)

    def __repr__(self) -> str:
        return _short_repr(
            self,
            f"{self.n_replicates} replicates, reference {self.reference!r}",
        )


def _short_repr(result: ReplicateResult | Summary, what: str) -> str:
    """The systems, ``what``, and each table's shape: not the tables themselves."""
    shapes = ", ".join(
        f"{f.name} {value.shape[0]}x{value.shape[1]}"
        for f in fields(result)
        if isinstance(value := getattr(result, f.name), pd.DataFrame)
    )
    systems = ", ".join(result.systems)
    return f"{type(result).__name__}({systems}; {what}; tables: {shapes})"


def median_interval(values: np.ndarray, confidence: float) -> tuple[float, float]:
    """Distribution-free interval of a median: order statistics of the sample.

    For ``k`` values sorted ``x_(1) <= ... <= x_(k)``, the interval
    ``[x_(j), x_(k+1-j)]`` holds the population median with probability
    ``1 - 2 P(B < j)``, ``B ~ Binomial(k, 1/2)``, whatever the distribution
    (Conover, *Practical Nonparametric Statistics*, 3rd ed., section 3.2);
    ``j`` is the largest with at least ``confidence``. Below 6 values no ``j``
    reaches 95 %: the interval is then the range, whose probability is
    ``1 - 2^(1-k)`` (87.5 % with 4). ``inf`` values are allowed (an upper
    bound ``inf`` says the median may not be reached); NaN values are left
    out; NaN bounds with fewer than 2 values.

    >>> median_interval(np.array([3.0, 1.0, np.inf, 2.0]), 0.95)
    (1.0, inf)
    >>> median_interval(np.arange(20.0), 0.95)
    (5.0, 14.0)
    """
    x = np.sort(values[~np.isnan(values)])
    k = x.size
    if k < 2:
        return np.nan, np.nan
    # P(B < j) for j = 1 .. k//2: the cumulative binomial(k, 1/2).
    below = np.cumsum([math.comb(k, i) for i in range(k // 2)]) / 2.0**k
    ok = np.flatnonzero(1.0 - 2.0 * below >= confidence)
    j = int(ok[-1]) + 1 if ok.size else 1
    return float(x[j - 1]), float(x[k - j])


def _aggregate(
    frames: Sequence[pd.DataFrame],
    keys: list[str],
    confidence: float,
    censored: frozenset[str] = frozenset(),
) -> pd.DataFrame:
    """Mean of every figure column over replicates with a Student-t interval.

    The ``censored`` columns get ``x_inf`` and, where some replicate is
    ``inf``, the median and :func:`median_interval` (:class:`Summary`).
    """
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
        if c in censored:
            # Each group's values, in the order of the means above.
            per_group = grouped[c].agg(list).tolist()
            _censored_column(columns, c, per_group, confidence)
    columns["n_replicates"] = grouped.size().to_numpy(dtype=np.int64)
    return pd.DataFrame(columns)


def _censored_column(
    columns: dict[str, object],
    c: str,
    per_group: list[list[float]],
    confidence: float,
) -> None:
    """Median and its interval where column ``c`` is ``inf`` in a replicate.

    A mean with an ``inf`` is ``inf`` and its Student-t interval NaN: the
    finite replicates would be lost. The median across replicates keeps them,
    and says "not reached" only when half or more replicates did not reach it.
    """
    n_inf = np.zeros(len(per_group), dtype=np.int64)
    value = np.asarray(columns[c], dtype=np.float64).copy()
    lo = np.asarray(columns[f"{c}_lo"], dtype=np.float64).copy()
    hi = np.asarray(columns[f"{c}_hi"], dtype=np.float64).copy()
    for g, group_values in enumerate(per_group):
        x = np.asarray(group_values, dtype=np.float64)
        n_inf[g] = int(np.isinf(x).sum())
        if n_inf[g]:
            finite = x[~np.isnan(x)]
            value[g] = float(np.median(finite))
            lo[g], hi[g] = median_interval(finite, confidence)
    columns[c], columns[f"{c}_lo"], columns[f"{c}_hi"] = value, lo, hi
    columns[f"{c}_inf"] = n_inf


def _censored_columns(thresholds: Sequence[float]) -> frozenset[str]:
    """The Kaplan-Meier columns of the summary and groups tables."""
    return frozenset(
        f"{threshold_name(t)}_{suffix}"
        for t in thresholds
        for suffix in ("median", "q25", "q75", "months")
    )


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
        (NaN values are left out; an ``inf`` makes the mean ``inf``, but the
        Kaplan-Meier columns are then the median, see :class:`Summary`), with
        ``x_lo``/``x_hi`` the Student-t interval
        ``mean +- t_{(1+confidence)/2, k-1} * sd / sqrt(k)`` over those ``k``
        replicates (NaN when ``k < 2``). The time series, calibration bins and
        the error-vs-games curve are averaged point by point the same way.
        ``drift_per_year`` of the summary is each replicate's least-squares
        slope of cohort drift against ``day / 365.2425``, combined likewise.
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
    censored = _censored_columns(thresholds)
    reference = systems[0] if reference is None else reference
    check_choice("combine", "reference", reference, tuple(systems))
    by_pairs = ["pairs"] if "pairs" in results[0].prediction.columns else []
    return Summary(
        summary=_aggregate(
            [r.summary for r in results], ["system"], confidence, censored
        ),
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
            [r.groups for r in results], ["group", "system"], confidence, censored
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
        paired_all=_paired_all(results, confidence),
    )


def _paired_all(results: Sequence[ReplicateResult], confidence: float) -> pd.DataFrame:
    """Every two systems' paired differences, summary and prediction tables."""
    systems = list(dict.fromkeys(results[0].summary["system"]))
    frames = []
    for i, reference in enumerate(systems[:-1]):
        kept = {reference, *systems[i + 1 :]}
        for table, by in (("summary", None), ("prediction", "pairs")):
            tables = [getattr(r, table) for r in results]
            frames.append(
                paired_differences(
                    [t[t["system"].isin(kept)] for t in tables],
                    reference,
                    table=table,
                    counts=_COUNTS,
                    by=by,
                    confidence=confidence,
                )
            )
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _paired(
    results: Sequence[ReplicateResult], reference: str, confidence: float
) -> pd.DataFrame:
    """The paired differences of the summary, prediction, groups and bands tables.

    The groups (newcomers of one probe level or band of true strength) and
    the bands of true strength are compared within each group or band, their
    name in the ``pairs`` column.
    """
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
    frames = [summary, prediction]
    for table, by in (("groups", "group"), ("bands", "band")):
        tables = [getattr(r, table) for r in results]
        if any(t.empty for t in tables):
            continue
        if by == "band":
            # The band's lower edge, as the report names it.
            tables = [t.assign(band=t["band"].map(band_name)) for t in tables]
        frames.append(
            paired_differences(
                tables,
                reference,
                table=table,
                counts=_COUNTS | {"n_common"},
                by=by,
                confidence=confidence,
            )
        )
    return pd.concat(frames, ignore_index=True)


def band_name(low: float) -> str:
    """A band of true strength by its lower edge: ``"1600+"``, ``"below"``."""
    return f"{low:.0f}+" if math.isfinite(low) else "below"


def _aggregate_optional(
    frames: Sequence[pd.DataFrame],
    keys: list[str],
    confidence: float,
    censored: frozenset[str] = frozenset(),
) -> pd.DataFrame:
    """:func:`_aggregate` for tables that may be empty in every replicate."""
    kept = [f for f in frames if not f.empty]
    if not kept:
        return pd.DataFrame()
    return _aggregate(kept, keys, confidence, censored)


def _in_band_order(table: pd.DataFrame) -> pd.DataFrame:
    """Each comparison's bins, then its smoothed conversions, then its fit row.

    Bins and conversions in increasing order. Combined replicates list rows
    in order of first appearance, so a band seen only in a later replicate
    would otherwise follow the fit row.
    """
    if table.empty:
        return table
    first = {name: i for i, name in enumerate(dict.fromkeys(table["comparison"]))}
    kinds = {"bin": 0, "x_given_y": 1, "y_given_x": 2, "fit": 3}
    order = np.lexsort(
        (
            table["bin"].to_numpy(dtype=np.float64),
            table["kind"].map(kinds).to_numpy(),
            table["comparison"].map(first).to_numpy(),
        )
    )
    return table.iloc[order].reset_index(drop=True)
