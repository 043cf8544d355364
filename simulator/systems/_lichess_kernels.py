"""Lichess's per-game Glicko-2 in compiled loops: the sides of a round of games.

The steps of :class:`simulator.systems.lichess.Lichess` (its docstring lists
them, with their sources in lila and scalachess) as loops over a round's
sides, White's then Black's: the clamps and RD growth before a game
(:func:`_before_game`), Glicko-2 steps 2-3 (:func:`_steps_2_3`), 3-4 for a
one-game period (:func:`_variance_and_improvement`) and 6-8
(:func:`_steps_6_to_8`), the regulator, 700-point bound, sanity check and
clamps after it (:func:`_after_game`), and the expected score's exponents
(:func:`_expected_exponents`). Step 5 is :mod:`simulator.systems._volatility`'s;
the exponentials between the loops are numpy's (see :mod:`simulator._jit`),
so every result is the bits of the numpy formulas.

The loops call each other and read this module's constants (and, as
:mod:`simulator._jit` allows, Glicko-2's ``SCALE`` and ``RATING``), so they
live together: numba checks a cached function against its own file.
"""

from __future__ import annotations

import math

import numpy as np

from simulator._jit import jit
from simulator.systems._common import FloatArray, IntArray
from simulator.systems.glicko2 import RATING as GLICKO2_CENTRE
from simulator.systems.glicko2 import SCALE

#: lila ``Glicko.sanityCheck``: a result outside (0, 4000) x (0, 1000) x
#: (0, 2 * max volatility) resets the player to the new-player values.
SANE_RATING = 4000.0
SANE_RD = 1000.0

#: pi^2, of g (Glicko-2 step 3).
_PI2 = np.pi**2


# numpy's maximum, minimum and clip of two numbers, for the compiled loops
# below. They live here, not in _common, because numba checks a cached
# function against its own module's file only (see simulator._jit).


@jit
def _at_least(x: float, low: float) -> float:
    """``np.maximum`` of two numbers: NaN stays NaN."""
    return x if x >= low or math.isnan(x) else low


@jit
def _at_most(x: float, high: float) -> float:
    """``np.minimum`` of two numbers: NaN stays NaN."""
    return x if x <= high or math.isnan(x) else high


@jit
def _within(x: float, low: float, high: float) -> float:
    """``np.clip`` of a number: NaN stays NaN."""
    return _at_most(_at_least(x, low), high)


@jit
def _g(phi: float) -> float:
    """Step 3's g(phi), as :func:`~simulator.systems.glicko2.g` computes it."""
    return 1.0 / math.sqrt(3.0 * phi * phi / _PI2 + 1.0)


@jit
def _side(rating: float, rd: float) -> tuple[float, float, float]:
    """Steps 2-3 of a side: mu and phi^2 (Glicko-2 scale), and g(phi)."""
    phi = rd / SCALE
    return (rating - GLICKO2_CENTRE) / SCALE, phi * phi, _g(phi)


@jit
def _exponents(
    mu_w: float, mu_b: float, g_w: float, g_b: float, half: float
) -> tuple[float, float]:
    """Step 3: White's and Black's exponents of E, -g_opp (mu_own - mu_opp).

    ``half`` is half the colour advantage on the Glicko-2 scale, added to
    White's mu and taken from Black's inside E. Black's difference is minus
    White's, exactly; E is ``1 / (1 + exp(exponent))``.
    """
    diff = (mu_w + half) - (mu_b - half)
    return -(diff * g_b), -(-diff * g_w)


@jit
def _steps_2_3(
    rating: FloatArray,
    rd: FloatArray,
    half: float,
    mu: FloatArray,
    phi2: FloatArray,
    g_opp: FloatArray,
    e_own: FloatArray,
) -> None:
    """Steps 2-3 of every side: mu, phi^2, the opponent's g, E's exponent."""
    k = rating.shape[0] // 2
    for w in range(k):
        b = w + k
        mu[w], phi2[w], g_opp[b] = _side(rating[w], rd[w])
        mu[b], phi2[b], g_opp[w] = _side(rating[b], rd[b])
        e_own[w], e_own[b] = _exponents(mu[w], mu[b], g_opp[b], g_opp[w], half)


@jit
def _variance_and_improvement(
    e_own: FloatArray, g_opp: FloatArray, score: FloatArray, delta: FloatArray
) -> None:
    """Steps 3-4 for one-game periods: v, g (s - E) and Delta = v g (s - E).

    ``e_own`` holds exp of E's exponent (:func:`_exponents`) and becomes v;
    ``g_opp`` becomes g (s - E), s White's score on White's side and one
    minus it on Black's; Delta goes into ``delta``.
    """
    n = e_own.shape[0]
    k = n // 2
    for i in range(n):
        e = 1.0 / (e_own[i] + 1.0)
        g = g_opp[i]
        s = score[i] if i < k else 1.0 - score[i - k]
        e_own[i] = 1.0 / (g * g * e * (1.0 - e))
        g_opp[i] = (s - e) * g
        delta[i] = e_own[i] * g_opp[i]


