"""Tests of world.outcomes: exact mean score, the draw curve, presets, validation.

Stochastic tests hold for any seed: tolerances are 5 standard errors of the
statistic, from the sample size. Run ``RATINGSIM_SEEDS=all pytest ...``
to sweep seeds 0-99, or ``RATINGSIM_SEEDS=3`` to reproduce one (the ``seed``
fixture of conftest.py).
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.world.outcomes import (
    ONLINE_WHITE_ADVANTAGE,
    WHITE_ADVANTAGE,
    OutcomeModel,
)

N_GAMES = 200_000
#: Standard errors allowed in stochastic assertions.
Z = 5.0


#: The presets under each curve (the default OTB world is the fitted one).
PRESETS = [
    OutcomeModel.otb(),
    OutcomeModel.otb("logistic"),
    OutcomeModel.otb("normal"),
    OutcomeModel.online(),
    OutcomeModel.online("fitted"),
    OutcomeModel.online("normal"),
]
PRESET_IDS = [
    "otb-fitted",
    "otb-logistic",
    "otb-normal",
    "online-logistic",
    "online-fitted",
    "online-normal",
]


@pytest.mark.parametrize("model", PRESETS, ids=PRESET_IDS)
@pytest.mark.parametrize("difference", [-800.0, -300.0, -35.0, 0.0, 150.0, 600.0])
def test_mean_score_matches_expected_score(
    model: OutcomeModel, difference: float, rng: np.random.Generator
) -> None:
    """The mean sampled score equals the expected score within 5 standard errors."""
    white = np.full(N_GAMES, 1900.0 + difference / 2)
    black = 1900.0 - difference / 2
    scores = model.sample(white, black, rng)
    e = float(model.expected_score(white[0], black))
    p_win, p_draw, _ = model.probabilities(white[0], black)
    variance = float(p_win + p_draw / 4) - e * e
    assert abs(scores.mean() - e) <= Z * np.sqrt(variance / N_GAMES)


@pytest.mark.parametrize("level", [1200.0, 1700.0, 2300.0, 2700.0])
@pytest.mark.parametrize("difference", [0.0, 200.0, -500.0])
def test_draw_rate_matches_model(
    level: float, difference: float, rng: np.random.Generator
) -> None:
    """The sampled draw rate equals the model's p_draw within 5 standard errors."""
    model = OutcomeModel()
    white = np.full(N_GAMES, level + difference / 2)
    black = np.full(N_GAMES, level - difference / 2)
    scores = model.sample(white, black, rng)
    p = float(model.probabilities(white[0], black[0])[1])
    assert abs(np.mean(scores == 0.5) - p) <= Z * np.sqrt(p * (1 - p) / N_GAMES)


def test_draw_rate_rises_with_level() -> None:
    """At equal strengths the draw probability rises strictly with the level."""
    level = np.arange(800.0, 3001.0, 50.0)
    p_draw = OutcomeModel().probabilities(level, level)[1]
    assert np.all(np.diff(p_draw) > 0)


def test_sampled_draws_rise_with_level(rng: np.random.Generator) -> None:
    """Masters draw far more often than club players in sampled games."""
    model = OutcomeModel()
    low = model.sample(np.full(N_GAMES, 1500.0), 1500.0, rng)
    high = model.sample(np.full(N_GAMES, 2500.0), 2500.0, rng)
    assert np.mean(high == 0.5) - np.mean(low == 0.5) > 0.2


@pytest.mark.parametrize("level", [1500.0, 2000.0, 2500.0])
def test_draw_rate_falls_with_gap(level: float) -> None:
    """Averaged over colours, the draw probability falls strictly with the gap."""
    model = OutcomeModel()
    gap = np.arange(0.0, 1501.0, 25.0)
    white_stronger = model.probabilities(level + gap / 2, level - gap / 2)[1]
    black_stronger = model.probabilities(level - gap / 2, level + gap / 2)[1]
    assert np.all(np.diff((white_stronger + black_stronger) / 2) < 0)
    # Once White's edge is overcome, each colour's draws fall with the gap too.
    assert np.all(np.diff(white_stronger) < 0)
    assert np.all(np.diff(black_stronger[gap >= 2 * WHITE_ADVANTAGE]) < 0)


@pytest.mark.parametrize("model", PRESETS, ids=PRESET_IDS)
def test_probabilities_valid_for_extreme_gaps(model: OutcomeModel) -> None:
    """Probabilities lie in [0, 1], sum to 1 and keep the mean, even at 3000 points."""
    level = np.linspace(-1000.0, 5000.0, 61)[:, None]
    diff = np.array([-1e5, -3000.0, -1000.0, -35.0, 0.0, 35.0, 1000.0, 3000.0, 1e5])
    white, black = level + diff / 2, level - diff / 2
    p_win, p_draw, p_loss = model.probabilities(white, black)
    for p in (p_win, p_draw, p_loss):
        assert p.shape == white.shape
        assert np.all(np.isfinite(p))
        assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_allclose(p_win + p_draw + p_loss, 1.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        p_win + p_draw / 2, model.expected_score(white, black), rtol=0, atol=1e-12
    )
    # 3000 points apart, the stronger side all but always wins (the fitted
    # slope, extrapolated to a mean level below 0, is too flat for that).
    real = level[:, 0] >= 0
    assert np.all(p_win[real][:, diff == 3000.0] > 0.999)
    assert np.all(p_loss[real][:, diff == -3000.0] > 0.999)


