"""Glicko-2, as Glickman's paper gives it: one rating period at a time.

Source: M. E. Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/
glicko2.pdf, revision of 2022), steps 1-8. docs/rules.md, section 3 is the spec.

The update is vectorised over players: every player is rated against the
opponents' pre-period values, so per-player sums are scatter-adds and the
volatility iteration of step 5 runs for many players at once (in blocks that
stay in the CPU's cache; the results are those of all at once, bit for bit:
:mod:`simulator.systems._volatility`). Here: the constants, steps 2-4 and 6-8
with step 3's per-player sums in compiled loops, and :class:`Glicko2`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from simulator._jit import jit
from simulator._types import BoolArray
from simulator.systems._common import (
    MAX_RD,
    MAX_VOLATILITY,
    FloatArray,
    Games,
    IntArray,
    check_choice,
    check_interval,
    check_lengths,
    check_new_player,
    grow_state,
    initial_values,
    list_day_after,
    read_only_view,
)
from simulator.systems._volatility import _new_volatility

__all__ = [
    "EPSILON",
    "MAX_ITERATIONS",
    "MIN_EPSILON",
    "PERIODS",
    "RATING",
    "RD",
    "SCALE",
    "TAU",
    "VOLATILITY",
    "Glicko2",
    "Glicko2State",
    "Glicko2Sums",
    "add_sums",
    "expected",
    "g",
    "new_volatility",
    "period_close",
    "period_sums",
    "rate_from_sums",
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


class Glicko2Sums(NamedTuple):
    """Step 3's per-player sums over a period's games, each of shape (n_players,).

    Every game counts against the opponents' pre-period values, which do not
    change during a period: so the sums of a period's parts, added
    (:func:`add_sums`), are the sums of the whole period, and a period can be
    rated from them (:func:`rate_from_sums`) without its games. Added part by
    part, each player's terms are summed in another order than in one call
    (White's sides of all the games first, then Black's), so the rating can
    differ in the last bits (about 1e-15 relative per step): far below any
    rating's meaning, and below the volatility iteration's own tolerance.
    """

    #: ``sum g(phi_j)^2 E (1 - E)``, the inverse of step 3's ``v``.
    info: FloatArray
    #: ``sum g(phi_j) (s - E)``, step 4's sum.
    gain: FloatArray
    #: Games played.
    n_games: IntArray


def period_sums(
    rating: ArrayLike,
    rd: ArrayLike,
    white: ArrayLike,
    black: ArrayLike,
    score: ArrayLike,
    *,
    checked: bool = False,
) -> Glicko2Sums:
    """Step 3's per-player sums of a period's games, or of a part of them.

    Parameters
    ----------
    rating, rd : ndarray of shape (n_players,)
        Pre-period values on the Glicko scale.
    white, black : ndarray of shape (n_games,)
        Player indices of each game.
    score : ndarray of shape (n_games,)
        White's score (1, 0.5, 0).
    checked : bool, default False
        The indices are known to lie in ``[0, n_players)``.

    Returns
    -------
    Glicko2Sums
        Each game counted from both sides, White's sides first, then
        Black's, in game order.

    Examples
    --------
    Glickman's example, in two parts:

    >>> r, rd = [1500, 1400, 1550, 1700], [200, 30, 100, 300]
    >>> one = period_sums(r, rd, [0], [1], [1])
    >>> two = period_sums(r, rd, [0, 0], [2, 3], [0, 0])
    >>> new_r, new_rd, new_s = rate_from_sums(r, rd, [0.06] * 4, add_sums(one, two))
    >>> round(float(new_r[0]), 4), round(float(new_rd[0]), 4)
    (1464.0507, 151.5165)
    """
    rating = np.asarray(rating, dtype=np.float64)
    rd = np.asarray(rd, dtype=np.float64)
    white = np.asarray(white, dtype=np.intp)
    black = np.asarray(black, dtype=np.intp)
    score = np.asarray(score, dtype=np.float64)
    check_lengths("Glicko-2", white=white, black=black, score=score)
    check_lengths("Glicko-2", rating=rating, rd=rd)
    # Step 2: convert to the Glicko-2 scale.
    mu = (rating - RATING) / SCALE
    phi = rd / SCALE
    # Step 3: each game seen from both sides against pre-period values; g once
    # per player, then gathered.
    info, gain, counts = _step3_sums(mu, g(phi), white, black, score, checked=checked)
    return Glicko2Sums(info, gain, counts)


def add_sums(a: Glicko2Sums, b: Glicko2Sums) -> Glicko2Sums:
    """The sums of two parts of a period (arrays of one length).

    >>> s = period_sums([1500, 1400], [200, 30], [0], [1], [1])
    >>> add_sums(s, s).n_games.tolist()
    [2, 2]
    """
    check_lengths("Glicko-2 sums", a=a.info, b=b.info)
    return Glicko2Sums(a.info + b.info, a.gain + b.gain, a.n_games + b.n_games)


def rate_from_sums(
    rating: ArrayLike,
    rd: ArrayLike,
    volatility: ArrayLike,
    sums: Glicko2Sums,
    *,
    tau: float = TAU,
    epsilon: float = EPSILON,
    max_iterations: int = MAX_ITERATIONS,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Steps 3-8 from a period's per-player sums (:func:`period_sums`).

    Parameters and returns as :func:`rate_period`, with the period's games
    given by their ``sums``.
    """
    rating = np.asarray(rating, dtype=np.float64)
    rd = np.asarray(rd, dtype=np.float64)
    sigma = np.asarray(volatility, dtype=np.float64)
    info, gain, counts = sums
    check_lengths("Glicko-2", rating=rating, rd=rd, volatility=sigma, n_games=counts)
    n_players = rating.shape[0]
    mu = (rating - RATING) / SCALE
    phi = rd / SCALE

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
    return SCALE * mu_new + RATING, SCALE * phi_new, sigma_new


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
    white = np.asarray(white, dtype=np.intp)
    black = np.asarray(black, dtype=np.intp)
    score = np.asarray(score, dtype=np.float64)
    rating = np.asarray(rating, dtype=np.float64)
    rd = np.asarray(rd, dtype=np.float64)
    sigma = np.asarray(volatility, dtype=np.float64)
    check_lengths("Glicko-2", white=white, black=black, score=score)
    check_lengths("Glicko-2", rating=rating, rd=rd, volatility=sigma)
    sums = period_sums(rating, rd, white, black, score, checked=checked)
    new = rate_from_sums(
        rating, rd, sigma, sums, tau=tau, epsilon=epsilon, max_iterations=max_iterations
    )
    return (*new, sums.n_games)


