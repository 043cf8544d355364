"""A draw model for systems that predict only an expected score.

Every rating system of the project predicts White's expected score ``E``
(wins plus half the draws), never the chance of a draw. A three-way score
(win / draw / loss) needs the three probabilities, so the evaluation puts a
draw model under each system's ``E``: Davidson's (1970) extension of the
Bradley-Terry model, the family of the world's own fitted curve
(docs/evaluation.md, section 1):

    P(W) : P(D) : P(L) = x : nu : 1/x

For a given ``E`` the strength term ``x`` is the positive root of
``(1 - E) x^2 - nu (E - 1/2) x - E = 0``, so that ``P(W) + P(D)/2 = E``
exactly: the model never changes a system's expected score, only splits it.
The one parameter ``nu >= 0`` sets the draw rate (``P(D) = nu / (2 + nu)``
between equal players) and is fitted per system by maximum likelihood on
the games a protocol sets aside for it (the warm-up, never the test games):
:func:`fit_draw_parameter`.

Reference: R. R. Davidson, "On extending the Bradley-Terry model to
accommodate ties in paired comparison experiments", JASA 65 (1970) 317-328.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from simulator._types import FloatArray

__all__ = [
    "CLIP",
    "MAX_NU",
    "draw_parameter_for_rate",
    "fit_draw_parameter",
    "outcome_probabilities",
]

#: Expected scores and probabilities are kept in ``[CLIP, 1 - CLIP]``: a
#: system's certainty (E = 1) would otherwise leave ``x`` infinite.
CLIP = 1e-9
#: The largest ``nu`` fitted: a draw rate of 96 % between equal players.
MAX_NU = 50.0


def outcome_probabilities(
    expected: ArrayLike, nu: float
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """White's win, draw and loss probabilities under Davidson's model.

    Parameters
    ----------
    expected : array_like of shape (n_games,)
        White's expected score.
    nu : float
        The draw parameter (``>= 0``).

    Returns
    -------
    tuple of ndarray of shape (n_games,)
        ``(p_win, p_draw, p_loss)``; they sum to 1 and
        ``p_win + p_draw / 2`` is ``expected`` (clipped to
        ``[CLIP, 1 - CLIP]``).

    Examples
    --------
    >>> w, d, l = outcome_probabilities([0.5, 0.75], 1.0)
    >>> [round(float(v), 4) for v in (w[0], d[0], l[0])]
    [0.3333, 0.3333, 0.3333]
    >>> round(float(w[1] + d[1] / 2), 12)
    0.75
    """
    if not (math.isfinite(nu) and nu >= 0):
        raise ValueError(f"The draw parameter 'nu' must be >= 0. Got {nu!r}.")
    e = np.clip(np.asarray(expected, dtype=np.float64), CLIP, 1.0 - CLIP)
    b = nu * (e - 0.5)
    x = (b + np.sqrt(b * b + 4.0 * e * (1.0 - e))) / (2.0 * (1.0 - e))
    total = x + nu + 1.0 / x
    p_win = x / total
    p_loss = (1.0 / x) / total
    p_draw = 1.0 - p_win - p_loss
    return p_win, np.maximum(p_draw, 0.0), p_loss


def _three_way_loss(expected: FloatArray, score: FloatArray, nu: float) -> float:
    """Mean of ``-ln P(result)`` over the games."""
    p_win, p_draw, p_loss = outcome_probabilities(expected, nu)
    p = np.where(score == 1.0, p_win, np.where(score == 0.0, p_loss, p_draw))
    return float(-np.mean(np.log(np.clip(p, CLIP, 1.0))))


def fit_draw_parameter(expected: ArrayLike, score: ArrayLike) -> float:
    """The maximum-likelihood ``nu`` for a system's expected scores.

    Parameters
    ----------
    expected, score : array_like of shape (n_games,)
        White's expected score by the system, and White's result (1, 0.5, 0).

    Returns
    -------
    float
        ``nu`` in ``[0, MAX_NU]``; 0 when no game was drawn, NaN without games.

    Examples
    --------
    >>> e = np.full(400, 0.5)
    >>> s = np.repeat([1.0, 0.5, 0.5, 0.0], 100)
    >>> round(fit_draw_parameter(e, s), 3)  # half draws: nu / (2 + nu) = 1/2
    2.0
    """
    from scipy.optimize import minimize_scalar  # 0.3 s to import

    e = np.asarray(expected, dtype=np.float64)
    s = np.asarray(score, dtype=np.float64)
    if e.shape != s.shape:
        raise ValueError(
            f"'expected' and 'score' must have the same shape. Got {e.shape} "
            f"and {s.shape}."
        )
    if e.size == 0:
        return math.nan
    if not np.any(s == 0.5):
        return 0.0
    # nu = exp(t): the likelihood is smooth in t, and nu stays positive.
    fit = minimize_scalar(
        lambda t: _three_way_loss(e, s, math.exp(t)),
        bounds=(math.log(1e-6), math.log(MAX_NU)),
        method="bounded",
        options={"xatol": 1e-6},
    )
    return float(math.exp(fit.x))


def draw_parameter_for_rate(draw_rate: float) -> float:
    """The ``nu`` whose draw rate between equal players is ``draw_rate``.

    >>> draw_parameter_for_rate(0.5)
    2.0
    """
    if not 0.0 <= draw_rate < 1.0:
        raise ValueError(f"'draw_rate' must lie in [0, 1). Got {draw_rate!r}.")
    return 2.0 * draw_rate / (1.0 - draw_rate)
