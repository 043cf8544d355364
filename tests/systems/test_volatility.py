"""Glicko-2 step 5 (``_volatility.py``): the kernel against the paper, bit for bit.

The vectorised Illinois iteration must give, player by player, what the paper's
step 5 gives one player at a time (with numpy's exp and log), and blocks of
players must change no bit nor any error.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.systems import _volatility as volatility_module
from simulator.systems.glicko2 import EPSILON, MAX_ITERATIONS, new_volatility


def test_blocks_count_every_unconverged_player(monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 5's error counts the unconverged players of all blocks together."""
    rng = np.random.default_rng(8)
    n = 200
    inputs = (
        rng.uniform(0.03, 0.1, n),
        rng.uniform(0.2, 2.0, n),
        rng.uniform(0.5, 20.0, n),
        rng.normal(0.0, 3.0, n),
    )
    with pytest.raises(RuntimeError, match="did not converge") as whole:
        new_volatility(*inputs, tau=0.5, max_iterations=2)
    monkeypatch.setattr(volatility_module, "_BLOCK", 30)
    with pytest.raises(RuntimeError, match="did not converge") as blocked:
        new_volatility(*inputs, tau=0.5, max_iterations=2)
    assert str(blocked.value) == str(whole.value)


# ---------------------------------------------------------------------------
# Step 5's kernel against the paper, one player at a time


