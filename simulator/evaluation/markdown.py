"""The text of a results folder: ``report.md`` and a sweep's ``sweep.md``.

``report.md`` holds the title and seed, then for each arena the summary,
accuracy (own and common support), prediction (by pair type where recorded),
convergence and drift tables, each system beside its paired difference to the
arena's reference system (:mod:`~simulator.evaluation.paired_tables`), the
flatness of the steady-state metrics where their slopes were recorded (and
the error by strength band, the convergence by group and the cross-arena
comparison where the run recorded them), the figures, a glossary of the
columns, and how to reproduce the run with the package versions.
``sweep.md`` holds every point of a sweep side by side, the failed tasks and
how to reproduce the sweep. The cells are those of
:mod:`~simulator.evaluation.formatting`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

import pandas as pd

from simulator._style import Style
from simulator.evaluation.figures import FIGURES, PUBLISHED_CONVERSION, _suffix
from simulator.evaluation.findings import drift_finding, join, lead_finding
from simulator.evaluation.formatting import (
    _km,
    _markdown_table,
    _number,
    _share,
    _system_rows,
    _with_interval,
)
from simulator.evaluation.paired_tables import (
    accuracy_markdown,
    columns_glossary,
    delta_cell,
    delta_header,
    drift_markdown,
    flatness_markdown,
    has_common,
    pair_types_markdown,
    paired_index,
    paired_note,
    prediction_markdown,
)
from simulator.evaluation.results import Summary, band_name
from simulator.evaluation.settings import threshold_name

#: Games at which the report tabulates the newcomers' median error.
_CURVE_GAMES = (0, 5, 10, 20, 30, 50, 100, 150)
#: The columns of the summary table after N*t*: name, digits, signed.
_SUMMARY_COLUMNS = (
    ("rmse", 1, False),
    ("mae", 1, False),
    ("spearman", 3, False),
    ("spread", 3, False),
    ("offset", 1, True),
    ("drift_per_year", 2, True),
    ("log_loss", 4, False),
    ("brier", 4, False),
)


def displayed(s: Summary, styles: Mapping[str, Style] | None) -> Summary:
    """``s`` with every system label replaced by its style's display name.

    Labels keep their names where two would share a display name (or none is
    given); the CSV tables keep the labels either way.
    """
    if not styles:
        return s
    names = {k: styles[k].name if k in styles else k for k in s.systems}
    if len(set(names.values())) != len(names) or names == {k: k for k in names}:
        return s

    def rename(df: pd.DataFrame, *columns: str) -> pd.DataFrame:
        if df.empty:
            return df
        out = df.copy()
        for c in columns:
            if c in out:
                out[c] = out[c].map(
                    lambda x: names.get(x, x) if isinstance(x, str) else x
                )
        return out

    return dataclasses.replace(
        s,
        summary=rename(s.summary, "system"),
        timeseries=rename(s.timeseries, "system"),
        prediction=rename(s.prediction, "system"),
        calibration=rename(s.calibration, "system"),
        convergence=rename(s.convergence, "system"),
        groups=rename(s.groups, "system"),
        bands=rename(s.bands, "system"),
        paired=rename(s.paired, "system", "reference"),
        systems=tuple(names[k] for k in s.systems),
        reference=names.get(s.reference, s.reference),
    )


def _summary_findings(s: Summary) -> str:
    """The headline of the summary table: accuracy, prediction, convergence."""
    common = "rmse_common" in s.summary
    stems = [threshold_name(t) for t in s.thresholds]
    middle = stems[len(stems) // 2] if stems else ""
    return join(
        [
            lead_finding(
                s,
                s.summary,
                "rmse_common" if common else "rmse",
                "RMSE" + (" on the common support" if common else ""),
                digits=1,
                unit=" points",
            ),
            lead_finding(s, s.summary, "log_loss", "log loss", digits=4),
            lead_finding(
                s,
                s.summary,
                f"{middle}_median",
                f"{middle.upper()} (KM median games)",
                digits=1,
                unit=" games",
            )
            if middle
            else "",
        ]
    )


def _summary_markdown(s: Summary) -> str:
    stems = [threshold_name(t) for t in s.thresholds]
    header = [
        "system",
        *(f"{st.upper()} (games)" for st in stems),
        "RMSE",
        "MAE",
        "Spearman",
        "spread",
        "offset",
        "drift / year",
        "log loss",
        "Brier",
    ]
    rows = _system_rows(s, stems, _SUMMARY_COLUMNS)
    if not s.paired.empty:
        # The two headline differences; paired_tables' tables have the rest.
        index = paired_index(s)
        header += [delta_header(s, "RMSE"), delta_header(s, "log loss")]
        for row in rows:
            row += [
                delta_cell(s, index, ("summary", "", row[0], "rmse"), 1),
                delta_cell(s, index, ("summary", "", row[0], "log_loss"), 4),
            ]
    return _markdown_table(header, rows)


def _prediction_markdown(s: Summary) -> str:
    return prediction_markdown(s)


def _convergence_markdown(s: Summary) -> str:
    stems = [threshold_name(t) for t in s.thresholds]
    header = ["system"]
    for st in stems:
        n = st.upper()
        header += [
            f"{n} (KM)",
            f"{n} quartiles (KM)",
            f"{n} (so far)",
            f"{n} months (KM)",
            f"{n} converged",
        ]
    index = paired_index(s)
    middle = stems[len(stems) // 2]
    if index:
        header += [
            delta_header(s, f"{middle.upper()} (KM)"),
            delta_header(s, f"{middle.upper()} converged"),
        ]
    rows = []
    for _, row in s.summary.iterrows():
        cells = [str(row["system"])]
        for st in stems:
            cells += [
                _km(row, f"{st}_median", 1),
                f"{_number(float(row[f'{st}_q25']), 1)} - "
                f"{_number(float(row[f'{st}_q75']), 1)}",
                _with_interval(row, f"{st}_so_far", 1),
                _km(row, f"{st}_months", 1),
                _share(row, f"{st}_converged"),
            ]
        if index:
            key = ("summary", "", str(row["system"]))
            cells += [
                delta_cell(s, index, (*key, f"{middle}_median"), 1),
                delta_cell(s, index, (*key, f"{middle}_converged"), 2),
            ]
        rows.append(cells)
    return _markdown_table(header, rows)


def _curve_markdown(s: Summary) -> str:
    curve = s.convergence
    max_games = int(curve["games"].max()) if len(curve) else 0
    games = [g for g in _CURVE_GAMES if g <= max_games]
    if max_games not in games:
        games.append(max_games)
    header = ["games played", *s.systems]
    rows = []
    for g in games:
        at = curve[curve["games"] == g]
        cells = [str(g)]
        for name in s.systems:
            hit = at[at["system"] == name]
            cells.append(
                _with_interval(hit.iloc[0], "median_error", 1) if len(hit) else "n/a"
            )
        rows.append(cells)
    return _markdown_table(header, rows)


def _drift_markdown(s: Summary) -> str:
    return drift_markdown(s)


def _arena_markdown(s: Summary, suffix: str, figures: bool, h: str) -> list[str]:
    interval = (
        f"`±` is the half-width of the {s.confidence:.0%} Student-t interval of "
        f"the mean over {s.n_replicates} replicates."
        if s.n_replicates > 1
        else "One replicate: no confidence intervals."
    )
    parts = [
        f"{h} Summary",
        "",
        "Accuracy figures (RMSE, MAE, Spearman, spread, offset) are steady-state "
        "means over the last checkpoints, among active rated players. Each "
        "system's ratings are aligned with the true strengths by removing its "
        "offset, mean(rating - true), before errors are measured. N*t* is the "
        "median number of games after which a newcomer's aligned error stays "
        "below *t* rating points, by the Kaplan-Meier estimator (a newcomer not "
        "yet inside at the end counts as censored at the games played so far), "
        "averaged over replicates (percentage: newcomers who got there by the "
        "end; 'not reached': the estimate never fell to one half while enough "
        "newcomers remained at risk, in at least one replicate). Drift is the "
        "least-squares "
        "slope of a fixed cohort's mean(rating - true) in points per year. " + interval,
        "",
        *([paired_note(s), ""] if s.reference and not s.paired.empty else []),
        _summary_markdown(s),
        "",
        *_para(_summary_findings(s)),
        f"{h} Accuracy, paired",
        "",
        "Steady-state accuracy of each system"
        + (
            " on its own rated players and on the common support (the players "
            "every system of the arena rates)"
            if has_common(s)
            else ""
        )
        + ", with the paired difference to the reference.",
        "",
        accuracy_markdown(s),
        "",
        *_para(
            join(
                [
                    lead_finding(
                        s, s.summary, "rmse", "RMSE (own)", digits=1, unit=" points"
                    ),
                    lead_finding(
                        s, s.summary, "spearman", "Spearman", digits=4, lower=False
                    ),
                ]
            )
        ),
        *_flatness_part(s, h),
        f"{h} Prediction",
        "",
        "Log loss (natural log) and Brier score of each system's pre-game expected "
        "score for White, beside the oracle that knows the true strengths (the "
        "floor) and a coin flip. Excess is the difference from the oracle on the "
        "same games. Δ is the paired difference to the reference on the same "
        "games.",
        "",
        _prediction_markdown(s),
        "",
        *_para(_prediction_findings(s)),
        *_pair_types_part(s),
        f"{h} Convergence of newcomers",
        "",
        "Games until the aligned error stays below each threshold, two ways. "
        "KM: the Kaplan-Meier median and quartiles across newcomers, a newcomer "
        "not converged by the end being censored at the games played so far "
        "(inf, 'not reached': decided by newcomers not converged). So far: the "
        "median over newcomers of the games to converge, or the games played so "
        "far for those not converged, the convention of most published "
        "figures (lower than KM when newcomers are censored early). Months (KM): "
        "the Kaplan-Meier median time from a newcomer's first checkpoint with "
        "games to the checkpoint that began their run inside the threshold. "
        "Converged: the share that got there (± in percentage points). Where "
        "a KM figure was not reached in some replicates, the cell is the median "
        "across replicates with a distribution-free interval in brackets (the "
        "range below 6 replicates) and the count not reached.",
        "",
        _convergence_markdown(s),
        "",
        *_para(_convergence_findings(s)),
        "Median aligned error |rating - true - offset| of newcomers, in rating "
        "points, by games played, with the error of the rating each carried into "
        "the next game (inf: the median falls among unrated newcomers, or beyond "
        "the error histogram's range, in at least one replicate).",
        "",
        _curve_markdown(s),
        "",
        *_para(_curve_findings(s)),
        f"{h} Drift",
        "",
        _drift_markdown(s),
        "",
        *_para(drift_finding(s)),
    ]
    # The sections of what the run recorded only where it was recorded.
    recorded = (
        (
            s.bands,
            "Error by strength band",
            "Steady-state RMSE and bias (mean of rating - true - offset) of active "
            "rated players by band of true strength, in rating points: positive "
            "bias at the bottom and negative at the top mean a compressed scale.",
            _bands_markdown,
        ),
        (
            s.groups,
            "Convergence by group",
            "Games until the aligned error stays below each threshold (KM: "
            "Kaplan-Meier median, quartiles and converged share; so far: the "
            "'games so far if not converged' median), the KM months to converge, "
            "and the median aligned error at the end (rating points), for each "
            "group of newcomers, then for the newcomers by band of true strength "
            "when they first played ('true 1400-1600': from 1400 to below "
            "1600). Groups without newcomers are left out.",
            _groups_markdown,
        ),
        (
            s.comparison,
            "Cross-arena comparison",
            "Players active in both arenas and rated by both systems. Bands of the "
            "first system's rating: mean ratings in both systems and mean true "
            "strength. The fit is the cross-sectional regression of the first "
            "system's rating on the second's, the method of published conversion "
            "tables; gap = mean(second - first).",
            _comparison_markdown,
        ),
    )
    for frame, heading, text, table in recorded:
        if not frame.empty:
            parts += [f"{h} {heading}", "", text, "", table(s), ""]
    if figures:
        captions = {
            "error_vs_games": "Newcomers' error against games played, a panel "
            "per system",
            "rmse_over_time": "RMSE over time",
            "calibration": "Calibration",
            "offset_over_time": "Offset of all rated players over time",
            "cohort_drift": "Drift of the fixed adult cohort (the drift table's "
            "figure)",
        }
        stems = list(FIGURES)
        if not s.groups.empty and (s.groups["n"] > 0).any():
            stems.append("convergence_by_level")
            captions["convergence_by_level"] = "Convergence by strength level"
        if not s.comparison.empty:
            stems.append("conversion")
            captions["conversion"] = "Conversion between systems, with the fits"
        parts += [
            f"{h} Figures",
            "",
            "Each figure is also in the folder as SVG (vector), same name.",
            "",
        ]
        for stem in stems:
            parts += [f"![{captions[stem]}]({stem}{suffix}.png)", ""]
    return parts


def _para(text: str) -> list[str]:
    """A paragraph of findings and its blank line; nothing for no text."""
    return [text, ""] if text else []


def _prediction_findings(s: Summary) -> str:
    p = s.prediction
    if "pairs" in p:
        p = p[p["pairs"].astype(str) == "all"]
    return join(
        [
            lead_finding(
                s, p, "log_loss", "log loss", digits=4, table="prediction", pairs="all"
            ),
            lead_finding(
                s, p, "brier", "Brier score", digits=4, table="prediction", pairs="all"
            ),
        ]
    )


def _convergence_findings(s: Summary) -> str:
    stems = [threshold_name(t) for t in s.thresholds]
    return join(
        [
            lead_finding(
                s,
                s.summary,
                f"{st}_median",
                f"{st.upper()} (KM median)",
                digits=1,
                unit=" games",
            )
            for st in stems
        ]
    )


def _curve_findings(s: Summary) -> str:
    """The lowest median error at 20 games (or the last tabulated count)."""
    c = s.convergence
    if c.empty:
        return ""
    games = 20 if (c["games"] == 20).any() else int(c["games"].max())
    at = c[c["games"] == games]
    return lead_finding(
        s,
        at,
        "median_error",
        f"median error after {games} games",
        digits=1,
        unit=" points",
        table="",
    )


def _flatness_part(s: Summary, h: str) -> list[str]:
    """The flatness check of the steady-state metrics, where slopes were recorded."""
    table = flatness_markdown(s)
    if not table:
        return []
    return [
        f"{h} Steady state: flatness",
        "",
        "Slope of each steady-state metric over its window, per year, with its "
        f"{s.confidence:.0%} Student-t interval over replicates: flat when the "
        "interval contains 0.",
        "",
        table,
        "",
    ]


def _pair_types_part(s: Summary) -> list[str]:
    """Log loss by pair type, where the prediction table has the split."""
    table = pair_types_markdown(s)
    if not table:
        return []
    return [
        "Log loss by pair type (who was rated before the game), with the paired "
        "difference to the reference on the same games:",
        "",
        table,
        "",
    ]


def _bands_markdown(s: Summary) -> str:
    b = s.bands
    bands = sorted(b["band"].unique())
    finite = [x for x in bands if math.isfinite(x)]
    first = f"<{min(finite):.0f}" if finite else "all"
    header = ["system"] + [f"{x:.0f}+" if math.isfinite(x) else first for x in bands]
    parts = []
    supports = [("", "own rated players")]
    if "rmse_common" in b:
        supports.append(("_common", "common support (players every system rates)"))
    for suffix, what in supports:
        rows = []
        for name in s.systems:
            part = b[b["system"] == name].set_index("band")
            row = [name]
            for x in bands:
                if x in part.index:
                    r = part.loc[x]
                    row.append(
                        f"{_number(r[f'rmse{suffix}'], 0)} / "
                        f"{_number(r[f'bias{suffix}'], 0)} "
                        f"(n {_number(r[f'n{suffix}'], 0)})"
                    )
                else:
                    row.append("")
            rows.append(row)
        parts.append(
            f"RMSE / bias (n) per band, {what}\n\n" + _markdown_table(header, rows)
        )
    index = paired_index(s)
    figure = "bias_common" if "rmse_common" in b else "bias"
    if index:
        rows = []
        for name in s.systems:
            row = [name]
            for x in bands:
                band = band_name(x)
                row.append(delta_cell(s, index, ("bands", band, name, figure), 0))
            rows.append(row)
        where = "on the common support" if figure == "bias_common" else ""
        parts.append(
            f"{delta_header(s, 'bias')} per band {where}\n\n"
            + _markdown_table(header, rows)
        )
    return "\n\n".join(parts)


def _groups_markdown(s: Summary) -> str:
    g = s.groups
    stems = [threshold_name(t) for t in s.thresholds]
    header = ["group", "system", "newcomers"]
    for t in s.thresholds:
        header += [
            f"N{t:g} KM (q25-q75; converged)",
            f"N{t:g} (so far)",
            f"N{t:g} months (KM)",
        ]
    header += ["final error"]
    index = paired_index(s)
    paired = bool(index)
    middle = stems[len(stems) // 2]
    if paired:
        header += [
            delta_header(s, "final error"),
            delta_header(s, f"{middle.upper()} converged"),
        ]
    rows = []
    for _, r in g[g["n"] > 0].iterrows():
        row = [str(r["group"]), str(r["system"]), _number(r["n"], 0)]
        for stem in stems:
            row += [
                f"{_km(r, f'{stem}_median', 0)} "
                f"({_number(r[f'{stem}_q25'], 0)}-{_number(r[f'{stem}_q75'], 0)}; "
                f"{_share(r, f'{stem}_converged')})",
                _with_interval(r, f"{stem}_so_far", 0),
                _km(r, f"{stem}_months", 1),
            ]
        row.append(_with_interval(r, "final_error", 1))
        if paired:
            key = ("groups", str(r["group"]), str(r["system"]))
            row += [
                delta_cell(s, index, (*key, "final_error"), 1),
                delta_cell(s, index, (*key, f"{middle}_converged"), 2),
            ]
        rows.append(row)
    return _markdown_table(header, rows)


def _published(fit: pd.Series, x_name: str, y_name: str) -> str:
    """The simulated fit against the published FIDE-Lichess blitz one."""
    a, b = PUBLISHED_CONVERSION
    slope = float(fit["slope"])
    if not math.isfinite(slope):
        return ""
    lo, hi = float(fit.get("slope_lo", math.nan)), float(fit.get("slope_hi", math.nan))
    where = ""
    if math.isfinite(lo) and math.isfinite(hi):
        inside = lo <= a <= hi
        where = f" ({a:g} is {'inside' if inside else 'outside'} the slope's interval)"
    at = 1500.0
    simulated = slope * at + float(fit["intercept"])
    return (
        f"The published fit of FIDE on Lichess blitz ratings is FIDE = {a:g} x "
        f"Lichess + {b:g} (docs/world.md); the simulated slope is "
        f"{slope:.3f}{where}, and at {y_name} {at:.0f} the simulated {x_name} "
        f"is {simulated:.0f} against the published {a * at + b:.0f}."
    )


def _comparison_markdown(s: Summary) -> str:
    c = s.comparison
    out = []
    for name in c["comparison"].unique():
        part = c[c["comparison"] == name]
        x_name, y_name = str(name).split(" vs ")
        fit = part[part["kind"] == "fit"].iloc[0]
        out += [
            f"**{name}**: {x_name} = {_with_interval(fit, 'slope', 3)} x {y_name} "
            f"+ {_with_interval(fit, 'intercept', 0)} (residual SD "
            f"{_with_interval(fit, 'residual_sd', 0)}, correlation "
            f"{_with_interval(fit, 'correlation', 3)}, n {_number(fit['n'], 0)}); "
            f"gap {y_name} - {x_name}: {_with_interval(fit, 'gap', 1, sign=True)}. "
            + _published(fit, x_name, y_name),
            "",
        ]
        rows = [
            [
                f"{r['bin']:.0f}",
                _number(r["n"], 0),
                _with_interval(r, "mean_x", 0),
                _with_interval(r, "mean_y", 0),
                _with_interval(r, "mean_true", 0),
            ]
            for _, r in part[part["kind"] == "bin"].sort_values("bin").iterrows()
        ]
        out.append(
            _markdown_table(
                [f"{x_name} band", "players", x_name, y_name, "true strength"], rows
            )
        )
        out.append("")
    return "\n".join(out)


def _report_markdown(
    arenas: Mapping[str, Summary],
    *,
    title: str,
    seed: int,
    versions: Mapping[str, str],
    reproduce: str,
    figures: bool,
    tables: Sequence[str],
    styles: Mapping[str, Style] | None = None,
    world: str = "",
) -> str:
    """``report.md``: every arena's tables and figures, then how to reproduce.

    ``styles`` names each system (label -> style, the registry's display
    name); ``world`` is the "World and systems" section's text.
    """
    parts = [f"# {title}", "", f"Seed: `{seed}`", ""]
    if world:
        parts += ["## World and systems", "", world.rstrip(), ""]
    for arena, s in arenas.items():
        if arena:
            parts += [f"## Arena {arena}", ""]
        level = "###" if arena else "##"
        shown = displayed(s, styles)
        parts += _arena_markdown(shown, _suffix(arena, arenas), figures, level)
    files = ", ".join(f"`{t}.csv`" for t in tables)
    parts += [
        "## Columns",
        "",
        columns_glossary(),
        "",
    ]
    parts += [
        "## Reproduce",
        "",
        "```sh",
        reproduce,
        "```",
        "",
        f"`config.toml` is the resolved config, `seed.txt` the root seed ({seed}), "
        "`versions.json` the versions below. Same config, seed and versions give "
        "the same numbers, serially or in parallel.",
        "",
        f"Tables: {files}.",
        "",
        _markdown_table(
            ["package", "version"], [[k, str(versions[k])] for k in sorted(versions)]
        ),
        "",
    ]
    return "\n".join(parts)
