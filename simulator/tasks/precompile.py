"""Compiling a run's loops ahead of time, shared between a local pool's workers.

With an empty numba cache (the first run on a machine, a fresh clone, a CI
run), a process compiles each compiled loop the first time it calls it. The
default experiment's workers each compile the same hundred-odd functions at
once, about 30 CPU-seconds in every worker (issue 22: a first default run
2.4 times a warm one on two cores). The **compile plan**
(``compile_plan.json`` beside this module) lists the functions the default
experiment compiles, each with its argument types and the seconds it took to
compile. When a local pool starts, each worker takes one **share** of the
plan (whole modules, so that a function and the helpers it calls compile in
one process; shares balanced by those seconds, the largest module first to
the least loaded share) and compiles it into numba's cache, then runs its
tasks, which load the other shares from the cache instead of compiling them
again. An entry already in the cache (its function and argument types, for
this source and this machine) is skipped, and the tasks load what they use,
so a warm run pays nothing more.

The plan is the default experiment's. A run of another config compiles
what it uses and the plan lacks the first time it calls it, as before, and
its workers compile (once per machine) plan functions it may not use. A
stale plan never fails a run: an entry whose function is gone or no longer
compiles for its types is skipped, and the function compiled when a task
calls it (an entry whose old types still compile is compiled for nothing);
``tests/tasks/test_precompile.py`` fails until the plan is written again:

    python -m simulator.tasks.precompile

(the default experiment, two replicates, in one process with an empty
cache of its own; about a minute). ``ratingsim compile`` (:func:`compile_plan`)
compiles the whole plan ahead, on every core, when a machine, an image or a
CI cache is set up, so that the first run after it finds the cache warm.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import event, types
from numba.np.numpy_support import as_dtype, from_dtype

from simulator._atomic import atomic_file
from simulator._jit import compiled_functions

__all__ = [
    "PLAN",
    "CompileReport",
    "PlanEntry",
    "PlanError",
    "compile_entry",
    "compile_plan",
    "compile_share",
    "describe_type",
    "in_cache",
    "make_type",
    "read_plan",
    "record_plan",
    "shares",
]

#: The default experiment's compile plan, shipped with the package.
PLAN = Path(__file__).with_name("compile_plan.json")

#: The plan's format; a file of another version is refused.
VERSION = 1

#: An argument type in the plan: a numpy scalar's dtype name (``"float64"``,
#: ``"bool"``), ``"Generator"`` (a numpy ``Generator``), an array
#: (``{"dtype": ..., "ndim": ..., "layout": "C", "readonly": false}``) or a
#: tuple (``{"tuple": [type, ...]}``).
TypeSpec = str | dict[str, Any]

_GENERATOR = "Generator"
_ARRAY_KEYS = frozenset({"dtype", "ndim", "layout", "readonly"})


class PlanError(ValueError):
    """A compile plan that cannot be read, or a type it cannot hold."""


@dataclass(frozen=True)
class PlanEntry:
    """One compiled function and one combination of its argument types."""

    #: ``"module:qualname"``, as :func:`simulator._jit.compiled_functions`.
    function: str
    #: One :data:`TypeSpec` per argument.
    args: tuple[TypeSpec, ...]
    #: Seconds it took to compile when the plan was recorded (the helpers of
    #: numba's own it compiled with it included; the weight of its share).
    seconds: float

    @property
    def module(self) -> str:
        """The module of :attr:`function`."""
        return self.function.partition(":")[0]


def describe_type(ty: Any) -> TypeSpec:
    """The plan's description of a numba argument type.

    Raises
    ------
    PlanError
        For a type the plan cannot hold (a literal, a named tuple, a string,
        an unaligned array, an array of dates, ...): compiled functions
        called from Python take numpy scalars, arrays of numbers, tuples of
        those and generators (see :mod:`simulator._jit`).
    """
    if (
        isinstance(ty, types.Array)
        and ty.aligned
        and ty.layout in ("C", "F", "A")
        and isinstance(ty.dtype, types.Boolean | types.Number)
    ):
        return {
            "dtype": str(as_dtype(ty.dtype)),
            "ndim": ty.ndim,
            "layout": ty.layout,
            "readonly": not ty.mutable,
        }
    if isinstance(ty, types.NumPyRandomGeneratorType):
        return _GENERATOR
    if type(ty) in (types.UniTuple, types.Tuple):  # not named, not star-args
        return {"tuple": [describe_type(item) for item in ty.types]}
    if isinstance(ty, types.Boolean | types.Number) and not isinstance(
        ty, types.Literal
    ):
        return str(as_dtype(ty))
    raise PlanError(f"a compile plan cannot hold the argument type {ty!r}")


def make_type(spec: TypeSpec) -> Any:
    """The numba type a :data:`TypeSpec` describes (:func:`describe_type`'s inverse).

    Raises
    ------
    PlanError
        Naming the spec, if it describes no type.
    """
    if spec == _GENERATOR:
        return numba.typeof(np.random.default_rng(0))  # type: ignore[no-untyped-call]
    if isinstance(spec, str):
        try:
            scalar = from_dtype(np.dtype(spec))
        except (TypeError, NotImplementedError, numba.errors.NumbaError):
            scalar = None
        # Canonical names only ("float64", not "f8" or "float").
        canonical = scalar is not None and str(np.dtype(spec)) == spec
        if not canonical or not isinstance(scalar, types.Boolean | types.Number):
            raise PlanError(f"unknown argument type {spec!r}")
        return scalar
    if isinstance(spec, dict) and set(spec) == {"tuple"}:
        if not isinstance(spec["tuple"], list):
            raise PlanError(f"a tuple type holds a list of types, got {spec!r}")
        items = [make_type(item) for item in spec["tuple"]]
        return types.BaseTuple.from_types(items)  # type: ignore[no-untyped-call]
    if not isinstance(spec, dict) or set(spec) != _ARRAY_KEYS:
        raise PlanError(
            f"a type is a dtype name, 'Generator', an array ({sorted(_ARRAY_KEYS)}) "
            f"or a tuple ('tuple'), got {spec!r}"
        )
    ndim, layout, readonly = spec["ndim"], spec["layout"], spec["readonly"]
    if not isinstance(ndim, int) or isinstance(ndim, bool) or not 0 <= ndim <= 32:
        raise PlanError(f"an array's ndim is 0 to 32, got {ndim!r}")
    if layout not in ("C", "F", "A"):
        raise PlanError(f"an array's layout is 'C', 'F' or 'A', got {layout!r}")
    if not isinstance(readonly, bool):
        raise PlanError(f"an array's readonly is true or false, got {readonly!r}")
    dtype = make_type(spec["dtype"])
    if not isinstance(dtype, types.Boolean | types.Number):
        raise PlanError(f"an array's dtype is a number or bool, got {spec!r}")
    return types.Array(dtype, ndim, layout, readonly=readonly)


def read_plan(path: str | os.PathLike[str] = PLAN) -> tuple[PlanEntry, ...]:
    """The entries of a compile plan file.

    Raises
    ------
    PlanError
        If the file is not a plan of this version; the message names the
        field and the value.
    OSError
        If it cannot be read.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise PlanError(f"{path}: not JSON in UTF-8: {exc}") from None
    version = data.get("version") if isinstance(data, dict) else data
    if type(version) is not int or version != VERSION:
        raise PlanError(f"{path}: version must be {VERSION}, got {version!r}")
    functions = data.get("functions")
    if not isinstance(functions, list):
        raise PlanError(f"{path}: functions must be a list, got {functions!r}")
    entries = []
    for i, item in enumerate(functions):
        where = f"{path}: functions[{i}]"
        if not isinstance(item, dict) or set(item) != {"function", "args", "seconds"}:
            raise PlanError(
                f"{where} must have function, args and seconds, got {item!r}"
            )
        name, args, seconds = item["function"], item["args"], item["seconds"]
        module, _, qualname = (name if isinstance(name, str) else "").partition(":")
        if not module or not qualname or ":" in qualname:
            raise PlanError(f"{where}.function must be 'module:qualname', got {name!r}")
        if not isinstance(args, list):
            raise PlanError(f"{where}.args must be a list, got {args!r}")
        if (
            not isinstance(seconds, int | float)
            or isinstance(seconds, bool)
            or not 0 <= seconds < float("inf")
        ):
            raise PlanError(f"{where}.seconds must be a number >= 0, got {seconds!r}")
        for j, spec in enumerate(args):
            try:
                make_type(spec)
            except PlanError as exc:
                raise PlanError(f"{where}.args[{j}]: {exc}") from None
        entries.append(PlanEntry(name, tuple(args), float(seconds)))
    return tuple(entries)


def shares(entries: Sequence[PlanEntry], n: int) -> tuple[tuple[PlanEntry, ...], ...]:
    """``entries`` split into ``n`` shares of whole modules, balanced by seconds.

    A compiled function compiles the helpers it calls with it, and those
    are in its own module (see :mod:`simulator._jit`), so a module split
    between two processes would compile its helpers twice. The modules go
    by decreasing seconds (ties by name) each to the share with the fewest
    seconds so far (ties to the first): the longest-processing-time rule.
    Within a share the entries keep the plan's order.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    weight: dict[str, float] = {}
    for entry in entries:
        weight[entry.module] = weight.get(entry.module, 0.0) + entry.seconds
    load = [0.0] * n
    share_of: dict[str, int] = {}
    for module in sorted(weight, key=lambda m: (-weight[m], m)):
        k = min(range(n), key=lambda i: (load[i], i))
        share_of[module] = k
        load[k] += weight[module]
    return tuple(tuple(e for e in entries if share_of[e.module] == k) for k in range(n))


def in_cache(dispatcher: Any, signature: tuple[Any, ...]) -> bool:
    """Whether numba's cache holds ``dispatcher`` compiled for ``signature``.

    For this machine and the function's current source: numba's own key
    (``Cache._index_key``) looked up in its index (``_load_index``, empty
    when the source changed since). Both are numba's private methods
    (numba 0.62 to 0.68; ``tests/tasks/test_precompile.py`` checks them);
    if they are gone, False, so that the entry is compiled or loaded
    rather than skipped.
    """
    try:
        cache = dispatcher._cache
        key = cache._index_key(signature, dispatcher.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except (AttributeError, TypeError):
        return False


def compile_entry(entry: PlanEntry, *, skip_cached: bool = False) -> bool:
    """Compile one entry into numba's cache, or load it from there.

    With ``skip_cached``, an entry numba's cache holds is left alone
    (:func:`in_cache`): a warm cache costs a pool nothing, and the tasks load
    what they use when they first call it. Returns whether it compiled or
    loaded the entry.

    Raises
    ------
    PlanError
        If ``entry.function`` is not a function compiled by
        :func:`simulator._jit.jit` (after importing its module).
    Exception
        Whatever importing its module raises (``ImportError``, ...), or
        numba when the function does not compile for these argument types
        (``numba.errors.TypingError``, ``TypeError`` for a wrong number of
        arguments, ...).
    """
    importlib.import_module(entry.module)
    dispatcher = compiled_functions().get(entry.function)
    if dispatcher is None:
        raise PlanError(f"{entry.function!r} is not a compiled function")
    signature = tuple(make_type(spec) for spec in entry.args)
    if skip_cached and in_cache(dispatcher, signature):
        return False
    dispatcher.compile(signature)
    return True


def compile_share(
    counter: Any, n_shares: int, path: str | os.PathLike[str] = PLAN
) -> int | None:
    """A pool worker's initializer: compile the next unclaimed share of the plan.

    ``counter`` is a ``multiprocessing.Value`` shared by the pool's workers
    (the share's index, claimed under its lock); a worker that finds every
    share claimed compiles nothing. Returns the index claimed (None if
    none). Never raises an ``Exception``: an entry that fails (a stale plan)
    is skipped, and its function compiled when a task calls it, as without
    a plan; a pool whose initializer raised would fail every task. Ctrl-C
    while it compiles ends the worker at once, with no traceback (the run
    itself says it was interrupted), as Ctrl-C in a task does.
    """
    try:
        with counter.get_lock():
            index = int(counter.value)
            counter.value = index + 1
        if index >= n_shares:
            return None
        _compile_part(index, n_shares, path)  # what failed compiles when called
    except KeyboardInterrupt:
        # concurrent.futures would print numba's traceback from every worker.
        os._exit(130)
    except Exception:
        return None
    return index


@dataclass(frozen=True)
class CompileReport:
    """What :func:`compile_plan` did with each entry of the plan."""

    compiled: int
    skipped: int
    failed: tuple[str, ...]

    @property
    def n_entries(self) -> int:
        """The plan's entries: each compiled, skipped or failed."""
        return self.compiled + self.skipped + len(self.failed)


def _compile_part(
    index: int, n_shares: int, path: str | os.PathLike[str]
) -> tuple[int, int, list[str]]:
    """Compile share ``index``: how many compiled, skipped, and what failed.

    A top-level function, for a process pool; :func:`compile_share` and
    :func:`compile_plan` both run it. An entry that fails does not stop the
    others.
    """
    compiled, skipped, failed = 0, 0, []
    for entry in shares(read_plan(path), n_shares)[index]:
        try:
            if compile_entry(entry, skip_cached=True):
                compiled += 1
            else:
                skipped += 1
        except Exception as exc:  # reported: the plan is stale
            failed.append(f"{entry.function}: {type(exc).__name__}: {exc}")
    return compiled, skipped, failed


def compile_plan(jobs: int, path: str | os.PathLike[str] = PLAN) -> CompileReport:
    """Compile the whole plan into numba's cache, ``jobs`` shares at once.

    What ``ratingsim compile`` runs: the first run's compiling done ahead,
    e.g. when a machine, an image or a CI cache is set up, so that the
    runs after it find the cache warm. Entries the cache holds are
    skipped. With ``jobs`` 1, in this process; else in a pool of ``jobs``
    processes, one share each.

    Raises
    ------
    PlanError
        If the plan cannot be read.
    ValueError
        If ``jobs`` is below 1.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    read_plan(path)  # a bad plan is an error here, not in the workers
    if jobs == 1:
        parts = [_compile_part(0, 1, path)]
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            futures = [pool.submit(_compile_part, k, jobs, path) for k in range(jobs)]
            parts = [future.result() for future in futures]
    return CompileReport(
        compiled=sum(p[0] for p in parts),
        skipped=sum(p[1] for p in parts),
        failed=tuple(f for p in parts for f in p[2]),
    )


class _CompileTimes(event.Listener):
    """Seconds numba spends compiling each of the project's functions.

    The time of a compilation, less that of the project's functions it
    compiles inside it (their own), and with that of numba's helpers (which
    it compiles as part of it).
    """

    def __init__(self, names: Callable[[], dict[Any, str]]) -> None:
        self._names = names
        self._stack: list[list[Any]] = []
        self.seconds: dict[tuple[str, tuple[Any, ...]], float] = {}
        #: Each compilation's place in the order they started.
        self.started: dict[tuple[str, tuple[Any, ...]], int] = {}

    def on_start(self, ev: Any) -> None:
        name = self._names().get(id(ev.data["dispatcher"]))
        if name is not None:
            key = (name, tuple(ev.data["args"]))
            self.started.setdefault(key, len(self.started))
        self._stack.append([ev.data["dispatcher"], time.perf_counter(), 0.0])

    def on_end(self, ev: Any) -> None:
        dispatcher, start, inner = self._stack.pop()
        took = time.perf_counter() - start
        names = self._names()
        name = names.get(id(dispatcher))
        if name is None:  # numba's own helper: part of its caller
            return
        key = (name, tuple(ev.data["args"]))
        self.seconds[key] = self.seconds.get(key, 0.0) + took - inner
        for outer in reversed(self._stack):
            if id(outer[0]) in names:
                outer[2] += took
                break


def record_plan(run: Callable[[], object]) -> list[dict[str, Any]]:
    """Call ``run`` and list what it compiled, as a plan's ``functions``.

    Every signature of every function of :func:`simulator._jit.jit` after
    ``run``, in the order ``run`` first compiled them, with the seconds each
    took to compile (0 for one loaded from the cache, listed last by name:
    record with an empty cache).

    Raises
    ------
    PlanError
        If a signature has a type the plan cannot hold.
    """

    def names() -> dict[Any, str]:
        return {id(d): name for name, d in compiled_functions().items()}

    listener = _CompileTimes(names)
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    try:
        run()
    finally:
        event.unregister("numba:compile", listener)  # type: ignore[no-untyped-call]
    found = []
    for name, dispatcher in sorted(compiled_functions().items()):
        for signature in dispatcher.signatures:
            try:
                args = [describe_type(ty) for ty in signature]
                back = tuple(make_type(spec) for spec in json.loads(json.dumps(args)))
            except PlanError as exc:
                raise PlanError(f"{name}: {exc}") from None
            if back != tuple(signature):  # a plan read_plan would refuse or misread
                raise PlanError(f"{name}: {signature} reads back as {back}")
            key = (name, tuple(signature))
            seconds = round(listener.seconds.get(key, 0.0), 2)
            place = listener.started.get(key, len(listener.started))
            found.append((place, {"function": name, "args": args, "seconds": seconds}))
    # In the order the run first compiled them (those loaded from the cache
    # last): a worker compiles its share in the order the tasks need it, so
    # the other, done first, finds the early ones of it compiled.
    return [entry for _, entry in sorted(found, key=lambda item: item[0])]


def _record_default(out: Path) -> None:
    """Record the default experiment's plan into ``out`` (in this process)."""
    from simulator.tasks.run import run_experiment

    with tempfile.TemporaryDirectory() as folder:

        def run() -> None:
            run_experiment(
                seed=1,
                replicates=2,
                out=Path(folder) / "run",
                jobs=1,
                figures=False,
                progress=False,
                show=lambda _: None,
                say=lambda _: None,
            )

        functions = record_plan(run)
    plan = {
        "version": VERSION,
        "about": (
            "The functions the default experiment compiles, with their argument "
            "types and the seconds each took to compile (numba "
            f"{numba.__version__}): written by python -m simulator.tasks.precompile."
        ),
        "functions": functions,
    }
    # One line per entry, for a reader (writing it again changes the seconds).
    lines = ",\n  ".join(json.dumps(f) for f in functions)
    head = json.dumps({k: v for k, v in plan.items() if k != "functions"}, indent=1)
    with atomic_file(out, force=True) as handle:
        handle.write(f'{head[:-2]},\n "functions": [\n  {lines}\n ]\n}}\n')


def main(argv: Sequence[str] | None = None) -> int:
    """Write the compile plan (a child process with an empty numba cache records it)."""
    parser = argparse.ArgumentParser(
        prog="python -m simulator.tasks.precompile", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--out", type=Path, default=PLAN, help="the plan file")
    parser.add_argument("--record", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.record:
        _record_default(args.out)
        return 0
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        command = [sys.executable, "-m", "simulator.tasks.precompile", "--record"]
        done = subprocess.run([*command, "--out", str(args.out)], env=env, check=False)
    if done.returncode == 0:
        print(f"wrote {args.out} ({len(read_plan(args.out))} entries)")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
