"""Glicko-2, as Glickman's paper gives it: one rating period at a time.

Source: M. E. Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/
glicko2.pdf, revision of 2022), steps 1-8. RULES.md section 3 is the spec.

The update is vectorised over players: every player is rated against the
opponents' pre-period values, so per-player sums are scatter-adds and the
volatility iteration of step 5 runs for many players at once (in blocks that
stay in the CPU's cache; the results are those of all at once, bit for bit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    check_choice,
    check_interval,
    check_lengths,
    initial_values,
    list_day_after,
)

__all__ = [
    "EPSILON",
    "MAX_ITERATIONS",
    "PERIODS",
    "RATING",
    "RD",
    "SCALE",
    "TAU",
    "VOLATILITY",
    "Glicko2",
    "Glicko2State",
    "expected",
    "g",
    "new_volatility",
    "period_close",
    "rate_period",
]

#: Glickman's defaults for a new player (paper, step 1).
RATING = 1500.0
RD = 350.0
VOLATILITY = 0.06
TAU = 0.5
#: Convergence tolerance of step 5.
EPSILON = 1e-6
#: Glicko-2 scale factor, 400 / ln 10 (paper, step 2).
SCALE = 173.7178
#: Upper bound on the iterations of step 5; the paper has none, so a bound is
#: ours, and passing it raises instead of returning an unconverged value.
MAX_ITERATIONS = 200

#: Calendar lengths of a rating period, in months (``"week"`` is 7 days).
PERIODS: dict[str, int] = {"week": 0, "month": 1, "quarter": 3, "year": 12}


def period_close(day: float, period: str) -> int:
    """The day a calendar rating period containing ``day`` closes (exclusive end).

    Weeks start on Thursday (1970-01-01's weekday); months, quarters and years
    on the 1st (see :data:`PERIODS`).

    >>> period_close(19797, "month")  # 2024-03-15 -> 2024-04-01
    19814
    >>> period_close(19797, "week")  # a Friday -> the next Thursday
    19803
    """
    months = PERIODS[period]
    if months == 0:
        return int(np.floor(day) // 7 + 1) * 7
    return list_day_after(day, months)


def g(phi: ArrayLike) -> FloatArray:
    """Step 3: ``g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)``."""
    p = np.asarray(phi, dtype=np.float64)
    # 1.0 / np.sqrt(1.0 + 3.0 * p * p / np.pi**2), in one buffer.
    out = np.multiply(3.0, p, out=np.empty_like(p))
    out *= p
    out /= np.pi**2
    out += 1.0
    np.sqrt(out, out=out)
    np.divide(1.0, out, out=out)
    return out if out.ndim else out[()]


def expected(mu: ArrayLike, mu_j: ArrayLike, g_j: ArrayLike) -> FloatArray:
    """Step 3: ``E = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))``."""
    diff = np.asarray(mu, dtype=np.float64) - np.asarray(mu_j, dtype=np.float64)
    return 1.0 / (1.0 + np.exp(-np.asarray(g_j) * diff))


def new_volatility(
    sigma: ArrayLike,
    phi: ArrayLike,
    v: ArrayLike,
    delta: ArrayLike,
    *,
    tau: float = TAU,
    epsilon: float = EPSILON,
    max_iterations: int = MAX_ITERATIONS,
) -> FloatArray:
    """Step 5: the new volatility sigma' by the Illinois algorithm, for many players.

    Parameters
    ----------
    sigma, phi, v, delta : ndarray of shape (n,)
        Volatility, deviation (Glicko-2 scale), estimated variance (step 3) and
        estimated improvement (step 4) of each player.
    tau : float
        The system constant.
    epsilon : float
        Convergence tolerance on ``|B - A|``.
    max_iterations : int
        Bound on the iterations of the bracketing search and of the Illinois loop.

    Returns
    -------
    ndarray of shape (n,)
        sigma' for each player.

    Raises
    ------
    RuntimeError
        If a player has not converged after ``max_iterations``.
    """
    # Broadcast as numpy would, then contiguous: the compiled loops read
    # every array by position.
    named = {"sigma": sigma, "phi": phi, "v": v, "delta": delta}
    floats = [np.asarray(x, dtype=np.float64) for x in named.values()]
    try:
        arrays = np.broadcast_arrays(*floats)
    except ValueError:
        shown = ", ".join(f"{k} {x.shape}" for k, x in zip(named, floats, strict=True))
        raise ValueError(
            f"Glicko-2 step 5: sigma, phi, v and delta do not broadcast together; "
            f"got shapes {shown}."
        ) from None
    sigma, phi, v, delta = (np.ascontiguousarray(x) for x in arrays)
    check_lengths("Glicko-2 step 5", sigma=sigma, phi=phi, v=v, delta=delta)
    return _new_volatility(
        sigma,
        phi**2,
        v,
        delta,
        tau=tau,
        epsilon=epsilon,
        max_iterations=max_iterations,
    )


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


def _check_indices(white: IntArray, black: IntArray, n_players: int) -> None:
    """Raise for player indices that the side sums (:func:`_side_sums`) cannot read.

    IndexError for one out of bounds (as indexing raises), ValueError for a
    negative one (as a per-player count would).
    """
    low = min(int(white.min(initial=0)), int(black.min(initial=0)))
    high = max(int(white.max(initial=0)), int(black.max(initial=0)))
    if high >= n_players or low < 0:
        bad = high if high >= n_players else low
        error = IndexError if high >= n_players or low < -n_players else ValueError
        raise error(
            f"Player index {bad} is out of range for {n_players} players "
            "(indices run from 0)."
        )


def _step3_sums(
    mu: FloatArray,
    g_player: FloatArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    *,
    checked: bool = False,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Per-player ``sum g^2 E (1 - E)``, ``sum g (s - E)`` and games played.

    Each game counts from both sides, White's sides first then Black's, in
    game order: the order of the sums, and so their rounding, is fixed.
    ``checked`` says the indices are known to lie in ``[0, n_players)``.
    """
    if not checked:
        _check_indices(white, black, mu.shape[0])
    return _side_sums(mu, g_player, white, black, score, base=None, scale=1.0)


