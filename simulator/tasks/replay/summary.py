"""What a replay measured, as text and as plain data for JSON.

:func:`to_table` prints a :class:`~simulator.tasks.replay.walk.ReplayResult`:
the prediction metrics of every system, their calibration, the same beside
the file's own ratings where it has them, and the top of the final ratings.
:func:`to_json_dict` gives the metrics as plain data (the final ratings go to
a CSV file instead). Nothing here replays a game.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from simulator.evaluation.protocol import FIGURES, ProtocolResult
from simulator.tasks.replay.walk import FILE, ReplayResult

__all__ = ["protocol_lines", "to_json_dict", "to_table"]


def _aligned(rows: list[list[str]]) -> list[str]:
    """Rows of cells as lines: columns two spaces apart, the first left-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in rows
    ]


def _fmt_table(frame: pd.DataFrame, columns: Sequence[str], places: int) -> list[str]:
    """``frame``'s ``columns`` as lines, floats to ``places`` decimals ('-' for NaN)."""
    rows = [[str(c) for c in columns]]
    for _, r in frame.iterrows():
        row = []
        for c in columns:
            v = r[c]
            if isinstance(v, float | np.floating):
                row.append("-" if np.isnan(v) else f"{v:.{places}f}")
            else:
                row.append(str(v))
        rows.append(row)
    return _aligned(rows)


def _calibration_table(calibration: pd.DataFrame, systems: Sequence[str]) -> list[str]:
    """Observed score per bin of expected score, one column per system."""
    bins = calibration[calibration["system"] == systems[0]]
    header = ["expected", *systems]
    rows = [header]
    for _, b in bins.iterrows():
        row = [f"{b['bin_low']:.1f}-{b['bin_high']:.1f}"]
        for s in systems:
            c = calibration[
                (calibration["system"] == s) & (calibration["bin"] == b["bin"])
            ]
            n = int(c["n"].iloc[0])
            row.append("-" if n == 0 else f"{c['mean_observed'].iloc[0]:.3f} ({n})")
        rows.append(row)
    return _aligned(rows)


def _cell(value: float, lo: float, hi: float) -> str:
    if np.isnan(value):
        return "-"
    if np.isnan(lo) or np.isnan(hi):
        return f"{value:.4f}"
    return f"{value:.4f} ({lo:.4f} to {hi:.4f})"


def protocol_lines(protocol: ProtocolResult) -> list[str]:
    """The protocol's scores as text: test metrics, pair types, paired differences."""
    m = protocol.metrics
    pct = "95%"
    lines = [
        f"Evaluation protocol: {protocol.n_warmup} warm-up games, then "
        f"{protocol.n_test} test games ({protocol.window.describe()}); each "
        "system predicts every game before rating it, only test games are scored.",
        "  Three-way scores use Davidson's draw model under each expected score, "
        "nu fitted on the warm-up: "
        + ", ".join(
            f"{k} {v:.2f} ({v / (2 + v):.0%} draws between equals)"
            for k, v in protocol.draw_parameters.items()
            if not np.isnan(v)
        )
        + ".",
        f"  Intervals: {pct}, bootstrap over {protocol.n_blocks} blocks of "
        "consecutive test games; paired differences: the same blocks as "
        "replicates (simulator/evaluation/paired.py).",
        "",
        "Test games, every pair (value, interval); accuracy: the result is the "
        "most probable of win/draw/loss; accuracy_decisive: decisive games won by "
        "the favourite:",
    ]
    rows = [["system", "n_games", *FIGURES]]
    every = m[m["pairs"] == "all"]
    for name in dict.fromkeys(every["system"]):
        mine = every[every["system"] == name].set_index("figure")
        rows.append(
            [
                str(name),
                str(int(mine["n_games"].iloc[0])),
                *(
                    _cell(mine.loc[f, "value"], mine.loc[f, "lo"], mine.loc[f, "hi"])
                    for f in FIGURES
                ),
            ]
        )
    lines += _aligned(rows)
    lines += ["", "Test games by pair type (log loss three-way, games):"]
    kinds = [p for p in ("both rated", "one new", "both new") if p in set(m["pairs"])]
    rows = [["system", *kinds]]
    three = m[m["figure"] == "log_loss_3"]
    for name in dict.fromkeys(three["system"]):
        row = [str(name)]
        for kind in kinds:
            c = three[(three["system"] == name) & (three["pairs"] == kind)]
            row.append(
                "-"
                if c.empty
                else f"{c['value'].iloc[0]:.4f} ({int(c['n_games'].iloc[0])})"
            )
        rows.append(row)
    lines += _aligned(rows)
    paired = protocol.paired[protocol.paired["pairs"] == "all"]
    if not paired.empty:
        lines += [
            "",
            f"Paired differences to {protocol.reference} on the same test games "
            f"(system - {protocol.reference}; {pct} interval; * = interval "
            "excludes 0):",
        ]
        figures = [f for f in FIGURES if f in set(paired["figure"])]
        rows = [["system", *figures]]
        for name in dict.fromkeys(paired["system"]):
            mine = paired[paired["system"] == name].set_index("figure")
            row = [str(name)]
            for f in figures:
                d, lo, hi = (float(mine.loc[f, c]) for c in ("difference", "lo", "hi"))
                star = "*" if lo > 0 or hi < 0 else ""
                row.append(f"{d:+.4f} ({lo:+.4f} to {hi:+.4f}){star}")
            rows.append(row)
        lines += _aligned(rows)
    return lines


