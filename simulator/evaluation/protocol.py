"""The evaluation protocol of a replay: a warm-up, a test window, scores with intervals.

Systems that start from nothing need games before their predictions mean
anything, and a draw model (:mod:`~simulator.evaluation.draws`) needs games to
be fitted on. The protocol splits the games of a replay in date order:

* the **warm-up**: the games before the test window. Every system rates them
  (walk-forward), and each system's draw parameter ``nu`` is fitted on its
  own warm-up predictions; they are not scored.
* the **test window**: from a date on (``test_from``), or the last share of
  the games (``test_share``, by game count in replay order). Every system
  predicts each test game before rating it, as in the warm-up; the scores
  below are over these games only.

:class:`Window` is the split.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simulator._types import BoolArray, FloatArray
from simulator._validate import check_interval

__all__ = [
    "COIN_FLIP",
    "DEFAULT_TEST_SHARE",
    "FIGURES",
    "N_BLOCKS",
    "N_RESAMPLES",
    "ProtocolResult",
    "Window",
    "evaluate_predictions",
]

#: The test window's share of the games when none is given.
DEFAULT_TEST_SHARE = 0.5

_EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True)
class Window:
    """The test window of a replay (module docstring).

    Parameters
    ----------
    test_from : datetime.date, optional
        The first day of the test window: games on or after it are tested.
    test_share : float, optional
        The share of the games (the last ones) in the test window, in
        ``(0, 1]``. Used when ``test_from`` is not given (default
        :data:`DEFAULT_TEST_SHARE`); giving both is an error.
    """

    test_from: dt.date | None = None
    test_share: float | None = None

    def __post_init__(self) -> None:
        if self.test_from is not None and self.test_share is not None:
            raise ValueError(
                "Window takes 'test_from' or 'test_share', not both. Got "
                f"test_from={self.test_from} and test_share={self.test_share}."
            )
        if self.test_from is not None and not isinstance(self.test_from, dt.date):
            raise ValueError(
                f"The 'test_from' parameter of Window must be a date. Got "
                f"{self.test_from!r} instead."
            )
        if self.test_share is not None:
            check_interval(
                "Window", "test_share", self.test_share, 0.0, 1.0, closed="right"
            )

    @property
    def share(self) -> float:
        """The test share in force when no date is given."""
        return DEFAULT_TEST_SHARE if self.test_share is None else self.test_share

    def test_mask(self, day: FloatArray) -> BoolArray:
        """Which games, dated ``day`` (days since 1970-01-01, in order), are tested.

        Examples
        --------
        >>> Window(test_share=0.25).test_mask(np.arange(8.0)).tolist()
        [False, False, False, False, False, False, True, True]
        >>> Window(dt.date(1970, 1, 3)).test_mask(np.arange(4.0)).tolist()
        [False, False, True, True]
        """
        day = np.asarray(day, dtype=np.float64)
        if self.test_from is not None:
            first = float((self.test_from - _EPOCH).days)
            return np.asarray(day >= first)
        n = day.size
        cut = n - math.ceil(n * self.share - 1e-9)
        return np.arange(n) >= cut

    def describe(self) -> str:
        """The split in words, for the printed assumptions."""
        if self.test_from is not None:
            return f"the games from {self.test_from.isoformat()} on"
        return f"the last {self.share:.0%} of the games (by replay order)"


@dataclass(frozen=True, eq=False)
class ProtocolResult:
    """The scores of the test games (:func:`evaluate_predictions`).

    Attributes
    ----------
    metrics : pandas.DataFrame
        Long: ``system`` (with ``"coin flip"``), ``pairs`` (``all`` and the
        pair types), ``figure`` (:data:`FIGURES`), ``value`` (over the test
        games), ``lo``, ``hi`` (bootstrap interval over blocks), ``n_games``.
    paired : pandas.DataFrame
        Each system minus ``reference`` per pair type and figure, on the same
        test games (:func:`simulator.evaluation.paired.paired_differences`
        over the blocks): :data:`~simulator.evaluation.paired.PAIRED_COLUMNS`.
    calibration : pandas.DataFrame
        Per system and bin of expected score over the test games:
        ``bin_low``, ``bin_high``, ``mean_expected``, ``mean_observed``, ``n``.
    draw_parameters : dict of str to float
        Each system's ``nu``, fitted on its warm-up predictions.
    reference : str
        The system of the paired differences.
    n_warmup, n_test, n_blocks : int
        Games in the warm-up and in the test window; blocks of the intervals.
    window : Window
        The split.
    """

    metrics: pd.DataFrame
    paired: pd.DataFrame
    calibration: pd.DataFrame
    draw_parameters: dict[str, float]
    reference: str
    n_warmup: int
    n_test: int
    n_blocks: int
    window: Window


#: The figures of the protocol, all per test game (lower is better but for
#: the accuracies): two-way log loss, three-way log loss (draw model), Brier
#: score, three-way accuracy (the result is the most probable of the three),
#: decisive accuracy (decisive games won by the favourite, E = 1/2 counting
#: half) and the calibration error (sum over bins of n |observed - expected|
#: / n).
FIGURES = (
    "log_loss",
    "log_loss_3",
    "brier",
    "accuracy",
    "accuracy_decisive",
    "calibration_error",
)
#: The predictor that says 1/2 (and the warm-up's draw rate) for every game.
COIN_FLIP = "coin flip"
#: Blocks of consecutive test games the intervals resample (at most).
N_BLOCKS = 50
#: Bootstrap resamples per interval.
N_RESAMPLES = 2000


def _per_game(e: FloatArray, s: FloatArray, nu: float) -> dict[str, FloatArray]:
    """Each figure's per-game terms (calibration error excepted)."""
    from simulator.evaluation.draws import CLIP, outcome_probabilities

    ec = np.clip(e, CLIP, 1.0 - CLIP)
    w, d, lo = outcome_probabilities(e, nu)
    p = np.where(s == 1.0, w, np.where(s == 0.0, lo, d))
    best = np.argmax(np.column_stack([w, d, lo]), axis=1)
    actual = np.where(s == 1.0, 0, np.where(s == 0.0, 2, 1))
    decisive = s != 0.5
    fav = np.where(e > 0.5, 1.0, np.where(e < 0.5, 0.0, 0.5))
    hit = np.where(fav == 0.5, 0.5, (fav == s).astype(np.float64))
    return {
        "log_loss": -(s * np.log(ec) + (1.0 - s) * np.log1p(-ec)),
        "log_loss_3": -np.log(np.clip(p, CLIP, 1.0)),
        "brier": (s - e) ** 2,
        "accuracy": (best == actual).astype(np.float64),
        "accuracy_decisive": np.where(decisive, hit, np.nan),
    }


