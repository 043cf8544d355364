"""The compiled one-value interpolation of the strengths' drift by level.

``simulator.world.strengths._interp_one`` replaces ``np.interp`` inside the
compiled move (numba's version allocates arrays for a scalar); the results
must be the same bits, or every run's strengths would change.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.world.strengths import _interp_one


@pytest.mark.parametrize("n_knots", [1, 2, 3, 5, 9])
def test_same_bits_as_numpy(n_knots: int, rng: np.random.Generator) -> None:
    xp = np.sort(rng.uniform(0.0, 3000.0, n_knots))
    xp = xp + np.arange(n_knots)  # strictly increasing, as the config demands
    fp = rng.normal(0.0, 40.0, n_knots)
    values = np.concatenate(
        [
            rng.uniform(-500.0, 3500.0, 2000),
            xp,  # on the knots
            np.nextafter(xp, -np.inf),
            np.nextafter(xp, np.inf),
            [np.nan, -np.inf, np.inf],
        ]
    )
    expected = np.interp(values, xp, fp)
    got = np.array([_interp_one(float(v), xp, fp) for v in values])
    np.testing.assert_array_equal(got.view(np.int64), expected.view(np.int64))


def test_flat_segment_with_infinite_value_takes_the_level() -> None:
    # numpy's NaN rescue: inf * 0 on a flat segment gives the segment's value.
    xp = np.array([0.0, 1.0])
    fp = np.array([5.0, 5.0])
    for v in (0.5, np.inf, -np.inf):
        assert _interp_one(v, xp, fp) == np.interp(v, xp, fp)
