"""``ratingsim rate`` and ``ratingsim replay``: their options and output.

The logic is in :mod:`simulator.tasks.rate` and :mod:`simulator.tasks.replay`;
these commands read the files, call the tasks and print.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from simulator._atomic import OutputError, atomic_file, check_output
from simulator.cli._parser import _count_positive
from simulator.cli._values import (
    CliError,
    _count,
    _date,
    _games_played,
    _start_rating,
    _system_list,
)

__all__ = ["add_rate_replay"]


def _trf_games(path: str, players: Any, skip_bad: bool, where: str) -> Any:
    """A TRF's rated games as replay batches (simulator.tasks.replay.tournament)."""
    from simulator.data.records import FormatError
    from simulator.data.trf import read_trf
    from simulator.tasks.replay.tournament import tournament_batches

    try:
        return tournament_batches(read_trf(path, skip_bad=skip_bad), players)
    except FormatError as exc:
        raise CliError(f"{where} {exc}") from None
    except OSError as exc:
        raise CliError(f"{where} cannot read {path}: {exc.strerror or exc}") from None


def _share(text: str) -> float:
    """``--test-share``: a number in (0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 < value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} must be a number in (0, 1]")
    return value


def _labelled_systems(text: str) -> list[str]:
    """``--systems``: comma-separated ``[LABEL=]NAME[:KEY=VALUE...]``, each checked."""
    from simulator.tasks.replay.labels import labelled_systems

    specs = [s.strip() for s in text.split(",") if s.strip()]
    try:
        labelled_systems(specs)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return specs


def _cmd_rate(args: argparse.Namespace) -> int:
    """``ratingsim rate TOURNAMENT.trf``: rate a FIDE tournament report."""
    from simulator.data.records import FormatError
    from simulator.data.trf import read_trf
    from simulator.tasks import rate

    where = "ratingsim rate: error:"
    try:
        tournament = read_trf(args.file, skip_bad=args.skip_bad)
        seeding = None
        if args.fide_list is not None:
            seeding = rate.seed_tournament(
                tournament,
                args.fide_list,
                rating_type=args.list_type,
                games_played_default=args.games_played_default,
            )
        systems = [args.system] if args.compare is None else args.compare
        for name in systems:
            if name not in rate.RATE_SYSTEMS:
                raise CliError(
                    f"{where} {name} does not rate tournaments (a list-based system "
                    f"is needed: {', '.join(rate.RATE_SYSTEMS)})"
                )
        results = [
            rate.rate_tournament(
                tournament,
                name,
                games_played_default=args.games_played_default,
                games_played=dict(args.games_played),
                seeding=seeding,
            )
            for name in systems
        ]
    except FormatError as exc:
        raise CliError(f"{where} {exc}") from None
    except OSError as exc:
        name = exc.filename or args.file
        raise CliError(f"{where} cannot read {name}: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CliError(f"{where} {exc}") from None
    if tournament.skipped:
        print(
            f"ratingsim rate: skipped {len(tournament.skipped)} bad record(s) "
            "(listed in the output)",
            file=sys.stderr,
        )
    if args.compare is None:
        render = {"table": rate.to_table, "csv": rate.to_csv, "json": rate.to_json}
        kwargs = {} if args.format == "json" else {"detail": args.detail}
        text = render[args.format](results[0], **kwargs)
    else:
        if args.detail:
            raise CliError(f"{where} --detail shows one system: drop --compare")
        compare = {
            "table": rate.compare_table,
            "csv": rate.compare_csv,
            "json": rate.compare_json,
        }
        text = compare[args.format](results)
    print(text.rstrip("\n"))
    return 0


def _cmd_replay(args: argparse.Namespace) -> int:
    """``ratingsim replay GAMES``: walk-forward replay through the systems."""
    from tqdm import tqdm

    from simulator.data.records import (
        BadRecords,
        FormatError,
        Players,
        read_games,
        sort_batches,
    )
    from simulator.tasks import replay
    from simulator.tasks.replay.output import check_table_output, write_table

    where = "ratingsim replay: error:"
    # Before the first game is read: an output that cannot be written, or
    # that is the input, is refused now.
    tables = {"--history": args.history, "--predictions": args.predictions}
    try:
        if args.ratings_out is not None:
            check_output(
                args.ratings_out,
                force=args.force,
                inputs=(args.file,),
                option="--ratings-out",
            )
        for option, path in tables.items():
            if path is not None:
                check_table_output(
                    path, force=args.force, inputs=(args.file,), option=option
                )
    except (OutputError, ValueError) as exc:
        raise CliError(f"{where} {exc}") from None
    outputs = [p for p in (args.ratings_out, *tables.values()) if p is not None]
    if len(set(outputs)) != len(outputs):
        raise CliError(f"{where} two outputs are the same file: {outputs}")
    window = None
    if args.test_from is not None or args.test_share is not None:
        from simulator.evaluation.protocol import Window

        try:
            window = Window(test_from=args.test_from, test_share=args.test_share)
        except ValueError as exc:
            raise CliError(f"{where} {exc}") from None
    players = Players()
    bad = BadRecords()
    keep, skipped = _game_filter(args, where)
    if args.file.lower().endswith(".trf"):
        batches = _trf_games(args.file, players, args.skip_bad, where)
    else:
        batches = read_games(
            args.file,
            players=players,
            skip_bad=args.skip_bad,
            bad=bad,
            ordered=not args.sort,
            input_format=args.input_format,
            keep=keep,
            skipped=skipped,
        )
    if args.sort:
        batches = sort_batches(batches, players)
    start, counts = _list_start(args, players, where)
    bar = tqdm(
        unit=" games",
        desc="games read",
        disable=True if args.quiet else None,
        file=sys.stderr,
        unit_scale=True,
    )
    try:
        result = replay.replay(
            batches,
            args.systems,
            players=players,
            seed=args.seed_ratings,
            start_rating=args.start_rating,
            games_played_default=args.games_played_default,
            calibration_bins=args.bins,
            history=args.history is not None,
            window=window,
            reference=args.reference,
            predictions=args.predictions is not None,
            progress=bar.update,
            fide_list=start,
        )
    except OSError as exc:
        raise CliError(
            f"{where} cannot read {args.file}: {exc.strerror or exc}"
        ) from None
    except FormatError as exc:  # it names the file and the line
        raise CliError(f"{where} {exc}") from None
    except ValueError as exc:
        skipped = f" ({bad.count} bad record(s) skipped)" if bad.count else ""
        raise CliError(f"{where} {args.file}: {exc}{skipped}") from None
    finally:
        bar.close()
    for line in bad.report() + skipped.report():
        print(f"ratingsim replay: {line.strip()}", file=sys.stderr)
    if args.ratings_out is not None:
        try:
            with atomic_file(args.ratings_out, force=args.force, newline="") as out:
                result.ratings.to_csv(out, index=False, lineterminator="\n")
        except OSError as exc:
            raise CliError(
                f"{where} cannot write {args.ratings_out}: {exc.strerror or exc}"
            ) from None
    for path, frame in (
        (args.history, result.history),
        (args.predictions, result.predictions),
    ):
        if path is None or frame is None:
            continue
        try:
            write_table(frame, path, force=args.force)
        except OSError as exc:
            raise CliError(
                f"{where} cannot write {path}: {exc.strerror or exc}"
            ) from None
    if args.format == "json":
        body = replay.to_json_dict(result)
        body["skipped"] = {
            "count": bad.count,
            "examples": [str(b) for b in bad.examples],
        }
        body["filter"] = {"keeps": keep.describe(), "left_out": skipped.by_reason}
        if counts is not None:
            body["fide_list"] = {"file": args.fide_list, **counts}
        print(json.dumps(body, indent=2, allow_nan=False, ensure_ascii=False))
    else:
        print(replay.to_table(result, top=args.top))
        print(f"Games kept: {keep.describe()}.")
        if counts is not None:
            print(_list_line(args.fide_list, counts))
        for line in bad.report() + skipped.report():
            print(line)
    return 0


#: ``simulator.tasks.rate.RATE_SYSTEMS`` and ``GAMES_PLAYED_DEFAULT``, as literals so
#: that building the parser loads no reader (tests/tasks/rate/test_rating.py compares).
_RATE_SYSTEMS = ("fide", "fide-2024", "classic")
_GAMES_PLAYED_DEFAULT = 30

_RATE_EPILOG = """\
examples:
  ratingsim rate tournament.trf
  ratingsim rate tournament.trf --system classic --detail
  ratingsim rate tournament.trf --compare --format csv
  ratingsim rate tournament.trf --games-played-default 10 --games-played 14=50
