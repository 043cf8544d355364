"""The command line: ``ratingsim calc``, ``run``, ``rate``, ``replay``, ``systems``.

The CLI only parses, calls a task and prints: the calculator is
:func:`simulator.tasks.calc.calculate`, a run
:func:`simulator.tasks.run.run_experiment`, and rate and replay are
:mod:`simulator.tasks.rate` and :mod:`simulator.tasks.replay`. Each subcommand
is a ``_cmd_*`` function registered on an argparse subparser, in
:mod:`~simulator.cli.calc` (calc, systems), :mod:`~simulator.cli.run` and
:mod:`~simulator.cli.data` (rate, replay); the option types are in
:mod:`~simulator.cli._values`. Bad input never shows a traceback: it is
reported as one line on stderr, naming the bad value, with exit code 2.

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

import argparse
import sys
from collections.abc import Callable, Sequence

from simulator import __version__
from simulator.cli._values import EXIT_USAGE, CliError, _Parser, parse_game
from simulator.cli.calc import add_calc, cmd_systems
from simulator.cli.data import _GAMES_PLAYED_DEFAULT as _GAMES_PLAYED_DEFAULT
from simulator.cli.data import _RATE_SYSTEMS as _RATE_SYSTEMS
from simulator.cli.data import add_rate_replay
from simulator.cli.run import add_run
from simulator.config import ConfigError
from simulator.tasks.calc_types import GameInput

__all__ = ["CliError", "GameInput", "build_parser", "main", "parse_game"]


def build_parser() -> argparse.ArgumentParser:
    """The ``ratingsim`` parser: one subparser per subcommand.

    Each subcommand's parser sets ``func``, the function that runs it.
    """
    return _build()[0]


def _build() -> tuple[_Parser, dict[str, list[str]]]:
    """The parser, and each ``calc`` option with the systems that have it."""
    parser = _Parser(
        prog="ratingsim",
        description="A research simulator for chess rating systems.",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(
        dest="command", metavar="COMMAND", required=True, parser_class=_Parser
    )
    calc_options = add_calc(commands)
    add_run(commands)
    add_rate_replay(commands)

    listing = commands.add_parser("systems", help="list the registered rating systems")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(func=cmd_systems)
    return parser, calc_options


def _unrecognized(
    args: argparse.Namespace, extras: list[str], calc_options: dict[str, list[str]]
) -> CliError:
    """A one-line error for options the chosen subcommand does not have."""
    shown = " ".join(extras)
    system = getattr(args, "system", None)
    if system is None:
        return CliError(f"ratingsim: error: unrecognized arguments: {shown}")
    for extra in extras:
        option = extra.split("=", 1)[0]
        if option in calc_options:
            return CliError(
                f"ratingsim calc {system}: error: {shown}: {option} does not apply "
                f"to {system} (it applies to {', '.join(calc_options[option])})"
            )
    return CliError(f"ratingsim calc {system}: error: unrecognized arguments: {shown}")


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ratingsim`` with ``argv`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0, or 2 for bad input (one line on stderr, no traceback).
    """
    parser, calc_options = _build()
    try:
        try:
            args, extras = parser.parse_known_args(argv)
        except SystemExit as stop:  # --help and --version
            return stop.code if isinstance(stop.code, int) else 0
        if extras:
            raise _unrecognized(args, extras, calc_options)
        func: Callable[[argparse.Namespace], int] = args.func
        try:
            return func(args)
        except ValueError as exc:
            # In the calculator every ValueError comes from the user's numbers;
            # in a run only a ConfigError does: anything else is a bug, and
            # keeps its traceback.
            if args.command == "run" and not isinstance(exc, ConfigError):
                raise
            raise CliError(str(exc)) from None
        except KeyboardInterrupt:
            print("ratingsim: interrupted; nothing was written", file=sys.stderr)
            return 130
    except CliError as exc:
        message = " ".join(str(exc).split())
        if not message.startswith("ratingsim"):
            message = f"ratingsim: error: {message}"
        print(message, file=sys.stderr)
        return EXIT_USAGE