#: The smallest tolerance of the volatility iteration (float64's resolution
#: near the volatility's log).
MIN_EPSILON = 1e-12


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
        Unit: none (a constant of the Glicko-2 scale).
    initial_rating, initial_rd, initial_volatility : float
        A new player's values (1500, 350, 0.06).
        Unit: rating points (rating, RD), none (volatility).
    period : {"week", "month", "quarter", "year"}, default "month"
        Length of a rating period on the calendar (weeks start on Thursday,
        1970-01-01's weekday; months on the 1st). Glickman advises 10-15 games
        per player per period.
    epsilon : float, default 1e-6
        Tolerance of the volatility iteration (step 5).
        Unit: none (a tolerance on ln(volatility^2)).

    Notes
    -----
    A player who has never played stays at the new-player values until their
    first period with games: the step-6 growth applies only once a player has
    a rating (docs/rules.md, section 3). No upper bound is put on RD.
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
        check_new_player(
            "Glicko2", self.initial_rating, self.initial_rd, self.initial_volatility
        )
        # Below about 1e-12 the iteration cannot meet the tolerance in float64
        # (1e-300 failed every replicate after MAX_ITERATIONS).
        check_interval(
            "Glicko2", "epsilon", self.epsilon, MIN_EPSILON, 1, closed="left"
        )
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
            initial_values(n_players, rd, self.initial_rd, "rd", low=0, high=MAX_RD),
            initial_values(
                n_players,
                volatility,
                self.initial_volatility,
                "volatility",
                low=0,
                high=MAX_VOLATILITY,
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
        games.check_players(state.rating.shape[0])
        return self.rate_from_sums(state, _game_sums(state, games))

    def period_sums(self, state: Glicko2State, games: Games) -> Glicko2Sums:
        """Step 3's per-player sums of a period's ``games`` (or a part of them).

        The parts of a period, summed with :func:`add_sums`, rate it with
        :meth:`rate_from_sums` as :meth:`rate` rates its games in one call,
        but for the order of the sums (:class:`Glicko2Sums`): the
        walk-forward replay folds a period's games into them as they come.
        """
        games.check_players(state.rating.shape[0])
        return _game_sums(state, games)

    def add_sums(self, a: Glicko2Sums, b: Glicko2Sums) -> Glicko2Sums:
        """The sums of two parts of a period: :func:`add_sums`."""
        return add_sums(a, b)

    def rate_from_sums(
        self, state: Glicko2State, sums: Glicko2Sums, *, day: float | None = None
    ) -> Glicko2State:
        """Rate one period from its per-player sums (:meth:`period_sums`).

        ``day`` is not needed and is ignored.
        """
        rating, rd, volatility = rate_from_sums(
            state.rating,
            state.rd,
            state.volatility,
            sums,
            tau=self.tau,
            epsilon=self.epsilon,
            max_iterations=MAX_ITERATIONS,
        )
        n_games = state.n_games + sums.n_games
        # Never-played players stay at the new-player values (no step-6 growth).
        fresh = n_games == 0
        rd = np.where(fresh, state.rd, rd)
        return Glicko2State(rating, rd, volatility, n_games.astype(np.intp))

    def is_rated(self, state: Glicko2State, players: ArrayLike) -> BoolArray:
        """Whether ``players`` have a published rating: every player has one."""
        return ~np.isnan(state.rating[np.asarray(players, dtype=np.intp)])

    def rating(self, state: Glicko2State) -> FloatArray:
        """Published ratings: Glicko-2 publishes every player's rating."""
        return state.rating.copy()

    def rating_view(self, state: Glicko2State) -> FloatArray:
        """:meth:`rating` as a read-only view (``RatingSystem.rating_view``)."""
        return read_only_view(state.rating)

    def grow(self, state: Glicko2State, n_players: int, **_: object) -> Glicko2State:
        """``state`` with players appended up to ``n_players`` (``GrowingSystem.grow``).

        Each a copy of the last player, who must be one who never played.
        """
        return grow_state(state, n_players, "Glicko2")


def _game_sums(state: Glicko2State, games: Games) -> Glicko2Sums:
    """:func:`period_sums` of ``games``, whose players are checked."""
    return period_sums(
        state.rating,
        state.rd,
        games.white,
        games.black,
        games.score,
        checked=True,  # Games indices are >= 0, and check_players bounds them
    )