"""

_REPLAY_EPILOG = """\
examples:
  ratingsim replay games.csv
  ratingsim replay lichess_db.pgn.gz --systems lichess,glicko2,elo \\
      --seed-ratings file
  ratingsim replay games.csv --format json --ratings-out ratings.csv
"""


def add_rate_replay(commands: Any) -> None:
    """The ``rate`` and ``replay`` subparsers."""
    rate = commands.add_parser(
        "rate",
        help="rate a FIDE tournament report (TRF-16)",
        description=(
            "Rate a tournament from a FIDE Tournament Report File (TRF-16) as one "
            "event of one rating period: for every player the games rated, the "
            "expected scores, the K used, the change and the new rating (unrated "
            "players: the performance toward an initial rating). What a TRF does "
            "not say is assumed and listed in the output."
        ),
        epilog=_RATE_EPILOG,
    )
    rate.add_argument("file", metavar="TOURNAMENT.trf", help="a TRF-16 file")
    rate.add_argument(
        "--system",
        choices=_RATE_SYSTEMS,
        default="fide",
        help="the rules (default fide: 2024 rules with the 2025 amendment)",
    )
    rate.add_argument(
        "--compare",
        type=_system_list,
        nargs="?",
        const=list(_RATE_SYSTEMS),
        metavar="SYSTEMS",
        help=f"several systems side by side (default {','.join(_RATE_SYSTEMS)})",
    )
    rate.add_argument("--format", choices=("table", "csv", "json"), default="table")
    rate.add_argument(
        "--detail", action="store_true", help="every round of every player"
    )
    rate.add_argument(
        "--games-played-default",
        type=_count,
        default=_GAMES_PLAYED_DEFAULT,
        metavar="G",
        help=(
            "games each rated player had before the event (not in a TRF; "
            f"default {_GAMES_PLAYED_DEFAULT})"
        ),
    )
    rate.add_argument(
        "--games-played",
        type=_games_played,
        action="append",
        default=[],
        metavar="START=G",
        help="games one player had before the event (repeatable)",
    )
    _add_list(rate)
    rate.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed lines and games (counted and listed) instead of failing",
    )
    rate.set_defaults(func=_cmd_rate)

    replay = commands.add_parser(
        "replay",
        help="replay game records (CSV, PGN) through rating systems",
        description=(
            "Replay the games of a CSV or PGN file (optionally .gz) in date order "
            "through rating systems and report walk-forward prediction metrics "
            "(log loss, Brier score, calibration; each system's pre-game "
            "prediction only) and the ratings at the end. Ratings the file carries "
            "(WhiteElo, white_rating) are scored beside them. The file is streamed."
        ),
        epilog=_REPLAY_EPILOG,
    )
    replay.add_argument(
        "file",
        metavar="GAMES",
        help=(
            "a .csv or .pgn file (or .gz, .bz2, .zst), a FIDE tournament report "
            "(.trf), or - for standard input"
        ),
    )
    replay.add_argument(
        "--systems",
        type=_labelled_systems,
        default=["fide", "glicko2", "lichess", "elo"],
        help=(
            "comma-separated systems: registry names, or LABEL=NAME:KEY=VALUE to "
            "label a variant, e.g. elo-k20=elo:k_factor=20,elo-k40=elo:k_factor=40 "
            "(default fide,glicko2,lichess,elo)"
        ),
    )
    replay.add_argument("--format", choices=("table", "json"), default="table")
    replay.add_argument(
        "--ratings-out", metavar="FILE.csv", help="write every player's final ratings"
    )
    replay.add_argument(
        "--history",
        metavar="FILE",
        help=(
            "write every player's rating history per system, with FIDE's events "
            "(.parquet or .csv.gz)"
        ),
    )
    replay.add_argument(
        "--predictions",
        metavar="FILE",
        help=(
            "write every game's prediction by every system, with win/draw/loss "
            "probabilities (.parquet or .csv.gz)"
        ),
    )
    replay.add_argument(
        "--force",
        action="store_true",
        help="replace existing output files (once the new ones are complete)",
    )
    replay.add_argument(
        "--top", type=_count, default=20, help="players shown at the end (default 20)"
    )
    replay.add_argument(
        "--seed-ratings",
        choices=("none", "file"),
        default="none",
        help="new players start from the systems' defaults, or the file's rating",
    )
    replay.add_argument(
        "--start-rating",
        type=_start_rating,
        default=None,
        metavar="R",
        help=(
            "an ASSUMED list rating for new players under fide/classic that "
            "nothing seeds (default none: unrated until FIDE's rules give a "
            "first rating)"
        ),
    )
    replay.add_argument(
        "--games-played-default",
        type=_count,
        default=_GAMES_PLAYED_DEFAULT,
        metavar="G",
        help=(
            "games before of a player listed with the file's rating (default "
            f"{_GAMES_PLAYED_DEFAULT})"
        ),
    )
    replay.add_argument(
        "--bins", type=_count_positive, default=10, help="calibration bins"
    )
    replay.add_argument(
        "--sort",
        action="store_true",
        help="sort a file that is not in date order (in memory)",
    )
    replay.add_argument(
        "--skip-bad",
        action="store_true",
        help="skip malformed records (counted and reported) instead of failing",
    )
    replay.add_argument(
        "--test-from",
        type=_date,
        metavar="DATE",
        help=(
            "evaluation protocol: games from DATE (YYYY-MM-DD) on are the test "
            "window, the earlier ones the warm-up"
        ),
    )
    replay.add_argument(
        "--test-share",
        type=_share,
        metavar="X",
        help="evaluation protocol: the last share X (0-1] of the games is the test",
    )
    replay.add_argument(
        "--reference",
        metavar="LABEL",
        help="the system of the protocol's paired differences (default the first)",
    )
    replay.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_filters(replay)
    _add_list(replay)
    replay.set_defaults(func=_cmd_replay)


def _add_list(parser: argparse.ArgumentParser) -> None:
    """``--fide-list`` and ``--list-type`` (simulator.data.fide_list)."""
    parser.add_argument(
        "--fide-list",
        metavar="LIST",
        help="seed players from a FIDE rating list (TXT or XML, .zip as "
        "downloaded): rating, K, games, birth year; matched by FIDE ID, else name",
    )
    parser.add_argument(
        "--list-type",
        choices=("standard", "rapid", "blitz"),
        default="standard",
        help="the ratings of a combined list to use (default standard)",
    )


def _list_start(args: argparse.Namespace, players: Any, where: str) -> tuple[Any, Any]:
    """The replay's ``start`` from ``--fide-list``, and the match counts it fills."""
    if args.fide_list is None:
        return None, None
    from simulator.data.fide_list import FideList, list_seeds, read_fide_list
    from simulator.data.records import FormatError

    try:
        flist = FideList(
            read_fide_list(args.fide_list, args.list_type), source=args.fide_list
        )
    except FormatError as exc:
        raise CliError(f"{where} {exc}") from None
    except OSError as exc:
        raise CliError(
            f"{where} cannot read {args.fide_list}: {exc.strerror or exc}"
        ) from None
    counts: dict[str, int] = {"id": 0, "name": 0, "unmatched": 0, "inactive": 0}

    def start(lo: int, hi: int) -> Any:
        return list_seeds(
            flist,
            players.names,
            players.fide_ids,
            lo,
            hi,
            games_played_default=args.games_played_default,
            counts=counts,
        )

    return start, counts


