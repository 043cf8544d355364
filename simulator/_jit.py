"""Compiled loops: numba's ``njit`` with the project's settings, typed for mypy.

Most of ratingsim is numpy over whole arrays. A few hot paths are loops whose
steps depend on each other (a Swiss pairing, a root finder's iterations): in
numpy each step costs a dozen array calls, most of it call overhead. Those
loops are compiled with :func:`jit`.

The settings, and why:

- ``cache=True``: compiled once per machine and kept (beside the module, or in
  numba's user-wide cache when that folder is read-only), so a run, a test
  session or a Dask worker pays the compilation only the first time.
  numba checks a cached function against its own file only: a compiled
  helper or a constant imported from another module and changed there
  leaves the callers' cached code stale (a known numba limitation). So a compiled
  function should call compiled helpers, and read constants, from its own
  module. The one exception: Lichess's kernels read ``glicko2``'s ``SCALE``
  and ``RATING``, constants of the paper; after changing anything of the
  kind, delete the cache (``find simulator -name '*.nb[ic]' -delete``). A
  fresh clone or install (CI, pip) has no stale cache.
  With no writable cache folder at all (a read-only install and an
  unwritable ``NUMBA_CACHE_DIR``), the loops are compiled without a cache,
  anew in each process, instead of failing.
- ``nogil=True``: threads (a Dask worker's) can run compiled loops side by side.
- No ``fastmath``: IEEE arithmetic in the written order, with no fused
  multiply-adds, so a compiled loop gives the same bits as numpy doing the same
  operations one array at a time. ``exp`` and ``log`` are the exception: numpy's
  (SIMD) and the C library's may differ in the last bit, so loops that must
  match numpy leave them to numpy.
- ``error_model="numpy"``: a division by zero gives inf or NaN, as in numpy,
  instead of raising.
- ``no_cfunc_wrapper=True``: numba builds, beside each compiled function, a
  C-callable wrapper, for ``cfunc`` and first-class function use, which
  ratingsim never makes (compiled code calls compiled code directly, Python
  calls it through the Python wrapper, which is kept). Without them (and
  with one more compiled function, the strengths' normals) a first default
  run took 61.5 and 63.6 s against 65.8 and 64.0 s with them (interleaved,
  one machine, fresh caches): a little of the compiling.

With an empty cache, compiling takes most of a run's time. Two rules keep
it down:

- One type per argument. numba compiles a function once per combination of
  argument types (an array's include its layout and write flag), and a call
  from compiled code types a constant int or bool by its value
  (``Literal[int](0)``), a tuple by its length and values, and at first even
  a counter set to ``0`` before a loop increments it. So compiled code passes
  module-level numpy arrays rather than tuples (constants of one type
  whatever they hold) and :func:`unliteral` constants rather than bare ints
  and bools, and Python code passes floats where an int may come instead
  (``float(cap)``).
- No array assigned to a slice (``a[i:j] = b``) and no strings: either
  compiles numba's string machinery (for the message on mismatched shapes),
  which takes seconds; a loop copies as fast. Loops are also cheaper to
  compile than numpy functions such as ``np.append``, ``np.bincount`` or
  ``.min()`` (a few tenths of a second each), where they read as well.

A local run's workers share the compiling instead of each doing all of it:
each compiles one share of the default experiment's compiled functions into
the cache before its first task (:mod:`simulator.tasks.precompile`, which
finds them by :func:`compiled_functions`).

The command line says so while it compiles: :func:`on_first_compile` calls
a function when numba starts compiling (a cache miss), once, whichever
process compiles first. The library itself prints nothing.
"""

from __future__ import annotations

import contextlib
import multiprocessing
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

import numba
import numpy as np
from numba.core import event

__all__ = ["compiled_functions", "jit", "on_first_compile", "unliteral"]

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")

#: numba's options for every compiled loop but ``cache`` (see above).
_OPTIONS: dict[str, Any] = {
    "nogil": True,
    "error_model": "numpy",
    "no_cfunc_wrapper": True,
}


#: Every function given to :func:`jit` (compiled at its first call), by
#: ``"module:qualname"``.
_COMPILED: dict[str, Any] = {}


def jit(func: F) -> F:
    """Compile ``func`` with numba (nopython mode) and the settings above.

    The compiled function is also recorded by its ``"module:qualname"``
    (:func:`compiled_functions`), for compiling a run's functions ahead
    (:mod:`simulator.tasks.precompile`).

    Parameters
    ----------
    func : callable
        A function numba can compile: scalars and numpy arrays in, no Python
        objects.

    Returns
    -------
    callable
        The compiled function, with ``func``'s signature for type checkers.
    """
    try:
        compiled = numba.njit(cache=True, **_OPTIONS)(func)
    except RuntimeError as exc:
        # numba found no writable cache folder (a read-only install and an
        # unwritable NUMBA_CACHE_DIR): compile anew in each process rather
        # than fail every command, --help included.
        if "cannot cache" not in str(exc):
            raise
        compiled = numba.njit(cache=False, **_OPTIONS)(func)
    _COMPILED[f"{func.__module__}:{func.__qualname__}"] = compiled
    return cast(F, compiled)


def compiled_functions() -> dict[str, Any]:
    """The numba dispatchers :func:`jit` has made, by ``"module:qualname"``.

    Only those of modules imported in this process. A copy: adding to it
    changes nothing.
    """
    return dict(_COMPILED)


def unliteral(value: T) -> T:
    """``value`` (an int, float or bool) as a numpy scalar of its kind.

    For module-level constants that compiled code passes to compiled
    functions: numba types a numpy scalar by its type (``int64``), where it
    types an int or bool by its value (``Literal[int](0)``) and compiles the
    callee once per value (see above).

    >>> unliteral(0).dtype, unliteral(False).dtype
    (dtype('int64'), dtype('bool'))
    """
    return cast(T, np.asarray(value)[()])


class _Once:
    """A flag for one process, for when no shared memory can be had."""

    def __init__(self) -> None:
        self.value = 0

    def get_lock(self) -> contextlib.nullcontext[None]:
        return contextlib.nullcontext()


class _FirstCompile(event.Listener):
    """Calls ``callback`` at the first ``numba:compile`` event, once in all."""

    def __init__(self, callback: Callable[[], None], flag: Any) -> None:
        self._callback = callback
        self._flag = flag

    def on_start(self, ev: Any) -> None:
        with self._flag.get_lock():
            if self._flag.value:
                return
            self._flag.value = 1
        self._callback()

    def on_end(self, ev: Any) -> None:
        """Nothing: only the start of the first compilation matters."""


@contextlib.contextmanager
def on_first_compile(callback: Callable[[], None]) -> Iterator[None]:
    """Call ``callback`` once when numba first compiles a function in the block.

    numba raises its ``numba:compile`` event only when it compiles: a
    function found in the cache is loaded without it. So the callback runs
    exactly when a run is about to wait for the compiler (a first run, a
    changed module, no cache folder), and never on a warm cache. The flag
    lives in shared memory, so processes forked inside the block (a local
    run's workers) share the once: the first of them to compile calls it.

    Parameters
    ----------
    callback : callable
        Called with no arguments, at most once.
    """
    flag: Any
    try:
        flag = multiprocessing.Value("b", 0)
    except OSError:  # no shared memory (a locked-down container): per process
        flag = _Once()
    listener = _FirstCompile(callback, flag)
    event.register("numba:compile", listener)  # type: ignore[no-untyped-call]
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)  # type: ignore[no-untyped-call]
