"""Plain Elo: constant K, zero sum, per-game updates, the logistic expectation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.systems import Games, make_system
from simulator.systems.elo import Elo, logistic_expectation
from simulator.systems.tables import pd_hundredths

SCORES = st.sampled_from([0.0, 0.5, 1.0])


@st.composite
def pools_and_games(draw: st.DrawFn) -> tuple[np.ndarray, Games]:
    """Ratings of 2 to 6 players and up to 30 games among them, players repeating."""
    n = draw(st.integers(2, 6))
    rating = np.array(draw(st.lists(st.integers(1000, 2800), min_size=n, max_size=n)))
    m = draw(st.integers(0, 30))
    pairs = draw(
        st.lists(
            st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True),
            min_size=m,
            max_size=m,
        )
    )
    score = draw(st.lists(SCORES, min_size=m, max_size=m))
    white = [p[0] for p in pairs]
    black = [p[1] for p in pairs]
    return rating.astype(float), Games(white, black, score)


def test_logistic_expectation_values() -> None:
    """E = 1 / (1 + 10^(-D/400)): .5 at 0, .909 at 400, .0909 at -400."""
    assert logistic_expectation(0.0) == 0.5
    assert logistic_expectation(400.0) == pytest.approx(1 / 1.1, abs=1e-15)
    assert round(float(logistic_expectation(400.0)), 3) == 0.909
    assert round(float(logistic_expectation(-400.0)), 4) == 0.0909
    assert logistic_expectation(800.0) == pytest.approx(100 / 101, abs=1e-15)


def test_formula_against_table_at_400() -> None:
    """The Croatian seed's remark: at D = 400 the formula gives .91, the table .92."""
    assert round(float(logistic_expectation(400.0)), 2) == 0.91
    assert pd_hundredths(400).item() == 92


@pytest.mark.parametrize(
    ("difference", "expected"),
    [(-200, 0.24), (100, 0.64), (-100, 0.36), (-50, 0.43), (500, 0.95)],
)
def test_croatian_seed_expectations(difference: float, expected: float) -> None:
    """The Croatian page's worked expectations, to two decimals."""
    assert round(float(logistic_expectation(difference)), 2) == expected


def test_logistic_expectation_is_complementary() -> None:
    """E(D) + E(-D) = 1 and E rises with D."""
    d = np.linspace(-1500, 1500, 301)
    np.testing.assert_allclose(
        logistic_expectation(d) + logistic_expectation(-d), 1.0, rtol=0, atol=1e-15
    )
    assert np.all(np.diff(logistic_expectation(d)) > 0)


def test_one_game_change() -> None:
    """An even game is worth K/2; a win over a 400-points-stronger player K * 10/11."""
    system = Elo(k_factor=32.0)
    state = system.new_state(3, rating=[1500.0, 1500.0, 1900.0])
    after = system.rate(state, Games([0], [1], [1.0]))
    np.testing.assert_array_equal(after.rating, [1516.0, 1484.0, 1900.0])
    after = system.rate(state, Games([0], [2], [1.0]))
    assert after.rating[0] == pytest.approx(1500.0 + 32.0 * 10 / 11, abs=1e-12)
    assert after.rating[2] == pytest.approx(1900.0 - 32.0 * 10 / 11, abs=1e-12)


@pytest.mark.parametrize("n_games", [0, 29, 30, 500])
@pytest.mark.parametrize("rating", [1000.0, 2000.0, 2450.0, 2800.0])
def test_constant_k(n_games: int, rating: float) -> None:
    """K is the same for every player: no tiers by games played or by rating."""
    system = Elo(k_factor=20.0)
    state = system.new_state(
        2, rating=[rating, rating - 100.0], n_games=[n_games, n_games]
    )
    after = system.rate(state, Games([0], [1], [0.0]))
    e = float(logistic_expectation(100.0))
    assert after.rating[0] - rating == pytest.approx(-20.0 * e, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(case=pools_and_games(), k=st.floats(1.0, 64.0))
def test_zero_sum(case: tuple[np.ndarray, Games], k: float) -> None:
    """Every game moves as many points to one player as it takes from the other."""
    rating, games = case
    system = Elo(k_factor=k)
    after = system.rate(system.new_state(rating.size, rating=rating), games)
    assert after.rating.sum() == pytest.approx(rating.sum(), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(case=pools_and_games())
def test_batch_equals_game_by_game(case: tuple[np.ndarray, Games]) -> None:
    """Rating a batch with repeated players equals feeding its games one at a time."""
    rating, games = case
    system = make_system("elo")
    state = system.new_state(rating.size, rating=rating)
    batch = system.rate(state, games)
    one_by_one = state
    for i in range(games.n_games):
        one_by_one = system.rate(one_by_one, games.take([i]))
    np.testing.assert_array_equal(batch.rating, one_by_one.rating)
    np.testing.assert_array_equal(batch.n_games, one_by_one.n_games)


def test_batch_order_matters() -> None:
    """Per-game updates: the same games in another order give other ratings."""
    system = Elo()
    state = system.new_state(3)
    games = Games([0, 1], [1, 2], [1.0, 1.0])
    forward = system.rate(state, games)
    backward = system.rate(state, games.take([1, 0]))
    assert forward.rating[1] != backward.rating[1]
    # Forward, player 1 has lost to 0 and beats 2 from 1490: worth more than 10.
    assert forward.rating[2] < backward.rating[2]


def test_new_state_and_counts() -> None:
    """NaN ratings start at the initial rating; every game counts for both players."""
    system = Elo(initial_rating=1200.0)
    state = system.new_state(3, rating=[1800.0, np.nan, 1500.0], n_games=[40, 0, 3])
    np.testing.assert_array_equal(state.rating, [1800.0, 1200.0, 1500.0])
    after = system.rate(state, Games([0, 1, 0], [1, 2, 2], [0.5, 1.0, 0.0]))
    np.testing.assert_array_equal(after.n_games, [42, 2, 5])
    assert after.n_games.dtype == np.intp
    assert system.next_close(19000.0) is None


def test_unknown_player_is_rejected() -> None:
    """A game naming a player outside the pool raises ValueError."""
    system = Elo()
    with pytest.raises(ValueError, match="Games name player 3, but the state has 3"):
        system.rate(system.new_state(3), Games([0], [3], [1.0]))


@pytest.mark.parametrize(
    ("params", "message"),
    [
        (
            {"k_factor": -3},
            "The 'k_factor' parameter of Elo must be a float in (0, inf). "
            "Got -3 instead.",
        ),
        (
            {"k_factor": 0.0},
            "The 'k_factor' parameter of Elo must be a float in (0, inf). "
            "Got 0.0 instead.",
        ),
        (
            {"initial_rating": float("inf")},
            "The 'initial_rating' parameter of Elo must be a float in (-inf, inf). "
            "Got inf instead.",
        ),
    ],
)
def test_parameter_validation(params: dict[str, float], message: str) -> None:
    """Bad parameters raise scikit-learn-style messages naming the parameter."""
    with pytest.raises(ValueError) as err:
        Elo(**params)
    assert str(err.value) == message