def to_table(result: ReplayResult, *, top: int = 20) -> str:
    """The result as text: prediction, calibration and the top rated players."""
    span = f", {result.first_date} to {result.last_date}" if result.n_games else ""
    lines = [
        f"{result.n_games} games of {result.n_players} players{span}",
        "Assumptions:",
        *(f"  - {a}" for a in result.assumptions),
        "",
        "Prediction (each system's pre-game expected score; lower is better):",
        *_fmt_table(result.prediction, ["system", "n_games", "log_loss", "brier"], 4),
        "",
        "Calibration: mean score (games) per bin of expected score:",
        *_calibration_table(result.calibration, result.systems),
    ]
    if result.file_prediction is not None:
        assert result.file_calibration is not None
        lines += [
            "",
            "On the games where the file gives both ratings, beside the file's "
            "ratings (Elo expectation of their difference):",
            *_fmt_table(
                result.file_prediction, ["system", "n_games", "log_loss", "brier"], 4
            ),
            "",
            *_calibration_table(result.file_calibration, [*result.systems, FILE]),
        ]
    if result.protocol is not None:
        lines += ["", *protocol_lines(result.protocol)]
    if top > 0 and result.n_players:
        ranked = result.ratings.sort_values(
            list(result.systems[:1]), ascending=False, na_position="last"
        ).head(top)
        lines += [
            "",
            f"Ratings at the end (top {min(top, result.n_players)} by "
            f"{result.systems[0]}; '-' = unrated):",
            *_fmt_table(ranked, ["player", "games", "last_date", *result.systems], 0),
        ]
    return "\n".join(lines)


def _plain(value: Any) -> Any:
    """A JSON value: numpy scalars unwrapped, NaN as None."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def to_json_dict(result: ReplayResult) -> dict[str, Any]:
    """The metrics as plain data (the ratings go to a CSV file instead)."""

    def records(frame: pd.DataFrame | None) -> list[dict[str, Any]] | None:
        if frame is None:
            return None
        out = []
        for row in frame.to_dict(orient="records"):
            out.append({str(k): _plain(v) for k, v in row.items()})
        return out

    return {
        "n_games": result.n_games,
        "n_players": result.n_players,
        "first_date": result.first_date,
        "last_date": result.last_date,
        "systems": list(result.systems),
        "assumptions": list(result.assumptions),
        "prediction": records(result.prediction),
        "calibration": records(result.calibration),
        "file_prediction": records(result.file_prediction),
        "file_calibration": records(result.file_calibration),
        "events": result.events,
        "protocol": None
        if result.protocol is None
        else {
            "window": result.protocol.window.describe(),
            "n_warmup": result.protocol.n_warmup,
            "n_test": result.protocol.n_test,
            "n_blocks": result.protocol.n_blocks,
            "reference": result.protocol.reference,
            "draw_parameters": {
                k: _plain(v) for k, v in result.protocol.draw_parameters.items()
            },
            "metrics": records(result.protocol.metrics),
            "paired": records(result.protocol.paired),
            "calibration": records(result.protocol.calibration),
        },
    }
