"""FIDE tables 8.1.1 and 8.1.2 against the values printed in docs/rules.md, section 1.

The tables below are copied from docs/rules.md (Expected score PD; Unrated
players and the initial rating), not from ``simulator.systems.tables``,
so a typo in either shows up here.
"""

import itertools

import numpy as np
import pytest

from simulator.systems.elo import logistic_expectation
from simulator.systems.tables import dp_from_p, pd_hundredths

# docs/rules.md, section 1, table 8.1.2: (first |D|, last |D|, PD of the higher-rated).
TABLE_812 = [
    (0, 3, 50), (4, 10, 51), (11, 17, 52), (18, 25, 53), (26, 32, 54),
    (33, 39, 55), (40, 46, 56), (47, 53, 57), (54, 61, 58), (62, 68, 59),
    (69, 76, 60), (77, 83, 61), (84, 91, 62), (92, 98, 63), (99, 106, 64),
    (107, 113, 65), (114, 121, 66), (122, 129, 67), (130, 137, 68),
    (138, 145, 69), (146, 153, 70), (154, 162, 71), (163, 170, 72),
    (171, 179, 73), (180, 188, 74), (189, 197, 75), (198, 206, 76),
    (207, 215, 77), (216, 225, 78), (226, 235, 79), (236, 245, 80),
    (246, 256, 81), (257, 267, 82), (268, 278, 83), (279, 290, 84),
    (291, 302, 85), (303, 315, 86), (316, 328, 87), (329, 344, 88),
    (345, 357, 89), (358, 374, 90), (375, 391, 91), (392, 411, 92),
    (412, 432, 93), (433, 456, 94), (457, 484, 95), (485, 517, 96),
    (518, 559, 97), (560, 619, 98), (620, 735, 99),
]  # fmt: skip

# docs/rules.md, section 1, table 8.1.1: p in hundredths -> dp.
TABLE_811 = {
    100: 800, 99: 677, 98: 589, 97: 538, 96: 501, 95: 470, 94: 444, 93: 422,
    92: 401, 91: 383, 90: 366, 89: 351, 88: 336, 87: 322, 86: 309, 85: 296,
    84: 284, 83: 273, 82: 262, 81: 251, 80: 240, 79: 230, 78: 220, 77: 211,
    76: 202, 75: 193, 74: 184, 73: 175, 72: 166, 71: 158, 70: 149, 69: 141,
    68: 133, 67: 125, 66: 117, 65: 110, 64: 102, 63: 95, 62: 87, 61: 80,
    60: 72, 59: 65, 58: 57, 57: 50, 56: 43, 55: 36, 54: 29, 53: 21, 52: 14,
    51: 7, 50: 0,
}  # fmt: skip


def test_812_bands_are_contiguous():
    """8.1.2: the copied bands tile 0..735 without gaps (checks the copy)."""
    assert TABLE_812[0][0] == 0
    assert TABLE_812[-1][1] == 735
    for (_, last, pd), (first, _, next_pd) in itertools.pairwise(TABLE_812):
        assert first == last + 1
        assert next_pd == pd + 1


@pytest.mark.parametrize(("first", "last", "pd"), TABLE_812)
def test_812_band_boundaries(first, last, pd):
    """8.1.2: each band's first and last |D| give its PD, both sides."""
    got = pd_hundredths([first, last, -first, -last]).tolist()
    lower = 100 - pd if first > 0 else 50
    assert got[:2] == [pd, pd]
    assert got[2] == lower
    assert got[3] == 100 - pd


def test_812_above_735():
    """8.1.2: |D| > 735 gives PD 1.00 to the higher and 0 to the lower."""
    got = pd_hundredths([736, 800, 2000, -736, -2000]).tolist()
    assert got == [100, 100, 100, 0, 0]


def test_812_all_differences_symmetric():
    """8.1.2: the lower-rated player gets 1 - PD for every D."""
    d = np.arange(0, 1001)
    assert np.array_equal(pd_hundredths(-d), 100 - pd_hundredths(d))


def test_812_d400_table_vs_formula():
    """8.1.2 / seed 002: at D = 400 the table gives .92, the formula .909."""
    assert pd_hundredths(400).item() == 92
    assert float(logistic_expectation(400)) == pytest.approx(0.909, abs=5e-4)


@pytest.mark.parametrize(("p", "dp"), sorted(TABLE_811.items()))
def test_811_values(p, dp):
    """8.1.1: dp for each p from .50 to 1.00."""
    assert dp_from_p(p).item() == dp


@pytest.mark.parametrize("p", range(0, 50))
def test_811_lower_half_is_antisymmetric(p):
    """8.1.1: for p < .50, dp(p) = -dp(1 - p)."""
    assert dp_from_p(p).item() == -TABLE_811[100 - p]


def test_811_rejects_out_of_range():
    """8.1.1: p outside [0, 1] has no dp."""
    with pytest.raises(ValueError, match="p must lie"):
        dp_from_p([101])
    with pytest.raises(ValueError, match="p must lie"):
        dp_from_p([-1])
