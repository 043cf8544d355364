"""Tests of simulator.tasks.precompile: the compile plan and its shares.

The plan shipped with the package must cover what a default run compiles
(a subprocess runs a small default experiment and lists it), name only
compiled functions, and split into shares of whole modules; a pool's workers
each compile their own share into the cache, and a stale plan never fails a
run.
"""

from __future__ import annotations

import collections
import importlib
import json
import multiprocessing
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pytest
from numba.core import types

import simulator.tasks.precompile as precompile
import simulator.tasks.run
from simulator._jit import compiled_functions
from simulator.tasks.precompile import (
    PLAN,
    PlanEntry,
    PlanError,
    compile_entry,
    compile_share,
    describe_type,
    in_cache,
    make_type,
    read_plan,
    shares,
)

ROOT = Path(__file__).resolve().parents[2]

# --------------------------------------------------------------------------
# Types


@pytest.mark.parametrize(
    "ty",
    [
        types.float64,
        types.int64,
        types.int8,
        types.uint64,
        types.float32,
        types.boolean,
        types.Array(types.float64, 1, "C"),
        types.Array(types.int64, 2, "C", readonly=True),
        types.Array(types.boolean, 3, "A"),
        types.Array(types.float64, 0, "C"),
        types.Array(types.float32, 1, "F", readonly=True),
        types.UniTuple(types.Array(types.float64, 1, "C", readonly=True), 7),
        types.Tuple((types.int64, types.Array(types.boolean, 1, "C"))),
        numba.typeof(np.random.default_rng(3)),
    ],
    ids=str,
)
def test_a_described_type_makes_the_same_type(ty: Any) -> None:
    spec = describe_type(ty)
    assert make_type(json.loads(json.dumps(spec))) == ty


def test_a_generator_of_any_bit_generator_is_one_type() -> None:
    for bits in (np.random.PCG64(1), np.random.MT19937(1), np.random.Philox(1)):
        assert make_type("Generator") == numba.typeof(np.random.Generator(bits))


@pytest.mark.parametrize(
    "ty",
    [
        types.IntegerLiteral(3),
        types.BooleanLiteral(True),
        types.unicode_type,
        types.List(types.int64),
        types.Array(types.float64, 1, "C", aligned=False),
        types.Array(types.NPDatetime("D"), 1, "C"),
        types.Array(types.unicode_type, 1, "C"),
        types.StarArgTuple((types.int64,)),
        types.NamedUniTuple(types.int64, 2, collections.namedtuple("P", "x y")),
    ],
    ids=str,
)
def test_a_type_the_plan_cannot_hold_is_refused(ty: Any) -> None:
    with pytest.raises(PlanError, match="cannot hold"):
        describe_type(ty)


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("float99", "'float99'"),
        ("object", "'object'"),
        ({"dtype": "float64", "ndim": 1, "layout": "C"}, "'layout': 'C'"),
        ({"dtype": "float64", "ndim": -1, "layout": "C", "readonly": False}, "-1"),
        ({"dtype": "float64", "ndim": 33, "layout": "C", "readonly": False}, "33"),
        ("f8", "'f8'"),
        ("int", "'int'"),
        ("?", "'?'"),
        ("datetime64[D]", "datetime64"),
        ({"dtype": "float64", "ndim": True, "layout": "C", "readonly": False}, "True"),
        ({"dtype": "float64", "ndim": 1, "layout": "X", "readonly": False}, "'X'"),
        ({"dtype": "float64", "ndim": 1, "layout": "C", "readonly": 0}, "0"),
        ({"dtype": "Generator", "ndim": 1, "layout": "C", "readonly": False}, "dtype"),
        ({"tuple": "int64"}, "'int64'"),
        ({"tuple": ["int64", "nope"]}, "'nope'"),
        (3, "3"),
    ],
)
def test_a_bad_type_spec_names_the_value(spec: Any, needle: str) -> None:
    with pytest.raises(PlanError) as info:
        make_type(spec)
    assert needle in str(info.value)


# --------------------------------------------------------------------------
# The plan file


def _write(path: Path, functions: Any, version: Any = precompile.VERSION) -> Path:
    path.write_text(json.dumps({"version": version, "functions": functions}))
    return path


def _entry(function: str = "m:f", args: Any = None, seconds: Any = 0.5) -> Any:
    return {
        "function": function,
        "args": ["int64"] if args is None else args,
        "seconds": seconds,
    }