def test_expected_score_is_elo_logistic_with_white_advantage() -> None:
    """The oracle is exactly 1 / (1 + 10^(-(d + advantage)/400))."""
    d = np.array([-400.0, -35.0, 0.0, 100.0, 800.0])
    for model in (OutcomeModel(), OutcomeModel.online(), OutcomeModel(-20.0)):
        expected = 1.0 / (1.0 + 10.0 ** (-(d + model.white_advantage) / 400.0))
        got = model.expected_score(1500.0 + d, 1500.0)
        np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0)


def test_white_scores_about_54_to_55_percent_at_equal_strength() -> None:
    """OTB White's edge of 35 points gives 54-55 % at equal strengths (Sonas)."""
    assert WHITE_ADVANTAGE == 35.0
    assert 0.54 <= float(OutcomeModel().expected_score(1800, 1800)) <= 0.555


def test_colour_symmetry_without_white_advantage() -> None:
    """With no White edge, swapping colours swaps wins and losses."""
    model = OutcomeModel(white_advantage=0.0)
    a = np.array([1200.0, 1800.0, 2400.0, 2750.0])
    b = np.array([1500.0, 1800.0, 2000.0, 2900.0])
    w_ab, d_ab, l_ab = model.probabilities(a, b)
    w_ba, d_ba, l_ba = model.probabilities(b, a)
    np.testing.assert_allclose(w_ab, l_ba, atol=1e-15)
    np.testing.assert_allclose(d_ab, d_ba, atol=1e-15)
    np.testing.assert_allclose(l_ab, w_ba, atol=1e-15)


@pytest.mark.parametrize(
    ("level", "published"),
    [(1500.0, 0.23), (1900.0, 0.34), (2300.0, 0.45), (2500.0, 0.58), (2650.0, 0.62)],
)
def test_defaults_reproduce_published_draw_rates_by_level(
    level: float, published: float
) -> None:
    """Draw rates at equal strengths are within 5 points of docs/world.md's by level."""
    p_draw = float(OutcomeModel().probabilities(level, level)[1])
    assert abs(p_draw - published) <= 0.05


@pytest.mark.parametrize(
    ("gap", "published"),
    [(25, 0.42), (125, 0.36), (225, 0.26), (325, 0.18), (425, 0.12), (625, 0.04)],
)
def test_defaults_reproduce_published_draw_rates_by_gap(
    gap: float, published: float
) -> None:
    """At a mean level of 2100, draws by gap are within 2 points of docs/world.md's."""
    model = OutcomeModel()
    level = 2100.0
    p_draw = 0.5 * float(
        model.probabilities(level + gap / 2, level - gap / 2)[1]
        + model.probabilities(level - gap / 2, level + gap / 2)[1]
    )
    assert abs(p_draw - published) <= 0.02


def test_online_preset_has_few_draws(rng: np.random.Generator) -> None:
    """The online preset draws 2.7 % at 1500 vs 1500 and gives White about +12."""
    model = OutcomeModel.online()
    assert model.white_advantage == ONLINE_WHITE_ADVANTAGE == 11.8
    p = float(model.probabilities(1500.0, 1500.0)[1])
    assert abs(p - 0.027) < 0.0005
    scores = model.sample(np.full(N_GAMES, 1500.0), 1500.0, rng)
    rate = np.mean(scores == 0.5)
    assert abs(rate - p) <= Z * np.sqrt(p * (1 - p) / N_GAMES)
    assert rate < 0.05
    # White scores 51-52 % online (docs/world.md).
    assert 0.51 <= float(model.expected_score(1500.0, 1500.0)) <= 0.52
    # Far fewer draws than OTB at every level of club play.
    level = np.arange(1000.0, 2001.0, 100.0)
    otb = OutcomeModel.otb().probabilities(level, level)[1]
    assert np.all(model.probabilities(level, level)[1] < otb / 4)


def test_otb_preset_is_the_defaults() -> None:
    """OutcomeModel.otb() is the fitted curve; otb("logistic") the bare defaults."""
    assert OutcomeModel.otb() == OutcomeModel(curve="fitted")
    assert OutcomeModel.otb("logistic") == OutcomeModel()
    assert OutcomeModel().curve == "logistic"
    assert OutcomeModel.online().curve == "logistic"


