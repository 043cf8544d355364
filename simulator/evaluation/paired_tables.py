"""The report's comparison tables: paired differences, own and common support, flatness.

Each system's figure is shown beside its difference to the arena's reference
system, ``Δ [lo, hi]``: the mean over replicates of the per-replicate
difference with the interval of the paired differences
(:attr:`~simulator.evaluation.results.Summary.paired`,
:mod:`~simulator.evaluation.paired`). Columns the replicates may or may not
carry are shown only where the summary has them: the accuracy figures on the
common support (``rmse_common`` ...), the prediction's pair types (``pairs``)
and the steady-state slopes (``<metric>_slope``). :func:`columns_glossary`
defines every column the report shows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pandas as pd

from simulator.evaluation.formatting import _markdown_table, _number, _with_interval
from simulator.evaluation.results import Summary
from simulator.evaluation.settings import COIN_FLIP, ORACLE

#: The accuracy figures: column, header, digits, signed.
ACCURACY = (
    ("rmse", "RMSE", 1, False),
    ("mae", "MAE", 1, False),
    ("spearman", "Spearman", 3, False),
    ("spread", "spread", 3, False),
    ("offset", "offset", 1, True),
)
#: Metrics whose steady-state slope, where recorded, gets a flatness check:
#: column stem, name, digits of the slope a year.
SLOPES = (
    ("rmse", "RMSE", 2),
    ("rmse_common", "RMSE (common)", 2),
    ("mae", "MAE", 2),
    ("mae_common", "MAE (common)", 2),
    ("spearman", "Spearman", 4),
    ("spearman_common", "Spearman (common)", 4),
    ("spread", "spread", 4),
    ("spread_common", "spread (common)", 4),
    ("offset", "offset", 2),
    ("offset_common", "offset (common)", 2),
    ("log_loss", "log loss", 5),
)
#: Key of a paired row: table, pairs, system, figure.
_Key = tuple[str, str, str, str]


def _signed(value: float, digits: int) -> str:
    text = _number(value, digits)
    positive = (math.isfinite(value) and value >= 0) or value == math.inf
    return "+" + text if positive else text


def paired_index(s: Summary) -> dict[_Key, pd.Series]:
    """The paired table keyed by (table, pairs, system, figure)."""
    p = s.paired
    if p.empty:
        return {}
    pairs = p["pairs"].fillna("").astype(str)
    return {
        (str(r["table"]), pr, str(r["system"]), str(r["figure"])): r
        for pr, (_, r) in zip(pairs, p.iterrows(), strict=True)
    }


def delta_cell(
    s: Summary,
    index: Mapping[_Key, pd.Series],
    key: _Key,
    digits: int,
) -> str:
    """``Δ [lo, hi]`` of a system against the reference; "reference" for it."""
    if key[2] == s.reference:
        return "reference"
    row = index.get(key)
    if row is None or math.isnan(float(row["difference"])):
        return "n/a"
    text = _signed(float(row["difference"]), digits)
    lo, hi = float(row["lo"]), float(row["hi"])
    if not (math.isnan(lo) or math.isnan(hi)):
        text += f" [{_signed(lo, digits)}, {_signed(hi, digits)}]"
    return text


def delta_header(s: Summary, name: str) -> str:
    """The header of a Δ column, e.g. ``Δ RMSE vs fide [95% CI]``."""
    return f"Δ {name} vs {s.reference} [{s.confidence:.0%} CI]"


def paired_note(s: Summary) -> str:
    """The line that names the reference and says how Δ is computed."""
    if not s.reference:
        return ""
    return (
        f"Δ columns: difference to the reference system **{s.reference}** (the "
        "arena's `reference` key), with its "
        f"{s.confidence:.0%} interval; intervals are paired over replicates "
        "that rated the same games (the mean of per-replicate differences; "
        "Student t, or a percentile bootstrap for medians and skewed "
        "differences; every figure in `paired.csv`)."
    )


def has_common(s: Summary) -> bool:
    """Whether the summary has the common-support accuracy figures."""
    return any(f"{c}_common" in s.summary.columns for c, *_ in ACCURACY)


def accuracy_markdown(s: Summary) -> str:
    """Accuracy per system, own and common support, each with Δ to the reference."""
    index = paired_index(s)
    common = has_common(s)
    header = ["system"] + (["support", "players"] if common else [])
    for _, name, _, _ in ACCURACY:
        header += [name, delta_header(s, name)]
    rows = []
    supports = [("own", "")] + ([("common", "_common")] if common else [])
    for _, r in s.summary.iterrows():
        system = str(r["system"])
        for support, suffix in supports:
            row = [system]
            if common:
                players = (
                    _number(float(r["n_common"]), 0)
                    if suffix and "n_common" in r
                    else ""
                )
                row += [support, players]
            for column, _, digits, sign in ACCURACY:
                c = column + suffix
                if c not in r:
                    row += ["n/a", "n/a"]
                    continue
                # Differences between good systems' rank figures are small:
                # one digit more than the figure's.
                row += [
                    _with_interval(r, c, digits, sign=sign),
                    delta_cell(
                        s, index, ("summary", "", system, c), digits + (digits > 2)
                    ),
                ]
            rows.append(row)
    return _markdown_table(header, rows)


def prediction_labels(name: str) -> str:
    """The oracle and the coin flip spelt out; systems as they are."""
    return {
        ORACLE: "oracle (true strengths)",
        COIN_FLIP: "coin flip (E = 0.5)",
    }.get(name, name)


def prediction_markdown(s: Summary) -> str:
    """Log loss and Brier per predictor (and pair type), with Δ to the reference."""
    index = paired_index(s)
    split = "pairs" in s.prediction.columns
    header = (["pairs"] if split else []) + [
        "predictor",
        "games per replicate",
        "log loss",
        delta_header(s, "log loss"),
        "excess over oracle",
        "Brier",
        delta_header(s, "Brier"),
    ]
    rows = []
    for _, r in s.prediction.iterrows():
        pairs = str(r["pairs"]) if split else "all"
        system = str(r["system"])
        rows.append(
            ([pairs] if split else [])
            + [
                prediction_labels(system),
                _number(float(r["n_games"]), 0),
                _with_interval(r, "log_loss", 4),
                delta_cell(s, index, ("prediction", pairs, system, "log_loss"), 4),
                _with_interval(r, "log_loss_excess", 4, sign=True),
                _with_interval(r, "brier", 4),
                delta_cell(s, index, ("prediction", pairs, system, "brier"), 4),
            ]
        )
    return _markdown_table(header, rows)


def pair_types_markdown(s: Summary) -> str:
    """Log loss by pair type, one column pair per type; empty without the split."""
    p = s.prediction
    if "pairs" not in p.columns or p["pairs"].nunique() < 2:
        return ""
    index = paired_index(s)
    kinds = list(dict.fromkeys(str(x) for x in p["pairs"]))
    header = ["predictor"]
    for kind in kinds:
        header += [f"log loss, {kind}", f"Δ {kind} vs {s.reference}"]
    rows = []
    for system in dict.fromkeys(str(x) for x in p["system"]):
        row = [prediction_labels(system)]
        for kind in kinds:
            hit = p[(p["pairs"].astype(str) == kind) & (p["system"] == system)]
            if hit.empty:
                row += ["n/a", "n/a"]
                continue
            row += [
                _with_interval(hit.iloc[0], "log_loss", 4),
                delta_cell(s, index, ("prediction", kind, system, "log_loss"), 4),
            ]
        rows.append(row)
    return _markdown_table(header, rows)


def flatness(row: pd.Series, column: str, digits: int) -> tuple[str, bool]:
    """The flatness verdict of a slope column and whether it is flat.

    Flat when the interval contains 0 (or there is no interval); otherwise
    rising or falling by the slope a year.
    """
    value = float(row[column])
    lo, hi = (
        float(row.get(f"{column}_lo", math.nan)),
        float(row.get(f"{column}_hi", math.nan)),
    )
    if math.isnan(value):
        return "n/a", True
    bounds = (
        f" [{_signed(lo, digits)}, {_signed(hi, digits)}]"
        if not (math.isnan(lo) or math.isnan(hi))
        else ""
    )
    if math.isnan(lo) or math.isnan(hi) or lo <= 0.0 <= hi:
        return f"flat ({_signed(value, digits)}/yr{bounds})", True
    word = "rising" if value > 0 else "falling"
    return f"{word} {_number(abs(value), digits)}/yr{bounds}", False


def slope_columns(s: Summary) -> list[tuple[str, str, int]]:
    """The slope columns the summary has: column, name, digits."""
    return [
        (f"{stem}_slope", name, digits)
        for stem, name, digits in SLOPES
        if f"{stem}_slope" in s.summary.columns
    ]


def flatness_markdown(s: Summary) -> str:
    """Per system and metric: flat, or rising/falling; then a verdict sentence."""
    columns = slope_columns(s)
    if not columns:
        return ""
    rows, sloped = [], []
    for _, r in s.summary.iterrows():
        row = [str(r["system"])]
        for column, name, digits in columns:
            text, flat = flatness(r, column, digits)
            row.append(text)
            if not flat:
                sloped.append(f"{name} of {r['system']} ({text.split(' [')[0]})")
        rows.append(row)
    table = _markdown_table(["system", *(name for _, name, _ in columns)], rows)
    if sloped:
        verdict = (
            "**Not flat**: " + "; ".join(sloped) + ". These steady-state figures "
            "still move over the window, so they depend on its length and on "
            "the initial ratings."
        )
    else:
        verdict = "Every steady-state metric is flat: each slope's interval contains 0."
    return table + "\n\n" + verdict


def drift_markdown(s: Summary) -> str:
    """Drift per system with its Δ to the reference."""
    index = paired_index(s)
    header = ["system", "drift (points / year)", delta_header(s, "drift")]
    rows = [
        [
            str(r["system"]),
            _with_interval(r, "drift_per_year", 2, sign=True),
            delta_cell(
                s, index, ("summary", "", str(r["system"]), "drift_per_year"), 2
            ),
        ]
        for _, r in s.summary.iterrows()
    ]
    return _markdown_table(header, rows)


#: The report's columns and what they mean, in the order a reader meets them.
GLOSSARY: tuple[tuple[str, str], ...] = (
    (
        "N*t* (games)",
        "median number of games after which a newcomer's aligned error stays "
        "below *t* rating points (Kaplan-Meier over newcomers); in brackets, "
        "e.g. (32%), the share of newcomers who got there by the end",
    ),
    (
        "RMSE, MAE",
        "root mean square and mean absolute aligned error |rating - true - "
        "offset| of active rated players, rating points",
    ),
    ("Spearman", "rank correlation of ratings with true strengths"),
    (
        "spread",
        "standard deviation of the ratings over that of the true strengths of "
        "the same players: below 1 a compressed scale, above 1 a stretched one",
    ),
    ("offset", "mean(rating - true), rating points: the system's level shift"),
    (
        "support: own / common",
        "own: the players the system itself rates; common: the players every "
        "system of the arena rates (players: their number), the fair comparison",
    ),
    ("drift / year", "slope of a fixed cohort's mean(rating - true), points a year"),
    (
        "log loss",
        "mean of -(s log E + (1 - s) log(1 - E)) over games, E the pre-game "
        "expected score for White and s White's score (natural log; lower is "
        "better)",
    ),
    ("Brier", "mean squared difference of expected and observed score"),
    (
        "excess over oracle",
        "log loss minus the oracle's (true strengths) on the same games",
    ),
    (
        "pairs",
        "games by who was rated before the game: all, both rated, one new (one "
        "player not yet rated), both new",
    ),
    (
        "games per replicate",
        "games scored per replicate (mean over replicates)",
    ),
    (
        "±",
        "half-width of the Student-t interval of the mean over replicates "
        "(unpaired: each system on its own)",
    ),
    (
        "Δ ... vs REF [CI]",
        "mean over replicates of (system - reference) in the same replicate, "
        "with the interval of those paired differences",
    ),
    (
        "flatness",
        "least-squares slope of a steady-state metric over its window, per "
        "year, with its interval: flat when the interval contains 0",
    ),
    (
        "quartiles, converged",
        "q25 - q75 of games to converge over newcomers; converged: the share "
        "that stayed inside by the end (± in percentage points)",
    ),
    (
        "bias, n (bands)",
        "mean aligned error of a band of true strength and its players",
    ),
    (
        "system",
        "the system's display name (its label in the CSV tables): FIDE 2025 "
        "and FIDE 2024 are the current FIDE rules and the 2024 ones, old FIDE "
        "the pre-2024 rules, Glicko-1 and Glicko-2 Glickman's systems, Lichess "
        "Lichess's Glicko-2, Elo plain Elo",
    ),
    (
        "N*t* (KM), quartiles (KM)",
        "Kaplan-Meier median and quartiles of the games to converge, a "
        "newcomer not converged by the end counting as censored; 'not reached' "
        "(or inf): the estimate never fell to one half",
    ),
    (
        "N*t* (so far)",
        "median over newcomers of the games to converge, or of the games "
        "played so far for those not converged (biased low)",
    ),
    (
        "N*t* months (KM)",
        "Kaplan-Meier median months from a newcomer's first checkpoint with "
        "games to the start of their run inside the threshold",
    ),
    (
        "N*t* converged, (32%)",
        "share of newcomers whose aligned error got below *t* and stayed there "
        "by the end; a percentage in brackets after a figure is this share",
    ),
    (
        "games played, median error",
        "newcomers' median aligned error after that many games, rating points",
    ),
    (
        "group, newcomers, final error",
        "a group of newcomers (probes of one true strength, or a band of true "
        "strength when first seen), their number, and their median aligned "
        "error at the last checkpoint",
    ),
    (
        "band, players, true strength (comparison)",
        "a 100-point band of the first system's rating, the players in it "
        "rated by both systems, their mean ratings and mean true strength",
    ),
    (
        "resolved",
        "a paired difference whose interval excludes 0; 'not resolved': the "
        "interval contains 0, so the replicates do not tell the two apart",
    ),
    (
        "unpaired",
        "a difference of two systems' means, neither the reference, so "
        "without a paired interval",
    ),
)


def columns_glossary(shown: Sequence[str] | None = None) -> str:
    """The "Columns" glossary: one bullet per column name and its meaning."""
    keep = GLOSSARY if shown is None else [g for g in GLOSSARY if g[0] in shown]
    return "\n".join(f"- **{name}**: {meaning}." for name, meaning in keep)