def test_a_plan_file_is_read_entry_by_entry(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "p.json", [_entry("a.b:f", ["int64"], 1), _entry("c:g", [], 0)]
    )
    assert read_plan(path) == (
        PlanEntry("a.b:f", ("int64",), 1.0),
        PlanEntry("c:g", (), 0.0),
    )
    assert read_plan(path)[0].module == "a.b"


@pytest.mark.parametrize(
    ("functions", "version", "needle"),
    [
        ([], 2, "version must be 1, got 2"),
        ([], True, "version must be 1, got True"),
        ([], 1.0, "version must be 1, got 1.0"),
        ([_entry(function=":f")], 1, "':f'"),
        ([_entry(function="m:")], 1, "'m:'"),
        ({}, 1, "functions must be a list"),
        ([["m:f"]], 1, "functions[0] must have function, args and seconds"),
        ([_entry(), {**_entry(), "extra": 1}], 1, "functions[1] must have"),
        ([_entry(function="nocolon")], 1, "functions[0].function must be"),
        ([_entry(function="a:b:c")], 1, "'a:b:c'"),
        ([_entry(args="int64")], 1, "functions[0].args must be a list"),
        ([_entry(seconds=-1)], 1, "functions[0].seconds must be a number >= 0, got -1"),
        ([_entry(seconds=True)], 1, "got True"),
        ([_entry(seconds="1")], 1, "got '1'"),
        (
            [_entry(args=["int64", "int65"])],
            1,
            "args[1]: unknown argument type 'int65'",
        ),
    ],
)
def test_a_bad_plan_file_names_the_field_and_value(
    tmp_path: Path, functions: Any, version: Any, needle: str
) -> None:
    path = _write(tmp_path / "p.json", functions, version)
    with pytest.raises(PlanError) as info:
        read_plan(path)
    assert needle in str(info.value)
    assert str(path) in str(info.value)


def test_a_plan_file_that_is_not_json_is_a_plan_error(tmp_path: Path) -> None:
    path = tmp_path / "p.json"
    path.write_text("{not json")
    with pytest.raises(PlanError, match="not JSON"):
        read_plan(path)
    path.write_bytes(b'{"version": 1, "functions": ["\xff"]}')
    with pytest.raises(PlanError, match="not JSON in UTF-8"):
        read_plan(path)
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(PlanError, match="not JSON"):
        read_plan(path)
    path.write_text("[1, 2]")
    with pytest.raises(PlanError, match="version must be 1"):
        read_plan(path)


def test_every_entry_of_the_shipped_plan_is_a_compiled_function() -> None:
    plan = read_plan(PLAN)
    assert len(plan) > 50
    for entry in plan:
        importlib.import_module(entry.module)
        assert entry.function in compiled_functions(), entry.function
        assert entry.seconds > 0, entry.function  # recorded with an empty cache
    assert len({(e.function, json.dumps(e.args)) for e in plan}) == len(plan)


# --------------------------------------------------------------------------
# Shares


def _entries(weights: dict[str, list[float]]) -> list[PlanEntry]:
    return [
        PlanEntry(f"{module}:f{i}", (), s)
        for module, seconds in weights.items()
        for i, s in enumerate(seconds)
    ]


def test_shares_keep_modules_whole_and_follow_the_longest_first_rule() -> None:
    entries = _entries({"a": [2, 3], "b": [4], "c": [1, 2], "d": [3]})
    entries.reverse()  # the plan's order is the run's, not the names'
    entries.insert(0, entries.pop(2))
    parts = shares(entries, 2)
    # Modules by seconds: a 5, b 4, c 3, d 3 -> a to 0, b to 1, c to 1, d to 0.
    assert [sorted({e.module for e in p}) for p in parts] == [["a", "d"], ["b", "c"]]
    assert sorted(e.function for p in parts for e in p) == sorted(
        e.function for e in entries
    )
    assert parts[1] == tuple(e for e in entries if e.module in ("b", "c"))  # plan order


def test_shares_of_one_or_more_than_the_modules() -> None:
    entries = _entries({"a": [1], "b": [2]})
    assert shares(entries, 1) == (tuple(entries),)
    parts = shares(entries, 4)
    assert [len(p) for p in parts] == [1, 1, 0, 0]
    assert parts[0][0].module == "b"
    with pytest.raises(ValueError, match="at least 1, got 0"):
        shares(entries, 0)


