"""The recorder: one replicate's metrics of one arena, accumulated as the engine runs.

A :class:`Recorder` is fed by the engine, one per replicate and arena, with

* :meth:`Recorder.record_games`: each round's pre-game expected scores of every
  system, of the oracle (the outcome model's true expectation) and the results;
* :meth:`Recorder.checkpoint`: every system's published ratings beside the
  true strengths, on the checkpoint days.

It keeps streaming sums and fixed-size arrays only, so its memory grows with
the number of players, systems and checkpoints, never with the number of games.
:meth:`Recorder.result` turns them into tables
(:class:`~simulator.evaluation.results.ReplicateResult`). The figures are
defined in :mod:`~simulator.evaluation.accuracy` (against the truth, on aligned
scales), :mod:`~simulator.evaluation.prediction` and
:mod:`~simulator.evaluation.convergence`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from simulator._types import BoolArray, FloatArray, IntArray, read_only_view
from simulator._validate import check_interval
from simulator.evaluation.accuracy import (
    accuracy,
    band_sums,
    bands,
    drift_per_year,
    rated_players,
)
from simulator.evaluation.convergence import (
    commit_pending,
    convergence_quantiles,
    curve_table,
    months_to_converge,
    newcomer_errors,
    so_far_median,
)
from simulator.evaluation.following import Followers
from simulator.evaluation.prediction import (
    ALL_PAIRS,
    PAIRS,
    calibrate,
    loss_sums_by_pair,
)
from simulator.evaluation.ranks import TrueRanks, needs_sort
from simulator.evaluation.results import ReplicateResult
from simulator.evaluation.settings import (
    COIN_FLIP,
    ORACLE,
    MetricsConfig,
    threshold_name,
)

__all__ = ["Recorder"]

#: The figures of :func:`~simulator.evaluation.accuracy.accuracy` at a checkpoint.
_FIGURES = ("offset", "rmse", "mae", "spearman", "spread")
#: Suffix of the figures over the common support: the players every system rates.
COMMON = "_common"
#: Suffix of a steady-state figure's least-squares slope per year over the window.
SLOPE = "_slope"
#: Columns of the per-checkpoint accuracy figures averaged in the steady state,
#: on each system's own rated players and on the common support.
_STEADY = (
    "rmse",
    "mae",
    "spearman",
    "spread",
    "offset",
    *(f"{k}{COMMON}" for k in ("rmse", "mae", "spearman", "spread", "offset")),
)


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
    groups : mapping of str to bool ndarray of shape (n_players,), optional
        Named groups of newcomers whose convergence is also given apart.
    common_from : float, default -inf
        The first day whose checkpoint computes the figures over the common
        support (``*_common``; NaN before). The engine passes the first day
        of the steady-state window, the only checkpoints the summary reads
        them from: computed at every checkpoint, they made the end-to-end
        benchmark's checkpoint metrics 43 % slower against 15 % now.

    Notes
    -----
    Memory: per system, ``len(thresholds)`` doubles and as many float32 per
    player (convergence: games and day of each run's start), two floats per player
    (the pending curve value, the rating at the last update:
    :class:`~simulator.evaluation.following.Followers`), the error histogram of
    ``(curve_max_games + 1) x (n_error_bins + 1)`` counts, and a few floats per
    checkpoint (the time series, the offsets). Nothing grows with the number
    of games.

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
        common_from: float = -math.inf,
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
        if math.isnan(common_from):
            raise ValueError("The 'common_from' parameter of Recorder must not be NaN.")
        self.common_from = float(common_from)
        # The empty cohort of the common support's pass (no cohort figures).
        self._nobody = np.zeros(self.n_players, dtype=bool)
        self.config = MetricsConfig() if config is None else config
        cfg = self.config
        n_sys = len(names)
        self.groups = {
            str(k): _bool_vector(v, f"groups[{k!r}]", self.n_players)
            for k, v in (groups or {}).items()
        }
        # Error by band of true strength, one row per checkpoint and system.
        # One (day, system, figures) per checkpoint and system; the figures
        # one row per band: rmse, bias, n, rmse_common, bias_common, n_common
        # (an array: tuples of Python floats cost 0.1 ms a system and
        # checkpoint).
        self._band_rows: list[tuple[float, str, FloatArray]] = []
        # The per-player state below is player by player (a player's figures of
        # every system side by side), as the checkpoints update it.
        # Prediction: rows are the systems, then the oracle, then the coin
        # flip; columns the pair types of PAIRS.
        self._n_games = np.zeros(len(PAIRS), dtype=np.int64)
        self._log_loss = np.zeros((n_sys + 2, len(PAIRS)))
        self._brier = np.zeros((n_sys + 2, len(PAIRS)))
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
                *(f"{k}{COMMON}" for k in _FIGURES),
                f"n{COMMON}",
            )
        }
        self._last_day = -math.inf

        # Convergence and the curve: each newcomer's state, kept up to date
        # only for those whose error can change (the others catch up later).
        self._follow = Followers(self.n_players, n_sys, cfg)

    # --- games --------------------------------------------------------------

    def record_games(
        self,
        expected: Mapping[str, ArrayLike],
        oracle: ArrayLike,
        score: ArrayLike,
        pairs: ArrayLike | None = None,
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
        pairs : int ndarray of shape (n_games,), optional
            Each game's pair type: how many of its players (0, 1 or 2) some
            system of the arena has not rated yet before the game
            (:data:`~simulator.evaluation.prediction.PAIRS`). By default every
            game is between rated players.

        Notes
        -----
        The sums are kept per pair type, so that systems are also compared on
        the games every one of them rates (``"both rated"``, the common
        support): a system's rule for players it has not rated yet (FIDE's
        stand-in rating, say) then plays no part.

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
        # Every predictor of the round in one matrix: the systems, the
        # oracle, the coin flip (rows in that order).
        k = len(columns)
        e_all = np.empty((k + 2, n))
        for i, column in enumerate([*columns, o]):
            e_all[i] = column
        e_all[k + 1] = 0.5
        # min and max: two reductions a row; NaN fails both.
        ok = (e_all[: k + 1].min(axis=1) >= 0.0) & (e_all[: k + 1].max(axis=1) <= 1.0)
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            name, e = [*self.systems, ORACLE][i], e_all[i]
            raise ValueError(
                f"Expected scores of {name!r} must lie in [0, 1]. "
                f"Got values such as {e[~((e >= 0.0) & (e <= 1.0))][0]!r}."
            )
        if not (s.min() >= 0.0 and s.max() <= 1.0):
            raise ValueError("score must lie in [0, 1] (1, 0.5 or 0 for White).")
        if pairs is None:
            pair = np.zeros(n, dtype=np.int8)
        else:
            pair = np.asarray(pairs)
            if (
                pair.shape != (n,)
                or not np.issubdtype(pair.dtype, np.integer)
                or not (pair.min() >= 0 and pair.max() < len(PAIRS))
            ):
                raise ValueError(
                    f"pairs must be an integer array of shape ({n},) with values "
                    f"0, 1 or 2. Got dtype {pair.dtype} and shape {pair.shape}."
                )
            pair = pair.astype(np.int8, copy=False)
        self._n_games += np.bincount(pair, minlength=len(PAIRS))
        s_other = 1.0 - s
        calibrate(e_all[:k], s, self._cal_n, self._cal_expected, self._cal_observed)
        loss_sums_by_pair(e_all, s, s_other, pair, self._log_loss, self._brier)

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
        right-censored at their games played (Kaplan-Meier), or count those
        games (the "so far" convention). The day of that checkpoint, less the
        day of the newcomer's first checkpoint with ``games_played > 0``, is
        the time to converge (``nT_months``); the true strength at that first
        checkpoint places the newcomer in a band of ``band_edges`` (the
        per-level rows of the groups table). A player left out of
        ``newcomer`` (or at zero games) at a checkpoint keeps their state
        unchanged.

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
        # Read-only, as the engine's are, so that every caller reaches the
        # same compiled loops (a writeable array is another type for numba).
        true = read_only_view(_float_vector(true_strength, "true_strength", n))
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
        # Shared by the systems: the order of the true strengths (Spearman's
        # ranks of any subset are read from it), the bands, and work arrays
        # (fresh ones for each system would cost a page fault per 4 KiB).
        counted = np.flatnonzero(act)
        true_order = TrueRanks(true, counted)
        band = bands(true, counted, np.asarray(cfg.band_edges))
        # Only they can be counted or in the cohort (not the players yet to
        # arrive or gone).
        candidates = np.flatnonzero(act | coh)
        sel_work = np.empty(candidates.size, dtype=np.intp)
        work = np.empty((4, candidates.size))
        all_ratings = [
            read_only_view(_float_vector(ratings[name], f"ratings[{name!r}]", n))
            for name in self.systems
        ]
        followed = self._follow.select(newcomers, gp, true, all_ratings)
        errors = np.empty((len(self.systems), followed.size))
        offsets = []
        # The common support: the players counted whom every system rates.
        with_common = day >= self.common_from
        if with_common:
            # Among the players counted only: a mask of every player drawn
            # and a pass over it per system cost more than the gathers.
            rated_by_all = np.ones(counted.size, dtype=bool)
            for r in all_ratings:
                rated_by_all &= ~np.isnan(r[counted])
            common = np.zeros(n, dtype=bool)
            common[counted[rated_by_all]] = True
            n_common = int(np.count_nonzero(rated_by_all))
        for i, name in enumerate(self.systems):
            r = all_ratings[i]
            sel, r_sel, true_sel, diff, cohort_diff = rated_players(
                r, true, act, coh, candidates, sel_work, work
            )
            # Ratings that need a sort to rank are sorted once, for both
            # supports: the common support's ranks are read from the order
            # (the second sort cost 8 s of the end-to-end benchmark's 50 s
            # of checkpoint metrics).
            differs = with_common and sel.size != n_common
            rating_order = (
                TrueRanks(r, sel.copy()) if differs and needs_sort(r_sel) else None
            )
            row = accuracy(
                r_sel,
                true_sel,
                diff,
                partial(true_order.ranks, sel),
                None if rating_order is None else partial(rating_order.ranks, sel),
            )
            row["cohort_drift"] = (
                float(np.mean(cohort_diff)) if cohort_diff.size else math.nan
            )
            row["day"] = day
            newcomer_errors(r, true, row["offset"], followed, errors[i])
            offsets.append(row["offset"])
            # Before the common support's pass, which reuses the work arrays.
            own_bands = self._band_figures(diff, sel, band, row["offset"])
            common_bands: tuple[NDArray[Any], ...]
            if not with_common:
                same = dict.fromkeys(_FIGURES, math.nan)
                common_bands = tuple(
                    np.full_like(a, np.nan, np.float64) for a in own_bands
                )
            elif not differs:
                # The same players (the common support is a subset of them).
                same = {k: row[k] for k in _FIGURES}
                common_bands = own_bands
            else:
                c_sel, c_r, c_true, c_diff, _ = rated_players(
                    r, true, common, self._nobody, candidates, sel_work, work
                )
                # The common support is a subset of the players counted.
                same = accuracy(
                    c_r,
                    c_true,
                    c_diff,
                    partial(true_order.ranks, c_sel),
                    None
                    if rating_order is None
                    else partial(rating_order.ranks, c_sel),
                )
                common_bands = self._band_figures(c_diff, c_sel, band, same["offset"])
            self._record_bands(day, name, own_bands, common_bands)
            for k in _FIGURES:
                row[f"{k}{COMMON}"] = same[k]
            row[f"n{COMMON}"] = float(n_common) if with_common else math.nan
            for key, values in self._series.items():
                values.append(row[key])
        self._follow.update(day, followed, new, gp, true, all_ratings, errors, offsets)

    # --- results --------------------------------------------------------------

    def result(self) -> ReplicateResult:
        """The tables of everything recorded so far (the recorder is unchanged)."""
        cfg = self.config
        systems = self.systems
        timeseries = self._timeseries()
        prediction = self._prediction()
        calibration = self._calibration()

        follow = self._follow
        follow.sync()
        hist = follow.hist.copy()
        commit_pending(
            hist,
            follow.pending_games,
            follow.pending_error,
            cfg.curve_bin_width,
            cfg.curve_max_error,
        )
        convergence = curve_table(hist, systems, cfg.curve_bin_width)

        # Summary: convergence quantiles, steady state, drift, prediction.
        n_cp = len(self._series["day"]) // max(len(systems), 1)
        n_steady = cfg.n_steady(n_cp)
        seen = np.flatnonzero(self._follow.seen)
        rows: dict[str, list[float | str]] = {"system": list(systems)}
        by_system = [self._convergence(seen, i) for i in range(len(systems))]
        for key in by_system[0]:
            rows[key] = [figures[key] for figures in by_system]
        rows["n_newcomers"] = [float(seen.size)] * len(systems)
        for key in _STEADY:
            rows[key] = []
            rows[f"{key}{SLOPE}"] = []
        rows[f"n{COMMON}"] = []
        rows["drift_per_year"] = []
        for name in systems:
            ts = timeseries[timeseries["system"] == name]
            tail = ts.iloc[len(ts) - n_steady :] if n_steady else ts.iloc[0:0]
            tail_day = tail["day"].to_numpy(dtype=np.float64)
            for key in _STEADY:
                values = tail[key].to_numpy(dtype=np.float64)
                rows[key].append(_nanmean(values))
                # Flatness: a steady state has no trend over its window.
                rows[f"{key}{SLOPE}"].append(drift_per_year(tail_day, values))
            rows[f"n{COMMON}"].append(
                _nanmean(tail[f"n{COMMON}"].to_numpy(dtype=np.float64))
            )
            rows["drift_per_year"].append(
                drift_per_year(
                    ts["day"].to_numpy(dtype=np.float64),
                    ts["cohort_drift"].to_numpy(dtype=np.float64),
                )
            )
        for pairs, suffix in ((ALL_PAIRS, ""), (PAIRS[0], "_common")):
            head = prediction[prediction["pairs"] == pairs].iloc[: len(systems)]
            for key in ("log_loss", "brier", "log_loss_excess"):
                rows[f"{key}{suffix}"] = head[key].tolist()
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

    def _band_figures(
        self, diff: FloatArray, sel: IntArray, band: IntArray, offset: float
    ) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
        """RMSE, bias and count per band of true strength of the players ``sel``.

        ``diff`` is their ``rating - true``, ``band`` every player's band
        (:func:`~simulator.evaluation.accuracy.bands`) and ``offset`` the
        system's alignment over the same players.
        """
        n, s1, s2 = band_sums(diff, sel, band, offset, len(self.config.band_edges) + 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.sqrt(s2 / n), s1 / n, n

    def _record_bands(
        self,
        day: float,
        name: str,
        own: tuple[NDArray[Any], ...],
        common: tuple[NDArray[Any], ...],
    ) -> None:
        """Append one checkpoint's error by band, own and on the common support."""
        self._band_rows.append((day, name, np.column_stack([*own, *common])))

    def _bands_table(self, n_steady: int) -> pd.DataFrame:
        """Steady-state error by band: the mean over the last checkpoints."""
        if not self._band_rows or n_steady == 0:
            return pd.DataFrame()
        figures = [
            "rmse",
            "bias",
            "n",
            *(f"{k}{COMMON}" for k in ("rmse", "bias", "n")),
        ]
        n_bands = len(self.config.band_edges) + 1
        lows = np.array([-math.inf, *self.config.band_edges])
        values = np.concatenate([v for _, _, v in self._band_rows]).astype(np.float64)
        df = pd.DataFrame(
            {
                "day": np.repeat([d for d, _, _ in self._band_rows], n_bands),
                "system": [s for _, s, _ in self._band_rows for _ in range(n_bands)],
                "band": np.tile(lows, len(self._band_rows)),
                **{k: values[:, j] for j, k in enumerate(figures)},
            }
        )
        days = np.unique(df["day"].to_numpy())
        tail = df[df["day"].isin(days[len(days) - n_steady :])]
        out = tail.groupby(["system", "band"], sort=False)[figures].mean()
        return out.reset_index()

    def _convergence(self, members: IntArray, i: int) -> dict[str, float]:
        """The ``nT_*`` columns of system ``i`` over the newcomers ``members``.

        Per threshold stem ``nT``: ``nT_median``, ``nT_q25``, ``nT_q75``
        (Kaplan-Meier), ``nT_converged``, ``nT_so_far`` (the "games so far if
        not converged" median) and ``nT_months`` (Kaplan-Meier, months); see
        :mod:`~simulator.evaluation.convergence`.
        """
        cfg = self.config
        out: dict[str, float] = {}
        last_games = self._follow.last_games[members]
        first_day = self._follow.first_day[members]
        last_day = self._follow.last_day[members]
        for j, t in enumerate(cfg.thresholds):
            stem = threshold_name(t)
            entry = self._follow.entry[members, i, j]
            figures = convergence_quantiles(entry, last_games, cfg.min_at_risk)
            for suffix, v in zip(
                ["median", "q25", "q75", "converged"], figures, strict=True
            ):
                out[f"{stem}_{suffix}"] = v
            out[f"{stem}_so_far"] = so_far_median(entry, last_games)
            out[f"{stem}_months"] = months_to_converge(
                entry,
                self._follow.entry_day[members, i, j],
                first_day,
                last_day,
                cfg.min_at_risk,
            )
        return out

    def _level_groups(self) -> dict[str, BoolArray]:
        """The newcomers seen, by band of true strength when first seen.

        Bands of ``config.band_edges`` named ``"true <1400"``,
        ``"true 1400-1600"`` (lower edge included, upper excluded), ...,
        ``"true 2400+"``; every band is listed once some newcomer was seen,
        none before.
        """
        if not self._follow.seen.any():
            return {}
        edges = self.config.band_edges
        # Those never seen (NaN) are in no band.
        band = np.searchsorted(np.asarray(edges), self._follow.first_true, side="right")
        band = np.where(self._follow.seen, band, -1)
        names = [f"true <{edges[0]:g}"]
        names += [f"true {a:g}-{b:g}" for a, b in itertools.pairwise(edges)]
        names.append(f"true {edges[-1]:g}+")
        return {name: band == k for k, name in enumerate(names)}

    def _groups_table(self) -> pd.DataFrame:
        """Convergence per named group of newcomers, then per true-strength band.

        The named groups (probes) come first, then :meth:`_level_groups`; the
        columns are those of the summary (:meth:`_convergence`).
        """
        rows: list[dict[str, float | str]] = []
        for group, mask in {**self.groups, **self._level_groups()}.items():
            members = np.flatnonzero(mask & self._follow.seen)
            for i, name in enumerate(self.systems):
                row: dict[str, float | str] = {
                    "group": group,
                    "system": name,
                    "n": float(members.size),
                }
                row.update(self._convergence(members, i))
                last = self._follow.last_error[members, i]
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

    def _timeseries(self) -> pd.DataFrame:
        n_sys = len(self.systems)
        n_cp = len(self._series["day"]) // n_sys
        data: dict[str, object] = {
            "day": np.asarray(self._series["day"], dtype=np.float64),
            "system": list(self.systems) * n_cp,
        }
        for key in _FIGURES:
            data[key] = np.asarray(self._series[key], dtype=np.float64)
        data["n_rated"] = np.asarray(self._series["n_rated"], dtype=np.int64)
        data["cohort_drift"] = np.asarray(self._series["cohort_drift"], np.float64)
        for key in _FIGURES:
            data[f"{key}{COMMON}"] = np.asarray(
                self._series[f"{key}{COMMON}"], dtype=np.float64
            )
        # NaN before the common support is computed (``common_from``).
        data[f"n{COMMON}"] = np.asarray(self._series[f"n{COMMON}"], dtype=np.float64)
        return pd.DataFrame(data)

    def _prediction(self) -> pd.DataFrame:
        """Per pair type (all games first) and predictor: the mean losses."""
        n_sys = len(self.systems)
        names = [*self.systems, ORACLE, COIN_FLIP]
        counts = [int(self._n_games.sum()), *(int(c) for c in self._n_games)]
        sums = [
            (self._log_loss.sum(axis=1), self._brier.sum(axis=1)),
            *((self._log_loss[:, k], self._brier[:, k]) for k in range(len(PAIRS))),
        ]
        frames = []
        for pairs, n, (ll_sum, br_sum) in zip(
            (ALL_PAIRS, *PAIRS), counts, sums, strict=True
        ):
            log_loss = ll_sum / n if n else np.full(n_sys + 2, np.nan)
            brier = br_sum / n if n else np.full(n_sys + 2, np.nan)
            frames.append(
                pd.DataFrame(
                    {
                        "pairs": pairs,
                        "system": names,
                        "n_games": np.full(n_sys + 2, n, dtype=np.int64),
                        "log_loss": log_loss,
                        "brier": brier,
                        "log_loss_excess": log_loss - log_loss[n_sys],
                        "brier_excess": brier - brier[n_sys],
                    }
                )
            )
        return pd.concat(frames, ignore_index=True)

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


def _nanmean(values: FloatArray) -> float:
    ok = ~np.isnan(values)
    return float(np.mean(values[ok])) if ok.any() else math.nan
