"""``ratingsim compile``: compile the default experiment's loops into the cache.

The first run on a machine compiles its loops (numba) and keeps them in
numba's cache. This command does that ahead, on every core, each process a
share of the compile plan (:mod:`simulator.tasks.precompile`): for a
machine, an image or a CI cache being set up.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from simulator.cli._parser import CliError, _count_positive

__all__ = ["add_compile"]


def _cmd_compile(args: argparse.Namespace) -> int:
    """``ratingsim compile``: compile the plan; exit 1 if an entry failed."""
    from simulator.tasks import precompile
    from simulator.tasks.precompile import PlanError, compile_plan
    from simulator.tasks.run import default_jobs

    jobs = args.jobs if args.jobs is not None else default_jobs()
    start = time.perf_counter()
    try:
        report = compile_plan(jobs, precompile.PLAN)
    except PlanError as exc:
        raise CliError(f"ratingsim compile: error: {exc}") from None
    took = time.perf_counter() - start
    print(
        f"compiled {report.compiled} of the plan's {report.n_entries} entries in "
        f"{took:.1f} s on {jobs} process{'es' if jobs > 1 else ''} "
        f"({report.skipped} already in the cache, some compiled with a caller "
        f"just before; {len(report.failed)} failed)"
    )
    for line in report.failed:
        print(f"failed: {line}")
    return 1 if report.failed else 0


def add_compile(commands: Any) -> None:
    """The ``compile`` subparser."""
    parser = commands.add_parser(
        "compile",
        help="compile the default experiment's loops into numba's cache, ahead",
        description=(
            "Compile the loops the default experiment uses (numba) into numba's "
            "cache, on every core, so that the first run after it finds them "
            "there: for a machine, an image or a CI cache being set up. Loops "
            "already in the cache are skipped; exit 1 if one failed to compile."
        ),
    )
    parser.add_argument(
        "--jobs", type=_count_positive, help="processes (default: all cores)"
    )
    parser.set_defaults(func=_cmd_compile)