def test_draw_parameters_default_to_the_curves_own_fit() -> None:
    """Not given, the draw terms are (L) E2's, or the v2 fit's under "fitted"."""
    e2 = (0.286, 0.498, 0.291, 0.0)
    v2 = (0.249, 0.609, 0.263, 0.076)
    names = ("draw_intercept", "draw_level_slope", "draw_gap_slope", "draw_tail")
    for curve, values in (("logistic", e2), ("normal", e2), ("fitted", v2)):
        model = OutcomeModel(curve=curve)
        assert tuple(getattr(model, n) for n in names) == values
    # Given values win, and the draw curve follows them.
    given = OutcomeModel(curve="fitted", draw_intercept=-1.0)
    assert given.draw_intercept == -1.0 and given.draw_level_slope == 0.609
    assert given.draw_curve(1800, 1800) < OutcomeModel.otb().draw_curve(1800, 1800)
    # The online preset keeps its draws under every curve.
    for curve in ("logistic", "normal", "fitted"):
        online = OutcomeModel.online(curve)
        assert abs(float(online.probabilities(1500.0, 1500.0)[1]) - 0.027) < 0.003


@pytest.mark.parametrize("level", [1500.0, 1900.0, 2300.0, 2500.0, 2650.0])
def test_fitted_draw_rates_by_level(level: float) -> None:
    """The fitted curve's draws at equal strengths are near docs/world.md's by level."""
    published = {1500.0: 0.23, 1900.0: 0.34, 2300.0: 0.45, 2500.0: 0.58, 2650.0: 0.62}
    p_draw = float(OutcomeModel.otb().probabilities(level, level)[1])
    assert abs(p_draw - published[level]) <= 0.04


def test_sample_takes_one_uniform_per_game(seed: int) -> None:
    """Sampling takes exactly one rng.random draw per game, cut at the chances."""
    model = OutcomeModel()
    white = np.array([1400.0, 1800.0, 2200.0, 2600.0, 1900.0] * 200)
    black = np.array([1500.0, 1800.0, 2000.0, 2650.0, 2300.0] * 200)
    scores = model.sample(white, black, np.random.default_rng(seed))
    twin = np.random.default_rng(seed)
    u = twin.random(white.shape)
    p_win, p_draw, _ = model.probabilities(white, black)
    expected = np.select([u < p_win, u < p_win + p_draw], [1.0, 0.5], 0.0)
    np.testing.assert_array_equal(scores, expected)
    # Both generators are at the same place afterwards.
    gen = np.random.default_rng(seed)
    model.sample(white, black, gen)
    assert gen.random() == twin.random()


def test_sample_shape_dtype_values_and_determinism(seed: int) -> None:
    """Scores broadcast, are float64 in {0, 0.5, 1} and repeat for the same seed."""
    model = OutcomeModel()
    white = np.linspace(1000.0, 2800.0, 60).reshape(3, 20)
    black = np.float64(1900.0)
    first = model.sample(white, black, np.random.default_rng(seed))
    again = model.sample(white, black, np.random.default_rng(seed))
    assert first.shape == (3, 20)
    assert first.dtype == np.float64
    assert set(np.unique(first).tolist()) <= {0.0, 0.5, 1.0}
    np.testing.assert_array_equal(first, again)


def test_inputs_not_mutated(rng: np.random.Generator) -> None:
    """No method writes into its input arrays."""
    model = OutcomeModel()
    white = np.array([1500.0, 2100.0, 2700.0])
    black = np.array([1600.0, 2000.0, 2400.0])
    w0, b0 = white.copy(), black.copy()
    model.probabilities(white, black)
    model.expected_score(white, black)
    model.sample(white, black, rng)
    np.testing.assert_array_equal(white, w0)
    np.testing.assert_array_equal(black, b0)


@pytest.mark.parametrize("bad", [42, None, np.random.RandomState(0)])
def test_sample_requires_a_generator(bad: object) -> None:
    """Sampling refuses anything but a numpy Generator: no hidden generators."""
    with pytest.raises(TypeError, match="rng"):
        OutcomeModel().sample([1500.0], [1500.0], bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("white_advantage", np.nan),
        ("white_advantage", np.inf),
        ("white_advantage", "35"),
        ("draw_intercept", -np.inf),
        ("draw_intercept", "0.3"),
        ("draw_level_slope", np.nan),
        ("draw_level_slope", True),
        ("draw_gap_slope", -0.1),
        ("gap_scale", 0.0),
        ("gap_scale", -1.212),
        ("reference_level", np.inf),
        ("curve", "probit"),
        ("curve", None),
        ("draw_tail", np.nan),
        ("fitted_slope", 0.0),
        ("fitted_slope_level", -np.inf),
    ],
)
def test_invalid_parameters_raise(name: str, value: object) -> None:
    """A bad parameter raises ValueError naming the parameter and the value."""
    with pytest.raises(ValueError, match=f"'{name}' parameter of OutcomeModel") as e:
        OutcomeModel(**{name: value})  # type: ignore[arg-type]
    assert repr(value) in str(e.value)


def test_model_is_frozen() -> None:
    """Parameters cannot be changed after construction."""
    model = OutcomeModel()
    with pytest.raises(AttributeError):
        model.white_advantage = 0.0  # type: ignore[misc]
