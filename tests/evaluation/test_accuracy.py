"""Tests of evaluation.accuracy's numpy figures: moments and bands of true strength.

The figures read through the recorder (offset, RMSE, Spearman, drift) are
tested in test_recorder.py. Stochastic tests take the ``seed`` fixture of
conftest.py (``RATINGSIM_SEEDS``).
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.evaluation.accuracy import band_sums, bands, moments


def _bits(x: object) -> bytes:
    """The bytes of a float64 (or an array of them): equal bits, not just values."""
    return np.asarray(x, dtype=np.float64).tobytes()


@pytest.mark.parametrize(
    "n", [1, 7, 8, 9, 127, 128, 129, 136, 255, 256, 1000, 4099, 100_003]
)
def test_moments_are_numpys(n: int, seed: int) -> None:
    """Offset, RMSE, MAE and SDs have np.mean's and np.std's bits."""
    rng = np.random.default_rng(seed + n)
    x = rng.normal(0.0, 300.0, n) * np.exp(rng.normal(0.0, 5.0, n))
    x[rng.random(n) < 0.05] = -0.0
    shift = float(rng.normal(0.0, 100.0))
    true = rng.normal(1500.0, 300.0, n) + shift
    rating = true + x
    d = rating - true
    got = moments(rating, true, d)
    offset = np.mean(d)
    a = d - offset
    want = (
        offset,
        np.sqrt(np.mean(a * a)),
        np.mean(np.abs(a)),
        np.std(true),
        np.std(rating),
    )
    assert _bits(got) == _bits(want)


def test_bands_are_searchsorted() -> None:
    """Bands of true strength, edges, NaN and infinities included, and their sums."""
    edges = np.array([1400.0, 1600.0, 1800.0])
    true = np.array([-np.inf, 1399.9, 1400.0, 1599.0, 1600.0, 2000.0, np.inf, np.nan])
    band = bands(true, np.arange(true.size), edges)
    np.testing.assert_array_equal(band, np.searchsorted(edges, true, side="right"))
    rng = np.random.default_rng(1)
    sel = np.array([0, 2, 3, 5, 7])
    diff = rng.normal(0.0, 50.0, sel.size)
    count, s1, s2 = band_sums(diff, sel, band, 3.0, edges.size + 1)
    e = diff - 3.0
    np.testing.assert_array_equal(count, np.bincount(band[sel], minlength=4))
    assert _bits(s1) == _bits(np.bincount(band[sel], weights=e, minlength=4))
    assert _bits(s2) == _bits(np.bincount(band[sel], weights=e * e, minlength=4))
