"""The command line: ``ratingsim`` and its subcommands, each in its own module.

The CLI only parses, calls a task and prints: the calculator is
:func:`simulator.tasks.calc.calculate`, a run
:func:`simulator.tasks.run.run_experiment`, and rate and replay are
:mod:`simulator.tasks.rate` and :mod:`simulator.tasks.replay`. Each subcommand
is a ``_cmd_*`` function registered on an argparse subparser, in
:mod:`~simulator.cli.calc` (calc, systems), :mod:`~simulator.cli.run`,
:mod:`~simulator.cli.data` (rate, replay), :mod:`~simulator.cli.convert` and
:mod:`~simulator.cli.world`;
the parser and the error boundary are in :mod:`~simulator.cli.commands`; the
option types are in :mod:`~simulator.cli._values`. This module imports none
of them until a command runs: ``convert`` answers from its table without
loading the simulation stack (numpy, pandas, numba). Bad input never shows
a traceback: it is reported as one line on stderr, naming the bad value,
with exit code 2.

Imports: every layer below (base, systems, world, evaluation, data, config,
engine, tasks); the tasks of run, rate and replay lazily, so that ``calc``
starts fast.

Examples
--------
>>> main(["calc", "classic", "--rating", "2400", "--k", "10", "--game", "2300:1"])
classic: rating 2400, K 10 (given)
#  opponent  score  expected  change
1      2300      1      0.64    +3.6
total            1      0.64    +3.6
Change: +3.6, rounded +4
New rating: 2404
0
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

__all__ = ["CliError", "GameInput", "build_parser", "main", "parse_game"]

#: Names this package re-exports from the modules that define them, loaded on
#: first use so that ``import simulator.cli`` stays light.
_LAZY = {
    "CliError": "simulator.cli._values",
    "parse_game": "simulator.cli._values",
    "GameInput": "simulator.tasks.calc_types",
    "build_parser": "simulator.cli.commands",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ratingsim`` with ``argv`` (default ``sys.argv[1:]``).

    ``convert`` answers here, through :func:`simulator.cli.convert.convert_main`,
    without loading the simulation stack; every other command goes to
    :func:`simulator.cli.commands.main`, which documents the exit codes.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["convert"]:
        from simulator.cli.convert import convert_main

        return convert_main(args[1:])
    from simulator.cli.commands import main as full

    return full(args)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'simulator.cli' has no attribute {name!r}")
