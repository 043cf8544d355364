"""Tests of simulator.evaluation.formatting: the terminal summary table."""

from __future__ import annotations

import pytest
from synthetic_summary import SYSTEMS, replicate, three_replicates

from simulator.evaluation.formatting import format_summary_table
from simulator.evaluation.results import Summary, combine


@pytest.fixture(scope="module")
def summary() -> Summary:
    return three_replicates()


def test_summary_table_rows_and_intervals(summary: Summary) -> None:
    """The terminal table has a row per system and ± intervals with replicates."""
    text = format_summary_table(summary)
    lines = text.splitlines()
    assert "N50" in lines[1]
    for name in SYSTEMS:
        assert sum(line.startswith(name + " ") for line in lines) == 1
    assert "±" in text
    widths = {len(line) for line in lines[1:3]}
    assert len(widths) == 1  # header and rule line up


def test_summary_table_one_replicate_has_no_interval() -> None:
    """With one replicate the table shows values without ±."""
    text = format_summary_table(combine([replicate(7)]))
    assert "±" not in text
    assert "1 replicate" in text


def test_summary_table_unconverged_reads_not_reached() -> None:
    """A median decided by censored newcomers reads 'not reached', not inf."""
    result = replicate(5, n_days=3)
    text = format_summary_table(combine([result]))
    fide = next(line for line in text.splitlines() if line.startswith("fide"))
    assert "not reached" in fide


def test_summary_table_puts_the_common_support_first(summary: Summary) -> None:
    """With the common support recorded, the headline is like for like first."""
    text = format_summary_table(summary)
    header = text.splitlines()[1]
    assert header.index("RMSE, common") < header.index("RMSE, own")
    assert header.index("log loss, both rated") < header.index("log loss, all")
    row = summary.summary.set_index("system").loc[SYSTEMS[-1]]
    line = next(x for x in text.splitlines() if x.startswith(SYSTEMS[-1] + " "))
    assert f"{row['rmse_common']:.1f}" in line and f"{row['rmse']:.1f}" in line
    plain = summary.summary.drop(columns=["rmse_common", "log_loss_common"])
    without = format_summary_table(Summary(**{**summary.__dict__, "summary": plain}))
    assert "excess over oracle" in without.splitlines()[1]


def test_summary_table_shows_the_cohort_drift(summary: Summary) -> None:
    """Where the cohort's drift was measured, the terminal table shows it."""
    table = summary.summary.copy()
    table["drift_per_year"] = -4.25
    text = format_summary_table(Summary(**{**summary.__dict__, "summary": table}))
    assert "cohort drift / yr" in text.splitlines()[1]
    assert "-4.25" in text
    table["drift_per_year"] = float("nan")
    text = format_summary_table(Summary(**{**summary.__dict__, "summary": table}))
    assert "drift" not in text.splitlines()[1]
