"""Throughput and memory benchmarks of ratingsim, outside the test suite.

One command runs every scenario and writes a results table::

    python benchmarks/run.py                      # every scenario, full size
    python benchmarks/run.py --quick              # smoke run, ~10-50x smaller
    python benchmarks/run.py --scenario kernel --scenario reference
    python benchmarks/run.py --out my-results.md  # Markdown here, CSV beside it

Scenarios (``--scenario NAME``, repeatable; all by default):

kernel
    Each registered system's ``rate`` on one period of 100,000 players and
    1,000,000 games, in games per second, and its ratio to a floor measured
    in the same run: one ``np.bincount`` pass with weights over the same
    games, prepared before timing with its own dtypes (intp, float64) so the
    call reads them in place (checked: it allocates its output only; numpy
    would copy the period's read-only arrays). Per-game systems get the games as 20
    rounds of 50,000 disjoint games, as the engine delivers them, and the
    time is that of ``rate`` over the rounds.
reference
    :func:`simulator.systems.glicko2.rate_period` against the PyPI ``glicko2``
    package (its step-5 bug corrected, as in the tests) on one period of
    2,000 players and 20,000 games: equal to 1e-9, and the speed-up.
hotpaths
    The engine's hot paths alone at 100,000 players: Swiss pairing (a day of
    40-player events, and one 100,000-player event), online and random pool
    pairing, outcome sampling, and the metrics recorder.
end-to-end
    The default comparison world (every default system, every metric) at
    100,000 players, one replicate in one process, in a child process whose
    peak RSS is read, over the horizon of ~10 million games (``--horizon``
    measures a shorter one, as ``--quick`` does, and extrapolates: that
    figure is marked "estimate" and is not judged against the target). Then
    a cProfile of a shorter run, and a 1,000,000-player world over a short
    horizon.
scaling
    The runner (``simulator.tasks.run.run_sweep``) on the same replicates in
    one process and in a pool of two, both warm: each process has run one
    untimed replicate (imports, compiled loops) before the clock starts.
scale
    The default world at 10,000 players over ~1, 3 and 10 million games
    (the exponent of time in games), at 10,000, 100,000 and 1,000,000
    players over one year (the exponent in players), and 200,000 players
    over ten years: time and peak RSS of each (``benchmarks/_scale.py``).
first-run
    ``ratingsim run`` with an empty numba cache, then warm: the ratio.

Results go to ``benchmarks/results/<UTC time>[-quick].md`` and ``.csv`` (or
``--out``) and are printed. BLAS threads are pinned to one (``*_NUM_THREADS``,
unless already set) so that "one core" means one core.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import copy  # noqa: E402
import cProfile  # noqa: E402
import csv  # noqa: E402
import dataclasses  # noqa: E402
import datetime as dt  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import pstats  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from collections.abc import Callable  # noqa: E402
from importlib import metadata  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
from _proc import load_average, peak_kb  # noqa: E402
from _scale import Harness, first_run, side_by_side  # noqa: E402
from _scale import scale as scale_rows  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
START = "2024-01-01"

# --- results ------------------------------------------------------------------


@dataclasses.dataclass
class Row:
    """One line of the results table."""

    scenario: str
    case: str
    measured: str
    target: str = ""
    status: str = "info"  # pass, miss, info or estimate (extrapolated, not judged)
    value: float = math.nan
    unit: str = ""


@dataclasses.dataclass
class Outcome:
    """What a scenario returns: table rows and free-form Markdown sections."""

    rows: list[Row] = dataclasses.field(default_factory=list)
    sections: list[tuple[str, str]] = dataclasses.field(default_factory=list)


def _status(ok: bool) -> str:
    return "pass" if ok else "miss"


def _best_of(fn: Callable[[], Any], repeat: int) -> float:
    """Smallest wall time of ``repeat`` calls of ``fn``, in seconds.

    One untimed call comes first: the first call in a process loads the
    compiled loops from numba's cache (or compiles them, on a new machine),
    which is start-up, not throughput.
    """
    fn()
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _fmt_rate(games_per_s: float) -> str:
    return f"{games_per_s / 1e6:.2f} M games/s"


# --- machine ------------------------------------------------------------------


def machine_info() -> dict[str, str]:
    """CPU, cores, memory, versions and BLAS of this machine."""
    info: dict[str, str] = {}
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    info["cpu"] = cpu
    info["cores"] = f"{os.cpu_count()} (usable: {len(os.sched_getaffinity(0))})"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                kb = int(line.split()[1])
                info["memory"] = f"{kb / 2**20:.1f} GiB"
    except OSError:
        pass
    info["os"] = platform.platform()
    info["python"] = platform.python_version()
    packages = ("ratingsim", "numpy", "numba", "llvmlite", "scipy", "pandas")
    for pkg in (*packages, "glicko2", "threadpoolctl"):
        try:
            info[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            info[pkg] = "not installed"
    try:
        from threadpoolctl import threadpool_info

        pools = threadpool_info()
        info["blas"] = (
            "; ".join(
                f"{p.get('internal_api')} {p.get('version')} "
                f"({p.get('architecture', '?')}, {p.get('num_threads')} threads)"
                for p in pools
            )
            or "none loaded"
        )
    except ImportError:
        info["blas"] = "threadpoolctl not installed"
    env = [
        f"{k}={os.environ[k]}"
        for k in (
            "OPENBLAS_CORETYPE",
            "OPENBLAS_L2_SIZE",
            "OPENBLAS_NUM_THREADS",
            "OMP_NUM_THREADS",
        )
        if k in os.environ
    ]
    info["env"] = " ".join(env) or "-"
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=HERE,
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        info["commit"] = head or "unknown"
    except OSError:
        info["commit"] = "unknown"
    return info


# --- kernel -------------------------------------------------------------------


def _seeded_pool(
    n_players: int, rng: np.random.Generator
) -> dict[str, np.ndarray[Any, Any]]:
    """An established pool as the engine seeds it: 90 % rated, 10 % new."""
    rating = np.rint(rng.normal(1700.0, 300.0, n_players))
    new = rng.random(n_players) < 0.1
    rating[new] = np.nan
    return {
        "rating": rating,
        "rd": np.where(new, np.nan, 60.0),
        "n_games": np.where(new, 0, 60),
        "birth_year": rng.integers(1940, 2018, n_players).astype(np.float64),
    }


def _random_scores(n: int, rng: np.random.Generator) -> np.ndarray[Any, Any]:
    return rng.choice(np.array([1.0, 0.5, 0.0]), size=n, p=[0.38, 0.30, 0.32])


def floor_inputs(
    white: np.ndarray[Any, Any], score: np.ndarray[Any, Any]
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The floor's inputs: private copies with ``np.bincount``'s own dtypes.

    ``np.bincount`` converts its indices to ``intp`` and its weights to
    ``float64``, contiguous and writeable, copying whatever is not so
    already (read-only arrays included: numpy 2.4 traces a 16 MB copy for a
    read-only million-game period). Arrays prepared here are read in place.
    """
    return (
        np.array(white, dtype=np.intp, order="C", copy=True),
        np.array(score, dtype=np.float64, order="C", copy=True),
    )


