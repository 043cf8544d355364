"""Game results from true strengths: White's advantage and a level-dependent draw rate.

White's expected score is exactly the logistic Elo expectation on the true
difference plus White's advantage,

    E = 1 / (1 + 10^(-(d + advantage) / 400)),    d = true_white - true_black,

so the oracle of the prediction metrics (:meth:`OutcomeModel.expected_score`)
is the model's own mean score. Draws are then chosen without moving that mean:
the draw share ``p_draw`` comes from a Davidson-type curve, is clipped to what
the mean allows (``p_draw <= 2 min(E, 1 - E)``), and the rest is split as

    p_win = E - p_draw / 2,    p_loss = 1 - E - p_draw / 2.

The draw curve (WORLD.md, "Draws and White's edge", a fit to FIDE-rated OTB
games of the Lichess broadcast archive, (L) E2) is

    z  = gap_scale * ln(10) / 400 * (d + advantage)
    nu = exp(draw_intercept + draw_level_slope * (L - reference_level) / 400
             - draw_gap_slope * |z|)
    p_draw = nu / (e^(z/2) + nu + e^(-z/2))

with ``L`` the players' mean true strength: draws rise with the level and fall
with the gap. :meth:`OutcomeModel.otb` keeps the fitted OTB values;
:meth:`OutcomeModel.online` is a blitz profile with few draws and a small
White edge (Lichess figures of WORLD.md).

All functions are vectorised over numpy arrays (broadcasting White's and
Black's strengths) and :meth:`OutcomeModel.sample` takes its randomness from
the ``numpy.random.Generator`` it is given, one uniform draw per game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import FloatArray
from simulator._validate import check_interval

__all__ = [
    "DRAW_GAP_SLOPE",
    "DRAW_INTERCEPT",
    "DRAW_LEVEL_SLOPE",
    "GAP_SCALE",
    "ONLINE_DRAW_INTERCEPT",
    "ONLINE_WHITE_ADVANTAGE",
    "REFERENCE_LEVEL",
    "WHITE_ADVANTAGE",
    "OutcomeModel",
]


#: White's advantage in rating points, OTB standard. Sonas (2002): White scores
#: about 54 % at equal ratings; the fitted value is 35.9 (WORLD.md).
WHITE_ADVANTAGE = 35.0
#: Davidson-type draw fit for OTB standard chess, (L) E2 in WORLD.md:
#: ``nu = exp(0.286 + 0.498 (L - 2000)/400 - 0.291 |z|)``.
DRAW_INTERCEPT = 0.286
DRAW_LEVEL_SLOPE = 0.498
DRAW_GAP_SLOPE = 0.291
#: Steepness of ``z`` relative to the Elo logistic in the same fit (1.212).
GAP_SCALE = 1.212
#: Mean level at which ``nu = exp(draw_intercept)`` before the gap term (2000).
REFERENCE_LEVEL = 2000.0

#: Lichess's White edge in its own Glicko-2 (11.782457, scalachess
#: ``glicko/model.scala``); White scores 51-52 % online (WORLD.md).
ONLINE_WHITE_ADVANTAGE = 11.8
#: Intercept that gives 2.7 % draws at 1500 vs 1500 in blitz (lila PR #16281,
#: WORLD.md) with the OTB slopes and ``ONLINE_WHITE_ADVANTAGE``:
#: ``ln(0.027 / 0.973 * 2 cosh(z/2)) + 0.498 * 500/400 + 0.291 |z|`` at
#: ``z = 1.212 ln(10)/400 * 11.8``.
ONLINE_DRAW_INTERCEPT = -2.244

_LOG10_OVER_400 = float(np.log(10.0) / 400.0)


def _logistic(x: FloatArray) -> FloatArray:
    """``1 / (1 + exp(-x))`` without overflow for any finite ``x``."""
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _log_two_cosh(y: FloatArray) -> FloatArray:
    """``ln(2 cosh(y)) = |y| + ln(1 + exp(-2|y|))`` without overflow."""
    a = np.abs(y)
    return a + np.log1p(np.exp(-2.0 * a))


@dataclass(frozen=True)
class OutcomeModel:
    """How games end, given the players' true strengths.

    Parameters
    ----------
    white_advantage : float, default 35.0
        White's edge in rating points, added to the true difference in the
        expected score and in the draw curve's ``z``. WORLD.md: Sonas (2002),
        White scores 54 % at equal ratings, fitted 35.9. Online: 11.8.
    draw_intercept : float, default 0.286
        ``ln nu`` at the reference level and ``z = 0``; shifts all draw rates.
        (L) E2 fit for OTB standard chess; ``-2.244`` for the online preset
        (2.7 % draws at 1500 vs 1500 in blitz).
    draw_level_slope : float, default 0.498
        Change of ``ln nu`` per 400 points of the players' mean true strength
        above ``reference_level``: draws rise with the level. (L) E2 fit.
    draw_gap_slope : float, default 0.291
        Decrease of ``ln nu`` per unit of ``|z|`` (dimensionless, >= 0): draws
        fall with the gap, beyond the Davidson model's own decrease. (L) E2 fit.
    gap_scale : float, default 1.212
        Steepness of ``z = gap_scale * ln(10)/400 * (d + white_advantage)``
        relative to the Elo logistic. It shapes the draw curve only; the
        expected score always uses the plain Elo logistic. (L) E2 fit.
    reference_level : float, default 2000.0
        Rating level (points) at which the level term vanishes. (L) E2 fit.

    Notes
    -----
    With the defaults, the draw rate at equal true strengths is about 24 %
    at 1500, 35 % at 1900, 47 % at 2300, 53 % at 2500 and 58 % at 2650
    (WORLD.md: 23 % below 1600, 34 % at 1800-1999, 45 % at 2200-2399, 58 %
    at 2400-2599, 62 % at 2600+), and at a mean level of 2100 (the broadcast
    sample is stronger than the rated pool), averaged over colours,
    41 / 35 / 27 / 19 / 12 / 5 % at gaps of 25 / 125 / 225 / 325 / 425 / 625
    points (WORLD.md by gap: 42 / 36 / 26 / 18 / 12 / 4 %).

    When the curve asks for more draws than the expected score allows (a very
    strong level with a large gap), ``p_draw`` is clipped to ``2 min(E, 1-E)``
    and the weaker side then never wins: the mean score stays exact.

    Examples
    --------
    >>> model = OutcomeModel()
    >>> round(float(model.expected_score(1500, 1500)), 4)
    0.5502
    >>> p_win, p_draw, p_loss = model.probabilities([1500, 2400], [1500, 2400])
    >>> p_draw.round(3).tolist()
    [0.248, 0.503]
    >>> round(float(OutcomeModel.online().probabilities(1500, 1500)[1]), 3)
    0.027
    """

    white_advantage: float = WHITE_ADVANTAGE
    draw_intercept: float = DRAW_INTERCEPT
    draw_level_slope: float = DRAW_LEVEL_SLOPE
    draw_gap_slope: float = DRAW_GAP_SLOPE
    gap_scale: float = GAP_SCALE
    reference_level: float = REFERENCE_LEVEL

    def __post_init__(self) -> None:
        owner = "OutcomeModel"
        check_interval(
            owner,
            "white_advantage",
            self.white_advantage,
            -np.inf,
            np.inf,
            closed="neither",
        )
        check_interval(
            owner,
            "draw_intercept",
            self.draw_intercept,
            -np.inf,
            np.inf,
            closed="neither",
        )
        check_interval(
            owner,
            "draw_level_slope",
            self.draw_level_slope,
            -np.inf,
            np.inf,
            closed="neither",
        )
        check_interval(
            owner, "draw_gap_slope", self.draw_gap_slope, 0, np.inf, closed="left"
        )
        check_interval(owner, "gap_scale", self.gap_scale, 0, np.inf, closed="neither")
        check_interval(
            owner,
            "reference_level",
            self.reference_level,
            -np.inf,
            np.inf,
            closed="neither",
        )

    @classmethod
    def otb(cls) -> OutcomeModel:
        """OTB standard chess: the defaults (White +35, the (L) E2 draw fit)."""
        return cls()

    @classmethod
    def online(cls) -> OutcomeModel:
        """Online blitz: White +11.8 and 2.7 % draws at 1500 vs 1500 (Lichess).

        The level and gap slopes are the OTB ones; WORLD.md has no online
        figures for them, so draws among strong online players are a guess
        (about 5 % at 2000 vs 2000, 9 % at 2500 vs 2500).
        """
        return cls(
            white_advantage=ONLINE_WHITE_ADVANTAGE,
            draw_intercept=ONLINE_DRAW_INTERCEPT,
        )

    def expected_score(
        self, true_white: ArrayLike, true_black: ArrayLike
    ) -> FloatArray:
        """White's expected score ``1 / (1 + 10^(-(d + white_advantage)/400))``.

        This is the oracle of the prediction metrics: the mean of
        :meth:`sample` for these strengths.

        Parameters
        ----------
        true_white, true_black : array_like
            True strengths (rating points) of White and Black; broadcast
            against each other.

        Returns
        -------
        ndarray of float64
            White's expected score, in [0, 1], of the broadcast shape.
        """
        d = np.asarray(true_white, dtype=np.float64) - np.asarray(
            true_black, dtype=np.float64
        )
        return _logistic(_LOG10_OVER_400 * (d + self.white_advantage))

    def draw_curve(self, true_white: ArrayLike, true_black: ArrayLike) -> FloatArray:
        """The Davidson draw share ``nu / (e^(z/2) + nu + e^(-z/2))``, unclipped.

        Parameters
        ----------
        true_white, true_black : array_like
            True strengths (rating points); broadcast against each other.

        Returns
        -------
        ndarray of float64
            The draw share before the feasibility clip of :meth:`probabilities`.
        """
        w = np.asarray(true_white, dtype=np.float64)
        b = np.asarray(true_black, dtype=np.float64)
        z = self.gap_scale * _LOG10_OVER_400 * (w - b + self.white_advantage)
        level = 0.5 * (w + b)
        log_nu = (
            self.draw_intercept
            + self.draw_level_slope * (level - self.reference_level) / 400.0
            - self.draw_gap_slope * np.abs(z)
        )
        # nu / (2 cosh(z/2) + nu) = logistic(ln nu - ln(2 cosh(z/2))).
        return _logistic(log_nu - _log_two_cosh(0.5 * z))

    def probabilities(
        self, true_white: ArrayLike, true_black: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """White's chances of a win, a draw and a loss.

        Parameters
        ----------
        true_white, true_black : array_like
            True strengths (rating points); broadcast against each other.

        Returns
        -------
        p_win, p_draw, p_loss : ndarray of float64
            Each in [0, 1], summing to 1, with ``p_win + p_draw / 2`` equal to
            :meth:`expected_score`.
        """
        e = self.expected_score(true_white, true_black)
        # The draw share, clipped to what the expected score allows.
        p_draw = np.minimum(
            self.draw_curve(true_white, true_black), 2.0 * np.minimum(e, 1.0 - e)
        )
        p_win = np.maximum(e - 0.5 * p_draw, 0.0)
        p_loss = np.maximum(1.0 - e - 0.5 * p_draw, 0.0)
        return p_win, p_draw, p_loss

    def sample(
        self,
        true_white: ArrayLike,
        true_black: ArrayLike,
        rng: np.random.Generator,
    ) -> FloatArray:
        """Play the games: White's scores drawn from :meth:`probabilities`.

        Parameters
        ----------
        true_white, true_black : array_like
            True strengths (rating points); broadcast against each other.
        rng : numpy.random.Generator
            The run's generator; exactly one uniform draw is taken per game
            (``rng.random(shape)``), so results are common random numbers
            across models that share a stream.

        Returns
        -------
        ndarray of float64
            White's score of each game: 1, 0.5 or 0.

        Examples
        --------
        >>> rng = np.random.default_rng(7)
        >>> scores = OutcomeModel().sample(np.full(1000, 1800), 1700, rng)
        >>> scores.shape, set(scores.tolist()) <= {0.0, 0.5, 1.0}
        ((1000,), True)
        """
        if not isinstance(rng, np.random.Generator):
            raise TypeError(
                "OutcomeModel.sample needs a numpy.random.Generator as 'rng'. "
                f"Got {type(rng).__name__} instead."
            )
        # probabilities() without p_loss, which the draw does not need.
        e = self.expected_score(true_white, true_black)
        p_draw = np.minimum(
            self.draw_curve(true_white, true_black), 2.0 * np.minimum(e, 1.0 - e)
        )
        p_win = np.maximum(e - 0.5 * p_draw, 0.0)
        u = rng.random(p_win.shape)
        # 1 if u < p_win, 0.5 if p_win <= u < p_win + p_draw, else 0 (the
        # second test holds whenever the first does, p_draw >= 0).
        score = np.asarray(u < p_win, dtype=np.float64)
        score += u < p_win + p_draw
        score *= 0.5
        return score
