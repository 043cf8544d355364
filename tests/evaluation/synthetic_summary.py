"""A small synthetic summary of three systems, for the tests of the report.

Not a test module: the tests of :mod:`simulator.evaluation.formatting`,
``figures``, ``markdown`` and ``report`` import it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simulator.evaluation.recorder import Recorder
from simulator.evaluation.report import write_report
from simulator.evaluation.results import ReplicateResult, Summary, combine

SYSTEMS = ("fide", "glicko2", "lichess")
CONFIG = '[run]\ntitle = "test"\nyears = 1.0\n'
VERSIONS = {"ratingsim": "0.1.0", "numpy": np.__version__}


def replicate(seed: int, n: int = 120, n_days: int = 40) -> ReplicateResult:
    """A small synthetic replicate: ratings converge towards the truth with games."""
    rng = np.random.default_rng(seed)
    true = rng.normal(1800.0, 300.0, n)
    newcomer = np.arange(n) % 3 == 0
    games = np.zeros(n, np.intp)
    rec = Recorder(SYSTEMS, n)
    shift = {"fide": -20.0, "glicko2": 0.0, "lichess": 300.0}
    for day in range(n_days):
        w, b = np.arange(0, n, 2), np.arange(1, n, 2)
        oracle = 1.0 / (1.0 + 10.0 ** (-(true[w] - true[b]) / 400.0))
        score = (rng.random(w.size) < oracle).astype(np.float64)
        noise = {k: rng.normal(0.0, 0.05, w.size) for k in SYSTEMS}
        rec.record_games(
            {k: np.clip(oracle + noise[k], 0.01, 0.99) for k in SYSTEMS}, oracle, score
        )
        games += 1
        scale = 400.0 / np.sqrt(games)
        ratings = {
            k: true + shift[k] + scale * rng.normal(0.0, 1.0, n) + 0.1 * day
            for k in SYSTEMS
        }
        ratings["fide"][games < 5] = np.nan
        rec.checkpoint(
            19_800.0 + 7 * day,
            ratings,
            true,
            ~newcomer,
            games,
            newcomer,
            ~newcomer,
        )
    return rec.result()


def from_tables(
    summary: pd.DataFrame, prediction: pd.DataFrame | None = None
) -> ReplicateResult:
    """A replicate made of the given summary (and prediction) tables.

    The other tables hold one row per system, enough for combine and the
    report; the prediction defaults to one row per system (``log_loss`` 0.6).
    """
    systems = tuple(str(x) for x in summary["system"])
    one = pd.DataFrame({"system": list(systems)})
    # The recorder writes every convention of N50; tables built by hand may
    # give the Kaplan-Meier one only.
    for column in ("n50_so_far", "n50_months"):
        if "n50_median" in summary and column not in summary:
            summary = summary.assign(**{column: summary["n50_median"]})
    if prediction is None:
        prediction = one.assign(
            n_games=100,
            log_loss=0.6,
            brier=0.2,
            log_loss_excess=0.0,
            brier_excess=0.0,
        )
    return ReplicateResult(
        summary=summary,
        timeseries=one.assign(day=0.0, rmse=1.0, n_rated=1)[
            ["day", "system", "rmse", "n_rated"]
        ],
        prediction=prediction,
        calibration=one.assign(
            bin=0, bin_low=0.0, bin_high=1.0, mean_expected=0.5, n=1
        ),
        convergence=one.assign(games=0, median_error=10.0, n=1),
        systems=systems,
        thresholds=(50.0,),
    )


def three_replicates() -> Summary:
    """The combined summary of replicates 1, 2 and 3."""
    return combine([replicate(s) for s in (1, 2, 3)])


def write(out: Path, summary: Summary | dict[str, Summary], **kw: object) -> Path:
    """write_report with the test config, seed 12345, versions and title."""
    args: dict[str, object] = {
        "config_text": CONFIG,
        "seed": 12345,
        "versions": VERSIONS,
        "title": "Test run",
    }
    args.update(kw)
    return write_report(out, summary, **args)  # type: ignore[arg-type]
