"""``ratingsim world``: a config's simulated pool beside the published figures.

Draws the config's population (its first arena's outcome model for draws and
White's score) over a few years and replicates (by default enough for
:data:`MIN_PLAYERS` players on the first day in all) and prints
:func:`~simulator.world.calibration.calibrate`'s table: each row simulated
(mean and 95 % interval over replicates), published (docs/world.md), the
deviation and whether it is within the row's tolerance. ``--out DIR`` also
writes ``calibration.md`` and ``calibration.csv`` there.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from simulator._atomic import atomic_file
from simulator.cli._parser import _count_positive, _seed

__all__ = ["MIN_PLAYERS", "add_world", "markdown"]

#: Players on the first day over all replicates that ``--replicates`` draws
#: by default: the top bands hold 0.07 % and 0.7 % of the list, a handful of
#: players in one small pool, so a default pool of 2,000 runs 10 replicates.
MIN_PLAYERS = 20_000


def _float(value: Any) -> float:
    return float(value)


def _number(value: Any) -> str:
    value = _float(value)
    if math.isnan(value):
        return ""
    return f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def markdown(table: pd.DataFrame, title: str) -> str:
    """The calibration table as a markdown document."""
    checked = table[table["within"] != ""]
    n_out = int((checked["within"] == "NO").sum())
    lines = [
        f"# Calibration: {title}",
        "",
        f"{len(checked) - n_out} of {len(checked)} rows within tolerance"
        + (f"; {n_out} flagged NO." if n_out else "."),
        "",
        "| quantity | group | simulated | 95 % interval | published | deviation "
        "| tolerance | unit | within | source |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in table.itertuples(index=False):
        interval = (
            ""
            if math.isnan(_float(row.low))
            else f"{_number(row.low)} to {_number(row.high)}"
        )
        lines.append(
            f"| {row.quantity} | {row.group} | {_number(row.simulated)} | {interval} "
            f"| {_number(row.published)} | {_number(row.deviation)} "
            f"| {_number(row.tolerance)} | {row.unit} | {row.within} | {row.source} |"
        )
    return "\n".join(lines) + "\n"


def _cmd_world(args: argparse.Namespace) -> int:
    """``ratingsim world``: the calibration report of a config's world."""
    from simulator.config import default_config, load_config
    from simulator.systems._common import day_of
    from simulator.world.calibration import calibrate

    config = default_config() if args.config is None else load_config(args.config)
    population = config.population
    if args.players is not None:
        population = dataclasses.replace(population, n_players=args.players)
    seed = args.seed if args.seed is not None else config.seed
    seed = 0 if seed is None else seed
    if args.years < 2:
        raise ValueError("ratingsim world: --years must be at least 2")
    replicates = args.replicates
    if replicates is None:
        replicates = max(3, min(100, -(-MIN_PLAYERS // max(population.n_players, 1))))
    table = calibrate(
        population,
        config.arena[0].outcome_model(),
        np.random.default_rng(seed),
        start_day=day_of(config.start_date),
        years=args.years,
        replicates=replicates,
    )
    text = markdown(
        table,
        f"{config.title or 'default world'} (seed {seed}, {replicates} replicates "
        f"of {population.n_players:,} players)",
    )
    print(text, end="")
    if args.out is not None:
        out = Path(args.out)
        with atomic_file(out / "calibration.md", force=args.force) as handle:
            handle.write(text)
        with atomic_file(out / "calibration.csv", force=args.force, newline="") as h:
            table.to_csv(h, index=False)
    return 0


def add_world(commands: Any) -> None:
    """The ``world`` subparser."""
    world = commands.add_parser(
        "world",
        help="the simulated pool beside published figures (calibration report)",
        description=(
            "Draw a config's world and print its calibration report: the pool's "
            "rating bands, juniors, newcomers, games a year, draws, White's score, "
            "yearly change by age and list size beside the published figures of "
            "docs/world.md, each row flagged when out of its tolerance."
        ),
    )
    world.add_argument("config", nargs="?", help="a TOML config file")
    world.add_argument(
        "--out", help="write calibration.md and calibration.csv in this folder"
    )
    world.add_argument("--seed", type=_seed, help="root seed (default: the config's)")
    world.add_argument(
        "--replicates",
        type=_count_positive,
        help=f"replicates (default: enough for {MIN_PLAYERS:,} players on the "
        "first day in all, at least 3)",
    )
    world.add_argument(
        "--years",
        type=_count_positive,
        default=3,
        help="years simulated; the list is read at the end (3: the published "
        "list of Oct 2026 against a start in 2024)",
    )
    world.add_argument(
        "--players", type=_count_positive, help="initial pool size (the config's)"
    )
    world.add_argument(
        "--force", action="store_true", help="replace existing output files"
    )
    world.set_defaults(func=_cmd_world)
