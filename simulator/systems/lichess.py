"""Glicko-2 as Lichess runs it: every game its own rating period, with clamps.

docs/rules.md, section 4 is the spec. Sources, checked against the code:

- lichess-org/scalachess, ``rating/src/main/scala/glicko/``:
  ``impl/RatingCalculator.scala`` (the Glicko-2 steps, tau 0.75, tolerance 1e-6,
  at most 1000 iterations, RD growth ``phi^2 + t sigma^2`` for a real-valued
  number of elapsed periods ``t``), ``impl/results.scala`` (the colour
  advantage: +half for White, -half for Black, inside E only) and ``model.scala``
  (``Tau.default`` 0.75, ``ColorAdvantage.standard`` 11.782457, provisional while
  ``RD >= 110``, displayed rating ``rating.toInt``, i.e. truncated);
- lichess-org/lila, ``modules/rating/src/main/Glicko.scala`` (new player
  1500 / 500 / 0.09, RD in [45, 500], rating >= 400, sigma <= 0.1, at most 700
  points per game, 0.21436 rating periods per day "so a typical player's RD goes
  from 60 to 110 in 1 year", the sanity check behind the reset),
  ``Perf.scala`` (``addOrReset``: the 700-point clamp, the reset, then the
  clamps), ``RatingRegulator.scala`` (gains times 1.015 / 1.005 / ...), and
  ``modules/round/src/main/PerfsUpdater.scala`` (``computeGame(...,
  skipDeviationIncrease = true)``: step 6 uses 0 elapsed periods, phi* = phi);
- M. E. Glickman, "Example of the Glicko-2 system" (glicko.net/glicko/
  glicko2.pdf) for the steps themselves, reused from :mod:`simulator.systems.
  glicko2`.

One game, for both players at once (:class:`Lichess` ``rate``):

1. read the stored values clamped (RD to [45, 500], rating >= 400, sigma <= 0.1);
2. grow the deviation by the days since the player's last game,
   ``phi <- sqrt(phi^2 + t sigma^2)``, ``t = days * 0.21436`` (no growth before
   a player's first game), and clamp RD to [45, 500] again;
3. Glicko-2 steps 3-8 for a one-game period with ``phi* = phi``; with the colour
   advantage, E compares White's rating + 5.8912285 with Black's - 5.8912285;
4. the rating regulator: a gain over the step-1 rating is multiplied by the
   speed's factor;
5. the rating is held within 700 points of the stored pre-game rating;
6. if not (0 < r < 4000, 0 < RD < 1000, 0 < sigma < 2 * 0.1), the player is
   reset to the new-player values;
7. the clamps of step 1 again.

Ratings Lichess displays are these values truncated to whole numbers
(``rating.toInt``); :func:`provisional` marks the ones shown with "?".
Lichess halves a human's change against a bot (``RatingRegulator.scala``);
there are no bots here, so that rule is not modelled.

The steps run as compiled loops over a round's sides, in
:mod:`simulator.systems._lichess_kernels`; this module holds the constants,
the numpy-level functions and :class:`Lichess`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._types import BoolArray
from simulator.systems._common import (
    FloatArray,
    Games,
    IntArray,
    _disjoint,
    check_choice,
    check_interval,
    check_lengths,
    check_new_player,
    days_since_last,
    gather,
    grow_state,
    initial_values,
    predict_and_rate_games,
    rate_games,
    read_only_view,
    round_arrays,
    round_counts,
    scatter,
    seeded_last_day,
)
from simulator.systems._lichess_kernels import (
    SANE_RATING,
    SANE_RD,
    _after_game,
    _before_game,
    _expected_exponents,
    _steps_2_3,
    _steps_6_to_8,
    _variance_and_improvement,
)
from simulator.systems._volatility import _new_volatility
from simulator.systems.glicko2 import (
    EPSILON,
    MIN_EPSILON,
    SCALE,
    expected,
    g,
)
from simulator.systems.glicko2 import RATING as GLICKO2_CENTRE

__all__ = [
    "COLOUR_ADVANTAGE",
    "MAX_ITERATIONS",
    "MAX_RATING_DELTA",
    "MAX_RD",
    "MAX_VOLATILITY",
    "MIN_RATING",
    "MIN_RD",
    "PROVISIONAL_RD",
    "RATING",
    "RD",
    "RD_GROWTH_PER_DAY",
    "REGULATOR_FACTORS",
    "SANE_RATING",
    "SANE_RD",
    "TAU",
    "VOLATILITY",
    "Lichess",
    "LichessState",
    "grow_rd",
    "provisional",
    "rate_round",
]

#: A new player (lila ``Glicko.default``: 1500, ``maxDeviation``,
#: ``defaultVolatility``).
RATING = 1500.0
RD = 500.0
VOLATILITY = 0.09
#: scalachess ``Tau.default``.
TAU = 0.75
#: scalachess ``ITERATION_MAX`` of the volatility iteration (it throws past it).
MAX_ITERATIONS = 1000
#: lila ``Glicko.calculator``: rating periods per day of inactivity.
RD_GROWTH_PER_DAY = 0.21436
#: scalachess ``ColorAdvantage.standard``: White's edge in rating points, split
#: +half / -half between the two sides inside E.
COLOUR_ADVANTAGE = 11.782457
#: lila ``RatingRegulator``: factor on rating gains per speed. ``ultrabullet``
#: (1.013) is in the same table; ``correspondence`` has no entry there (1.0).
REGULATOR_FACTORS: dict[str, float] = {
    "ultrabullet": 1.013,
    "bullet": 1.015,
    "blitz": 1.005,
    "rapid": 1.015,
    "classical": 1.015,
    "correspondence": 1.0,
}
#: lila ``Glicko``: the clamps applied before and after every game.
MIN_RD = 45.0
MAX_RD = 500.0
MIN_RATING = 400.0
MAX_VOLATILITY = 0.1
#: lila ``Glicko.maxRatingDelta``: most points a single game can move a rating.
MAX_RATING_DELTA = 700.0
#: scalachess ``provisionalDeviation``: provisional ("?") while RD >= 110.
PROVISIONAL_RD = 110.0


class LichessState(NamedTuple):
    """State of a Lichess pool; every array has shape (n_players,).

    ``last_day`` is the day of the player's last game, NaN before the first.
    """

    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray
    n_games: IntArray
    last_day: FloatArray


def grow_rd(
    rd: ArrayLike,
    volatility: ArrayLike,
    days: ArrayLike,
    *,
    periods_per_day: float = RD_GROWTH_PER_DAY,
) -> FloatArray:
    """The deviation after ``days`` idle days: ``sqrt(phi^2 + t sigma^2)``.

    ``t = days * periods_per_day`` is the number of elapsed rating periods:
    Glickman's step 6 for a real-valued number of elapsed periods, as
    scalachess ``calculateNewRD`` and ``previewDeviation`` compute it. Not
    clamped; :class:`Lichess` clamps the result to [45, 500].

    Parameters
    ----------
    rd, volatility, days : array_like of equal shapes
        Deviation (Glicko scale), volatility and idle days of each player.
    periods_per_day : float
        Rating periods per day.

    Returns
    -------
    ndarray
        The grown deviation, Glicko scale.

    Examples
    --------
    A typical player's RD goes from 60 to 110 in a year:

    >>> round(float(grow_rd(60.0, 0.06, 365.0)), 1)
    110.0
    """
    phi = np.asarray(rd, dtype=np.float64) / SCALE
    sigma = np.asarray(volatility, dtype=np.float64)
    t = np.asarray(days, dtype=np.float64) * periods_per_day
    return np.asarray(SCALE * np.sqrt(phi * phi + t * sigma * sigma), dtype=np.float64)


def rate_round(
    rating: ArrayLike,
    rd: ArrayLike,
    volatility: ArrayLike,
    white: ArrayLike,
    black: ArrayLike,
    score: ArrayLike,
    *,
    tau: float = TAU,
    epsilon: float = EPSILON,
    advantage: float = 0.0,
    max_iterations: int = MAX_ITERATIONS,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Rate a round of games, each its own Glicko-2 period with ``phi* = phi``.

    This is scalachess ``GlickoCalculator.computeGame(game,
    skipDeviationIncrease = true)`` for many games at once: no RD growth, no
    clamps, no regulator (:class:`Lichess` adds those).

    Parameters
    ----------
    rating, rd, volatility : array_like of shape (n_players,)
        Pre-game values, Glicko scale.
    white, black : array_like of shape (n_games,)
        Player indices; a player may appear in at most one game.
    score : array_like of shape (n_games,)
        White's score (1, 0.5, 0).
    tau : float
        System constant.
    epsilon, max_iterations
        Tolerance and bound of the volatility iteration (step 5).
    advantage : float
        White's advantage in rating points; E uses White's rating +
        ``advantage / 2`` and Black's - ``advantage / 2``; the update itself
        starts from the unshifted ratings.

    Returns
    -------
    rating, rd, volatility : ndarray of shape (n_players,)
        Post-game values; players without a game keep theirs.

    Raises
    ------
    ValueError
        If a player appears in more than one game.

    Examples
    --------
    Lichess's calculator test (scalachess ``GlickoCalculatorTest``):

    >>> r, rd, s = rate_round([1500, 1500], [350, 350], [0.06, 0.06], [0], [1], [1])
    >>> [round(float(x), 2) for x in r], round(float(rd[0]), 4)
    ([1662.21, 1337.79], 290.2305)
    """
    rating = np.asarray(rating, dtype=np.float64)
    rd = np.asarray(rd, dtype=np.float64)
    sigma = np.asarray(volatility, dtype=np.float64)
    white = np.asarray(white, dtype=np.intp)
    black = np.asarray(black, dtype=np.intp)
    score = np.asarray(score, dtype=np.float64)
    check_lengths("Lichess", white=white, black=black, score=score)
    check_lengths("Lichess", rating=rating, rd=rd, volatility=sigma)
    player = np.concatenate([white, black])
    if (
        player.size
        and not _disjoint(white, black)
        and np.unique(player).size != player.size
    ):
        raise ValueError("rate_round: a player appears in more than one game.")
    r_p, rd_p, sigma_p = _rate_sides(
        rating[player],
        rd[player],
        sigma[player],
        score,
        tau=tau,
        epsilon=epsilon,
        advantage=advantage,
        max_iterations=max_iterations,
    )
    new_rating, new_rd, new_sigma = rating.copy(), rd.copy(), sigma.copy()
    new_rating[player] = r_p
    new_rd[player] = rd_p
    new_sigma[player] = sigma_p
    return new_rating, new_rd, new_sigma