#: Games per block of :func:`_side_sums`.
_GAMES_BLOCK = 1 << 16


def _side_sums(
    values: FloatArray,
    g_player: FloatArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    *,
    base: float | None,
    scale: float,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Per-player sums of ``g^2 E (1 - E)`` and ``g (s - E)``, and games played.

    Over every side of every game, with ``E = 1 / (1 + base^(-g (x - x_j) /
    scale))`` (``base`` None is e): ``x`` is the side's ``values`` entry,
    ``x_j`` and ``g`` (from ``g_player``) the opponent's and ``s`` the
    side's score. The indices must be valid (they are not checked).

    A block of games is two compiled loops around numpy's ``np.exp`` (or
    ``np.power``), which must stay numpy's: the C library's that a compiled
    loop would call differs from it in the last bit for a few inputs. The
    first loop gathers the sides' exponents and opponents' g; the second
    adds the terms into the sums, one side after another, as ``np.add.at``
    (or a ``np.bincount`` over both colours) adds them: White's sides
    first, then Black's, each in game order, so the rounding of the sums is
    fixed. The blocks, of :data:`_GAMES_BLOCK` games, keep the loops'
    buffers in the CPU's cache and mapped.

    The loops' time goes to reading and writing players at random, one
    cache line each: so a player's value and g sit side by side, and so do
    its sums and count.
    """
    n_players = values.shape[0]
    n = white.shape[0]
    player = np.stack([values, g_player], axis=1)
    # Each player's sums and count; the fourth column pads a row to 32
    # bytes, so that no row straddles two cache lines.
    sums = np.zeros((n_players, 4))
    size = min(n, _GAMES_BLOCK)
    power, g_opp = np.empty(size), np.empty(size)
    # 10 ** x with 10 in an array, not a scalar: numpy's power then reads the
    # base contiguously, which is twice as fast, and computes the same
    # function (SVML's pow where numpy has it, else libm's) either way.
    bases = None if base is None else np.full(size, base)
    for black_side in (False, True):
        for start in range(0, n, _GAMES_BLOCK):
            games = slice(start, start + _GAMES_BLOCK)
            m = min(_GAMES_BLOCK, n - start)
            p, g_o = power[:m], g_opp[:m]
            w, b = white[games], black[games]
            _exponents(player, w, b, black_side, scale, p, g_o)
            if bases is None:
                np.exp(p, out=p)
            else:
                np.power(bases[:m], p, out=p)
            _add_sides(p, g_o, w, b, score[games], black_side, sums)
    return sums[:, 0].copy(), sums[:, 1].copy(), sums[:, 2].astype(np.intp)


@jit
def _exponents(
    player: FloatArray,
    white: IntArray,
    black: IntArray,
    black_side: bool,
    scale: float,
    out: FloatArray,
    g_opp: FloatArray,
) -> None:
    """White's sides', or Black's, exponents ``-g (x - x_j) / scale`` and g.

    Into ``out`` and ``g_opp``; ``player`` holds each player's ``x`` and
    ``g`` in a row.
    """
    for j in range(white.shape[0]):
        diff = player[white[j], 0] - player[black[j], 0]
        if black_side:
            # Minus White's difference: the same number as Black's own
            # (IEEE subtraction is antisymmetric), and the same zero.
            diff = -diff
            g = player[white[j], 1]
        else:
            g = player[black[j], 1]
        g_opp[j] = g
        # (-g * diff as -(diff * g): the same number, multiplication being
        # commutative and exact in its sign.)
        out[j] = -(diff * g) / scale


@jit
def _add_sides(
    power: FloatArray,
    g_opp: FloatArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
    black_side: bool,
    sums: FloatArray,
) -> None:
    """Add White's sides, or Black's, of the games to the sums, in game order.

    ``power`` holds each side's ``base^(-g (x - x_j) / scale)`` and ``g_opp``
    its opponent's g; a row of ``sums`` is a player's ``g^2 E (1 - E)``,
    ``g (s - E)`` and games.
    """
    for j in range(white.shape[0]):
        e = 1.0 / (power[j] + 1.0)
        if black_side:
            own, s = black[j], 1.0 - score[j]
        else:
            own, s = white[j], score[j]
        g = g_opp[j]
        sums[own, 0] += g * g * e * (1.0 - e)
        sums[own, 1] += (s - e) * g
        sums[own, 2] += 1.0


def rate_period(
    rating: ArrayLike,
    rd: ArrayLike,
    volatility: ArrayLike,
    white: ArrayLike,
    black: ArrayLike,
    score: ArrayLike,
    *,
    tau: float = TAU,
    epsilon: float = EPSILON,
    max_iterations: int = MAX_ITERATIONS,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Rate one Glicko-2 period for all players at once (paper, steps 1-8).

    Parameters
    ----------
    rating, rd, volatility : ndarray of shape (n_players,)
        Pre-period values on the Glicko scale.
    white, black : ndarray of shape (n_games,)
        Player indices of each game.
    score : ndarray of shape (n_games,)
        White's score (1, 0.5, 0).
    tau : float
        System constant (Glickman recommends 0.3 to 1.2).
    epsilon, max_iterations
        Tolerance and bound of step 5.

    Returns
    -------
    rating, rd, volatility : ndarray of shape (n_players,)
        Post-period values. Players without games keep rating and volatility;
        their deviation grows as in step 6.

    Examples
    --------
    Glickman's example:

    >>> r, rd, s = rate_period(
    ...     [1500, 1400, 1550, 1700], [200, 30, 100, 300], [0.06] * 4,
    ...     [0, 0, 0], [1, 2, 3], [1, 0, 0])
    >>> round(float(r[0]), 4), round(float(rd[0]), 4), round(float(s[0]), 7)
    (1464.0507, 151.5165, 0.059996)
    """
    rating, rd, volatility, _ = _rate_period(
        rating,
        rd,
        volatility,
        white,
        black,
        score,
        tau=tau,
        epsilon=epsilon,
        max_iterations=max_iterations,
    )
    return rating, rd, volatility


