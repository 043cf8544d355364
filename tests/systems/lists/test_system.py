"""The list systems' shared methods (``lists/system.py``): the compiled expected score.

It must give the general path's result bit for bit.
"""

import numpy as np
import pytest

from simulator.systems.classic import Classic
from simulator.systems.fide import Fide, fide_2024
from simulator.systems.lists.state import rules_expected

SYSTEMS = {
    "fide": Fide(),
    "fide-2024": fide_2024(),
    "classic": Classic(),
    "no-cap": Fide(cap=None),
    "exempt-1900": Fide(exempt_from=1900.0),
    "odd-cap": Fide(cap=120.5, exempt_from=1800.0, k_factor=800),
    "no-700": Fide(rule_700=False),
}


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_expected_score_matches_rules_expected(name):
    """The compiled expected_score gives rules_expected's PD over 100, bit for bit."""
    system = SYSTEMS[name]
    rng = np.random.default_rng(1)
    rating = rng.normal(2000.0, 500.0, 60)
    rating[:40] = np.rint(rating[:40])  # whole ratings, and some fractional
    rating[40:45] = np.nan  # unrated
    rating[45:48] = [np.inf, -np.inf, 1e300]  # D beyond any table
    state = system.new_state(60, day=19723, rating=rating)
    white, black = rng.integers(-60, 60, 3000), rng.integers(-60, 60, 3000)
    known = np.where(np.isnan(state.rating), system.unrated_prediction, state.rating)
    with np.errstate(invalid="ignore"):
        expected = rules_expected(system.rules, known[white], known[black]) / 100.0
    np.testing.assert_array_equal(system.expected_score(state, white, black), expected)


def test_expected_score_checks_players():
    """A player index outside the list raises IndexError, as numpy indexing does."""
    state = Fide().new_state(3, day=19723)
    with pytest.raises(IndexError):
        Fide().expected_score(state, np.array([0, 3]), np.array([1, 2]))