def test_the_shipped_plan_splits_evenly_in_two() -> None:
    loads = [sum(e.seconds for e in p) for p in shares(read_plan(PLAN), 2)]
    assert min(loads) > 0.8 * max(loads)


# --------------------------------------------------------------------------
# Compiling a share


_MODULE = """
from simulator._jit import jit

@jit
def add_one(x):
    return x + 1

@jit
def nested(x):
    return add_one(x) * 2

@jit
def total(a):
    s = 0.0
    for v in a:
        s += v
    return s
"""


@pytest.fixture
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A fresh module of two compiled functions, cached in ``tmp_path``."""
    name = f"_plan_example_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(name)
    yield module
    sys.modules.pop(name, None)


def test_compile_entry_compiles_into_the_cache_and_skips_what_is_there(
    example: Any,
) -> None:
    """Skipped: the entry's own signature in the cache, for the current source."""
    name = example.__name__
    entry = PlanEntry(f"{name}:add_one", ("int64",), 0.1)
    other = PlanEntry(entry.function, ("float64",), 0.1)
    int64, float64 = (types.int64,), (types.float64,)
    assert not in_cache(example.add_one, int64)  # numba's private methods still read
    assert compile_entry(entry, skip_cached=True)
    assert example.add_one.signatures == [int64]
    assert in_cache(example.add_one, int64)
    assert not in_cache(example.add_one, float64)  # another signature
    assert compile_entry(other, skip_cached=True)
    assert example.add_one.signatures == [int64, float64]
    # A new process (here: the module again): both skipped, so not even loaded.
    fresh = importlib.reload(example)
    assert fresh.add_one.signatures == []
    assert not compile_entry(entry, skip_cached=True)
    assert not compile_entry(other, skip_cached=True)
    assert fresh.add_one.signatures == []
    assert compile_entry(entry)  # loaded from the cache
    assert fresh.add_one.signatures == [int64]
    # The source changed: the cache is stale, nothing is skipped.
    path = Path(fresh.__file__)
    path.write_text(path.read_text().replace("x + 1", "x + 2"))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    changed = importlib.reload(fresh)
    assert not in_cache(changed.add_one, int64)
    assert compile_entry(entry, skip_cached=True)
    assert changed.add_one(1) == 3


def test_record_plan_lists_what_a_call_compiled_in_order(example: Any) -> None:
    name = example.__name__
    functions = [
        f
        for f in precompile.record_plan(lambda: example.nested(np.int64(3)))
        if f["function"].startswith(f"{name}:")  # not other tests' examples
    ]
    listed = [(f["function"], f["args"]) for f in functions]
    # nested started first and compiled add_one inside it.
    assert listed == [(f"{name}:nested", ["int64"]), (f"{name}:add_one", ["int64"])]
    assert all(f["seconds"] > 0 for f in functions)
    # Loaded from the cache (a new process): listed, with no seconds.
    fresh = importlib.reload(example)
    again = precompile.record_plan(lambda: fresh.nested(np.int64(3)))
    assert [
        (f["function"], f["args"], f["seconds"])
        for f in again
        if f["function"].startswith(f"{name}:")
    ] == [(f"{name}:nested", ["int64"], 0.0)]


def test_compile_times_are_each_function_s_own() -> None:
    """_CompileTimes on a made-up nest of events: own = whole - inner."""
    outer, helper, inner = object(), object(), object()
    names = {id(outer): "m:outer", id(inner): "m:inner"}  # helper: numba's own
    times = iter([0.0, 1.0, 1.5, 2.0, 4.0, 10.0])
    listener = precompile._CompileTimes(lambda: names)

    class Event:
        def __init__(self, dispatcher: object) -> None:
            self.data = {"dispatcher": dispatcher, "args": (types.int64,)}

    real = precompile.time.perf_counter
    precompile.time.perf_counter = lambda: next(times)
    try:
        listener.on_start(Event(outer))  # 0.0
        listener.on_start(Event(helper))  # 1.0: numba's helper, part of outer
        listener.on_start(Event(inner))  # 1.5: the project's, inside the helper
        listener.on_end(Event(inner))  # 2.0: inner took 0.5
        listener.on_end(Event(helper))  # 4.0
        listener.on_end(Event(outer))  # 10.0: outer 10 less inner's 0.5
    finally:
        precompile.time.perf_counter = real
    assert listener.seconds == {
        ("m:outer", (types.int64,)): 9.5,
        ("m:inner", (types.int64,)): 0.5,
    }
    assert listener.started == {
        ("m:outer", (types.int64,)): 0,
        ("m:inner", (types.int64,)): 1,
    }


