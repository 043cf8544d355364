"""Glicko-2, as Glickman's paper gives it: one rating period at a time.

Source: M. E. Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/
glicko2.pdf, revision of 2022), steps 1-8. RULES.md section 3 is the spec.

The update is vectorised over players: every player is rated against the
opponents' pre-period values, so per-player sums are scatter-adds and the
volatility iteration of step 5 runs for all players at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    check_choice,
    check_interval,
    initial_values,
    list_day_after,
    player_sum,
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
    return 1.0 / np.sqrt(1.0 + 3.0 * p * p / np.pi**2)


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
    sigma = np.asarray(sigma, dtype=np.float64)
    phi2 = np.asarray(phi, dtype=np.float64) ** 2
    v = np.asarray(v, dtype=np.float64)
    delta2 = np.asarray(delta, dtype=np.float64) ** 2
    tau2 = tau * tau
    a = np.log(sigma * sigma)
    # f's constant parts, with the paper's order of operations (so bit for bit
    # the same as writing f out): delta^2 - phi^2 - v and phi^2 + v.
    rest = delta2 - phi2 - v
    base0 = phi2 + v

    def f(x: FloatArray, r: FloatArray, b0: FloatArray, a0: FloatArray) -> FloatArray:
        # f(x) of step 5.1 for players with rest r, base0 b0 and a a0:
        # ex * (r - ex) / (2.0 * base * base) - (x - a0) / tau2, base = b0 + ex,
        # the same operations in place (fewer temporary arrays).
        ex = np.exp(x)
        base = b0 + ex
        out = r - ex
        out *= ex
        den = np.multiply(base, 2.0, out=ex)
        den *= base
        out /= den
        np.subtract(x, a0, out=den)
        den /= tau2
        out -= den
        return out

    # Step 5.2: initial bracket [A, B].
    big = delta2 > base0
    A = a.copy()
    B = np.empty_like(a)
    large = np.flatnonzero(big)
    B[large] = np.log(rest[large])
    small = np.flatnonzero(~big)
    k = np.ones(small.size)
    # Players still below zero at a - k tau; once f(a - k tau) >= 0 a player's
    # k is final, so only the others are evaluated again.
    search = np.arange(small.size)
    s_rest, s_base0, s_a = rest[small], base0[small], a[small]
    for _ in range(max_iterations):
        if search.size == 0:
            break
        below = f(s_a - k[search] * tau, s_rest, s_base0, s_a) < 0
        if not below.any():
            break
        keep = np.flatnonzero(below)
        search = search[keep]
        k[search] += 1.0
        s_rest, s_base0, s_a = s_rest[keep], s_base0[keep], s_a[keep]
    else:
        raise RuntimeError("Glicko-2 step 5: no bracket found within the bound.")
    B[small] = a[small] - k * tau

    # Steps 5.3-5.4: Illinois iteration, only over players not yet converged,
    # on compacted arrays: a player's values are gathered once, and the
    # arrays shrink as players converge. Only A is needed afterwards.
    fA = f(A, rest, base0, a)
    fB = f(B, rest, base0, a)
    going = np.abs(B - A) > epsilon
    if going.all():
        pos = np.arange(a.size)
        a_, b_, fa, fb = A, B, fA, fB
        c_rest, c_base0, c_a = rest, base0, a
    else:
        pos = np.flatnonzero(going)
        a_, b_, fa, fb = A[pos], B[pos], fA[pos], fB[pos]
        c_rest, c_base0, c_a = rest[pos], base0[pos], a[pos]
    for _ in range(max_iterations):
        if pos.size == 0:
            break
        # c = a_ + (a_ - b_) * fa / (fb - fa), in place.
        c = a_ - b_
        c *= fa
        step = fb - fa
        c /= step
        c += a_
        fc = f(c, c_rest, c_base0, c_a)
        swap = np.multiply(fc, fb, out=step) <= 0  # the 2022 revision's "<=".
        # a_ = where(swap, b_, a_), fa = where(swap, fb, fa / 2), in place
        # through the positions of the swaps (faster than a random-mask
        # select). a_ and fa may be A and fA themselves: those are then the
        # current values of every player, as they should be.
        swapped = np.flatnonzero(swap)
        a_[swapped] = b_[swapped]
        fa /= 2.0
        fa[swapped] = fb[swapped]
        b_, fb = c, fc
        going = np.abs(np.subtract(c, a_, out=step), out=step) > epsilon
        if not going.all():
            # Positions, not the mask: seven arrays are gathered with them.
            done = np.flatnonzero(~going)
            A[pos[done]] = a_[done]
            keep = np.flatnonzero(going)
            pos = pos[keep]
            a_, b_, fa, fb = a_[keep], b_[keep], fa[keep], fb[keep]
            c_rest, c_base0, c_a = c_rest[keep], c_base0[keep], c_a[keep]
    # Checked after the loop, not in a for-else: a player converging on the
    # last allowed iteration has converged.
    if pos.size:
        raise RuntimeError(
            f"Glicko-2 step 5 did not converge in {max_iterations} iterations "
            f"for {pos.size} players."
        )
    sigma_new: FloatArray = np.exp(A / 2.0)
    return sigma_new


def _step3_sums(
    mu: FloatArray,
    g_player: FloatArray,
    white: IntArray,
    black: IntArray,
    score: FloatArray,
) -> tuple[FloatArray, FloatArray, IntArray]:
    """Per-player ``sum g^2 E (1 - E)``, ``sum g (s - E)`` and games played.

    Each game counts from both sides, White's sides first then Black's, in
    game order: the order of the sums, and so their rounding, is fixed.
    """
    n_players = mu.shape[0]
    n = white.shape[0]
    player = np.concatenate([white, black])
    if player.size and (player.max() >= n_players or player.min() < -n_players):
        mu[player]  # an index out of bounds: raise indexing's IndexError
    # Both sides in one buffer each: [:n] White's sides, [n:] Black's.
    g_opp = _gather(g_player, black, white)
    e_own = _gather(mu, white, black)
    # E = 1 / (1 + exp(-g_opp * (mu_own - mu_opp))); Black's difference is
    # minus White's, exactly (IEEE subtraction is antisymmetric).
    np.subtract(e_own[:n], e_own[n:], out=e_own[:n])
    np.negative(e_own[:n], out=e_own[n:])
    _logistic_into(e_own, g_opp)

    # g_opp * (s_own - e_own), s_own White's score on White's sides and
    # 1 - score on Black's; then g_opp * g_opp * e_own * (1.0 - e_own), the
    # same operations in place (g_opp is not needed after).
    other = np.empty(2 * n)
    np.subtract(score, e_own[:n], out=other[:n])
    np.subtract(1.0, score, out=other[n:])
    other[n:] -= e_own[n:]
    other *= g_opp
    gain = player_sum(player, other, n_players)
    weight = np.multiply(g_opp, g_opp, out=g_opp)
    weight *= e_own
    weight *= np.subtract(1.0, e_own, out=other)
    info = player_sum(player, weight, n_players)
    return info, gain, np.bincount(player, minlength=n_players)


def _gather(values: FloatArray, first: IntArray, second: IntArray) -> FloatArray:
    """``np.concatenate([values[first], values[second]])`` without temporaries.

    The indices must be valid (``-size <= i < size``): ``mode="wrap"`` then
    reads them as indexing does, and writes straight into the result.
    """
    n = first.shape[0]
    out = np.empty(2 * n)
    np.take(values, first, out=out[:n], mode="wrap")
    np.take(values, second, out=out[n:], mode="wrap")
    return out


def _logistic_into(diff: FloatArray, g_j: FloatArray) -> None:
    """``1 / (1 + exp(-g_j * diff))`` (:func:`expected`) in place, into ``diff``.

    ``-g_j * diff`` is formed as ``-(diff * g_j)``: the same number, since
    floating-point multiplication is commutative and exact in its sign.
    """
    diff *= g_j
    np.negative(diff, out=diff)
    np.exp(diff, out=diff)
    diff += 1.0
    np.divide(1.0, diff, out=diff)


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
) -> tuple[FloatArray, FloatArray, FloatArray, IntArray]:
    """:func:`rate_period`, with each player's number of games in the period."""
    rating = np.asarray(rating, dtype=np.float64)
    white = np.asarray(white, dtype=np.intp)
    black = np.asarray(black, dtype=np.intp)
    score = np.asarray(score, dtype=np.float64)

    # Step 2: convert to the Glicko-2 scale.
    mu = (rating - RATING) / SCALE
    phi = np.asarray(rd, dtype=np.float64) / SCALE
    sigma = np.asarray(volatility, dtype=np.float64)

    # Step 3: each game seen from both sides against pre-period values; g once
    # per player, then gathered.
    info, gain, counts = _step3_sums(mu, g(phi), white, black, score)

    mu_new = mu.copy()
    sigma_new = sigma.copy()
    # Step 6 for players without games: phi' = sqrt(phi^2 + sigma^2).
    phi_new = np.sqrt(phi * phi + sigma * sigma)

    p = np.flatnonzero(counts)
    if p.size:
        v = 1.0 / info[p]  # Step 3: estimated variance.
        delta = v * gain[p]  # Step 4: estimated improvement.
        # Step 5: new volatility.
        sigma_p = new_volatility(
            sigma[p],
            phi[p],
            v,
            delta,
            tau=tau,
            epsilon=epsilon,
            max_iterations=max_iterations,
        )
        # Step 6: pre-period deviation.
        phi_star = np.sqrt(phi[p] ** 2 + sigma_p**2)
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
        mu = (state.rating - RATING) / SCALE
        return expected(mu[w], mu[b], g(state.rd[b] / SCALE))

    def rate(
        self, state: Glicko2State, games: Games, *, day: float | None = None
    ) -> Glicko2State:
        """Rate one period of ``games``; ``day`` is not needed and is ignored."""
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
        )
        n_games = state.n_games + played
        # Never-played players stay at the new-player values (no step-6 growth).
        fresh = n_games == 0
        rd = np.where(fresh, state.rd, rd)
        return Glicko2State(rating, rd, volatility, n_games.astype(np.intp))

    def rating(self, state: Glicko2State) -> FloatArray:
        """Published ratings: Glicko-2 publishes every player's rating."""
        return state.rating.copy()
