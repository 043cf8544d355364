"""Game results from true strengths: an expected-score curve, White's edge, draws.

The curve White's expected score follows is a choice (``curve``), so that no
rating system is right by construction (issue 16, "Truth curves"). With
``d = true_white - true_black``, ``a`` White's advantage and ``q = ln(10)/400``:

``"logistic"``
    The Elo curve, the one plain Elo and Glicko assume:
    ``E = 1 / (1 + 10^(-(d + a)/400))``.
``"normal"``
    The curve behind FIDE's table 8.1.2 (docs/rules.md, section 1, "Expected score
    PD"; Elo's model of a normal performance of SD 200 per player):
    ``E = Phi((d + a) / (200 sqrt 2))``; the table is this curve rounded to
    hundredths (within 0.0081 of it at every whole difference).
``"fitted"``
    The level-dependent Davidson-type fit to FIDE-rated OTB standard games
    (docs/world.md, "Draws and White's edge": (L) E14 "v2"; the fit itself is the
    zugzwang-foundation project's evidence note E11, its table by level)::

        l     = (L - 2000) / 400,     L = (true_white + true_black) / 2
        z     = kappa(L) q (d + a),   kappa(L) = 1.177 exp(0.187 l)
        nu    = exp(0.249 + 0.609 l - 0.263 exp(0.076 l) |z|)
        P(W) : P(D) : P(L) = e^(z/2) : nu : e^(-z/2)
        E     = P(W) + P(D)/2 = (e^(z/2) + nu/2) / (e^(z/2) + nu + e^(-z/2)).

    ``z`` is the log-odds of a win against a loss, not of the expected score:
    the mean of the fitted model is its own mean, which depends on ``nu``.
    Read as ``logistic(z)``, the fit would be 1.18 times steeper than the Elo
    curve at 2000 and up to 0.05 (level 1650) to 0.15 (level 2650) above the
    expected scores E11 prints for the fit; its own mean reproduces them
    (gaps 100 to 800, level bands 1600-2699) within 0.0005. So the fitted
    world plays the fit's own model, draws included. Its expected score is
    flatter than the Elo curve at every level (E11: table 8.1.2 is steeper
    near equal ratings by a factor 1.31 to 1.82, most at the top), though
    ``kappa`` is below 1 at club level (0.81 at 1200) and above it at the top
    (1.71 at 2800), as docs/world.md says: at the top the weaker side draws more
    and loses less, so wins and losses are steeper while the mean is flatter.

    The draw term ``nu`` is the v2 fit's own (E11's alpha, beta, gamma and
    draw tail mu); docs/world.md gives it beside the earlier (L) E2 fit, whose
    ``nu`` with v2's ``kappa(L)`` would move the mean by up to 0.011 from the
    published curve at the top. The fit reads ``L`` as the midpoint of the
    players' 100-point level band (1450 below 1500, 2850 from 2800); here
    ``L`` is the exact mean and levels outside 1500-2800 are extrapolated, as
    docs/world.md's ``kappa`` of 0.8 at 1200 is. White's advantage stays the
    model's ``white_advantage`` (35 by default under every curve, so that
    the curves differ only in shape); the fit's own is 36.5 (35.9 in E2).

Under ``"logistic"`` and ``"normal"`` draws are chosen without moving the mean:
the draw share comes from the Davidson-type curve of (L) E2 (docs/world.md, "Draws
and White's edge", a fit to FIDE-rated OTB games of the Lichess broadcast
archive),

    z  = gap_scale * q * (d + a)
    nu = exp(draw_intercept + draw_level_slope * (L - reference_level) / 400
             - draw_gap_slope * |z|)
    p_draw = nu / (e^(z/2) + nu + e^(-z/2)),

is clipped to what the mean allows (``p_draw <= 2 min(E, 1 - E)``), and the
rest is split as ``p_win = E - p_draw / 2``, ``p_loss = 1 - E - p_draw / 2``.
Under ``"fitted"`` the same draw parameters are the v2 fit's, ``z`` is the
fitted one, and the model needs no clip. Either way the oracle of the
prediction metrics (:meth:`OutcomeModel.expected_score`) is exactly the
model's mean score.

:meth:`OutcomeModel.otb` keeps the fitted OTB values (the config's default
OTB world is ``curve = "fitted"``); :meth:`OutcomeModel.online` is a blitz
profile with few draws and a small White edge (Lichess figures of docs/world.md),
logistic unless asked otherwise: docs/world.md has no fit of online results by
level, and Lichess's own Glicko-2 expectation is the logistic.

All functions are vectorised over numpy arrays (broadcasting White's and
Black's strengths) and :meth:`OutcomeModel.sample` takes its randomness from
the ``numpy.random.Generator`` it is given, one uniform draw per game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import FloatArray
from simulator._validate import check_choice, check_interval

__all__ = [
    "CURVES",
    "DRAW_GAP_SLOPE",
    "DRAW_INTERCEPT",
    "DRAW_LEVEL_SLOPE",
    "FITTED_ADVANTAGE",
    "FITTED_DRAW_GAP_SLOPE",
    "FITTED_DRAW_INTERCEPT",
    "FITTED_DRAW_LEVEL_SLOPE",
    "FITTED_DRAW_TAIL",
    "FITTED_SLOPE",
    "FITTED_SLOPE_LEVEL",
    "GAP_SCALE",
    "ONLINE_DRAW_INTERCEPT",
    "ONLINE_WHITE_ADVANTAGE",
    "REFERENCE_LEVEL",
    "WHITE_ADVANTAGE",
    "OutcomeModel",
]

#: The expected-score curves: the Elo logistic, FIDE's normal, the level fit.
CURVES = ("logistic", "normal", "fitted")

#: White's advantage in rating points, OTB standard. Sonas (2002): White scores
#: about 54 % at equal ratings; the fitted value is 35.9 (docs/world.md).
WHITE_ADVANTAGE = 35.0
#: Davidson-type draw fit for OTB standard chess, (L) E2 in docs/world.md:
#: ``nu = exp(0.286 + 0.498 (L - 2000)/400 - 0.291 |z|)``.
DRAW_INTERCEPT = 0.286
DRAW_LEVEL_SLOPE = 0.498
DRAW_GAP_SLOPE = 0.291
#: Steepness of ``z`` relative to the Elo logistic in the same fit (1.212).
GAP_SCALE = 1.212
#: Mean level at which ``nu = exp(draw_intercept)`` before the gap term (2000).
REFERENCE_LEVEL = 2000.0

#: The level-dependent fit, (L) E14 "v2", standard (docs/world.md, "Draws and
#: White's edge"): ``kappa(L) = 1.177 exp(0.187 (L - 2000)/400)``.
FITTED_SLOPE = 1.177
FITTED_SLOPE_LEVEL = 0.187
#: The fit's White edge (points); the model keeps ``white_advantage`` (35).
FITTED_ADVANTAGE = 36.5
#: The v2 fit's own draw term (E11 of the project docs/world.md cites, standard,
#: 2023-10 to 2026-09): ``nu = exp(0.249 + 0.609 l - 0.263 exp(0.076 l) |z|)``.
FITTED_DRAW_INTERCEPT = 0.249
FITTED_DRAW_LEVEL_SLOPE = 0.609
FITTED_DRAW_GAP_SLOPE = 0.263
FITTED_DRAW_TAIL = 0.076

#: Lichess's White edge in its own Glicko-2 (11.782457, scalachess
#: ``glicko/model.scala``); White scores 51-52 % online (docs/world.md).
ONLINE_WHITE_ADVANTAGE = 11.8
#: Intercept that gives 2.7 % draws at 1500 vs 1500 in blitz (lila PR #16281,
#: docs/world.md) with the OTB slopes and ``ONLINE_WHITE_ADVANTAGE``:
#: ``ln(0.027 / 0.973 * 2 cosh(z/2)) + 0.498 * 500/400 + 0.291 |z|`` at
#: ``z = 1.212 ln(10)/400 * 11.8``.
ONLINE_DRAW_INTERCEPT = -2.244

_LOG10_OVER_400 = float(np.log(10.0) / 400.0)
#: SD of a difference of two performances of SD 200 (the normal curve).
_NORMAL_SD = 200.0 * float(np.sqrt(2.0))

#: Draw parameters by curve when not given: (L) E2's for the curves that only
#: borrow its draw shape, the v2 fit's own for the fitted curve.
_DRAW_DEFAULTS = {
    "logistic": (DRAW_INTERCEPT, DRAW_LEVEL_SLOPE, DRAW_GAP_SLOPE, 0.0),
    "normal": (DRAW_INTERCEPT, DRAW_LEVEL_SLOPE, DRAW_GAP_SLOPE, 0.0),
    "fitted": (
        FITTED_DRAW_INTERCEPT,
        FITTED_DRAW_LEVEL_SLOPE,
        FITTED_DRAW_GAP_SLOPE,
        FITTED_DRAW_TAIL,
    ),
}
_DRAW_FIELDS = ("draw_intercept", "draw_level_slope", "draw_gap_slope", "draw_tail")


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
        expected score and in ``z`` under every curve. docs/world.md: Sonas (2002),
        White scores 54 % at equal ratings, fitted 35.9 ((L) E2) and 36.5
        ((L) E14 "v2"). Online: 11.8.
    draw_intercept : float, optional
        ``ln nu`` at the reference level and ``z = 0``; shifts all draw rates.
        By default the curve's own fit: 0.286 ((L) E2) under ``"logistic"``
        and ``"normal"``, 0.249 (v2) under ``"fitted"``; ``-2.244`` for the
        online preset (2.7 % draws at 1500 vs 1500 in blitz).
    draw_level_slope : float, optional
        Change of ``ln nu`` per 400 points of the players' mean true strength
        above ``reference_level``: draws rise with the level. 0.498 ((L) E2)
        or 0.609 (v2) by default, as ``draw_intercept``.
    draw_gap_slope : float, optional
        Decrease of ``ln nu`` per unit of ``|z|`` (dimensionless, >= 0) at the
        reference level: draws fall with the gap, beyond the Davidson model's
        own decrease. 0.291 ((L) E2) or 0.263 (v2) by default.
    gap_scale : float, default 1.212
        Steepness of the draw curve's ``z = gap_scale * ln(10)/400 * (d +
        white_advantage)`` relative to the Elo logistic under ``"logistic"``
        and ``"normal"``, whose expected score it does not touch. (L) E2 fit.
        Unused under ``"fitted"``, whose ``z`` has its own slope.
    reference_level : float, default 2000.0
        Rating level (points) at which the level terms vanish (both fits).
    curve : {"logistic", "normal", "fitted"}, default "logistic"
        White's expected-score curve (see the module docstring): the Elo
        logistic, FIDE's normal (docs/rules.md, section 1, "Expected score PD"),
        or the level-dependent Davidson fit (docs/world.md, "Draws and White's
        edge", (L) E14 "v2"). The bare constructor keeps the logistic of
        earlier versions; :meth:`otb` defaults to ``"fitted"``.
    draw_tail : float, optional
        Level dependence of the gap term: ``draw_gap_slope * exp(draw_tail *
        (L - reference_level)/400)`` replaces ``draw_gap_slope``. 0 ((L) E2)
        or 0.076 (v2's draw tail) by default.
    fitted_slope : float, default 1.177
        ``kappa`` at the reference level under ``"fitted"`` (v2 fit).
    fitted_slope_level : float, default 0.187
        Growth of ``ln kappa`` per 400 points of level under ``"fitted"``
        (v2 fit): ``kappa(L) = fitted_slope * exp(fitted_slope_level *
        (L - reference_level)/400)``, about 0.81 at 1200 and 1.71 at 2800.

    Notes
    -----
    With the logistic defaults, the draw rate at equal true strengths is
    about 24 % at 1500, 35 % at 1900, 47 % at 2300, 53 % at 2500 and 58 % at
    2650 (docs/world.md: 23 % below 1600, 34 % at 1800-1999, 45 % at 2200-2399,
    58 % at 2400-2599, 62 % at 2600+), and at a mean level of 2100 (the
    broadcast sample is stronger than the rated pool), averaged over colours,
    41 / 35 / 27 / 19 / 12 / 5 % at gaps of 25 / 125 / 225 / 325 / 425 / 625
    points (docs/world.md by gap: 42 / 36 / 26 / 18 / 12 / 4 %). The fitted
    curve's own draw term gives 22 % at 1500, 34 % at 1900, 48 % at 2300,
    56 % at 2500 and 61 % at 2650.

    Under ``"logistic"`` and ``"normal"``, when the draw curve asks for more
    draws than the expected score allows (a very strong level with a large
    gap), ``p_draw`` is clipped to ``2 min(E, 1-E)`` and the weaker side then
    never wins: the mean score stays exact.

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
    >>> fitted = OutcomeModel(white_advantage=0.0, curve="fitted")
    >>> round(float(fitted.expected_score(2100, 2000)), 3)
    0.608
    >>> round(float(OutcomeModel(curve="normal").expected_score(1500, 1500)), 4)
    0.5492
    """

    white_advantage: float = WHITE_ADVANTAGE
    draw_intercept: float | None = None
    draw_level_slope: float | None = None
    draw_gap_slope: float | None = None
    gap_scale: float = GAP_SCALE
    reference_level: float = REFERENCE_LEVEL
    curve: str = "logistic"
    draw_tail: float | None = None
    fitted_slope: float = FITTED_SLOPE
    fitted_slope_level: float = FITTED_SLOPE_LEVEL

    def __post_init__(self) -> None:
        owner = "OutcomeModel"
        check_choice(owner, "curve", self.curve, CURVES)
        # Draw parameters not given are the curve's own fit's.
        for name, default in zip(_DRAW_FIELDS, _DRAW_DEFAULTS[self.curve], strict=True):
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
        finite = -np.inf, np.inf
        for name in (
            "white_advantage",
            "draw_intercept",
            "draw_level_slope",
            "draw_tail",
            "reference_level",
            "fitted_slope_level",
        ):
            check_interval(owner, name, getattr(self, name), *finite, closed="neither")
        check_interval(
            owner, "draw_gap_slope", self.draw_gap_slope, 0, np.inf, closed="left"
        )
        for name in ("gap_scale", "fitted_slope"):
            check_interval(
                owner, name, getattr(self, name), 0, np.inf, closed="neither"
            )

    @classmethod
    def otb(cls, curve: str = "fitted") -> OutcomeModel:
        """OTB standard chess: White +35 and the curve's own draw fit.

        Parameters
        ----------
        curve : {"fitted", "logistic", "normal"}, default "fitted"
            The expected-score curve; ``"fitted"``, the level-dependent fit
            of real OTB results, is the default world's (issue 16).
        """
        return cls(curve=curve)

    @classmethod
    def online(cls, curve: str = "logistic") -> OutcomeModel:
        """Online blitz: White +11.8 and 2.7 % draws at 1500 vs 1500 (Lichess).

        The level and gap slopes of the draws are (L) E2's OTB ones under
        every curve; docs/world.md has no online figures for them, so draws among
        strong online players are a guess (about 5 % at 2000 vs 2000, 9 % at
        2500 vs 2500).

        Parameters
        ----------
        curve : {"logistic", "normal", "fitted"}, default "logistic"
            The expected-score curve. Logistic by default: docs/world.md has no fit
            of online results by level, and Lichess's own expectation is the
            logistic. ``"fitted"`` plays the OTB standard slope ``kappa(L)``
            with these online draws (a guess, about 2.8 % draws at 1500).
        """
        return cls(
            white_advantage=ONLINE_WHITE_ADVANTAGE,
            draw_intercept=ONLINE_DRAW_INTERCEPT,
            draw_level_slope=DRAW_LEVEL_SLOPE,
            draw_gap_slope=DRAW_GAP_SLOPE,
            curve=curve,
            draw_tail=0.0,
        )

    def expected_score(
        self, true_white: ArrayLike, true_black: ArrayLike
    ) -> FloatArray:
        """White's expected score under the model's ``curve``.

        ``1 / (1 + 10^(-(d + white_advantage)/400))`` (logistic),
        ``Phi((d + white_advantage) / (200 sqrt 2))`` (normal), or the fitted
        Davidson model's mean ``P(W) + P(D)/2`` (fitted). This is the oracle
        of the prediction metrics: the mean of :meth:`sample` for these
        strengths.

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
        if self.curve == "fitted":
            return self._fitted(true_white, true_black)[0]
        d = np.asarray(true_white, dtype=np.float64) - np.asarray(
            true_black, dtype=np.float64
        )
        if self.curve == "normal":
            # Imported here: scipy.special is not needed by the other curves.
            from scipy.special import ndtr

            return np.asarray(ndtr((d + self.white_advantage) / _NORMAL_SD))
        return _logistic(_LOG10_OVER_400 * (d + self.white_advantage))

    def draw_curve(self, true_white: ArrayLike, true_black: ArrayLike) -> FloatArray:
        """The Davidson draw share ``nu / (e^(z/2) + nu + e^(-z/2))``, unclipped.

        Under ``"fitted"`` this is the fitted model's own ``P(D)``, with its
        ``z``; otherwise ``z`` uses ``gap_scale``.

        Parameters
        ----------
        true_white, true_black : array_like
            True strengths (rating points); broadcast against each other.

        Returns
        -------
        ndarray of float64
            The draw share before the feasibility clip of :meth:`probabilities`.
        """
        if self.curve == "fitted":
            return self._fitted(true_white, true_black)[2]
        w = np.asarray(true_white, dtype=np.float64)
        b = np.asarray(true_black, dtype=np.float64)
        z = self.gap_scale * _LOG10_OVER_400 * (w - b + self.white_advantage)
        return self._davidson_draw(0.5 * (w + b), z)

    def _davidson_draw(self, level: FloatArray, z: FloatArray) -> FloatArray:
        """``nu / (2 cosh(z/2) + nu)`` at mean level ``level`` and ``z``."""
        # Resolved to floats by __post_init__ (None only means "not given").
        intercept, level_slope, gap_slope, tail = (
            getattr(self, name) for name in _DRAW_FIELDS
        )
        gap = gap_slope * np.abs(z)
        if tail:
            gap *= np.exp(tail * (level - self.reference_level) / 400.0)
        log_nu = intercept + level_slope * (level - self.reference_level) / 400.0 - gap
        # nu / (2 cosh(z/2) + nu) = logistic(ln nu - ln(2 cosh(z/2))).
        return _logistic(log_nu - _log_two_cosh(0.5 * z))

    def _fitted(
        self, true_white: ArrayLike, true_black: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The fitted model's mean score, ``P(W)`` and ``P(D)``.

        ``P(W) = (1 - P(D)) logistic(z)``, as ``e^(z/2) / (e^(z/2) +
        e^(-z/2))`` is White's share of the decisive games; the mean is
        ``P(W) + P(D)/2`` with the same operations everywhere, so that
        :meth:`expected_score` is the mean of :meth:`sample` to the bit.
        """
        w = np.asarray(true_white, dtype=np.float64)
        b = np.asarray(true_black, dtype=np.float64)
        level = 0.5 * (w + b)
        kappa = self.fitted_slope * np.exp(
            self.fitted_slope_level * (level - self.reference_level) / 400.0
        )
        z = kappa * _LOG10_OVER_400 * (w - b + self.white_advantage)
        p_draw = self._davidson_draw(level, z)
        p_win = (1.0 - p_draw) * _logistic(z)
        return p_win + 0.5 * p_draw, p_win, p_draw

    def _win_draw(
        self, true_white: ArrayLike, true_black: ArrayLike
    ) -> tuple[FloatArray, FloatArray, FloatArray]:
        """The expected score, ``p_win`` and ``p_draw`` (clipped if need be)."""
        if self.curve == "fitted":
            return self._fitted(true_white, true_black)
        e = self.expected_score(true_white, true_black)
        # The draw share, clipped to what the expected score allows.
        p_draw = np.minimum(
            self.draw_curve(true_white, true_black), 2.0 * np.minimum(e, 1.0 - e)
        )
        p_win = np.maximum(e - 0.5 * p_draw, 0.0)
        return e, p_win, p_draw

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
        e, p_win, p_draw = self._win_draw(true_white, true_black)
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
        _, p_win, p_draw = self._win_draw(true_white, true_black)
        u = rng.random(p_win.shape)
        # 1 if u < p_win, 0.5 if p_win <= u < p_win + p_draw, else 0 (the
        # second test holds whenever the first does, p_draw >= 0).
        score = np.asarray(u < p_win, dtype=np.float64)
        score += u < p_win + p_draw
        score *= 0.5
        return score
