"""``ratingsim run``: its options; the run itself is a task.

:func:`~simulator.tasks.run.run_experiment` resolves the seed, the replicates and
the results folder, runs the sweep and writes the folder.
"""

from __future__ import annotations

import argparse
from typing import Any

from simulator.cli._parser import CliError, _count_positive, _seed

__all__ = ["add_run"]


def _cmd_run(args: argparse.Namespace) -> int:
    """``ratingsim run``: run an experiment or a sweep and write its results folder."""
    from simulator.tasks.run import ClusterError, OutFolderError, run_experiment

    try:
        done = run_experiment(
            args.config,
            seed=args.seed,
            replicates=args.replicates,
            out=args.out,
            jobs=args.jobs,
            dask=args.dask,
            figures=not args.no_figures,
            progress=not args.quiet,
            force=args.force,
            histories=args.histories or None,
            predictions=args.predictions or None,
            settings=args.set or (),
        )
    except (OutFolderError, ClusterError) as exc:
        raise CliError(f"ratingsim run: error: {exc}") from None
    return 1 if done.path is None or done.failures else 0


def add_run(commands: Any) -> None:
    """The ``run`` subparser."""
    run = commands.add_parser(
        "run",
        help="run an experiment (the default comparison without a config)",
        description=(
            "Run an experiment from a TOML config (the built-in default comparison "
            "without one), print the summary table and write a results folder."
        ),
    )
    run.add_argument("config", nargs="?", help="a TOML config file")
    run.add_argument("--out", help="results folder (default results/run-SEED)")
    run.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help=(
            "override a config key (dotted, as a variant's set; VALUE is TOML), "
            "e.g. --set population.n_players=20000; repeatable"
        ),
    )
    run.add_argument(
        "--seed", type=_seed, help="root seed (default: the config's, else random)"
    )
    run.add_argument("--replicates", type=_count_positive, help="number of replicates")
    run.add_argument(
        "--jobs", type=_count_positive, help="processes (default: all cores)"
    )
    run.add_argument("--no-figures", action="store_true", help="skip the PNG figures")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    run.add_argument(
        "--force",
        action="store_true",
        help="replace an existing results folder (once the new one is complete)",
    )
    run.add_argument(
        "--histories",
        action="store_true",
        help="also write every player's rating history (history.parquet)",
    )
    run.add_argument(
        "--predictions",
        action="store_true",
        help="also write every game's predictions (predictions.parquet)",
    )
    run.add_argument(
        "--dask",
        metavar="ADDRESS",
        help="run the tasks on the Dask scheduler at ADDRESS (tcp://host:port)",
    )
    run.set_defaults(func=_cmd_run)