def _rate_sides(
    rating: FloatArray,
    rd: FloatArray,
    sigma: FloatArray,
    score: FloatArray,
    *,
    tau: float,
    epsilon: float,
    advantage: float,
    max_iterations: int,
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """:func:`rate_round` on the games' sides, unchecked.

    ``rating``, ``rd`` and ``sigma`` have shape (2 n_games,): White's side of
    every game, then Black's, in game order; the results come in that order,
    sigma' in ``sigma``'s buffer. The steps are compiled loops, with numpy's
    exp and log between them (as in :func:`~simulator.systems._volatility.
    _new_volatility`).
    """
    mu, phi2, g_opp, e_own, delta = np.empty((5, rating.shape[0]))
    _steps_2_3(rating, rd, advantage / 2.0 / SCALE, mu, phi2, g_opp, e_own)
    v, gain = _steps_3_to_5(
        phi2,
        g_opp,
        e_own,
        sigma,
        score,
        delta,
        tau=tau,
        epsilon=epsilon,
        max_iterations=max_iterations,
    )
    _steps_6_to_8(mu, phi2, v, gain)
    return mu, phi2, sigma


def _steps_3_to_5(
    phi2: FloatArray,
    g_opp: FloatArray,
    e_own: FloatArray,
    sigma: FloatArray,
    score: FloatArray,
    delta: FloatArray,
    *,
    tau: float,
    epsilon: float,
    max_iterations: int,
) -> tuple[FloatArray, FloatArray]:
    """Glicko-2 steps 3-5 of every side, from those of :func:`_steps_2_3`.

    Returns v (in ``e_own``'s buffer) and g (s - E) (in ``g_opp``'s); sigma'
    replaces sigma, and ``delta`` is scratch.
    """
    np.exp(e_own, out=e_own)
    _variance_and_improvement(e_own, g_opp, score, delta)
    # Step 5: new volatility.
    _new_volatility(
        sigma,
        phi2,
        e_own,
        delta,
        tau=tau,
        epsilon=epsilon,
        max_iterations=max_iterations,
        out=sigma,
    )
    return e_own, g_opp


def provisional(
    state: LichessState, *, threshold: float = PROVISIONAL_RD
) -> NDArray[np.bool_]:
    """Which ratings Lichess shows as provisional ("1500?"): ``RD >= 110``.

    Judged on the stored deviation, i.e. as of each player's last game; Lichess
    judges the deviation grown to the moment of display. Displayed ratings are
    the ratings truncated to whole numbers (``np.trunc(state.rating)``).

    Returns
    -------
    ndarray of bool, shape (n_players,)
    """
    return np.asarray(state.rd >= threshold)


@dataclass(frozen=True)
class Lichess:
    """Glicko-2 as Lichess runs it: a rating period per game, clamps, regulator.

    Parameters
    ----------
    tau : float, default 0.75
        System constant (scalachess ``Tau.default``).
        Unit: none (a constant of the Glicko-2 scale).
    initial_rating, initial_rd, initial_volatility : float
        A new player's values, also the values of a reset (1500, 500, 0.09).
        Unit: rating points (rating, RD), none (volatility).
    epsilon : float, default 1e-6
        Tolerance of the volatility iteration.
        Unit: none (a tolerance on ln(volatility^2)).
    rd_growth_per_day : float, default 0.21436
        Rating periods per idle day for the RD growth before a game; 0 turns
        growth off.
        Unit: rating periods per day.
    colour_advantage : bool, default True
        Shift E by +-``COLOUR_ADVANTAGE / 2`` for White / Black, as Lichess
        rates standard chess (lila since PR #18629, scalachess PR #755).
    regulator : bool, default True
        Multiply rating gains by ``REGULATOR_FACTORS[speed]``.
    speed : {"ultrabullet", "bullet", "blitz", "rapid", "classical", \
"correspondence"}, default "blitz"
        The speed whose regulator factor applies. The factors are a snapshot
        of lila; current values are open (docs/rules.md, section 4).
    min_rd, max_rd : float, default 45, 500
        Range RD is clamped to before and after every game.
        Unit: rating points.
    min_rating : float, default 400
        Floor of the rating.
        Unit: rating points.
    max_volatility : float, default 0.1
        Ceiling of the volatility; the reset rule allows up to twice this.
        Unit: none (a volatility).
    max_rating_delta : float, default 700
        Most points one game can move a rating.
        Unit: rating points.

    Notes
    -----
    Every game is its own rating period, so ``rate`` takes the games in order.
    It updates one round at a time (:func:`~simulator.systems._common.
    split_rounds`: a player plays at most once per round), which equals
    feeding the games one by one.
    """

    tau: float = TAU
    initial_rating: float = RATING
    initial_rd: float = RD
    initial_volatility: float = VOLATILITY
    epsilon: float = EPSILON
    rd_growth_per_day: float = RD_GROWTH_PER_DAY
    colour_advantage: bool = True
    regulator: bool = True
    speed: str = "blitz"
    min_rd: float = MIN_RD
    max_rd: float = MAX_RD
    min_rating: float = MIN_RATING
    max_volatility: float = MAX_VOLATILITY
    max_rating_delta: float = MAX_RATING_DELTA

    name = "lichess"
    per_game = True

    def __post_init__(self) -> None:
        own = "Lichess"
        check_interval(own, "tau", self.tau, 0, np.inf, closed="neither")
        check_new_player(
            own, self.initial_rating, self.initial_rd, self.initial_volatility
        )
        check_interval(own, "epsilon", self.epsilon, MIN_EPSILON, 1, closed="left")
        check_interval(
            own, "rd_growth_per_day", self.rd_growth_per_day, 0, np.inf, closed="left"
        )
        check_choice(own, "colour_advantage", self.colour_advantage, (True, False))
        check_choice(own, "regulator", self.regulator, (True, False))
        check_choice(own, "speed", self.speed, tuple(REGULATOR_FACTORS))
        check_interval(own, "min_rd", self.min_rd, 0, np.inf, closed="neither")
        check_interval(own, "max_rd", self.max_rd, self.min_rd, np.inf, closed="left")
        check_interval(own, "min_rating", self.min_rating, -np.inf, np.inf)
        check_interval(
            own, "max_volatility", self.max_volatility, 0, np.inf, closed="neither"
        )
        check_interval(
            own, "max_rating_delta", self.max_rating_delta, 0, np.inf, closed="neither"
        )

    @property
    def advantage(self) -> float:
        """White's advantage in rating points: ``COLOUR_ADVANTAGE`` or 0."""
        return COLOUR_ADVANTAGE if self.colour_advantage else 0.0

    def next_close(self, day: float) -> None:
        """Per-game system: no periods."""
        return None

    def new_state(
        self,
        n_players: int,
        *,
        rating: ArrayLike | None = None,
        rd: ArrayLike | None = None,
        volatility: ArrayLike | None = None,
        n_games: ArrayLike | None = None,
        day: float | None = None,
        **_: object,
    ) -> LichessState:
        """A pool of ``n_players``; new players (NaN ``rating``) get the initial values.

        ``rating``, ``rd``, ``volatility`` and ``n_games`` seed an established
        pool. A seeded player (a rating given, or ``n_games > 0``) counts as
        having last played on ``day``, so their RD grows from then; without
        ``day``, or for new players, ``last_day`` is NaN (no growth before the
        next game).
        """
        start = initial_values(n_players, rating, self.initial_rating, "rating")
        n = initial_values(n_players, n_games, 0, "n_games").astype(np.intp)
        last_day = seeded_last_day(n_players, rating, n, day)
        return LichessState(
            start,
            initial_values(n_players, rd, self.initial_rd, "rd"),
            initial_values(
                n_players, volatility, self.initial_volatility, "volatility"
            ),
            n,
            last_day,
        )

    def expected_score(
        self, state: LichessState, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's expected score: E with Black's deviation and the colour advantage.

        Uses the stored values, clamped, without the RD growth since the last
        game (the state carries no clock).
        """
        w = np.asarray(white, dtype=np.intp)
        b = np.asarray(black, dtype=np.intp)
        # The stored values clamped (lila Glicko.cap), for the games' players
        # only.
        r_w = np.maximum(state.rating[w], self.min_rating)
        r_b = np.maximum(state.rating[b], self.min_rating)
        rd_b = np.clip(state.rd[b], self.min_rd, self.max_rd)
        half = self.advantage / 2.0 / SCALE
        return expected(
            (r_w - GLICKO2_CENTRE) / SCALE + half,
            (r_b - GLICKO2_CENTRE) / SCALE - half,
            g(rd_b / SCALE),
        )

    def rate(
        self,
        state: LichessState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> LichessState:
        """Rate ``games`` in order, each game its own rating period.

        Parameters
        ----------
        state : LichessState
            The pool before the games; not modified unless
            ``overwrite_state``.
        games : Games
            The games in the order they were played; ``games.day`` gives each
            game's (real-valued) day.
        day : float, optional
            The day of every game, used only when ``games.day`` is None.
        overwrite_state : bool, default False
            Let the new values be written into ``state``'s arrays (saves a
            copy of each per round; the engine drops the old state).

        Returns
        -------
        LichessState
            The pool after the games.

        Raises
        ------
        ValueError
            If neither ``games.day`` nor ``day`` is given (and there are games),
            if a day is not finite, or if a game is dated before a player's
            last game.
        """
        games.check_players(state.rating.shape[0])
        return rate_games(
            state, games, day, "Lichess", self._rate_round, overwrite_state
        )

    def predict_and_rate(
        self,
        state: LichessState,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> tuple[LichessState, FloatArray]:
        """:meth:`rate`, with each game's expected score from before its round.

        The same as splitting ``games`` by :func:`~simulator.systems._common.
        split_rounds` and calling :meth:`expected_score`, then :meth:`rate`,
        round by round (bit for bit), without their per-call checks: the
        walk-forward replay's per-game path.

        Returns
        -------
        state : LichessState
            The pool after the games.
        expected : ndarray of shape (n_games,)
            White's expected score of each game before its round.
        """
        games.check_players(state.rating.shape[0])
        return predict_and_rate_games(
            state,
            games,
            day,
            "Lichess",
            self._rate_round,
            overwrite_state,
            self._expected,
        )

    def _expected(
        self, state: LichessState, white: IntArray, black: IntArray
    ) -> FloatArray:
        """:meth:`expected_score` of valid indices, in one loop and numpy's exp.

        The operations of :meth:`expected_score` in its order, so the same
        bits; the exponential is numpy's (see :mod:`simulator._jit`).
        """
        out = np.empty(white.shape[0])
        _expected_exponents(
            state.rating,
            state.rd,
            white,
            black,
            (float(self.min_rating), float(self.min_rd), float(self.max_rd)),
            self.advantage / 2.0 / SCALE,
            out,
        )
        np.exp(out, out=out)
        np.add(1.0, out, out=out)
        return np.divide(1.0, out, out=out)

    def _rate_round(
        self,
        state: LichessState,
        white: IntArray,
        black: IntArray,
        score: FloatArray,
        days: FloatArray,
        *,
        overwrite: bool,
    ) -> LichessState:
        """Rate one round of games (every player in at most one) from ``state``.

        Returns a new state; ``state`` is not modified unless ``overwrite``.
        """
        player = np.concatenate([white, black])
        # The round's scratch in one allocation: memory that big is mapped
        # anew when allocated (in huge pages, as numpy asks for them), and
        # costs far fewer page faults than an array at a time.
        stored, mu, phi2, sigma, e_own, g_opp, spare = np.empty((7, player.size))
        # The sides' stored values (gathered one array at a time), which
        # steps 1-3 turn into mu, phi^2, sigma and E's exponent (in place
        # but for the rating, read again after the game).
        for a, out in (
            (state.rating, stored),
            (state.rd, phi2),
            (state.volatility, sigma),
            (state.last_day, e_own),
        ):
            gather(a, player, out)
        # 1-2. The stored values clamped (lila toGlickoPlayer: Glicko.cap),
        # the RD grown by the days since the last game, none before the
        # first (lila Glicko.liveDeviation), and clamped again; then 3.
        # Glicko-2 for a one-game period, phi* = phi, colour advantage in E:
        # steps 2-3, then 3-5.
        # Floats whatever the parameters' types: one compiled signature.
        limits = (
            float(self.rd_growth_per_day),
            float(self.min_rating),
            float(self.min_rd),
            float(self.max_rd),
            float(self.max_volatility),
        )
        half = self.advantage / 2.0 / SCALE
        if _before_game(days, limits, half, stored, mu, phi2, sigma, e_own, g_opp):
            # A game before a player's last one: the error of every system.
            days_since_last(days, state.last_day[player], player, "Lichess")
        v, gain = _steps_3_to_5(
            phi2,
            g_opp,
            e_own,
            sigma,
            score,
            spare,
            tau=self.tau,
            epsilon=self.epsilon,
            max_iterations=MAX_ITERATIONS,
        )

        # Steps 6-8 of 3, then 4-7: regulator, 700-point bound, sanity check
        # and clamps, into mu, phi2 and sigma, and on into the new state's
        # arrays.
        _after_game(
            mu,
            phi2,
            v,
            gain,
            sigma,
            stored,
            REGULATOR_FACTORS[self.speed] if self.regulator else 1.0,
            float(self.max_rating_delta),
            2.0 * self.max_volatility,
            (
                float(self.initial_rating),
                float(self.initial_rd),
                float(self.initial_volatility),
            ),
            limits,
        )
        rating, rd, volatility = round_arrays(
            (state.rating, state.rd, state.volatility), player, overwrite
        )
        for side, out in ((mu, rating), (phi2, rd), (sigma, volatility)):
            scatter(side, player, out)
        n_games, last_day = round_counts(
            state.n_games, state.last_day, player, days, overwrite
        )
        return LichessState(rating, rd, volatility, n_games, last_day)

    def is_rated(self, state: LichessState, players: ArrayLike) -> BoolArray:
        """Whether ``players`` have a published rating: every player has one."""
        return ~np.isnan(state.rating[np.asarray(players, dtype=np.intp)])

    def rating(self, state: LichessState) -> FloatArray:
        """Ratings as they stand; every player has one (Lichess shows them truncated).

        Lichess displays ``np.trunc`` of these (scalachess ``intRating``).
        """
        return state.rating.copy()

    def rating_view(self, state: LichessState) -> FloatArray:
        """:meth:`rating` as a read-only view (``RatingSystem.rating_view``)."""
        return read_only_view(state.rating)

    def grow(self, state: LichessState, n_players: int, **_: object) -> LichessState:
        """``state`` with players appended up to ``n_players`` (``GrowingSystem.grow``).

        Each a copy of the last player, who must be one who never played.
        """
        return grow_state(state, n_players, "Lichess")