@jit
def _rating_and_rd(
    mu: float, phi2: float, v: float, gain: float
) -> tuple[float, float]:
    """Steps 6-8 of one side: the new rating and RD, on the Glicko scale.

    Step 6 with zero elapsed periods (skipDeviationIncrease): phi* = phi.
    Step 7: phi' = 1 / sqrt(1 / phi*^2 + 1 / v) and mu' = mu + phi'^2 g (s -
    E), from the unshifted mu (``gain`` is g (s - E)). Step 8: back to the
    Glicko scale.
    """
    phi_p = 1.0 / math.sqrt(1.0 / phi2 + 1.0 / v)
    return (mu + phi_p * phi_p * gain) * SCALE + GLICKO2_CENTRE, phi_p * SCALE


@jit
def _steps_6_to_8(
    mu: FloatArray, phi2: FloatArray, v: FloatArray, gain: FloatArray
) -> None:
    """Steps 6-8 (:func:`_rating_and_rd`) of every side, into ``mu`` and ``phi2``."""
    for i in range(mu.shape[0]):
        mu[i], phi2[i] = _rating_and_rd(mu[i], phi2[i], v[i], gain[i])


@jit
def _expected_exponents(
    rating: FloatArray,
    rd: FloatArray,
    white: IntArray,
    black: IntArray,
    clamps: tuple[float, float, float],
    half: float,
    out: FloatArray,
) -> None:
    """The exponents of :meth:`Lichess.expected_score`'s E, into ``out``.

    ``-g(phi_b) (mu_w - mu_b)`` from the stored values clamped (``clamps``:
    min rating, min RD, max RD), with ``half`` the colour advantage's half on
    the Glicko-2 scale; as :func:`~simulator.systems.glicko2.g` and
    :func:`~simulator.systems.glicko2.expected` compute them.
    """
    min_rating, min_rd, max_rd = clamps
    for i in range(white.shape[0]):
        w, b = white[i], black[i]
        mu_w = (_at_least(rating[w], min_rating) - GLICKO2_CENTRE) / SCALE + half
        mu_b = (_at_least(rating[b], min_rating) - GLICKO2_CENTRE) / SCALE - half
        g_b = _g(_within(rd[b], min_rd, max_rd) / SCALE)
        out[i] = -g_b * (mu_w - mu_b)


@jit
def _before_game(
    days: FloatArray,
    limits: tuple[float, float, float, float, float],
    half: float,
    stored: FloatArray,
    mu: FloatArray,
    phi2: FloatArray,
    s0: FloatArray,
    e_own: FloatArray,
    g_opp: FloatArray,
) -> bool:
    """Steps 1-2 of :class:`Lichess` for the round's sides, and Glicko-2's 2-3.

    The sides are White's then Black's; they come in with their stored
    rating in ``stored`` (only read), RD in ``phi2``, volatility in ``s0``
    and last game's day in ``e_own``, and leave with the values of
    :func:`_steps_2_3` (mu in ``mu``) and their volatility clamped
    (``limits`` are :func:`_clamped_and_grown`'s). Returns whether a side's
    game is dated before its last game.
    """
    k = days.shape[0]
    w, b = slice(0, k), slice(k, 2 * k)
    # Side by side, in loops simple enough for the compiler to vectorise
    # (they are bound by divisions): White's sides, then Black's with the
    # exponents of both. Each side's g goes to its opponent's place.
    late_w = _whites_before_game(
        days, limits, stored[w], mu[w], phi2[w], s0[w], e_own[w], g_opp[b]
    )
    late_b = _blacks_before_game(
        days,
        limits,
        half,
        stored[b],
        mu[b],
        phi2[b],
        s0[b],
        e_own[b],
        g_opp[w],
        (mu[w], g_opp[b], e_own[w]),
    )
    return late_w or late_b


@jit
def _whites_before_game(
    days: FloatArray,
    limits: tuple[float, float, float, float, float],
    stored: FloatArray,
    mu: FloatArray,
    phi2: FloatArray,
    s0: FloatArray,
    last_day: FloatArray,
    g: FloatArray,
) -> bool:
    """:func:`_before_game` for White's sides, but for E's exponent.

    Each side's g goes into ``g``; ``stored`` and ``last_day`` are only read.
    """
    late = False
    for i in range(days.shape[0]):
        mu[i], phi2[i], s0[i], g[i], early = _side_before_game(
            stored[i], phi2[i], s0[i], days[i] - last_day[i], limits
        )
        late |= early
    return late