def paper_volatility(
    sigma: float,
    phi: float,
    v: float,
    delta: float,
    tau: float,
    epsilon: float,
    max_iterations: int,
) -> float | str:
    """Step 5 for one player as the paper writes it, with numpy's exp and log.

    numpy's exp and log give the same bits on a scalar as inside an array,
    so this plain transcription must agree with the vectorised kernel bit for
    bit. Returns sigma', or ``"no bracket"`` / ``"unconverged"``.
    """
    sigma, phi, v, delta = map(np.float64, (sigma, phi, v, delta))
    phi2, delta2, tau2 = phi * phi, delta * delta, tau * tau
    a = np.log(sigma * sigma)

    def f(x: np.float64) -> np.float64:
        ex = np.exp(x)
        base = phi2 + v + ex
        return ex * (delta2 - phi2 - v - ex) / (2.0 * base * base) - (x - a) / tau2

    if delta2 > phi2 + v:
        B = np.log(delta2 - phi2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            if k == max_iterations:
                return "no bracket"
            k += 1
        B = a - k * tau
    A, fA, fB = a, f(a), f(B)
    for _ in range(max_iterations):
        if not abs(B - A) > epsilon:
            break
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA = fA / 2.0
        B, fB = C, fC
    else:
        if abs(B - A) > epsilon:
            return "unconverged"
    return float(np.exp(A / 2.0))


def kernel_cases(rng: np.random.Generator, n: int) -> tuple[np.ndarray, ...]:
    """sigma, phi, v, Delta of ordinary players mixed with the kernel's edge cases.

    Among them: brackets already narrower than epsilon (B = a, no
    iteration), players converging at the first iteration, and brackets
    that step k down several times (at a large tau).
    """
    sigma = rng.uniform(0.03, 0.1, n)
    phi = rng.uniform(0.2, 2.0, n)
    v = np.exp(rng.uniform(-1.0, 4.0, n))
    delta = rng.normal(0.0, 2.0, n)
    kind = rng.integers(0, 5, n)
    # delta^2 = sigma^2 + phi^2 + v: B = ln(sigma^2) = a, up to rounding.
    no_iteration = kind == 1
    delta[no_iteration] = np.sqrt(
        sigma[no_iteration] ** 2 + phi[no_iteration] ** 2 + v[no_iteration]
    )
    # Delta tiny against a large v: sigma' = sigma to within epsilon.
    at_once = kind == 2
    delta[at_once] = 1e-9
    v[at_once] = 1e6
    # A volatile player with next to no deviation nor variance: at tau = 20,
    # f(a - k tau) < 0 for k up to 6.
    steps = kind == 3
    sigma[steps] = rng.uniform(1.0, 3.0, steps.sum())
    phi[steps] = 1e-30
    v[steps] = 1e-60
    delta[steps] = 0.0
    return sigma, phi, v, delta


@pytest.mark.parametrize("tau", [0.2, 1.0, 20.0])
@pytest.mark.parametrize(
    ("block", "first"), [(1 << 13, 4), (1 << 13, 3), (7, 1), (30, 2), (30, 0)]
)
def test_kernel_matches_the_paper_bit_for_bit(
    seed: int, tau: float, block: int, first: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """new_volatility equals a scalar transcription of the paper, bit for bit."""
    monkeypatch.setattr(volatility_module, "_BLOCK", block)
    monkeypatch.setattr(volatility_module, "_BLOCK_ITERATIONS", first)
    cases = kernel_cases(np.random.default_rng(seed), 300)
    got = new_volatility(*cases, tau=tau)
    want = [
        paper_volatility(*x, tau, EPSILON, MAX_ITERATIONS)
        for x in zip(*cases, strict=True)
    ]
    assert got.tolist() == want


def test_kernel_edge_cases_occur() -> None:
    """kernel_cases has players needing 0 and 1 iterations and several k steps."""
    sigma, phi, v, delta = kernel_cases(np.random.default_rng(0), 300)
    iterations = [
        next(
            i
            for i in range(MAX_ITERATIONS + 1)
            if isinstance(paper_volatility(s, p, w, d, 1.0, EPSILON, i), float)
        )
        for s, p, w, d in zip(sigma, phi, v, delta, strict=True)
    ]
    assert {0, 1} <= set(iterations)
    # The stepping players: at tau = 20, five steps are too few for them.
    volatile = int(np.argmax(sigma > 1.0))
    args = (sigma[volatile], phi[volatile], v[volatile], delta[volatile], 20.0)
    assert paper_volatility(*args, EPSILON, 5) == "no bracket"
    assert isinstance(paper_volatility(*args, EPSILON, MAX_ITERATIONS), float)


@pytest.mark.parametrize("block", [1 << 13, 7])
def test_kernel_result_over_sigma(
    seed: int, block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 5 may write sigma' over sigma (as Lichess does): the same bits."""
    monkeypatch.setattr(volatility_module, "_BLOCK", block)
    sigma, phi, v, delta = kernel_cases(np.random.default_rng(seed), 300)
    want = new_volatility(sigma, phi, v, delta, tau=1.0)
    got = np.array(sigma, dtype=np.float64)
    volatility_module._new_volatility(
        got,
        np.asarray(phi, dtype=np.float64) ** 2,
        v,
        delta,
        tau=1.0,
        epsilon=EPSILON,
        max_iterations=MAX_ITERATIONS,
        out=got,
    )
    assert got.tobytes() == want.tobytes()


def test_kernel_with_no_players() -> None:
    """No players: an empty result, whatever the bound."""
    for bound in (1, MAX_ITERATIONS):
        out = new_volatility([], [], [], [], max_iterations=bound)
        assert out.shape == (0,) and out.dtype == np.float64


@pytest.mark.parametrize("tau", [1.0, 20.0])
@pytest.mark.parametrize("bound", [1, 2, 3, 5, 8])
def test_kernel_bounds_raise_as_the_paper_fails(
    seed: int, tau: float, bound: int
) -> None:
    """Too few iterations: no bracket first, else a count of unconverged players."""
    cases = kernel_cases(np.random.default_rng(seed), 200)
    want = [paper_volatility(*x, tau, EPSILON, bound) for x in zip(*cases, strict=True)]
    if "no bracket" in want:
        with pytest.raises(RuntimeError, match="no bracket found within the bound"):
            new_volatility(*cases, tau=tau, max_iterations=bound)
    elif "unconverged" in want:
        count = want.count("unconverged")
        with pytest.raises(
            RuntimeError, match=f"in {bound} iterations for {count} players"
        ):
            new_volatility(*cases, tau=tau, max_iterations=bound)
    else:
        assert new_volatility(*cases, tau=tau, max_iterations=bound).tolist() == want


def test_kernel_bound_below_one_raises() -> None:
    """max_iterations < 1 leaves no room even for the bracket."""
    with pytest.raises(RuntimeError, match="no bracket"):
        new_volatility([0.06], [1.0], [1.0], [0.0], max_iterations=0)


@pytest.mark.parametrize("tau2", [0.25, 0.0, 5e-324, np.inf])
def test_kernel_f_of_a_is_f_bit_for_bit(seed: int, tau2: float) -> None:
    """Step 5.3's f(A) at A = a (its (a - a) / tau^2 saved) is _f's, bit for bit.

    Also for a non-finite a and for a tau^2 that underflowed to zero or
    overflowed.
    """
    rng = np.random.default_rng(seed)
    n = 200
    sigma, phi, v, delta = kernel_cases(rng, n)
    phi2 = np.asarray(phi) ** 2
    a = np.log(np.asarray(sigma) ** 2)
    odd = rng.random(n) < 0.2
    a[odd] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0], odd.sum())
    exp_a = np.exp(a)
    b_ = a - rng.uniform(0.0, 2.0, n)
    fb = rng.normal(0.0, 1.0, n)
    a_, fa = np.empty(n), np.empty(n)
    with np.errstate(all="ignore"):
        volatility_module._begin(
            phi2,
            v,
            delta,
            exp_a.copy(),
            tau2,
            EPSILON,
            np.empty(n, np.bool_),
            a,
            a_,
            b_,
            fa,
            fb,
        )
    want = [
        volatility_module._f(x, ex, d, p, w, x, tau2)
        for x, ex, d, p, w in zip(a, exp_a, delta, phi2, v, strict=True)
    ]
    assert fa.tobytes() == np.array(want).tobytes()