def _rate_period(
    rating: ArrayLike,
    rd: ArrayLike,
    volatility: ArrayLike,
    white: ArrayLike,
    black: ArrayLike,
    score: ArrayLike,
    *,
    tau: float,
    epsilon: float,
    max_iterations: int,
    checked: bool = False,
) -> tuple[FloatArray, FloatArray, FloatArray, IntArray]:
    """:func:`rate_period`, with each player's number of games in the period.

    ``checked`` says the indices are known to lie in ``[0, n_players)``.
    """
    rating = np.asarray(rating, dtype=np.float64)
    white = np.asarray(white, dtype=np.intp)
    black = np.asarray(black, dtype=np.intp)
    score = np.asarray(score, dtype=np.float64)
    rd = np.asarray(rd, dtype=np.float64)
    sigma = np.asarray(volatility, dtype=np.float64)
    check_lengths("Glicko-2", white=white, black=black, score=score)
    check_lengths("Glicko-2", rating=rating, rd=rd, volatility=sigma)
    n_players = rating.shape[0]

    # Step 2: convert to the Glicko-2 scale.
    mu = (rating - RATING) / SCALE
    phi = rd / SCALE

    # Step 3: each game seen from both sides against pre-period values; g once
    # per player, then gathered.
    info, gain, counts = _step3_sums(mu, g(phi), white, black, score, checked=checked)

    # Players with games: a slice when that is everyone (as in the engine's
    # periods), so that their values are views, not gathers.
    played = np.flatnonzero(counts)
    everyone = played.size == n_players
    p: slice | IntArray = slice(None) if everyone else played
    mu_new = mu.copy()
    sigma_new = sigma.copy()
    # Step 6 for players without games: phi' = sqrt(phi^2 + sigma^2).
    phi_new = np.empty_like(phi) if everyone else np.sqrt(phi * phi + sigma * sigma)

    if played.size:
        v = 1.0 / info[p]  # Step 3: estimated variance.
        delta = v * gain[p]  # Step 4: estimated improvement.
        # Step 5: new volatility.
        phi2 = phi[p] ** 2
        sigma_p = _new_volatility(
            sigma[p],
            phi2,
            v,
            delta,
            tau=tau,
            epsilon=epsilon,
            max_iterations=max_iterations,
        )
        # Step 6: pre-period deviation.
        phi_star = np.sqrt(phi2 + sigma_p**2)
        # Step 7: new deviation and rating.
        phi_p = 1.0 / np.sqrt(1.0 / phi_star**2 + 1.0 / v)
        mu_new[p] = mu[p] + phi_p**2 * gain[p]
        phi_new[p] = phi_p
        sigma_new[p] = sigma_p

    # Step 8: back to the Glicko scale.
    return SCALE * mu_new + RATING, SCALE * phi_new, sigma_new, counts