def _calibration_error(e: FloatArray, s: FloatArray, bins: int) -> float:
    k = np.minimum((e * bins).astype(np.intp), bins - 1)
    gap = np.bincount(k, weights=s - e, minlength=bins)
    return float(np.sum(np.abs(gap)) / max(e.size, 1))


def _calibration_interval(
    e: FloatArray,
    s: FloatArray,
    mask: BoolArray,
    blocks: list[np.ndarray[Any, Any]],
    bins: int,
    confidence: float,
    name: str,
) -> tuple[float, float]:
    """Percentile interval of the calibration error, blocks resampled.

    The error is not a mean of per-game terms: each resample pools its
    blocks' per-bin sums and computes the error of the pool.
    """
    k = np.minimum((e * bins).astype(np.intp), bins - 1)
    gap = np.zeros((len(blocks), bins))
    count = np.zeros(len(blocks))
    for j, b in enumerate(blocks):
        m = mask[b]
        gap[j] = np.bincount(k[b][m], weights=(s - e)[b][m], minlength=bins)
        count[j] = m.sum()
    if len(blocks) < 2:
        return math.nan, math.nan
    seed = np.random.SeedSequence(list(name.encode()))
    picks = np.random.default_rng(seed).integers(
        0, len(blocks), size=(N_RESAMPLES, len(blocks))
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.abs(gap[picks].sum(axis=1)).sum(axis=1) / count[picks].sum(axis=1)
    values = np.sort(values[np.isfinite(values)])
    if values.size == 0:
        return math.nan, math.nan
    alpha = (1.0 - confidence) / 2.0
    lo = values[math.floor(alpha * (values.size - 1))]
    hi = values[math.ceil((1.0 - alpha) * (values.size - 1))]
    return float(lo), float(hi)


def evaluate_predictions(
    predictions: pd.DataFrame,
    window: Window | None = None,
    *,
    reference: str | None = None,
    bins: int = 10,
    n_blocks: int = N_BLOCKS,
    confidence: float = 0.95,
) -> ProtocolResult:
    """Score every system's predictions of the test games (module docstring).

    Parameters
    ----------
    predictions : pandas.DataFrame
        Long, one row per game and system, in game order: ``game``, ``date``,
        ``result``, ``pairs``, ``system``, ``expected`` (a replay's
        ``predictions``).
    window : Window, optional
        The split (default: the last half of the games).
    reference : str, optional
        The system the others are compared with (default the first).
    bins : int
        Calibration bins.
    n_blocks : int
        The test games are cut into at most this many blocks of consecutive
        games (a day's games share players, so games are not independent);
        the intervals resample blocks: a percentile bootstrap of the
        figure's block means (:func:`~simulator.evaluation.paired.
        bootstrap_interval`), and the paired differences by
        :func:`~simulator.evaluation.paired.paired_differences` with the
        blocks as its replicates (the batch-means method).
    confidence : float
        Confidence level of the intervals.

    Raises
    ------
    ValueError
        No predictions, a reference that is not a system, or no test or no
        warm-up game.
    """
    from simulator.evaluation.draws import fit_draw_parameter
    from simulator.evaluation.paired import bootstrap_interval, paired_differences
    from simulator.evaluation.prediction import ALL_PAIRS, PAIRS

    window = Window() if window is None else window
    if len(predictions) == 0:
        raise ValueError("No predictions to evaluate (no games were replayed).")
    systems = list(dict.fromkeys(predictions["system"].astype(str)))
    reference = systems[0] if reference is None else reference
    if reference not in systems:
        raise ValueError(
            f"The reference {reference!r} is not one of the systems {systems}."
        )
    first = predictions[predictions["system"].astype(str) == systems[0]]
    day = first["date"].to_numpy("datetime64[D]").astype(np.int64).astype(float)
    test = window.test_mask(day)
    n_test, n_warm = int(test.sum()), int((~test).sum())
    if n_test == 0 or n_warm == 0:
        raise ValueError(
            f"The window ({window.describe()}) leaves {n_warm} warm-up and "
            f"{n_test} test games: both must have games."
        )
    score = first["result"].to_numpy(np.float64)
    pair = pd.Categorical(first["pairs"], categories=list(PAIRS)).codes
    expected = {
        name: predictions.loc[
            predictions["system"].astype(str) == name, "expected"
        ].to_numpy(np.float64)
        for name in systems
    }
    expected[COIN_FLIP] = np.full(score.size, 0.5)
    names = [*systems, COIN_FLIP]
    nu = {n: fit_draw_parameter(expected[n][~test], score[~test]) for n in names}
    s = score[test]
    blocks = np.array_split(np.arange(n_test), min(n_blocks, n_test))
    groups = {ALL_PAIRS: np.ones(n_test, dtype=bool)}
    groups.update({p: pair[test] == i for i, p in enumerate(PAIRS)})
    rows, calibration = [], []
    block_tables: list[list[dict[str, object]]] = [[] for _ in blocks]
    for name in names:
        e = expected[name][test]
        terms = _per_game(e, s, 0.0 if math.isnan(nu[name]) else nu[name])
        for g, mask in groups.items():
            if not mask.any():
                continue
            for figure in FIGURES:
                if figure == "calibration_error":
                    value = _calibration_error(e[mask], s[mask], bins)
                    lo, hi = _calibration_interval(
                        e, s, mask, blocks, bins, confidence, f"{name}/{g}"
                    )
                else:
                    t = terms[figure][mask]
                    value = float(np.nanmean(t)) if np.any(~np.isnan(t)) else math.nan
                    per_block = [
                        float(np.nanmean(terms[figure][b][mask[b]]))
                        for b in blocks
                        if np.any(~np.isnan(terms[figure][b][mask[b]]))
                    ]
                    _, lo, hi = bootstrap_interval(
                        np.asarray(per_block),
                        confidence,
                        name=f"{name}/{g}/{figure}",
                        n_resamples=N_RESAMPLES,
                    )
                rows.append(
                    {
                        "system": name,
                        "pairs": g,
                        "figure": figure,
                        "value": value,
                        "lo": lo,
                        "hi": hi,
                        "n_games": int(mask.sum()),
                    }
                )
            for j, b in enumerate(blocks):
                m = mask[b]
                if not m.any():
                    continue
                row: dict[str, object] = {"system": name, "pairs": g}
                for figure in FIGURES[:-1]:
                    with np.errstate(invalid="ignore"):
                        v = terms[figure][b][m]
                        row[figure] = (
                            float(np.nanmean(v)) if np.any(~np.isnan(v)) else math.nan
                        )
                block_tables[j].append(row)
        k = np.minimum((e * bins).astype(np.intp), bins - 1)
        n = np.bincount(k, minlength=bins)
        se = np.bincount(k, weights=e, minlength=bins)
        ss = np.bincount(k, weights=s, minlength=bins)
        with np.errstate(invalid="ignore", divide="ignore"):
            calibration.append(
                pd.DataFrame(
                    {
                        "system": name,
                        "bin_low": np.arange(bins) / bins,
                        "bin_high": np.arange(1, bins + 1) / bins,
                        "mean_expected": se / n,
                        "mean_observed": ss / n,
                        "n": n,
                    }
                )
            )
    paired = paired_differences(
        [pd.DataFrame(t) for t in block_tables if t],
        reference,
        table="protocol",
        by="pairs",
        confidence=confidence,
    )
    return ProtocolResult(
        metrics=pd.DataFrame(rows),
        paired=paired,
        calibration=pd.concat(calibration, ignore_index=True),
        draw_parameters=nu,
        reference=reference,
        n_warmup=n_warm,
        n_test=n_test,
        n_blocks=len(blocks),
        window=window,
    )
