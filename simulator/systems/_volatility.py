"""Glicko-2 step 5: the new volatility by the Illinois algorithm, for many players.

Source: M. E. Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/
glicko2.pdf, revision of 2022), step 5. docs/rules.md, section 3 is the spec.

:func:`_new_volatility` runs the iteration for many players at once: the
arithmetic of each step is a compiled loop over the players, with numpy's
exponentials and logarithms between the loops, in blocks of players that stay
in the CPU's cache (the results are those of all at once, bit for bit). Its
public face, with the paper's defaults, is
:func:`simulator.systems.glicko2.new_volatility`; Lichess's one-game periods
(:mod:`simulator.systems.lichess`) use it too.

The compiled loops call each other and read this module's constants only, so
they live together (numba checks a cached function against its own file: see
:mod:`simulator._jit`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import FloatArray, IntArray

_NO_BRACKET = "Glicko-2 step 5: no bracket found within the bound."

#: Most players per block of step 5 (see :func:`_new_volatility`).
_BLOCK = 1 << 14
#: Illinois iterations done block by block, on all of a block's players,
#: before the players left are pooled.
_BLOCK_ITERATIONS = 3


class _Iterates(NamedTuple):
    """The players still in step 5.4's iteration, as parallel arrays.

    ``pos`` is each one's position among all players, ``a`` its
    ln(sigma^2); ``a_``, ``b_``, ``fa`` and ``fb`` are the paper's A, B,
    f(A) and f(B), and ``c`` the next C.
    """

    pos: IntArray
    a: FloatArray
    a_: FloatArray
    b_: FloatArray
    fa: FloatArray
    fb: FloatArray
    c: FloatArray


def _new_volatility(
    sigma: FloatArray,
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    *,
    tau: float,
    epsilon: float,
    max_iterations: int,
    out: FloatArray | None = None,
) -> FloatArray:
    """:func:`new_volatility` on float arrays, given ``phi2``, phi squared.

    The result goes into ``out`` if given, which may be ``sigma`` itself
    (a block's sigma is read before any of its results is written).

    The arithmetic of each step is a compiled loop over the players; the
    exponentials and logarithms between the loops are numpy's, on whole
    arrays: numpy's are SIMD, faster than the C library's that a compiled
    loop would call, and they differ from those in the last bit for a few
    inputs (the results are numpy's, bit for bit). An Illinois iteration is
    one ``np.exp`` and one loop.

    At 100,000 players, the operating system's mapping of new memory for
    the loops' arrays would take more than half as long as the loops. So the
    bracket and the first ``_BLOCK_ITERATIONS`` Illinois iterations go in
    blocks of at most ``_BLOCK`` players, all in the same arrays (which stay
    in the CPU's cache); the few players left are then pooled, so that the
    last iterations, on small arrays, run once and not once per block. The
    errors are those of all players at once: a missing bracket raises in its
    block (the bracket search comes before any iteration), unconverged
    players are counted at the end.

    Few players converge in the first iterations, so a block's iterations
    run on all of its players, converged ones included (their values held),
    in loops that drop no one: the compiler vectorises those, and the
    divisions that bound an iteration go several at a time. The pooled
    iterations drop the players that converge.
    """
    if max_iterations < 1:
        raise RuntimeError(_NO_BRACKET)
    n = sigma.shape[0]
    tau2 = tau * tau
    # A / 2 of each player, as the iteration leaves it.
    half_a = np.empty(n) if out is None else out
    first = min(_BLOCK_ITERATIONS, max_iterations)
    n_blocks = max(1, -(-n // _BLOCK))
    scratch = _Scratch.empty(-(-n // n_blocks))
    # The players left after their block's iterations: with several blocks,
    # pooled (a few of each block: only the start of these arrays is
    # written); one block's go on in the block's own arrays.
    pool = (
        None
        if n_blocks == 1
        else _Iterates(np.empty(n, dtype=np.intp), *(np.empty(n) for _ in range(6)))
    )
    m = 0
    for i in range(n_blocks):
        block = slice(i * n // n_blocks, (i + 1) * n // n_blocks)
        left = _bracket(
            half_a[block],
            block.start,
            sigma[block],
            phi2[block],
            v[block],
            delta[block],
            scratch,
            tau=tau,
            epsilon=epsilon,
            max_iterations=max_iterations,
            iterations=first,
        )
        if pool is not None:
            for part, whole in zip(left, pool, strict=True):
                whole[m : m + part.size] = part
            m += left.pos.size
    if pool is not None:
        left = _Iterates._make(x[:m] for x in pool)
    left = _illinois(
        half_a, phi2, v, delta, left, tau2, epsilon, max_iterations - first
    )
    # Checked after the loops, not in a for-else: a player converging on the
    # last allowed iteration has converged.
    if left.pos.size:
        raise RuntimeError(
            f"Glicko-2 step 5 did not converge in {max_iterations} iterations "
            f"for {left.pos.size} players."
        )
    return np.exp(half_a, out=half_a)


class _Scratch(NamedTuple):
    """The arrays of a block of step 5 (:func:`_bracket`), made once per call.

    Sized for the largest block: ``logs`` and ``exps`` hold two numbers per
    player, the others one.
    """

    logs: FloatArray
    exps: FloatArray
    a_: FloatArray
    fa: FloatArray
    fb: FloatArray
    idx: IntArray
    live: BoolArray

    @classmethod
    def empty(cls, size: int) -> _Scratch:
        """Uninitialised arrays for blocks of at most ``size`` players."""
        logs, exps = np.empty((2, 2 * size))
        a_, fa, fb = np.empty((3, size))
        idx = np.empty(size, dtype=np.intp)
        return cls(logs, exps, a_, fa, fb, idx, np.empty(size, dtype=np.bool_))


def _bracket(
    half_a: FloatArray,
    start: int,
    sigma: FloatArray,
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    scratch: _Scratch,
    *,
    tau: float,
    epsilon: float,
    max_iterations: int,
    iterations: int,
) -> _Iterates:
    """Steps 5.1-5.3 for a block of players, from ``start`` on, and 5.4's first.

    Step 5.3 gives a, A = a and B; then ``iterations`` Illinois iterations
    run on all of these players, the converged ones held. Writes every
    player's A / 2 into ``half_a`` and returns those whose bracket is still
    wider than ``epsilon``, with their next C (views of ``scratch``).
    """
    n = sigma.shape[0]
    tau2 = tau * tau
    # Step 5.2's initial bracket: a = ln(sigma^2) and, where delta^2 >
    # phi^2 + v, B = ln(delta^2 - phi^2 - v), in one call; elsewhere B =
    # a - k tau for the first k = 1, 2, ... with f(a - k tau) >= 0.
    logs, exps = scratch.logs[: 2 * n], scratch.exps[: 2 * n]
    a, B = logs[:n], logs[n:]
    _log_arguments(sigma, phi2, v, delta, a, B)
    np.log(logs, out=logs)
    _first_step_down(phi2, v, delta, a, B, tau)
    np.exp(logs, out=exps)
    a_, fa, fb = scratch.a_[:n], scratch.fa[:n], scratch.fb[:n]
    idx, live = scratch.idx[:n], scratch.live[:n]
    m = _b_values(phi2, v, delta, a, B, exps[n:], tau2, fb)
    if m:
        _stepping_down(phi2, v, delta, fb, idx[:m])
    # The players still below zero step on, all at the same k (they all
    # started together).
    k = 1
    while m:
        if k == max_iterations:
            raise RuntimeError(_NO_BRACKET)
        k += 1
        search = idx[:m]
        x = a[search] - k * tau
        m = _step_down_values(phi2, v, delta, a, x, np.exp(x), tau2, B, fb, search)

    # Step 5.3 and the first iterations, with C in the place of exp(a),
    # exp(C) in that of exp(B), and the positions of the players going on
    # in ``idx``.
    c, ex = exps[:n], exps[n:]
    _begin(phi2, v, delta, c, tau2, epsilon, live, a, a_, B, fa, fb)
    for _ in range(iterations):
        np.exp(c, out=ex)
        _dense_step(phi2, v, delta, c, ex, tau2, epsilon, live, a, a_, B, fa, fb)
    m = _compact(start, live, half_a, idx, a, a_, B, fa, fb, c)
    return _Iterates(idx[:m], a[:m], a_[:m], B[:m], fa[:m], fb[:m], c[:m])


def _illinois(
    half_a: FloatArray,
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    it: _Iterates,
    tau2: float,
    epsilon: float,
    iterations: int,
) -> _Iterates:
    """Step 5.4: at most ``iterations`` Illinois iterations of ``it``'s players.

    Writes the converged players' A / 2 into ``half_a`` and returns the
    others. ``phi2``, ``v`` and ``delta`` are every player's.
    """
    pos, a, a_, b_, fa, fb, c = it
    m = pos.size
    ex = np.empty(m)
    for _ in range(iterations):
        if m == 0:
            break
        np.exp(c[:m], out=ex[:m])
        m = _illinois_step(
            phi2, v, delta, c, ex, m, tau2, epsilon, half_a, pos, a, a_, b_, fa, fb
        )
    return _Iterates(pos[:m], a[:m], a_[:m], b_[:m], fa[:m], fb[:m], c[:m])


@jit
def _f(
    x: float, ex: float, delta: float, phi2: float, v: float, a: float, tau2: float
) -> float:
    """Step 5.1's f(x), given ``ex = exp(x)``, with the paper's order of operations.

    ``ex * (delta^2 - phi^2 - v - ex) / (2 (phi^2 + v + ex)^2) - (x - a) /
    tau^2``, the sums and products taken left to right. The exponential
    comes from outside: numpy's, on a whole array (see
    :func:`_new_volatility`).
    """
    return _f_first_term(ex, delta, phi2, v) - (x - a) / tau2


@jit
def _f_first_term(ex: float, delta: float, phi2: float, v: float) -> float:
    """The first term of f(x) (:func:`_f`), given ``ex = exp(x)``.

    ``ex (delta^2 - phi^2 - v - ex) / (2 (phi^2 + v + ex)^2)``.
    """
    base = phi2 + v + ex
    rest = delta * delta - phi2 - v
    return ex * (rest - ex) / (2.0 * base * base)


@jit
def _log_arguments(
    sigma: FloatArray,
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    sigma2: FloatArray,
    rest: FloatArray,
) -> None:
    """The arguments of step 5's logarithms: sigma^2, and delta^2 - phi^2 - v.

    ``rest`` holds 1 where delta^2 <= phi^2 + v: that B comes from a, and
    the logarithm of a negative number would warn.
    """
    for i in range(sigma.shape[0]):
        sigma2[i] = sigma[i] * sigma[i]
        delta2 = delta[i] * delta[i]
        rest[i] = delta2 - phi2[i] - v[i] if delta2 > phi2[i] + v[i] else 1.0


@jit
def _first_step_down(
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    a: FloatArray,
    B: FloatArray,
    tau: float,
) -> None:
    """B = a - tau (k = 1) where delta^2 <= phi^2 + v."""
    for i in range(a.shape[0]):
        # A select, not a branch: which players these are is random.
        big = delta[i] * delta[i] > phi2[i] + v[i]
        B[i] = B[i] if big else a[i] - tau


@jit
def _b_values(
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    a: FloatArray,
    B: FloatArray,
    exp_b: FloatArray,
    tau2: float,
    fb: FloatArray,
) -> int:
    """f(B), given exp(B); returns the number of players whose B steps down.

    Those are the ones with f(B) < 0 and delta^2 <= phi^2 + v (few, and
    found by :func:`_stepping_down`): the loop only counts them, so the
    compiler vectorises it.
    """
    m = 0
    for i in range(a.shape[0]):
        fb[i] = _f(B[i], exp_b[i], delta[i], phi2[i], v[i], a[i], tau2)
        m += (fb[i] < 0) & (not delta[i] * delta[i] > phi2[i] + v[i])
    return m


@jit
def _stepping_down(
    phi2: FloatArray, v: FloatArray, delta: FloatArray, fb: FloatArray, search: IntArray
) -> None:
    """The players whose B steps down (:func:`_b_values`), into ``search``."""
    m = 0
    for i in range(fb.shape[0]):
        if fb[i] < 0 and not delta[i] * delta[i] > phi2[i] + v[i]:
            search[m] = i
            m += 1


@jit
def _step_down_values(
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    a: FloatArray,
    x: FloatArray,
    ex: FloatArray,
    tau2: float,
    B: FloatArray,
    fb: FloatArray,
    search: IntArray,
) -> int:
    """B = x and f(B) for the players in ``search``, given ``ex = exp(x)``.

    Keeps at the front of ``search`` those still below zero and returns
    their number.
    """
    m = 0
    for j in range(search.shape[0]):
        i = search[j]
        fx = _f(x[j], ex[j], delta[i], phi2[i], v[i], a[i], tau2)
        B[i] = x[j]
        fb[i] = fx
        if fx < 0:
            search[m] = i
            m += 1
    return m


@jit
def _begin(
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    exp_a_c: FloatArray,
    tau2: float,
    epsilon: float,
    live: BoolArray,
    a: FloatArray,
    a_: FloatArray,
    b_: FloatArray,
    fa: FloatArray,
    fb: FloatArray,
) -> None:
    """Step 5.3: A = a and f(A) for every player, and the first C.

    ``live`` tells whether ``|B - A| > epsilon``: the players whose C goes
    into ``exp_a_c``, which holds exp(a) until then. The others' stays a,
    a number already exponentiated (no new overflow warnings).
    """
    # f(a)'s (a - a) / tau^2 is 0 / tau^2 for a finite a, and NaN, a's
    # (a - a), otherwise: (a - a) + 0 / tau^2 is the same number, with one
    # division fewer per player (the loop is bound by its divisions).
    zero = 0.0 / tau2
    for i in range(a.shape[0]):
        ai, bi = a[i], b_[i]
        fai = _f_first_term(exp_a_c[i], delta[i], phi2[i], v[i]) - ((ai - ai) + zero)
        a_[i], fa[i] = ai, fai
        on = abs(bi - ai) > epsilon
        # A select, not a branch, as in _dense_step.
        exp_a_c[i] = _illinois_c(ai, bi, fai, fb[i]) if on else ai
        live[i] = on


@jit
def _dense_step(
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    c: FloatArray,
    ex: FloatArray,
    tau2: float,
    epsilon: float,
    live: BoolArray,
    a: FloatArray,
    a_: FloatArray,
    b_: FloatArray,
    fa: FloatArray,
    fb: FloatArray,
) -> None:
    """One Illinois iteration (step 5.4) of the ``live`` players, in place.

    As :func:`_illinois_step`, but over every player, in order: the others'
    values are held, and ``live`` says who goes on. The loop has no branch
    and no dropping, so the compiler vectorises it.
    """
    for i in range(c.shape[0]):
        ci, a_i, b_i, fa_i, fb_i, on = c[i], a_[i], b_[i], fa[i], fb[i], live[i]
        fc = _f(ci, ex[i], delta[i], phi2[i], v[i], a[i], tau2)
        swap = fc * fb_i <= 0  # the 2022 revision's "<="
        new_a = b_i if swap else a_i
        new_fa = fb_i if swap else fa_i / 2.0
        a_[i] = new_a if on else a_i
        b_[i] = ci if on else b_i
        fa[i] = new_fa if on else fa_i
        fb[i] = fc if on else fb_i
        on = on and abs(ci - new_a) > epsilon
        # A held C was exponentiated in this iteration (no new warnings).
        c[i] = _illinois_c(new_a, ci, new_fa, fc) if on else ci
        live[i] = on


@jit
def _compact(
    start: int,
    live: BoolArray,
    half_a: FloatArray,
    pos: IntArray,
    a: FloatArray,
    a_: FloatArray,
    b_: FloatArray,
    fa: FloatArray,
    fb: FloatArray,
    c: FloatArray,
) -> int:
    """Every player's A / 2 into ``half_a``; the ``live`` ones to the front.

    Their positions (from ``start`` on) go into ``pos``, their values to
    the front of the others. Returns their number.
    """
    m = 0
    for i in range(live.shape[0]):
        half_a[i] = a_[i] / 2.0
        # A branch: after the first iterations, few players go on.
        if live[i]:
            pos[m], a[m], a_[m], b_[m] = start + i, a[i], a_[i], b_[i]
            fa[m], fb[m], c[m] = fa[i], fb[i], c[i]
            m += 1
    return m


@jit
def _illinois_c(a_: float, b_: float, fa: float, fb: float) -> float:
    """Step 5.4's ``C = A + (A - B) f(A) / (f(B) - f(A))``."""
    return a_ + (a_ - b_) * fa / (fb - fa)


@jit
def _illinois_step(
    phi2: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    c: FloatArray,
    ex: FloatArray,
    m: int,
    tau2: float,
    epsilon: float,
    half_a: FloatArray,
    pos: IntArray,
    a: FloatArray,
    a_: FloatArray,
    b_: FloatArray,
    fa: FloatArray,
    fb: FloatArray,
) -> int:
    """One Illinois iteration (step 5.4) of the first ``m`` players.

    Given C in ``c`` and exp(C) in ``ex``: f(C) and the new bracket; the
    players still wider than epsilon are compacted to the front with their
    next C, the others' A / 2 goes into ``half_a``. Returns the number going
    on.
    """
    going = 0
    for j in range(m):
        i, aj, a_j, b_j, fa_j, fb_j, cj = pos[j], a[j], a_[j], b_[j], fa[j], fb[j], c[j]
        fc = _f(cj, ex[j], delta[i], phi2[i], v[i], aj, tau2)
        # No branches, which the CPU could not predict (the values are
        # loaded first, so that the choices are selects): the new A and
        # f(A), every player's A / 2 (a live one's is written again when it
        # stops), and its values at the front, where the next player's
        # overwrite them unless it goes on.
        swap = fc * fb_j <= 0  # the 2022 revision's "<="
        half_fa = fa_j / 2.0
        new_a = b_j if swap else a_j
        new_fa = fb_j if swap else half_fa
        half_a[i] = new_a / 2.0
        pos[going], a[going], a_[going], b_[going] = i, aj, new_a, cj
        fa[going], fb[going] = new_fa, fc
        c[going] = _illinois_c(new_a, cj, new_fa, fc)
        going += abs(cj - new_a) > epsilon
    return going