class Glicko2State(NamedTuple):
    """State of a Glicko-2 pool; every array has shape (n_players,)."""

    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray
    n_games: IntArray


@dataclass(frozen=True)
class Glicko2:
    """Glickman's Glicko-2 with calendar rating periods.

    Parameters
    ----------
    tau : float, default 0.5
        System constant constraining volatility change. Glickman recommends
        0.3 to 1.2; that is advice, not a bound, so any positive value works.
    initial_rating, initial_rd, initial_volatility : float
        A new player's values (1500, 350, 0.06).
    period : {"week", "month", "quarter", "year"}, default "month"
        Length of a rating period on the calendar (weeks start on Thursday,
        1970-01-01's weekday; months on the 1st). Glickman advises 10-15 games
        per player per period.
    epsilon : float, default 1e-6
        Tolerance of the volatility iteration (step 5).

    Notes
    -----
    A player who has never played stays at the new-player values until their
    first period with games: the step-6 growth applies only once a player has
    a rating (RULES.md section 3). No upper bound is put on RD.
    """

    tau: float = TAU
    initial_rating: float = RATING
    initial_rd: float = RD
    initial_volatility: float = VOLATILITY
    period: str = "month"
    epsilon: float = EPSILON

    name = "glicko2"
    per_game = False

    def __post_init__(self) -> None:
        check_interval("Glicko2", "tau", self.tau, 0, np.inf, closed="neither")
        check_interval(
            "Glicko2",
            "initial_rating",
            self.initial_rating,
            -np.inf,
            np.inf,
            closed="neither",  # finite: an infinite rating makes every E NaN
        )
        check_interval(
            "Glicko2", "initial_rd", self.initial_rd, 0, np.inf, closed="neither"
        )
        check_interval(
            "Glicko2",
            "initial_volatility",
            self.initial_volatility,
            0,
            np.inf,
            closed="neither",
        )
        check_interval("Glicko2", "epsilon", self.epsilon, 0, 1, closed="neither")
        check_choice("Glicko2", "period", self.period, tuple(PERIODS))

    def next_close(self, day: float) -> int:
        """The day the rating period containing ``day`` closes (exclusive end)."""
        return period_close(day, self.period)

    def new_state(
        self,
        n_players: int,
        *,
        rating: ArrayLike | None = None,
        rd: ArrayLike | None = None,
        volatility: ArrayLike | None = None,
        n_games: ArrayLike | None = None,
        **_: object,
    ) -> Glicko2State:
        """A pool of ``n_players``; new players (NaN ``rating``) get the initial values.

        ``rating``, ``rd``, ``volatility`` and ``n_games`` seed an established
        pool (NaN entries take the initial values).
        """
        return Glicko2State(
            initial_values(n_players, rating, self.initial_rating, "rating"),
            initial_values(n_players, rd, self.initial_rd, "rd"),
            initial_values(
                n_players, volatility, self.initial_volatility, "volatility"
            ),
            initial_values(n_players, n_games, 0, "n_games").astype(np.intp),
        )

    def expected_score(
        self, state: Glicko2State, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's expected score: step 3's E with Black's deviation."""
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        # The games' players only: a round is often far smaller than the pool.
        return expected(
            (state.rating[w] - RATING) / SCALE,
            (state.rating[b] - RATING) / SCALE,
            g(state.rd[b] / SCALE),
        )

    def rate(
        self,
        state: Glicko2State,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> Glicko2State:
        """Rate one period of ``games`` into new arrays.

        ``day`` is not needed and ``overwrite_state`` has no use here (a
        period builds new arrays); both are ignored.
        """
        n_players = state.rating.shape[0]
        games.check_players(n_players)
        rating, rd, volatility, played = _rate_period(
            state.rating,
            state.rd,
            state.volatility,
            games.white,
            games.black,
            games.score,
            tau=self.tau,
            epsilon=self.epsilon,
            max_iterations=MAX_ITERATIONS,
            checked=True,  # Games indices are >= 0, and check_players bounds them
        )
        n_games = state.n_games + played
        # Never-played players stay at the new-player values (no step-6 growth).
        fresh = n_games == 0
        rd = np.where(fresh, state.rd, rd)
        return Glicko2State(rating, rd, volatility, n_games.astype(np.intp))

    def rating(self, state: Glicko2State) -> FloatArray:
        """Published ratings: Glicko-2 publishes every player's rating."""
        return state.rating.copy()
