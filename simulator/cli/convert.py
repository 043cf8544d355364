"""``ratingsim convert``: a rating in one pool as a rating in another, and why.

Answering reads the shipped table through :mod:`simulator.tasks.convert`
(no numpy, pandas or numba: :func:`convert_main` is what the ``ratingsim``
entry point calls for ``convert`` before it imports the rest of the CLI);
``--build`` runs the conversion experiment and writes a new table through
:mod:`simulator.tasks.conversion_table`, lazily imported.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from typing import Any

from simulator.cli._parser import EXIT_USAGE, CliError, _count_positive, _Parser, _seed
from simulator.tasks.convert import TableError, convert, format_conversion, load_table

__all__ = ["add_convert", "convert_main"]

_DESCRIPTION = """\
The expected rating in another pool of a player rated RATING in POOL, with an
interval, and the gap between online and FIDE ratings split into its causes.
POOL and --to are fide or a Lichess pool (lichess-blitz, lichess-rapid,
lichess-classical). It reads the conversion table the package ships, made by
the conversion experiment; --build remakes a table from that experiment.
"""

_EPILOG = """\
examples:
  ratingsim convert lichess-blitz 1900
  ratingsim convert fide 1800 --to lichess-rapid --json
  ratingsim convert --build experiments/conversion.toml --table-out table.json
"""


class _Error(Exception):
    """A one-line user error of ``convert``."""


def _rating(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 0 <= value <= 4000:
        raise argparse.ArgumentTypeError(f"{text!r} must be a rating in [0, 4000]")
    return value


def _configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("pool", nargs="?", help="fide or lichess-blitz, -rapid, ...")
    parser.add_argument("rating", nargs="?", type=_rating, help="the rating")
    parser.add_argument(
        "--to", dest="target", metavar="POOL", help="target pool (default: the other)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--table", help="read this table instead of the shipped one")
    parser.add_argument(
        "--build", metavar="CONFIG", help="run the conversion experiment CONFIG"
    )
    parser.add_argument("--table-out", help="with --build: where to write the table")
    parser.add_argument("--seed", type=_seed, help="with --build: the root seed")
    parser.add_argument(
        "--replicates", type=_count_positive, help="with --build: replicates"
    )
    parser.add_argument("--jobs", type=_count_positive, help="with --build: processes")
    parser.add_argument(
        "--out",
        metavar="DIR",
        help="with --build: also write the experiment's results folder (report, "
        "figures, every variant's conversion fit)",
    )
    parser.add_argument(
        "--force", action="store_true", help="replace --table-out (and --out)"
    )


#: The options that only ``--build`` reads: refused without it, not ignored.
_BUILD_ONLY = ("table_out", "seed", "replicates", "jobs", "out", "force")


def _answer(args: argparse.Namespace) -> int:
    for name in _BUILD_ONLY:
        if getattr(args, name) not in (None, False):
            raise _Error(f"--{name.replace('_', '-')} needs --build")
    if args.pool is None or args.rating is None:
        raise _Error("give a pool and a rating, e.g. 'lichess-blitz 1900'")
    try:
        table = load_table(args.table) if args.table else None
        result = convert(args.pool, args.rating, args.target, table=table)
    except TableError as exc:
        raise _Error(str(exc)) from None
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(format_conversion(result))
    return 0


def _build(args: argparse.Namespace) -> int:
    # The experiment runs through the full package: imported only here.
    from simulator._atomic import atomic_file, check_output
    from simulator.config import load_config
    from simulator.tasks.conversion_table import build_table, table_json
    from simulator.tasks.run import OutFolderError, run_experiment, run_sweep

    if not args.table_out:
        raise _Error("--build needs --table-out FILE")
    check_output(
        args.table_out, inputs=(args.build,), force=args.force, option="--table-out"
    )
    if args.out:
        # One run for both: the results folder as `ratingsim run` writes it,
        # then the table from the same sweep.
        try:
            done = run_experiment(
                args.build,
                seed=args.seed,
                replicates=args.replicates,
                out=args.out,
                jobs=args.jobs,
                force=args.force,
            )
        except OutFolderError as exc:
            raise _Error(str(exc)) from None
        if done.sweep is None or done.path is None:
            raise _Error("the experiment failed; no table written")
        sweep = done.sweep
    else:
        config = load_config(args.build)
        sweep = run_sweep(
            config, seed=args.seed, replicates=args.replicates, jobs=args.jobs
        )
    parts = ["ratingsim convert --build", args.build, f"--seed {sweep.seed}"]
    if args.replicates:
        parts.append(f"--replicates {args.replicates}")
    table = build_table(
        sweep, experiment=str(args.build), command=" ".join(parts) + " --table-out F"
    )
    with atomic_file(args.table_out, force=args.force) as handle:
        handle.write(table_json(table))
    print(f"conversion table written to {args.table_out}", file=sys.stderr)
    if args.out:
        from pathlib import Path

        from simulator.evaluation.figures import draw_conversion_table

        draw_conversion_table(load_table(args.table_out), Path(args.out))
        print(f"its figure: {args.out}/conversion.png", file=sys.stderr)
    return 0


def _cmd_convert(args: argparse.Namespace) -> int:
    try:
        return _build(args) if args.build else _answer(args)
    except _Error as exc:
        raise CliError(f"ratingsim convert: error: {exc}") from None


def add_convert(commands: Any) -> None:
    """The ``convert`` subparser of the full CLI (``ratingsim --help`` lists it)."""
    parser = commands.add_parser(
        "convert",
        help="a Lichess rating as a FIDE rating and back, with the gap's causes",
        description=_DESCRIPTION,
        epilog=_EPILOG,
    )
    _configure(parser)
    parser.set_defaults(func=_cmd_convert)


def convert_main(argv: Sequence[str]) -> int:
    """``ratingsim convert ARGS`` without the rest of the CLI: answers at once.

    ``--build`` hands over to the full CLI (it runs an experiment).
    """
    if "--build" in argv or any(a.startswith("--build=") for a in argv):
        from simulator.cli.commands import main

        return main(["convert", *argv])
    parser = _Parser(
        prog="ratingsim convert",
        description=_DESCRIPTION,
        epilog=_EPILOG,
    )
    _configure(parser)
    try:
        return _answer(parser.parse_args(list(argv)))
    except SystemExit as exc:  # --help
        return int(exc.code or 0)
    except CliError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    except _Error as exc:
        print(f"ratingsim convert: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        # A closed pipe (``| head``) is the reader's choice, not an error.
        sys.stderr.close()
        return 0