def _list_line(source: str, counts: dict[str, int]) -> str:
    matched = counts["id"] + counts["name"]
    total = matched + counts["unmatched"]
    return (
        f"Seeded from the FIDE list {source}: {matched} of {total}"
        f" players matched ({counts['id']} by FIDE ID, {counts['name']} by name; "
        f"{counts['inactive']} flagged inactive); the unmatched entered as new players."
    )


def _add_filters(parser: argparse.ArgumentParser) -> None:
    """The input format and the PGN game filters (simulator.data.pgn_filters)."""
    group = parser.add_argument_group(
        "input and filters",
        "Which games of a PGN file are replayed, by the tags Lichess writes; the "
        "games left out are counted by reason in the output.",
    )
    group.add_argument(
        "--input-format",
        choices=("pgn", "csv"),
        help="the records' format, whatever the name (standard input: sniffed)",
    )
    group.add_argument(
        "--speed",
        type=_speeds,
        metavar="SPEEDS",
        help="comma-separated Lichess speeds from TimeControl (base + 40 x "
        "increment): ultrabullet, bullet, blitz, rapid, classical, correspondence",
    )
    group.add_argument(
        "--rated", choices=("rated", "casual"), help="rated or casual games only"
    )
    group.add_argument(
        "--variant",
        type=_names,
        default=["standard"],
        metavar="VARIANTS",
        help="comma-separated Variant tags kept (default standard; all: every game)",
    )
    group.add_argument(
        "--min-rating",
        type=_count,
        metavar="R",
        help="both players' WhiteElo/BlackElo known and at least R",
    )
    group.add_argument(
        "--date-from", type=_date, metavar="YYYY-MM-DD", help="first day kept"
    )
    group.add_argument("--date-to", type=_date, metavar="YYYY-MM-DD", help="last day")


def _names(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r} names nothing")
    return names


def _speeds(text: str) -> list[str]:
    from simulator.data.pgn_filters import SPEEDS

    names = [n.lower() for n in _names(text)]
    for name in names:
        if name not in SPEEDS:
            raise argparse.ArgumentTypeError(
                f"{name!r} is not a speed ({', '.join(SPEEDS)})"
            )
    return names


def _game_filter(args: argparse.Namespace, where: str) -> tuple[Any, Any]:
    """The GameFilter of the options, and the Skipped counter it fills."""
    from simulator.data.pgn_filters import GameFilter, Skipped

    try:
        keep = GameFilter(
            speeds=None if args.speed is None else frozenset(args.speed),
            rated=args.rated,
            variants=frozenset(args.variant),
            min_rating=args.min_rating,
            date_from=args.date_from,
            date_to=args.date_to,
        )
    except ValueError as exc:
        raise CliError(f"{where} {exc}") from None
    return keep, Skipped()
