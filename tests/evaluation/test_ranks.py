"""Tests of evaluation.ranks: average ranks, ranks of subsets and Spearman's rho.

Stochastic tests take the ``seed`` fixture of conftest.py (``RATINGSIM_SEEDS``).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simulator.evaluation import ranks as ranks_module
from simulator.evaluation.ranks import TrueRanks, argsort, average_ranks, spearman


@pytest.mark.parametrize(
    "x",
    [
        [0.0, -0.0, 0.0, 3.0],
        [-5.0, -5.0, -1.0, 2.0, 2.0, 2.0],
        [1.0, 1e6, 1e6, 7.0],  # a spread beyond the counting path
        [2.0**60, 2.0**60 + 2048.0, 5.0],
        [1.5, 1.5, -2.25],
    ],
)
def test_average_ranks_are_scipys(x: list[float]) -> None:
    """Average ranks equal scipy's, by counting or by sorting."""
    a = np.array(x)
    np.testing.assert_array_equal(
        average_ranks(a), stats.rankdata(a, method="average"), strict=False
    )


@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000, 70_000])
def test_average_ranks_of_ties_signs_and_close_values(n: int, seed: int) -> None:
    """Average ranks equal scipy's for normal, signed-zero, tied and close values."""
    rng = np.random.default_rng(seed + n)
    for x in (
        rng.normal(1500.0, 300.0, n),
        np.rint(rng.normal(0.0, 3.0, n)) * rng.choice([-0.0, 1.0, 1e-300], n),
        1.0 + np.spacing(1.0) * rng.integers(0, 40, n),  # close, by the thousand
        rng.normal(0.0, 1e6, n),
    ):
        np.testing.assert_array_equal(
            average_ranks(x), stats.rankdata(x, method="average"), strict=False
        )


@pytest.mark.parametrize("n", [0, 1, 2, 17, 1000, 70_000])
def test_argsort_sorts(n: int, seed: int) -> None:
    """The order from sort keys sorts the values, ties, signs and NaN included."""
    rng = np.random.default_rng(seed + n)
    for x in (
        rng.normal(1500.0, 300.0, n),
        np.rint(rng.normal(0.0, 3.0, n)) * rng.choice([-0.0, 1.0, 1e-300], n),
        1.0 + np.spacing(1.0) * rng.integers(0, 40, n),  # close, by the thousand
        np.where(rng.random(n) < 0.1, np.nan, rng.normal(0.0, 1e6, n)),
    ):
        order = argsort(x)
        np.testing.assert_array_equal(np.sort(order), np.arange(n))
        # The same values as a stable sort: equal ones may come in any order.
        np.testing.assert_array_equal(x[order], x[np.argsort(x, kind="stable")])


@pytest.mark.parametrize("n", [1, 2, 1023, 1024, 5000, 70_000])
def test_radix_sort_is_numpys(n: int, seed: int) -> None:
    """The radix sort gives np.sort's array: any keys, repeats, shared digits."""
    rng = np.random.default_rng(seed + n)
    top = np.uint64(0xFFF) << np.uint64(52)
    for keys in (
        rng.integers(0, 2**64, n, dtype=np.uint64),  # every digit varies
        rng.integers(0, 5, n, dtype=np.uint64),  # repeats; five digits shared
        rng.integers(0, 2**20, n, dtype=np.uint64) | top,  # the middle shared
        np.full(n, 2**63 + 12345, dtype=np.uint64),  # every digit shared
    ):
        got = keys.copy()
        ranks_module._radix_sort(got)
        np.testing.assert_array_equal(got, np.sort(keys))


def test_argsort_orders_alike_by_either_sort(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The order from argsort is the same whether numpy or the radix sort sorts."""
    rng = np.random.default_rng(seed)
    x = np.where(rng.random(3000) < 0.05, np.nan, rng.normal(1500.0, 300.0, 3000))
    x[:40] = 1500.0  # a run of ties, put in order after the sort
    by_radix = argsort(x)
    monkeypatch.setattr(ranks_module, "_RADIX_FROM", 10**9)
    np.testing.assert_array_equal(argsort(x), by_radix)


def _bits(x: object) -> bytes:
    """The bytes of a float64 (or an array of them): equal bits, not just values."""
    return np.asarray(x, dtype=np.float64).tobytes()


@pytest.mark.parametrize("n", [2, 3, 50, 2001])
def test_rank_correlation_is_corrcoefs(n: int, seed: int) -> None:
    """Spearman's rho from the exact sums has np.corrcoef's bits, ties or not."""
    rng = np.random.default_rng(seed + n)
    for rating in (
        rng.normal(1500.0, 300.0, n),
        np.rint(rng.normal(1500.0, 300.0, n) / 100.0) * 100.0,  # many ties
        np.where(np.arange(n) == 0, 1.0, 0.0),  # one against the rest
    ):
        true = np.rint(rng.normal(0.0, 2.0, n))
        true_ranks = stats.rankdata(true)
        both = np.stack([stats.rankdata(rating), true_ranks])
        want = np.corrcoef(both)[1, 0]
        assert _bits(spearman(rating, true_ranks)) == _bits(want)
        np.testing.assert_array_equal(  # NaN (no spread) in either
            spearman(rating, true_ranks),
            stats.spearmanr(rating, true).statistic,
        )


def test_rank_correlation_beyond_the_exact_size_is_corrcoefs() -> None:
    """Above the size where np.corrcoef's sums are exact, rho is still its number."""
    rng = np.random.default_rng(0)
    n = 300_000
    rating, true = rng.normal(size=n), rng.normal(size=n)
    true_ranks = stats.rankdata(true)
    want = np.corrcoef(np.stack([stats.rankdata(rating), true_ranks]))[1, 0]
    assert _bits(spearman(rating, true_ranks)) == _bits(want)


def test_rank_correlation_paths_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The exact sums and np.corrcoef give the same bits where both apply."""
    rng = np.random.default_rng(1)
    rating, true = rng.normal(size=500), rng.normal(size=500)
    true_ranks = stats.rankdata(true)
    exact = spearman(rating, true_ranks)
    monkeypatch.setattr(ranks_module, "_EXACT_RANK_CORRELATION", 100)
    assert _bits(spearman(rating, true_ranks)) == _bits(exact)


def test_true_ranks_of_subsets_are_scipys(seed: int) -> None:
    """Ranks of the true strengths of subsets, tied ones included, are scipy's."""
    rng = np.random.default_rng(seed)
    n = 400
    # Probes share a true strength: ties across members and non-members.
    true = np.where(rng.random(n) < 0.3, 1500.0, rng.normal(1500.0, 200.0, n))
    among = np.flatnonzero(rng.random(n) < 0.8)
    ranks = TrueRanks(true, among)
    for share in (1.0, 0.7, 0.2, 0.0, 0.7):
        sel = among[rng.random(among.size) < share]
        np.testing.assert_array_equal(
            ranks.ranks(sel), stats.rankdata(true[sel]), strict=False
        )
