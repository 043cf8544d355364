"""The full command line: every subcommand's parser and the error boundary.

:mod:`simulator.cli` (the package) is the entry point; it hands every
command but ``convert`` here. See the package's docstring for the layout.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import os
import signal
import sys
import zlib
from collections.abc import Callable, Sequence

from simulator import __version__
from simulator._atomic import Interrupted, OutputError
from simulator._jit import on_first_compile
from simulator.cli._values import EXIT_USAGE, CliError, _Parser, parse_game
from simulator.cli.calc import add_calc, cmd_systems
from simulator.cli.convert import add_convert
from simulator.cli.data import _GAMES_PLAYED_DEFAULT as _GAMES_PLAYED_DEFAULT
from simulator.cli.data import _RATE_SYSTEMS as _RATE_SYSTEMS
from simulator.cli.data import add_rate_replay
from simulator.cli.precompile import add_compile
from simulator.cli.run import add_run
from simulator.cli.world import add_world
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
    add_convert(commands)
    add_world(commands)
    add_compile(commands)

    listing = commands.add_parser("systems", help="list the registered rating systems")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    listing.set_defaults(func=cmd_systems)
    return parser, calc_options


def _unrecognized(
    args: argparse.Namespace, extras: list[str], calc_options: dict[str, list[str]]
) -> CliError:
    """A one-line error for options the chosen subcommand does not have."""
    shown = " ".join(extras)
    system = getattr(args, "system", None) if args.command == "calc" else None
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


#: Errors of a reader, decoder or decompressor, or of input too large or too
#: deep to hold: the input's fault, not the program's (exit 2, one line).
_INPUT_ERRORS: tuple[type[BaseException], ...] = (
    EOFError,
    zlib.error,
    csv.Error,
    UnicodeError,
    RecursionError,
    MemoryError,
    OverflowError,
)


def _inputs(args: argparse.Namespace) -> str:
    """The files a command reads, for a message."""
    names = [getattr(args, a, None) for a in ("file", "config")]
    shown = ", ".join(str(n) for n in names if n)
    return f"{shown}: " if shown else ""


def _input_error(args: argparse.Namespace, exc: BaseException) -> CliError:
    """The one line for an input ``exc`` that no reader turned into a message."""
    if isinstance(exc, RecursionError):
        text = "nested too deep to read"
    elif isinstance(exc, MemoryError):
        text = "too large to hold in memory"
    else:
        text = f"{type(exc).__name__}: {exc}"
    if len(text) > 200:
        text = text[:200] + "..."
    return CliError(f"ratingsim {args.command}: error: {_inputs(args)}{text}")


#: The line on stderr while numba compiles the loops a command needs.
COMPILING = "compiling (first run only)..."


def _interactive() -> bool:
    """Whether stderr is a terminal: a person waits there, not a log or a pipe.

    The compiling line is a progress message, so like a progress bar it is
    for a terminal; a pipe or a log file (and a test comparing stderr) stays
    free of it.
    """
    return sys.stderr.isatty()


def _compiling() -> None:
    """Say that numba compiles, on a line of its own (over a progress bar)."""
    print(f"\r\x1b[Kratingsim: {COMPILING}", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ratingsim`` with ``argv`` (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit code: 0, or 2 for bad input (one line on stderr, no
        traceback), 128 + the signal for SIGINT, SIGTERM or SIGHUP during a
        write (nothing written). A real bug keeps its traceback (exit 1).
    """
    try:
        return _main(argv)
    except BrokenPipeError:
        # ``ratingsim ... | head``: the reader left. Python would print an
        # error at exit when flushing standard output: point it at /dev/null.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return 128 + 13  # as if killed by SIGPIPE, the shell's convention


def _main(argv: Sequence[str] | None) -> int:
    parser, calc_options = _build()
    try:
        try:
            args, extras = parser.parse_known_args(argv)
        except SystemExit as stop:  # --help and --version
            return stop.code if isinstance(stop.code, int) else 0
        if extras:
            raise _unrecognized(args, extras, calc_options)
        func: Callable[[argparse.Namespace], int] = args.func
        quiet = getattr(args, "quiet", False) or not _interactive()
        notice = contextlib.nullcontext() if quiet else on_first_compile(_compiling)
        try:
            with notice:
                return func(args)
        except OutputError as exc:
            raise CliError(f"ratingsim {args.command}: error: {exc}") from None
        except _INPUT_ERRORS as exc:
            raise _input_error(args, exc) from None
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
        except Interrupted as exc:
            name = signal.Signals(exc.signum).name
            print(f"ratingsim: {name}; nothing was written", file=sys.stderr)
            return 128 + exc.signum
    except CliError as exc:
        message = " ".join(str(exc).split())
        if not message.startswith("ratingsim"):
            message = f"ratingsim: error: {message}"
        print(message, file=sys.stderr)
        return EXIT_USAGE