def _floor_allocation(
    white: np.ndarray[Any, Any], score: np.ndarray[Any, Any], n_players: int
) -> int:
    """Bytes one floor call allocates, checked to be its output alone.

    Raises
    ------
    RuntimeError
        If the call allocates more than its output (numpy copied or
        converted an input, so the floor would not be one pass).
    """
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        out = np.bincount(white, weights=score, minlength=n_players)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    allocated = peak - before
    # The output, plus a little for the array object itself.
    if allocated > out.nbytes + 4096:
        raise RuntimeError(
            f"The kernel floor allocated {allocated:,} bytes for a "
            f"{out.nbytes:,}-byte output: np.bincount copied or converted its "
            f"input (white {white.dtype}, writeable {white.flags.writeable}; "
            f"score {score.dtype}, writeable {score.flags.writeable})."
        )
    return allocated


def kernel(quick: bool) -> Outcome:
    """Each system's update on one big period, against a bincount floor."""
    from simulator.systems import SYSTEMS, Games, make_system
    from simulator.systems._common import day_of, split_rounds

    n_players = 10_000 if quick else 100_000
    n_rounds = 20
    per_round = n_players // 2
    n_games = n_rounds * per_round
    rng = np.random.default_rng(20240101)
    start = day_of(START)
    pool = _seeded_pool(n_players, rng)

    # The period's games: 20 rounds in which everyone plays once, a round a
    # day, in events of 40 players (the period systems see them all at once).
    rounds = []
    for r in range(n_rounds):
        perm = rng.permutation(n_players)
        white, black = perm[:per_round], perm[per_round : 2 * per_round]
        event = np.minimum(white, black) // 40
        rounds.append(
            Games(
                white,
                black,
                _random_scores(per_round, rng),
                np.full(per_round, float(start + r)),
                event,
                np.full(per_round, float(start)),
            )
        )
    period = Games.concat(rounds)
    white, score = period.white, period.score

    repeat = 3
    # The floor reads the games once: one np.bincount pass over arrays that
    # already have its dtypes (intp indices, float64 weights), contiguous,
    # made here before any timing. They are writeable because np.bincount
    # copies read-only input (the period's arrays are read-only: that copy
    # made the previous floor 1.9x a true pass); _floor_allocation checks,
    # untimed, that the call allocates its output and nothing else.
    f_white, f_score = floor_inputs(white, score)
    floor_bytes = _floor_allocation(f_white, f_score, n_players)

    def floor_time() -> float:
        return _best_of(
            lambda: np.bincount(f_white, weights=f_score, minlength=n_players),
            5 * repeat,
        )

    # The systems' own allocations still depend on what glibc's allocator
    # kept from earlier calls (a fresh process page-faults on new large
    # blocks; once a large block has been freed, glibc serves them from its
    # heap). One large block, touched and freed, puts the process in the
    # second state for the floor and the systems alike.
    fresh_floor = floor_time()
    block = np.ones(4 * n_games)
    del block
    # Timed before and after the systems, the best taken: on a shared
    # machine, one moment's load would otherwise flatter every ratio.
    floor = floor_time()
    timed: list[tuple[str, str, float, float]] = []

    systems: list[tuple[str, dict[str, Any]]] = [(name, {}) for name in SYSTEMS]
    systems.append(("glicko", {"per_game": True}))
    detail = [
        "| system | mode | time | games/s | x floor | target |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for name, params in systems:
        system = make_system(name, **params)
        label = name + ("" if not params else " (per_game=True)")
        floor_r = pool["rating"]
        sys_floor = getattr(system, "floor", None)
        if sys_floor is not None:
            with np.errstate(invalid="ignore"):
                floor_r = np.where(floor_r < sys_floor, np.nan, floor_r)
        state0 = system.new_state(
            n_players,
            day=start,
            birth_year=pool["birth_year"],
            rating=floor_r,
            rd=pool["rd"],
            n_games=pool["n_games"],
        )
        run: Callable[[], None]
        if system.per_game:

            def run_rounds(system: Any = system, state0: Any = state0) -> None:
                # As the engine rates a round: into the state's own arrays
                # (``overwrite_state``), copied once here as the reference
                # loops copy their inputs once.
                state = copy.deepcopy(state0)
                for r, games in enumerate(rounds):
                    state = system.rate(
                        state, games, day=float(start + r), overwrite_state=True
                    )

            run, limit, mode = run_rounds, 25.0, "per game, 20 rounds"
        else:
            close = system.next_close(start)

            def run_period(
                system: Any = system, state0: Any = state0, close: Any = close
            ) -> None:
                system.rate(state0, period, day=close)

            run, limit, mode = run_period, 10.0, "one period"
        timed.append((label, mode, _best_of(run, repeat), limit))
    # What a per-game system adds when given the period in one call (a
    # replayed game list): finding the rounds.
    split = _best_of(lambda: split_rounds(period.white, period.black), repeat)
    references = _kernel_references(pool, rounds, period, start, n_players, repeat)
    floor = min(floor, floor_time())
    out = Outcome()
    out.rows.append(
        Row(
            "kernel",
            "floor: one np.bincount(white, weights=score) pass over intp/float64 "
            "arrays prepared before timing (no copy, no conversion)",
            f"{_fmt_rate(n_games / floor)} ({floor * 1e3:.2f} ms; "
            f"{n_games / floor * (f_white.itemsize + f_score.itemsize) / 1e9:.1f} "
            f"GB/s of input; the call allocates {floor_bytes / 1e6:.2f} MB, "
            f"its output)",
            value=n_games / floor,
            unit="games/s",
        )
    )
    out.rows.append(
        Row(
            "kernel",
            "split into rounds (a per-game system given the period in one call)",
            f"{_fmt_rate(n_games / split)}, {split / floor:.1f}x floor",
            value=split / floor,
            unit="x floor",
        )
    )
    for label, mode, t, limit in timed:
        ratio = t / floor
        out.rows.append(
            Row(
                "kernel",
                f"{label} ({mode})",
                f"{_fmt_rate(n_games / t)}, {ratio:.1f}x floor",
                f"<= {limit:g}x floor",
                _status(ratio <= limit),
                ratio,
                "x floor",
            )
        )
        detail.append(
            f"| {label} | {mode} | {t:.3f} s | {n_games / t:,.0f} | "
            f"{ratio:.1f} | <= {limit:g} |"
        )
    for label, t_ours, t_ref in references:
        ratio = t_ours / t_ref
        out.rows.append(
            Row(
                "kernel",
                f"{label}: ratingsim / reference loop "
                "(benchmarks/kernel_reference.py, agreeing to 1e-9)",
                f"{ratio:.2f}x ({t_ours * 1e3:.1f} ms against {t_ref * 1e3:.1f} ms)",
                "<= 1.3x",
                _status(ratio <= 1.3),
                ratio,
                "x reference",
            )
        )
    out.sections.append(
        (
            "Kernel detail",
            f"{n_players:,} players, {n_games:,} games "
            f"({n_rounds} rounds of {per_round:,}); best of {repeat} after one "
            f"untimed call; per-game systems rate each round as the engine does, "
            f"into the state's arrays (`overwrite_state=True`, the state copied "
            f"once per call); floor {floor * 1e3:.2f} ms (one np.bincount pass "
            f"over {f_white.dtype} indices and {f_score.dtype} weights prepared "
            f"before timing, which the call reads without copying: it allocates "
            f"{floor_bytes:,} bytes, its {n_players:,}-entry output; best of "
            f"{5 * repeat}, before and after the systems, allocator warmed by "
            f"one large block; {fresh_floor * 1e3:.2f} ms before that, as in a "
            f"fresh process).\n\n" + "\n".join(detail),
        )
    )
    return out


def _kernel_references(
    pool: dict[str, np.ndarray[Any, Any]],
    rounds: list[Any],
    period: Any,
    start: int,
    n_players: int,
    repeat: int,
) -> list[tuple[str, float, float]]:
    """Per-game Elo and the FIDE period against their reference loops.

    Each pair is checked to agree to 1e-9 (else RuntimeError), then both
    are timed as the kernel times the systems, interleaved: ratingsim's
    ``rate`` and the loop of ``benchmarks/kernel_reference.py`` on the same
    inputs (issue 22, item 4: within 1.3x).
    """
    import kernel_reference as ref

    from simulator.systems._common import year_of
    from simulator.systems.elo import Elo
    from simulator.systems.fide import Fide

    # The registry's systems, as the kernel makes them (default parameters).
    out: list[tuple[str, Callable[[], Any], Callable[[], Any]]] = []
    elo = Elo()
    e0 = elo.new_state(n_players, rating=pool["rating"], n_games=pool["n_games"])

    def elo_ours() -> Any:
        # The engine's call: each round into the state's arrays, which are
        # copied once per call, as the reference copies its inputs once.
        state = copy.deepcopy(e0)
        for r, games in enumerate(rounds):
            state = elo.rate(state, games, day=float(start + r), overwrite_state=True)
        return state

    def elo_ref() -> Any:
        return ref.elo_games(
            e0.rating, e0.n_games, period.white, period.black, period.score,
            elo.k_factor,
        )  # fmt: skip

    ours, theirs = elo_ours(), elo_ref()
    if not (
        np.allclose(ours.rating, theirs[0], rtol=0, atol=1e-9)
        and np.array_equal(ours.n_games, theirs[1])
    ):
        raise RuntimeError("Elo and its reference loop disagree beyond 1e-9.")
    out.append(("elo (per game, 20 rounds)", elo_ours, elo_ref))

    fide = Fide()
    with np.errstate(invalid="ignore"):
        listed = np.where(pool["rating"] < fide.floor, np.nan, pool["rating"])
    f0 = fide.new_state(
        n_players,
        day=start,
        birth_year=pool["birth_year"],
        rating=listed,
        n_games=pool["n_games"],
    )
    close = fide.next_close(start)

    def fide_ours() -> Any:
        return fide.rate(f0, period, day=close)

    def fide_ref() -> Any:
        return ref.fide_period(
            f0.rating, f0.k, f0.n_games, f0.ever_2400, f0.ever_2300,
            f0.birth_year, f0.first_event_done, tuple(f0.pool), f0.period,
            period.white, period.black, period.score, period.event,
            period.event_start, year_of(close),
        )  # fmt: skip

    a, b = fide_ours(), fide_ref()
    mine = (a.rating, a.n_games, a.k, a.ever_2400, a.ever_2300, a.first_event_done)
    for x, y in zip((*mine, *a.pool), b, strict=True):
        if x.shape != y.shape or not np.allclose(
            x, y, rtol=0, atol=1e-9, equal_nan=True
        ):
            raise RuntimeError("FIDE and its reference loop disagree beyond 1e-9.")
    out.append(("fide (one period)", fide_ours, fide_ref))

    timed: list[tuple[str, float, float]] = []
    for label, ours_fn, ref_fn in out:
        t_ours = t_ref = math.inf
        ours_fn()
        ref_fn()
        for _ in range(repeat):
            t0 = time.perf_counter()
            ours_fn()
            t1 = time.perf_counter()
            ref_fn()
            t2 = time.perf_counter()
            t_ours, t_ref = min(t_ours, t1 - t0), min(t_ref, t2 - t1)
        timed.append((label, t_ours, t_ref))
    return timed


# --- reference ----------------------------------------------------------------


def _corrected_player() -> type[Any]:
    """The PyPI package's player with step 5's ``f`` as in the paper (phi, not mu).

    The same correction as the test-only ``CorrectedPlayer`` of
    tests/systems/test_glicko2.py (docs/rules.md, section 3); the package keeps phi
    on the Glicko-2 scale in ``_Player__rd``.
    """
    import glicko2 as pypi_glicko2

    class CorrectedPlayer(pypi_glicko2.Player):  # type: ignore[misc]
        def _f(self, x: float, delta: float, v: float, a: float) -> float:
            ex = math.exp(x)
            phi2 = self._Player__rd**2
            num = ex * (delta**2 - phi2 - v - ex)
            den = 2.0 * (phi2 + v + ex) ** 2
            return float(num / den - (x - a) / self._tau**2)

    return CorrectedPlayer


def reference(quick: bool) -> Outcome:
    """Vectorised Glicko-2 against the corrected PyPI package, one period."""
    from simulator.systems.glicko2 import rate_period

    n_players = 200 if quick else 2_000
    n_games = 10 * n_players
    rng = np.random.default_rng(7)
    rating = rng.normal(1500.0, 300.0, n_players)
    rd = rng.uniform(40.0, 350.0, n_players)
    vol = rng.uniform(0.04, 0.09, n_players)
    white = rng.integers(0, n_players, n_games)
    black = (white + rng.integers(1, n_players, n_games)) % n_players
    score = _random_scores(n_games, rng)

    ours_t = _best_of(
        lambda: rate_period(rating, rd, vol, white, black, score, tau=0.5), 20
    )
    r1, rd1, v1 = rate_period(rating, rd, vol, white, black, score, tau=0.5)

    # The package's input: per player, the opponents' pre-period values.
    def prepare() -> list[tuple[list[float], list[float], list[float]]]:
        player = np.concatenate([white, black])
        opp = np.concatenate([black, white])
        s_own = np.concatenate([score, 1.0 - score])
        order = np.argsort(player, kind="stable")
        cuts = np.searchsorted(player[order], np.arange(n_players + 1))
        out = []
        for i in range(n_players):
            idx = order[cuts[i] : cuts[i + 1]]
            out.append(
                (rating[opp[idx]].tolist(), rd[opp[idx]].tolist(), s_own[idx].tolist())
            )
        return out

    prep_t = _best_of(prepare, 3)
    lists = prepare()
    player_cls = _corrected_player()
    player_cls._tau = 0.5

    def package() -> list[tuple[float, float, float]]:
        out = []
        for i in range(n_players):
            p = player_cls(float(rating[i]), float(rd[i]), float(vol[i]))
            opp_r, opp_rd, s = lists[i]
            if opp_r:
                p.update_player(opp_r, opp_rd, s)
            else:
                p.did_not_compete()
            out.append((p.rating, p.rd, p.vol))
        return out

    pkg_t = _best_of(package, 3)
    pkg = np.array(package())
    diff = {
        "rating": float(np.max(np.abs(pkg[:, 0] - r1))),
        "rd": float(np.max(np.abs(pkg[:, 1] - rd1))),
        "volatility": float(np.max(np.abs(pkg[:, 2] - v1))),
    }
    worst = max(diff.values())
    speedup = pkg_t / ours_t
    case = f"glicko2.rate_period vs PyPI glicko2 ({n_players:,} players, "
    case += f"{n_games:,} games)"
    out = Outcome()
    out.rows.append(
        Row(
            "reference",
            case + ": max |difference|",
            ", ".join(f"{k} {v:.1e}" for k, v in diff.items()),
            "<= 1e-9",
            _status(worst <= 1e-9),
            worst,
            "",
        )
    )
    out.rows.append(
        Row(
            "reference",
            case + ": speed-up",
            f"{speedup:,.0f}x (ours {ours_t * 1e3:.2f} ms, package {pkg_t:.3f} s "
            f"updating players; {(pkg_t + prep_t) / ours_t:,.0f}x counting the "
            f"{prep_t * 1e3:.0f} ms to build its per-player lists)",
            ">= 100x",
            _status(speedup >= 100.0),
            speedup,
            "x",
        )
    )
    return out


# --- hot paths ----------------------------------------------------------------


def hotpaths(quick: bool) -> Outcome:
    """The engine's hot paths alone, at the end-to-end world's size."""
    from simulator.evaluation.recorder import Recorder
    from simulator.world.outcomes import OutcomeModel
    from simulator.world.pairing import (
        pair_online,
        pair_random,
        pair_swiss_round,
        pair_swiss_rounds,
        record_swiss_round,
        record_swiss_rounds,
        swiss_start,
    )

    n = 10_000 if quick else 100_000
    rng = np.random.default_rng(3)
    true = rng.normal(1700.0, 330.0, n)
    model = OutcomeModel.otb()
    rows: list[Row] = []

    def add(case: str, seconds: float, items: int, what: str) -> None:
        rows.append(
            Row(
                "hotpaths",
                case,
                f"{seconds * 1e3:,.1f} ms ({items / seconds:,.0f} {what}/s)",
                value=seconds,
                unit="s",
            )
        )

    # Swiss: days of 40-player events, rounds 1 and 4, all events' rounds in
    # one pair_swiss_rounds call as the engine makes it: everyone at once, and
    # a day as the engine sees it at this size (about 100 events a day).
    players = rng.permutation(n)
    # Untimed: the first compiled call in a process loads numba's cache (or
    # compiles, on a new machine), which is start-up, not throughput.
    warm = [swiss_start(g, true[g]) for g in np.array_split(players[:400], 10)]
    pair_swiss_rounds(warm, np.random.default_rng(0))

    def swiss_days(groups: list[Any], what: str) -> None:
        states = [swiss_start(g, true[g]) for g in groups]
        # Untimed, with an rng of its own (the timed rounds are the same): a
        # first run after installation compiled something here that the
        # small warm-up above did not reach (round 1 of 2,500 events took
        # 120-147 ms in such runs, 31-33 ms in the others).
        pair_swiss_rounds(states, np.random.default_rng(1))
        for rnd in range(1, 5):
            t0 = time.perf_counter()
            paired = pair_swiss_rounds(states, rng)
            t = time.perf_counter() - t0
            if rnd in (1, 4):
                games = sum(r.n_games for r in paired)
                add(f"Swiss: {what}, round {rnd}", t, games, "games")
            scores = [model.sample(true[r.white], true[r.black], rng) for r in paired]
            states = record_swiss_rounds(states, paired, scores)

    swiss_days(
        np.array_split(players, max(1, n // 40)),
        f"{max(1, n // 40):,} events of 40 ({n:,} players)",
    )
    swiss_days(np.array_split(players[:4_000], 100), "100 events of 40 (a day's)")
    # Swiss: one event of everyone, rounds 1 and 2.
    big = swiss_start(players, true[players])
    for rnd in (1, 2):
        t0 = time.perf_counter()
        r = pair_swiss_round(big, rng)
        add(
            f"Swiss: one {n:,}-player event, round {rnd}",
            time.perf_counter() - t0,
            r.n_games,
            "games",
        )
        big = record_swiss_round(
            big, r, model.sample(true[r.white], true[r.black], rng)
        )
    t = _best_of(lambda: pair_online(players, true[players], rng, window=200.0), 5)
    add(f"pool: pair_online, {n:,} players", t, n // 2, "games")
    t = _best_of(lambda: pair_random(players, rng), 5)
    add(f"pool: pair_random, {n:,} players", t, n // 2, "games")

    # Outcomes and metrics over a million games (ten rounds' worth).
    m = 10 * n
    w = rng.integers(0, n, m)
    b = (w + rng.integers(1, n, m)) % n
    tw, tb = true[w], true[b]
    t = _best_of(lambda: model.sample(tw, tb, rng), 3)
    add(f"outcomes: OutcomeModel.sample, {m:,} games", t, m, "games")
    t = _best_of(lambda: model.expected_score(tw, tb), 3)
    add(f"outcomes: oracle expected_score, {m:,} games", t, m, "games")
    labels = ["fide", "fide-2024", "classic", "glicko2", "lichess", "glicko", "elo"]
    rec = Recorder(labels, n)
    expected = {k: np.clip(rng.random(m), 0.0, 1.0) for k in labels}
    oracle = rng.random(m)
    score = _random_scores(m, rng)
    t = _best_of(lambda: rec.record_games(expected, oracle, score), 3)
    add(f"metrics: record_games, 7 systems, {m:,} games", t, m, "games")
    ratings = {k: true + rng.normal(0.0, 80.0, n) for k in labels}
    active = rng.random(n) < 0.8
    gp = rng.integers(0, 200, n)
    newcomer = rng.random(n) < 0.3
    cohort = rng.random(n) < 0.3
    day = [0.0]

    def checkpoint() -> None:
        day[0] += 7.0
        rec.checkpoint(day[0], ratings, true, active, gp, newcomer, cohort)

    t = _best_of(checkpoint, 3)
    add(f"metrics: checkpoint, 7 systems, {n:,} players", t, n, "players")
    rows.extend(_replay_rows(n, rng))
    return Outcome(rows=rows)


def _replay_rows(n_players: int, rng: np.random.Generator) -> list[Row]:
    """``ratingsim replay``'s path on a CSV of 10 games per player over a year.

    Activity is skewed as in an online pool (a player's share of the games
    falls as 1 / rank), so a few players are in many games of every batch:
    the case where a batch splits into many rounds. The systems are the
    CLI's default ones. Reading (the file into batches) and replaying (the
    batches through the systems) are timed apart, once each, the replay after
    an untimed one of the first batch.
    """
    import tempfile

    from simulator.data.records import Players, read_games
    from simulator.tasks.replay import replay

    n_games = 10 * n_players
    weight = 1.0 / np.arange(1, n_players + 1)
    white = rng.choice(n_players, n_games, p=weight / weight.sum())
    black = rng.choice(n_players, n_games, p=weight / weight.sum())
    black = np.where(white == black, (black + 1) % n_players, black)
    score = np.array(["1", "1/2", "0"])[rng.choice(3, n_games, p=[0.38, 0.3, 0.32])]
    day = np.sort(rng.integers(0, 365, n_games)) + np.datetime64("2025-01-01")
    frame = np.char.add("P", white.astype(str))
    lines = [
        f"{w},P{b},{s},{d}"
        for w, b, s, d in zip(frame, black, score, day.astype(str), strict=True)
    ]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "games.csv"
        path.write_text("white,black,score,date\n" + "\n".join(lines) + "\n")
        players = Players()
        t0 = time.perf_counter()
        batches = list(read_games(path, players=players))
        read = time.perf_counter() - t0
    systems = ["fide", "glicko2", "lichess", "elo"]
    # Untimed: the first batch alone, which loads (or, in a first run after
    # installation, compiles) the compiled loops the replay uses.
    replay(batches[:1], systems, players=players)
    t0 = time.perf_counter()
    result = replay(batches, systems, players=players)
    rated = time.perf_counter() - t0
    what = f"{n_games:,} games, {result.n_players:,} players, skewed activity"
    return [
        Row(
            "hotpaths",
            f"replay: reading a CSV of {what}",
            f"{read:.2f} s ({n_games / read:,.0f} games/s)",
            value=read,
            unit="s",
        ),
        Row(
            "hotpaths",
            f"replay: {', '.join(systems)} on those games",
            f"{rated:.2f} s ({n_games / rated:,.0f} games/s)",
            value=rated,
            unit="s",
        ),
    ]


# --- end-to-end ---------------------------------------------------------------


def _e2e_config(n_players: int, years: float) -> Any:
    from simulator.config import RunConfig
    from simulator.world.population_config import PopulationConfig

    return RunConfig(
        title=f"benchmark: default comparison at {n_players:,} players",
        seed=20240101,
        replicates=1,
        years=years,
        population=PopulationConfig(n_players=n_players),
    )


def _child_main(spec: dict[str, Any]) -> None:
    """Run one replicate of the end-to-end world; print a JSON line of figures."""
    from simulator import engine
    from simulator.engine import run_replicate
    from simulator.systems._common import day_of
    from simulator.world.population import make_population
    from simulator.world.strengths import Strengths

    config = _e2e_config(spec["n_players"], spec["years"])
    # Time spent per engine component, by wrapping the engine's own functions
    # (names that are missing, after a refactoring, are skipped).
    parts: dict[str, float] = {}

    def timed(owner: Any, attr: str, key: str) -> None:
        fn = getattr(owner, attr, None)
        if fn is None:
            return

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                parts[key] = parts.get(key, 0.0) + time.perf_counter() - t0

        setattr(owner, attr, wrapper)

    # Not under the profiler, whose listing the wrappers would clutter.
    arena = None if spec.get("profile") else getattr(engine, "_Arena", None)
    if arena is not None:
        timed(Strengths, "advance", _MOVES)
        timed(arena, "start_events", _STARTS)
        timed(arena, "checkpoint", _CHECKPOINTS)
        timed(arena, "close_periods", "period systems: close_periods")
        timed(arena, "_play_otb_round", "OTB rounds (pairing + _play)")
        timed(arena, "_play", "_play: outcomes, predictions, per-game systems")
        timed(arena, "_finish_events", "finish events")

    if spec.get("warm"):
        # Untimed: a small world that closes a month, so that the timed run
        # does not load compiled loops from numba's cache (or compile them).
        run_replicate(_e2e_config(500, 0.1), np.random.default_rng(0))
        parts.clear()
    rng = np.random.default_rng(spec["seed"])
    profile = cProfile.Profile() if spec.get("profile") else None
    # The wall clock too, which other processes share: runs side by side
    # are matched by it (``_scale.side_by_side``).
    started = time.time()
    t0 = time.perf_counter()
    if profile is not None:
        profile.enable()
    result = run_replicate(config, rng)
    if profile is not None:
        profile.disable()
    seconds = time.perf_counter() - t0
    games = int(next(iter(result.values())).prediction["n_games"].iloc[0])
    n_days = round(config.years * 365.2425)
    # The population of the run, drawn again from the same seed (cheap): its
    # size sets the cost of the per-day, per-player work.
    pop = make_population(
        config.population,
        np.random.default_rng(spec["seed"]),
        start_day=day_of(config.start_date),
        n_days=n_days,
    )
    out = {
        "seconds": seconds,
        "started": started,
        "games": games,
        "days": n_days,
        "n_total": pop.n_players,
        "parts": parts,
        "own_peak_kb": peak_kb(),
    }
    if profile is not None:
        buf = io.StringIO()
        stats = pstats.Stats(profile, stream=buf)
        stats.sort_stats("cumulative").print_stats(25)
        out["profile_cumulative"] = buf.getvalue()
        buf = io.StringIO()
        stats = pstats.Stats(profile, stream=buf)
        stats.sort_stats("tottime").print_stats(15)
        out["profile_tottime"] = buf.getvalue()
    print("RESULT " + json.dumps(out), flush=True)


def _run_child(spec: dict[str, Any]) -> dict[str, Any]:
    """Run :func:`_child_main` in a fresh process; add its peak RSS.

    The peak is the child's own (:func:`_proc.peak_kb`); where the system
    does not give it, ``wait4``'s, which is at least the parent's peak.
    """
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).resolve()),
                "--child",
                json.dumps(spec),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        text = log.read()
    lines = [x for x in text.splitlines() if x.startswith("RESULT ")]
    if proc.returncode != 0 or not lines:
        return {"error": f"exit {proc.returncode}: {text[-2000:]}"}
    out: dict[str, Any] = json.loads(lines[-1][len("RESULT ") :])
    own = out.get("own_peak_kb")
    # Kilobytes, on Linux (the only system where ``own`` is known).
    out["peak_rss_mb"] = (usage.ru_maxrss if own is None else own) / 1024.0
    return out


def _nominal_sides(n_players: int, years: float, seed: int) -> tuple[float, int]:
    """Player-games the population's activity asks for over ``years``; players."""
    from simulator.systems._common import day_of
    from simulator.world.population import make_population
    from simulator.world.population_config import PopulationConfig
    from simulator.world.strengths import DAYS_PER_YEAR

    start = day_of(START)
    n_days = round(years * DAYS_PER_YEAR)
    pop = make_population(
        PopulationConfig(n_players=n_players),
        np.random.default_rng(seed),
        start_day=start,
        n_days=n_days,
    )
    lo = pop.arrival_day
    hi = np.minimum(pop.departure_day, start + n_days)
    in_pool = np.maximum(hi - lo, 0.0) / DAYS_PER_YEAR
    return float(np.sum(pop.activity * 12.0 * in_pool)), pop.n_players


def _horizon_for(target_games: float, n_players: int, games_per_side: float) -> float:
    """Years whose nominal activity, scaled as measured, gives ``target_games``."""
    lo, hi = 0.5, 40.0
    for _ in range(30):
        mid = 0.5 * (lo + hi)
        sides, _ = _nominal_sides(n_players, mid, 20240101)
        if sides * games_per_side < target_games:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


#: The horizon of ~10 million games at 100,000 players in the default world
#: (since issue 17 its realistic one: the 10.45 years of the simple world
#: played 12.07 M games; the full run of 60c42a1 put 10 M at 9.0 years). The
#: scenario recomputes it from the run, and the judged row names the games
#: it measured.
FULL_YEARS = 9.0

#: The end-to-end components whose work runs over players, not games (the
#: child's timers use these labels; the quick mode scales them differently).
_MOVES = "true strengths moved (a round's players; the pool at checkpoints)"
_STARTS = "start_events (weekly, the players present)"
_CHECKPOINTS = "checkpoint metrics (weekly)"
_PER_PLAYER_PARTS = (_MOVES, _STARTS, _CHECKPOINTS)


def horizon_row(
    case: str, seconds: float, limit: float, from_years: float | None
) -> Row:
    """The row of the ~10 M-game horizon: judged if measured, else an estimate.

    ``from_years`` is the shorter horizon that was measured and extrapolated
    (None if the full horizon was measured). An extrapolation says
    "estimate" in its case, measured and target cells and is not judged.
    """
    if from_years is None:
        return Row(
            "end-to-end",
            case,
            f"{seconds:,.0f} s measured",
            f"< {limit:g} s on one core",
            _status(seconds < limit),
            seconds,
            "s",
        )
    return Row(
        "end-to-end",
        f"{case}, estimate from the {from_years:g}-year run",
        f"{seconds:,.0f} s estimate (extrapolated, not measured)",
        f"< {limit:g} s on one core (estimate, not judged)",
        "estimate",
        seconds,
        "s",
    )


def end_to_end(quick: bool, horizon: float | None, big_days: int | None) -> Outcome:
    """The default world at 100,000 players, and at 1,000,000 briefly."""
    out = Outcome()
    n = 10_000 if quick else 100_000
    target_games = 1e6 if quick else 1e7
    years = horizon if horizon is not None else (0.25 if quick else FULL_YEARS)
    # Warm: the child runs a small world first, untimed, so that compiling
    # (or loading compiled loops) is not in the time (the first-run
    # scenario measures that).
    res = _run_child({"n_players": n, "years": years, "seed": 20240101, "warm": True})
    if "error" in res:
        out.rows.append(Row("end-to-end", f"{n:,} players", res["error"][-300:]))
        return out
    games, seconds, rss = res["games"], res["seconds"], res["peak_rss_mb"]
    sides, _ = _nominal_sides(n, years, 20240101)
    per_side = games / sides
    full_years = _horizon_for(target_games, n, per_side)
    full_sides, full_players = _nominal_sides(n, full_years, 20240101)
    full_games = full_sides * per_side
    full_days = round(full_years * 365.2425)
    parts = res["parts"]
    t_player = sum(parts.get(k, 0.0) for k in _PER_PLAYER_PARTS)
    t_games = max(seconds - t_player, 0.0)
    # Per-game work scales with the games; the per-day and per-week work over
    # the players at most with days x players drawn (the population is drawn
    # for the whole horizon up front; most of it now runs over the pool, so
    # the estimate errs high).
    scale_players = (full_days * full_players) / (res["days"] * res["n_total"])
    extrapolated = t_games * full_games / games + t_player * scale_players
    measured_full = years >= full_years * 0.95
    label = f"{n:,} players, {years:g}-year horizon measured: {games:,} games"
    out.rows.append(
        Row(
            "end-to-end",
            label,
            f"{seconds:,.1f} s ({games / seconds:,.0f} games/s); load {load_average()}",
            value=seconds,
            unit="s",
        )
    )
    t_full = seconds if measured_full else extrapolated
    limit = 120.0 if not quick else 12.0
    out.rows.append(
        horizon_row(
            f"{n:,} players, {games / 1e6:.2f} M games measured ({years:g} years, "
            f"{res['n_total']:,} players drawn)"
            if measured_full
            else f"{n:,} players, ~{full_games / 1e6:.1f} M games "
            f"({full_years:.1f} years, {full_players:,} players drawn)",
            t_full,
            limit,
            None if measured_full else years,
        )
    )
    mem_note = "" if measured_full else f" ({years:g}-year run)"
    out.rows.append(
        Row(
            "end-to-end",
            f"{n:,} players: peak RSS{mem_note}",
            f"{rss:,.0f} MB",
            "< 2048 MB",
            _status(rss < 2048.0),
            rss,
            "MB",
        )
    )
    breakdown = [
        "| component | seconds | share | scales with |",
        "| --- | ---: | ---: | --- |",
    ]
    for key, value in sorted(parts.items(), key=lambda kv: -kv[1]):
        scale = "days x players, at most" if key in _PER_PLAYER_PARTS else "games"
        breakdown.append(f"| {key} | {value:,.1f} | {value / seconds:.0%} | {scale} |")
    out.sections.append(
        (
            f"End-to-end: where the time goes ({n:,} players, {years:g} years)",
            f"Measured {seconds:,.1f} s for {games:,} games over {res['days']} "
            f"days; {res['n_total']:,} players drawn (the initial pool plus every "
            f"newcomer of the horizon). Nested components overlap (the OTB "
            f"rounds include `_play`).\n\n"
            + "\n".join(breakdown)
            + "\n\n"
            + (
                f"Extrapolation to ~{full_games / 1e6:.1f} M games: the horizon "
                f"with that many games is {full_years:.2f} years (the "
                f"population's nominal activity scaled by the measured "
                f"{per_side:.3f} games per nominal player-game), {full_players:,} "
                f"players drawn. Work over the players each day or week "
                f"({t_player:,.1f} s) is scaled by days x players drawn "
                f"({scale_players:.1f}x), the rest ({t_games:,.1f} s) by games "
                f"({full_games / games:.1f}x): {extrapolated:,.0f} s, an "
                f"estimate (not measured, not judged against the target). "
                f"Peak memory "
                f"grows with the players drawn, not the games; it was "
                f"{rss:,.0f} MB with {res['n_total']:,} players."
                if not measured_full
                else "The measured horizon is the full one."
            ),
        )
    )

    # A profile of a shorter run of the same world.
    prof_years = min(max(years / 4.0, 0.05), 1.0)
    prof = _run_child(
        {"n_players": n, "years": prof_years, "seed": 20240101, "profile": True}
    )
    if "error" not in prof:
        out.sections.append(
            (
                f"End-to-end profile ({n:,} players, {prof_years:g} years, "
                f"{prof['games']:,} games, cProfile)",
                "Top functions by cumulative time:\n\n```\n"
                + _trim_profile(prof["profile_cumulative"])
                + "\n```\n\nTop functions by own time:\n\n```\n"
                + _trim_profile(prof["profile_tottime"])
                + "\n```",
            )
        )

    # The 1,000,000-player world over a short horizon.
    n_big = 100_000 if quick else 1_000_000
    days = big_days if big_days is not None else (7 if quick else 31)
    big = _run_child(
        {"n_players": n_big, "years": days / 365.2425, "seed": 20240101, "warm": True}
    )
    if "error" in big:
        out.rows.append(
            Row(
                "end-to-end",
                f"{n_big:,} players, {days} days",
                "failed: " + big["error"][-300:],
                "runs within 8 GB",
                "miss",
            )
        )
    else:
        out.rows.append(
            Row(
                "end-to-end",
                f"{n_big:,} players, {days} days: {big['games']:,} games",
                f"{big['seconds']:,.0f} s ({big['games'] / big['seconds']:,.0f} "
                f"games/s), peak RSS {big['peak_rss_mb']:,.0f} MB",
                "runs within 8 GB",
                _status(big["peak_rss_mb"] < 8192.0),
                big["peak_rss_mb"],
                "MB",
            )
        )
        parts = big["parts"]
        lines = ["| component | seconds |", "| --- | ---: |"]
        lines += [
            f"| {k} | {v:,.1f} |" for k, v in sorted(parts.items(), key=lambda x: -x[1])
        ]
        out.sections.append(
            (
                f"End-to-end: {n_big:,} players over {days} days",
                f"{big['seconds']:,.1f} s, {big['games']:,} games, "
                f"{big['n_total']:,} players drawn, peak RSS "
                f"{big['peak_rss_mb']:,.0f} MB.\n\n" + "\n".join(lines),
            )
        )
    return out


def _trim_profile(text: str) -> str:
    """The table of a pstats listing, with long paths shortened."""
    keep = []
    started = False
    for line in text.splitlines():
        if line.strip().startswith("ncalls"):
            started = True
        if started and line.strip():
            line = line.replace(str(HERE.parent) + "/", "")
            site = line.find("site-packages/")
            if site >= 0:
                cut = line.rfind(" ", 0, site)
                line = line[: cut + 1] + line[site + len("site-packages/") :]
            keep.append(line)
    return "\n".join(keep)


# --- scaling ------------------------------------------------------------------


def _timed_task(config: Any, seed: Any) -> tuple[Any, float]:
    """One replicate as the runner runs it, with this process's CPU seconds."""
    from simulator.tasks.run import run_task

    c0 = time.process_time()
    output = run_task(config, seed)
    return output, time.process_time() - c0


def _warm_up(config: Any) -> None:
    """One small replicate, untimed: imports and numba's compiled loops."""
    from simulator.tasks.run import run_one

    run_one(config, np.random.SeedSequence(1))


def _busy_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def scaling(quick: bool) -> Outcome:
    """The same replicates on one warm process and on two warm workers."""
    from concurrent.futures import ProcessPoolExecutor

    from simulator.tasks.run import run_sweep

    n_players = 1_000 if quick else 4_000
    years = 0.5 if quick else 3.0
    replicates = 2 if quick else 4
    config = dataclasses.replace(_e2e_config(n_players, years), replicates=replicates)
    # The warm-up plays the same world for a quarter of a year at most: every
    # kind of day (events, monthly lists, weekly checkpoints) comes up, so
    # every compiled loop the timed replicates call is loaded.
    warm_config = _e2e_config(n_players, min(years, 0.25))
    wall: dict[int, float] = {}
    cpu: dict[int, float] = {}
    load: dict[int, str] = {}
    results = {}
    # Both legs run the same tasks through the runner (run_sweep with the
    # same seed) on processes that are already warm: this process after one
    # untimed replicate, and a pool whose two workers are started and have
    # each run one untimed replicate before the clock starts. The speed-up
    # is then the ratio of like legs, with no start-up in either.
    _warm_up(warm_config)
    with ProcessPoolExecutor(
        max_workers=2, initializer=_warm_up, initargs=(warm_config,)
    ) as pool:
        # Both workers exist and have finished their warm-up once two tasks
        # that wait side by side have run on two different processes.
        deadline = time.perf_counter() + 600.0
        pids: set[int] = set()
        while len(pids) < 2:
            if time.perf_counter() > deadline:
                raise RuntimeError("The scaling pool's two workers did not start.")
            pids = {f.result() for f in [pool.submit(_busy_pid, 0.5) for _ in "ab"]}
        for jobs in (1, 2):
            task_cpu: list[float] = []

            def execute(
                calls: Any, jobs: int = jobs, task_cpu: list[float] = task_cpu
            ) -> Any:
                if jobs == 1:
                    outputs = (_timed_task(c, s) for c, s in calls)
                else:
                    futures = [pool.submit(_timed_task, c, s) for c, s in calls]
                    outputs = (f.result() for f in futures)
                for output, seconds in outputs:
                    task_cpu.append(seconds)
                    yield output

            load[jobs] = load_average()
            t0 = time.perf_counter()
            sweep = run_sweep(config, seed=11, progress=False, executor=execute)
            wall[jobs] = time.perf_counter() - t0
            cpu[jobs] = sum(task_cpu)
            if sweep.failures:
                f = sweep.failures[0]
                raise RuntimeError(f"Replicate {f.replicate} failed: {f.error}")
            result = sweep.results[0]
            assert result is not None  # no failures, so every point has one
            results[jobs] = result
    same = all(
        results[1].summary[k].summary.equals(results[2].summary[k].summary)
        for k in results[1].summary
    )
    speedup = wall[1] / wall[2]
    # With two processes each busy all the time, CPU time / wall time is 2;
    # less means they waited for a core (other load on the machine).
    busy = cpu[2] / wall[2]
    return Outcome(
        rows=[
            Row(
                "scaling",
                f"{replicates} replicates of {n_players:,} players x {years:g} "
                f"years: 1 vs 2 processes, both warm (start-up and a warm-up "
                f"replicate untimed)",
                f"1 process {wall[1]:.2f} s, 2 processes {wall[2]:.2f} s = "
                f"{speedup:.2f}x; replicates' CPU {cpu[1]:.1f} s vs "
                f"{cpu[2]:.1f} s, 2 processes kept {busy:.2f} cores busy; load "
                f"before: {load[1]} / {load[2]}; identical results: {same}",
                ">= 1.7x",
                _status(speedup >= 1.7 and same),
                speedup,
                "x",
            )
        ]
    )


# --- main ---------------------------------------------------------------------

SCENARIOS = (
    "kernel",
    "reference",
    "hotpaths",
    "end-to-end",
    "scaling",
    "scale",
    "first-run",
)
#: Scenarios run only when asked for (``--scenario``).
ON_DEMAND = ("side-by-side",)


def _markdown(
    rows: list[Row],
    sections: list[tuple[str, str]],
    info: dict[str, str],
    meta: dict[str, str],
) -> str:
    lines = ["# ratingsim benchmark results", ""]
    lines += [f"- {k}: {v}" for k, v in meta.items()]
    lines += ["", "## Machine", ""]
    lines += [f"- {k}: {v}" for k, v in info.items()]
    lines += [
        "",
        "## Results",
        "",
        "| scenario | case | measured | target | status |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in rows:
        lines.append(
            f"| {r.scenario} | {r.case} | {r.measured} | {r.target} | {r.status} |"
        )
    for title, body in sections:
        lines += ["", f"## {title}", "", body]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the chosen scenarios and write the results table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--scenario",
        action="append",
        choices=SCENARIOS + ON_DEMAND,
        help="scenario to run (repeatable; default: all but "
        + ", ".join(ON_DEMAND)
        + ")",
    )
    parser.add_argument(
        "--quick", action="store_true", help="shrink every scenario for a smoke run"
    )
    parser.add_argument("--out", type=Path, help="Markdown output (CSV beside it)")
    parser.add_argument(
        "--horizon",
        type=float,
        help=f"end-to-end: years to measure at 100,000 players (default "
        f"{FULL_YEARS:g}, ~10 M games; shorter ones are extrapolated)",
    )
    parser.add_argument(
        "--big-days",
        type=int,
        help="end-to-end: days of the 1,000,000-player world (default 31)",
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        _child_main(json.loads(args.child))
        return 0

    chosen = args.scenario or list(SCENARIOS)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    meta = {
        "command": "python benchmarks/run.py " + " ".join(sys.argv[1:]),
        "started (UTC)": stamp,
        "load average at start (1/5/15 min)": load_average(),
        "mode": "quick (smoke run, shrunk sizes)" if args.quick else "full",
    }
    info = machine_info()
    rows: list[Row] = []
    sections: list[tuple[str, str]] = []
    harness = Harness(_run_child, _nominal_sides, Row, Outcome, load_average)
    t_all = time.perf_counter()
    for name in chosen:
        print(
            f"[{name}] running (load {load_average()}) ...", file=sys.stderr, flush=True
        )
        t0 = time.perf_counter()
        if name == "end-to-end":
            outcome = end_to_end(args.quick, args.horizon, args.big_days)
        elif name == "scale":
            outcome = scale_rows(args.quick, harness)
        elif name == "side-by-side":
            outcome = side_by_side(args.quick, harness)
        elif name == "first-run":
            outcome = first_run(args.quick, Row, Outcome)
        else:
            outcome = {
                "kernel": kernel,
                "reference": reference,
                "hotpaths": hotpaths,
                "scaling": scaling,
            }[name](args.quick)
        rows += outcome.rows
        sections += outcome.sections
        print(
            f"[{name}] done in {time.perf_counter() - t0:.1f} s",
            file=sys.stderr,
            flush=True,
        )
    meta["total time"] = f"{time.perf_counter() - t_all:.0f} s"
    meta["load average at end (1/5/15 min)"] = load_average()

    text = _markdown(rows, sections, info, meta)
    out = args.out
    if out is None:
        out = RESULTS / f"{stamp}{'-quick' if args.quick else ''}.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    with out.with_suffix(".csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(
            ["scenario", "case", "measured", "target", "status", "value", "unit"]
        )
        for r in rows:
            writer.writerow(
                [r.scenario, r.case, r.measured, r.target, r.status, r.value, r.unit]
            )
    print(text)
    print(f"Written: {out} and {out.with_suffix('.csv')}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
