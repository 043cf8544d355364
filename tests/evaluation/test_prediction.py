"""Tests of evaluation.prediction: the calibration sums per bin.

The log loss and calibration read through the recorder are tested in
test_recorder.py. Stochastic tests take the ``seed`` fixture of conftest.py.
"""

from __future__ import annotations

import numpy as np

from simulator.evaluation.prediction import calibrate


def _bits(x: object) -> bytes:
    """The bytes of a float64 (or an array of them): equal bits, not just values."""
    return np.asarray(x, dtype=np.float64).tobytes()


def test_calibration_bins_are_bincounts(seed: int) -> None:
    """Calibration sums per bin are those of np.bincount, E = 0 and E = 1 included."""
    rng = np.random.default_rng(seed)
    e = np.concatenate([[0.0, 1.0, 0.1, 0.9999999], rng.random(1000)])
    s = rng.choice([0.0, 0.5, 1.0], e.size)
    count = np.array([3, 0, 1, 0, 0, 0, 0, 0, 0, 2])
    sum_e, sum_s = rng.random(10), rng.random(10)
    want = [count.copy(), sum_e.copy(), sum_s.copy()]
    calibrate(e, s, count, sum_e, sum_s)
    k = np.minimum((e * 10).astype(np.intp), 9)
    want[0] += np.bincount(k, minlength=10)
    want[1] += np.bincount(k, weights=e, minlength=10)
    want[2] += np.bincount(k, weights=s, minlength=10)
    np.testing.assert_array_equal(count, want[0])
    assert _bits(sum_e) == _bits(want[1])
    assert _bits(sum_s) == _bits(want[2])