def test_compile_entry_refuses_what_is_not_a_compiled_function(example: Any) -> None:
    with pytest.raises(PlanError, match="is not a compiled function"):
        compile_entry(PlanEntry(f"{example.__name__}:textwrap", (), 0.0))
    with pytest.raises(ImportError):
        compile_entry(PlanEntry("simulator.no_such_module:f", (), 0.0))


def test_each_worker_claims_the_next_share_and_a_stale_entry_is_skipped(
    example: Any, tmp_path: Path
) -> None:
    name = example.__name__
    array = {"dtype": "float64", "ndim": 1, "layout": "C", "readonly": False}
    path = _write(
        tmp_path / "plan.json",
        [
            _entry(f"{name}:gone", ["int64"], 5.0),  # stale: no such function
            _entry(f"{name}:add_one", ["int64"], 1.0),
            _entry(f"{name}:total", [array], 1.0),
            _entry("simulator.no_such_module:f", [], 3.0),
        ],
    )
    counter = multiprocessing.Value("i", 0)
    assert compile_share(counter, 2, path) == 0  # the example module (7 s)
    assert counter.value == 1
    assert example.add_one.signatures == [(types.int64,)]
    assert len(example.total.signatures) == 1
    assert compile_share(counter, 2, path) == 1  # the missing module, skipped
    assert compile_share(counter, 2, path) is None  # no share left
    assert counter.value == 3
    # Another worker (here: the module again) finds share 0 cached: skipped.
    fresh = importlib.reload(example)
    assert compile_share(multiprocessing.Value("i", 0), 2, path) == 0
    assert fresh.add_one.signatures == fresh.total.signatures == []
    for bad in (tmp_path / "absent.json", _write(tmp_path / "bad.json", {})):
        assert compile_share(multiprocessing.Value("i", 0), 2, bad) is None


def test_a_local_pool_starts_its_workers_on_the_plan() -> None:
    ahead = simulator.tasks.run._compile_ahead(3)
    assert ahead["initializer"] is compile_share
    counter, n = ahead["initargs"]
    assert (counter.value, n) == (0, 3)


_FIRST_POOL = """
import json, os, sys
from numba.core import event
import simulator.tasks.run as run_module
from simulator.tasks.precompile import compile_share, describe_type

LOG = sys.argv[1]


class Log(event.Listener):
    def __init__(self, phase):
        self.phase = phase
        self.pid = os.getpid()  # a forked worker inherits the parent's

    def on_start(self, ev):
        if os.getpid() != self.pid:
            return
        d = ev.data["dispatcher"]
        name = f"{d.py_func.__module__}:{d.py_func.__qualname__}"
        try:
            args = [describe_type(ty) for ty in ev.data["args"]]
        except Exception:
            args = None
        with open(LOG, "a") as f:
            f.write(json.dumps([os.getpid(), self.phase, name, args]) + "\\n")

    def on_end(self, ev):
        pass


def logged_share(counter, n):
    log = Log("ahead")
    event.register("numba:compile", log)
    index = compile_share(counter, n)
    with open(LOG, "a") as f:
        f.write(json.dumps([os.getpid(), "share", index, None]) + "\\n")
    log.phase = "task"


if __name__ == "__main__":
    run_module.compile_share = logged_share
    event.register("numba:compile", Log("parent"))
    run_module.run_experiment(
        seed=2, replicates=2, out=sys.argv[2], jobs=2, figures=False,
        progress=False, settings=("population.n_players=300", "years=1.5"),
        show=lambda _: None, say=lambda _: None,
    )
"""