@jit
def _blacks_before_game(
    days: FloatArray,
    limits: tuple[float, float, float, float, float],
    half: float,
    stored: FloatArray,
    mu: FloatArray,
    phi2: FloatArray,
    s0: FloatArray,
    e_own: FloatArray,
    g: FloatArray,
    white: tuple[FloatArray, FloatArray, FloatArray],
) -> bool:
    """:func:`_before_game` for Black's sides, and E's exponents of every game.

    As :func:`_whites_before_game`, with the last game's day in ``e_own``,
    where Black's exponent goes; ``white`` are White's mu and g (only read)
    and exponents.
    """
    mu_w, g_w, e_w = white
    late = False
    for i in range(days.shape[0]):
        mu[i], phi2[i], s0[i], g[i], early = _side_before_game(
            stored[i], phi2[i], s0[i], days[i] - e_own[i], limits
        )
        late |= early
        e_w[i], e_own[i] = _exponents(mu_w[i], mu[i], g_w[i], g[i], half)
    return late


@jit
def _side_before_game(
    rating: float,
    rd: float,
    volatility: float,
    elapsed: float,
    limits: tuple[float, float, float, float, float],
) -> tuple[float, float, float, float, bool]:
    """Steps 1-2 of :class:`Lichess` and Glicko-2's 2-3 of one side.

    Returns mu, phi^2, sigma, g (:func:`_side`, from
    :func:`_clamped_and_grown`) and whether the game is dated before the
    side's last one.
    """
    r, grown, sigma, waited = _clamped_and_grown(
        rating, rd, volatility, elapsed, limits
    )
    mu, phi2, g = _side(r, grown)
    return mu, phi2, sigma, g, waited < 0


@jit
def _clamped_and_grown(
    rating: float,
    rd: float,
    volatility: float,
    elapsed: float,
    limits: tuple[float, float, float, float, float],
) -> tuple[float, float, float, float]:
    """Steps 1-2 of :class:`Lichess` for one side: rating, RD, volatility, days.

    The stored values clamped to ``limits`` (periods per day, min rating,
    min RD, max RD, max volatility), and the RD grown by :func:`grow_rd`'s
    operations, ``SCALE * sqrt(phi * phi + t * sigma * sigma)``, ``t`` the
    periods in the ``elapsed`` days since the side's last game (NaN before
    its first: no growth), then clamped again.
    """
    periods_per_day, min_rating, min_rd, max_rd, max_volatility = limits
    elapsed = 0.0 if math.isnan(elapsed) else elapsed
    sigma = _at_most(volatility, max_volatility)
    t = elapsed * periods_per_day * sigma * sigma
    phi = _within(rd, min_rd, max_rd) / SCALE
    grown = _within(SCALE * math.sqrt(phi * phi + t), min_rd, max_rd)
    return _at_least(rating, min_rating), grown, sigma, elapsed


@jit
def _after_game(
    mu: FloatArray,
    phi2: FloatArray,
    v: FloatArray,
    gain: FloatArray,
    s1: FloatArray,
    stored: FloatArray,
    factor: float,
    max_rating_delta: float,
    sane_volatility: float,
    initial: tuple[float, float, float],
    limits: tuple[float, float, float, float, float],
) -> None:
    """Glicko-2 steps 6-8, then steps 4-7 of :class:`Lichess`, for every side.

    ``mu``, ``phi2``, ``v``, ``gain`` and ``s1`` are the sides' values of
    :func:`_steps_2_3` and :func:`_steps_3_to_5`, ``stored`` their stored
    ratings. The new rating, RD and volatility go into ``mu``, ``phi2`` and
    ``s1``. 4: a gain over the clamped stored rating is multiplied by
    ``factor`` (lila RatingRegulator); 5: the rating stays within
    ``max_rating_delta`` of the stored one (Perf.addOrReset); 6: values
    outside (0, 4000) x (0, 1000) x (0, ``sane_volatility``) are reset to
    the ``initial`` ones (Glicko.sanityCheck); 7: the clamps of step 1
    (Glicko.cap), from ``limits`` (as :func:`_clamped_and_grown`'s).
    """
    _, min_rating, min_rd, max_rd, max_volatility = limits
    for i in range(mu.shape[0]):
        r, rd = _rating_and_rd(mu[i], phi2[i], v[i], gain[i])
        s = s1[i]
        r0 = _at_least(stored[i], min_rating)
        # A select, not a branch: half the players gain, at random.
        r = r + (r - r0) * (factor - 1.0) if r > r0 else r
        r = _within(r, stored[i] - max_rating_delta, stored[i] + max_rating_delta)
        if not (0 < r < SANE_RATING and 0 < rd < SANE_RD and 0 < s < sane_volatility):
            r, rd, s = initial
        mu[i] = _at_least(r, min_rating)
        phi2[i] = _within(rd, min_rd, max_rd)
        s1[i] = _at_most(s, max_volatility)
