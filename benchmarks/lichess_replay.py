"""Replaying a Lichess-style month (.pgn.zst) through four systems on one core.

::

    python benchmarks/lichess_replay.py                    # 1 M and 10 M games
    python benchmarks/lichess_replay.py --games 1000000    # one size (repeatable)
    python benchmarks/lichess_replay.py --quick            # 100,000 games
    python benchmarks/lichess_replay.py --data-dir DIR     # keep the generated files

For each size, a month of games is generated as Lichess's database writes it
(:func:`simulator.data.samples.write_lichess_pgn`: 17 tags, clock comments,
~2.4 kB a game before compression; 200,000 players whatever the size, so
that memory growing with the file would be the reader's) and compressed
with Zstandard (level 3, with checksums). The file is kept in ``--data-dir``
(default a temporary folder) and reused when it is there.

Each size is then measured in fresh child processes pinned to one CPU, each
timed in wall and CPU seconds, with its own peak RSS (``VmHWM``):

decompress
    the baseline: the file decompressed and discarded, as the reader
    decompresses it (:func:`simulator.data.compressed.open_input`);
read
    the games read into batches (:func:`simulator.data.records.read_games`),
    no system;
replay
    ``ratingsim replay FILE --systems fide,glicko2,lichess,elo --format json
    --quiet`` in-process (:func:`simulator.cli.main`), as a user runs it.

The replay's throughput is reported as games per second and as a ratio to
the baseline measured in the same run (replay time / decompression time).
Target: 10 M games under 10 minutes of one core's CPU time (the wall time is
shown beside it: on a shared machine it also counts other programs' turns),
peak RSS flat in the file's length
(the 10 M peak within 1.25 x the 1 M peak). An untimed replay of 1,000 games
comes first, so that numba's compiled loops are in its cache.

Results go to ``benchmarks/results/lichess-<UTC time>.md`` (or ``--out``) and
are printed, with the load average at start and end and the machine.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

from _proc import load_average, peak_kb  # noqa: E402

HERE = Path(__file__).resolve().parent
# The package beside this file, whatever is installed.
sys.path.insert(0, str(HERE.parent))
SYSTEMS = "fide,glicko2,lichess,elo"
N_PLAYERS = 200_000
TARGET_SECONDS_10M = 600.0
FLAT = 1.25


def generate(path: Path, n_games: int) -> float:
    """Write ``n_games`` to ``path`` (.pgn.zst) unless it is there; seconds."""
    if path.exists():
        return 0.0
    import zstandard

    from simulator.data.samples import write_lichess_pgn

    t0 = time.perf_counter()
    part = path.with_suffix(".part")
    with part.open("wb") as f:
        compressor = zstandard.ZstdCompressor(level=3, write_checksum=True)
        with compressor.stream_writer(f, closefd=False) as out:
            write_lichess_pgn(
                out,
                n_games,
                n_players=min(N_PLAYERS, max(n_games // 5, 2)),
                seed=2024,
            )
    part.rename(path)
    return time.perf_counter() - t0


def _child(spec: dict[str, Any]) -> None:
    """One measurement, pinned to one CPU; prints ``RESULT {json}``."""
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})
    path, kind = spec["path"], spec["kind"]
    t0, c0 = time.perf_counter(), time.process_time()
    n = 0
    if kind == "decompress":
        from simulator.data.compressed import open_input

        raw, opened = open_input(path, "zstd")
        while chunk := raw.read(1 << 20):
            n += len(chunk)
        assert opened is not None
        opened.close()
    elif kind == "read":
        from simulator.data.records import read_games

        n = sum(b.games.n_games for b in read_games(path))
    else:
        from contextlib import redirect_stdout

        from simulator.cli import main

        text = io.StringIO()
        with redirect_stdout(text):
            code = main(["replay", path, "--systems", SYSTEMS, "--format", "json"])
        if code != 0:
            raise SystemExit(f"replay failed: exit {code}")
        n = json.loads(text.getvalue())["n_games"]
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print("RESULT " + json.dumps({"n": n, "wall": wall, "cpu": cpu, "kb": peak_kb()}))


def measure(path: Path, kind: str) -> dict[str, Any]:
    """Run one measurement in a fresh process."""
    spec = json.dumps({"path": str(path), "kind": kind})
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", spec],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(HERE.parent)},
    )
    lines = [x for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        raise SystemExit(f"{kind} failed: {proc.stderr[-2000:]}")
    out: dict[str, Any] = json.loads(lines[-1][7:])
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, action="append", help="games (repeat)")
    parser.add_argument("--quick", action="store_true", help="100,000 games only")
    parser.add_argument("--data-dir", type=Path, help="keep the generated files here")
    parser.add_argument("--out", type=Path, help="Markdown output")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(json.loads(args.child))
        return 0
    sizes = args.games or ([100_000] if args.quick else [1_000_000, 10_000_000])
    sys.path.insert(0, str(HERE))
    from run import machine_info  # the harness's own machine section

    start_load = load_average()
    tmp = None
    if args.data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="lichess-bench-")
        folder = Path(tmp.name)
    else:
        folder = args.data_dir
        folder.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        warm = folder / "lichess-1000.pgn.zst"
        generate(warm, 1000)
        measure(warm, "replay")  # numba's cache filled, untimed
        for n in sizes:
            path = folder / f"lichess-{n}.pgn.zst"
            made = generate(path, n)
            size_mb = path.stat().st_size / 2**20
            base = measure(path, "decompress")
            read = measure(path, "read")
            rep = measure(path, "replay")
            if not read["n"] == rep["n"] == n:
                raise SystemExit(
                    f"games read {read['n']}, replayed {rep['n']}, not {n}"
                )
            rows.append((n, made, size_mb, base, read, rep))
            print(f"{n:,} games: replay {rep['wall']:.1f} s", file=sys.stderr)
    finally:
        if tmp is not None:
            tmp.cleanup()
    text = _markdown(rows, start_load, machine_info(), sys.argv[1:])
    out = args.out or HERE / "results" / (
        "lichess-" + dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + ".md"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    print(text)
    return 0


def _markdown(
    rows: list[Any], start_load: str, machine: dict[str, str], argv: list[str]
) -> str:
    head = [
        "# Lichess-style replay benchmark",
        "",
        f"Command: `python benchmarks/lichess_replay.py {' '.join(argv)}`".rstrip(),
        f"Load average at start: {start_load}; at end: {load_average()}.",
        "",
        "| games | file (MB) | generated (s) | decompress (s) | read (s) | replay "
        "wall (s) | replay CPU (s) | games/s | ratio to decompress | peak RSS "
        "replay (MB) | peak RSS read (MB) | target |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    peaks = {}
    for n, made, size_mb, base, read, rep in rows:
        peaks[n] = rep["kb"] / 1024 if rep["kb"] else float("nan")
        # The verdict is on CPU seconds, one core's work: on a shared machine
        # the wall time also counts the other programs' turns (both shown).
        cpu_10m = rep["cpu"] * 10_000_000 / n
        wall_10m = rep["wall"] * 10_000_000 / n
        how = "measured" if n == 10_000_000 else "extrapolated"
        target = (
            f"{'pass' if cpu_10m < TARGET_SECONDS_10M else 'miss'} (10 M {how}: "
            f"CPU {cpu_10m / 60:.1f} min, wall {wall_10m / 60:.1f} min; < 10)"
        )
        head.append(
            f"| {n:,} | {size_mb:.0f} | {made:.0f} | {base['wall']:.1f} | "
            f"{read['wall']:.1f} | {rep['wall']:.1f} | {rep['cpu']:.1f} | "
            f"{n / rep['wall']:,.0f} | {rep['wall'] / base['wall']:.1f} | "
            f"{peaks[n]:.0f} | {read['kb'] / 1024:.0f} | {target} |"
        )
    if len(peaks) > 1:
        lo, hi = min(peaks), max(peaks)
        ratio = peaks[hi] / peaks[lo]
        head += [
            "",
            f"Peak RSS of the replay, {hi:,} over {lo:,} games: {ratio:.2f} x "
            f"({'pass' if ratio <= FLAT else 'miss'}: flat is <= {FLAT} x).",
        ]
    head += ["", "## Machine", ""]
    head += [f"- {k}: {v}" for k, v in machine.items()]
    return "\n".join(head) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