def _pool_log(tmp_path: Path, run: str) -> list[Any]:
    log = tmp_path / f"{run}.jsonl"
    script = tmp_path / "first_pool.py"  # a file: any start method can import it
    script.write_text(_FIRST_POOL)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    subprocess.run(
        [sys.executable, str(script), str(log), str(tmp_path / run)],
        env=env,
        check=True,
        cwd=ROOT,
    )
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_a_first_pool_compiles_each_share_in_one_worker_and_the_plan_suffices(
    tmp_path: Path,
) -> None:
    """The default experiment, small, two workers, an empty cache, then warm.

    Worker k compiles share k before its tasks, and nothing of the other
    share; the tasks and the parent compile nothing the plan lacks (a stale
    plan: ``python -m simulator.tasks.precompile`` writes it again). The
    helpers that compiled functions call are compiled with their callers
    and need not be in the plan. The same run again compiles nothing.
    """
    lines = _pool_log(tmp_path, "first")
    share_of = {pid: index for pid, phase, index, _ in lines if phase == "share"}
    assert sorted(share_of.values()) == [0, 1]
    plan = read_plan(PLAN)
    parts = shares(plan, 2)

    def key(name: str, args: Any) -> tuple[str, str]:
        return name, json.dumps(args)

    for pid, index in share_of.items():
        ahead = {key(n, a) for p, phase, n, a in lines if p == pid and phase == "ahead"}
        # A worker done with its share first may reach one of the other's in
        # a task before the other does (then the other finds it cached).
        other = {key(n, a) for p, phase, n, a in lines if p != pid and phase == "task"}
        mine = {key(e.function, list(e.args)) for e in parts[index]}
        theirs = {key(e.function, list(e.args)) for e in parts[1 - index]}
        assert mine <= ahead | other, sorted(mine - ahead - other)[:3]
        assert len(mine & ahead) > len(mine) / 2
        assert not ahead & theirs, sorted(ahead & theirs)[:3]
    planned = {key(e.function, list(e.args)) for e in plan}
    later = {
        key(name, args)
        for _, phase, name, args in lines
        if phase in ("task", "parent") and name.startswith("simulator.")
    }
    assert len(lines) > 100
    missing = sorted(later - planned)
    assert not missing, f"the plan lacks {missing[:3]}"
    warm = _pool_log(tmp_path, "warm")
    assert sorted(index for _, phase, index, _ in warm if phase == "share") == [0, 1]
    assert [line for line in warm if line[1] != "share"] == []


# --------------------------------------------------------------------------
# ratingsim compile


@pytest.mark.parametrize("jobs", [1, 2])
def test_compile_plan_compiles_every_share_and_reports_the_stale(
    example: Any, tmp_path: Path, jobs: int
) -> None:
    name = example.__name__
    array = {"dtype": "float64", "ndim": 1, "layout": "C", "readonly": False}
    path = _write(
        tmp_path / "plan.json",
        [
            _entry(f"{name}:add_one", ["int64"], 1.0),
            _entry(f"{name}:total", [array], 1.0),
            _entry(f"{name}:gone", ["int64"], 1.0),
        ],
    )
    report = precompile.compile_plan(jobs, path)
    assert (report.compiled, report.skipped) == (2, 0)
    assert len(report.failed) == 1 and f"{name}:gone: PlanError" in report.failed[0]
    assert in_cache(example.add_one, (types.int64,))
    again = precompile.compile_plan(jobs, path)
    assert (again.compiled, again.skipped, len(again.failed)) == (0, 2, 1)
    with pytest.raises(ValueError, match="at least 1, got 0"):
        precompile.compile_plan(0, path)
    with pytest.raises(PlanError, match="version"):
        precompile.compile_plan(jobs, _write(tmp_path / "bad.json", [], 7))


def test_ratingsim_compile_says_what_it_did_and_fails_on_a_stale_entry(
    example: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from simulator.cli import main

    name = example.__name__
    plan = [_entry(f"{name}:add_one", ["int64"], 1.0)]
    monkeypatch.setattr(precompile, "PLAN", _write(tmp_path / "plan.json", plan))
    assert main(["compile", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("compiled 1 of the plan's 1 entries in ")
    assert "on 1 process (0 already in the cache" in out and "0 failed" in out
    plan.append(_entry(f"{name}:gone", ["int64"], 1.0))
    monkeypatch.setattr(precompile, "PLAN", _write(tmp_path / "plan2.json", plan))
    assert main(["compile", "--jobs", "1"]) == 1
    out = capsys.readouterr().out
    assert "compiled 0 of the plan's 2 entries" in out and "1 failed" in out
    assert f"failed: {name}:gone: PlanError" in out
    monkeypatch.setattr(precompile, "PLAN", _write(tmp_path / "bad.json", [], 2))
    assert main(["compile"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ratingsim compile: error: ") and "version must be 1" in err
    assert "Traceback" not in err
    assert main(["compile", "--jobs", "0"]) == 2
