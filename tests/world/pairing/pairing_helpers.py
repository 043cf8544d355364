"""Helpers of the tests of simulator.world.pairing: events played, states made.

Shared by the test modules of tests/world/pairing/ (pytest puts this folder on
``sys.path``, as for every test folder without ``__init__.py``).
"""

from __future__ import annotations

import itertools

import numpy as np

from simulator.world.pairing import (
    BLACK,
    WHITE,
    Round,
    SwissState,
    pair_swiss_round,
    record_swiss_round,
    swiss_start,
)

#: Independent random streams per seed.
STREAMS = range(4)


def _results(
    rng: np.random.Generator, strength_w, strength_b, edge: float = 35.0
) -> np.ndarray:
    """White's scores from a logistic model, White ``edge`` points up, ~30 % draws."""
    e = 1.0 / (1.0 + 10.0 ** (-(strength_w - strength_b + edge) / 400.0))
    u = rng.random(e.shape)
    draw = 0.3 * (1.0 - np.abs(2.0 * e - 1.0))
    return np.where(u < e - draw / 2, 1.0, np.where(u < e + draw / 2, 0.5, 0.0))


def _play_event(
    n: int, n_rounds: int, seed: list[int], edge: float = 35.0
) -> tuple[list[Round], list[SwissState], np.ndarray]:
    """A whole Swiss event with random (but seeded) players and results.

    A large White ``edge`` piles up players who must have one colour.
    """
    rng = np.random.default_rng(seed)
    players = rng.permutation(5 * n)[:n]
    strength = rng.normal(1700.0, 250.0, n)
    rating = strength + rng.normal(0.0, 80.0, n)
    rating[rng.random(n) < 0.15] = np.nan  # Some unrated entrants.
    state = swiss_start(players, rating)
    index = {int(p): i for i, p in enumerate(players)}
    rounds, states = [], [state]
    for _ in range(n_rounds):
        rd = pair_swiss_round(state, rng)
        sw = strength[[index[int(p)] for p in rd.white]]
        sb = strength[[index[int(p)] for p in rd.black]]
        state = record_swiss_round(state, rd, _results(rng, sw, sb, edge))
        rounds.append(rd)
        states.append(state)
    return rounds, states, players


def _colour_sequences(rounds: list[Round]) -> dict[int, list[int]]:
    """Each player's colours, round by round (WHITE/BLACK)."""
    seqs: dict[int, list[int]] = {}
    for rd in rounds:
        for p in rd.white.tolist():
            seqs.setdefault(p, []).append(WHITE)
        for p in rd.black.tolist():
            seqs.setdefault(p, []).append(BLACK)
    return seqs


def _colour_ok(seq: list[int]) -> bool:
    """C.04.1 f, g: |whites - blacks| <= 2 throughout, no colour thrice running."""
    diffs = np.cumsum(seq)
    runs = any(len(set(seq[i : i + 3])) == 1 for i in range(len(seq) - 2))
    return bool(np.all(np.abs(diffs) <= 2)) and not runs


def _colour_fields(seqs: list[list[int]]) -> dict[str, np.ndarray]:
    """SwissState colour fields from each player's colour sequence."""
    return {
        "colour_diff": np.array([sum(q) for q in seqs], dtype=np.intp),
        "last_colour": np.array([q[-1] if q else 0 for q in seqs], dtype=np.intp),
        "streak": np.array(
            [
                next((k for k in range(len(q)) if q[-1 - k] != q[-1]), len(q))
                for q in seqs
            ],
            dtype=np.intp,
        ),
    }


def _random_state(
    rng: np.random.Generator, n: int, density: float, n_groups: int
) -> tuple[SwissState, list[list[int]], set[tuple[int, int]]]:
    """A mid-event state: random pairs played, colour histories, byes, points."""
    played = {
        (a, b) for a, b in itertools.combinations(range(n), 2) if rng.random() < density
    }
    # Colour histories that obey the rules, of 0 to 7 games each.
    seqs: list[list[int]] = []
    for _p in range(n):
        s: list[int] = []
        for _g in range(int(rng.integers(0, 8))):
            options = [c for c in (WHITE, BLACK) if _colour_ok([*s, c])]
            s.append(int(rng.choice(options)))
        seqs.append(s)
    state = swiss_start(np.arange(n), rng.normal(1800, 200, n))
    state = state._replace(
        **_colour_fields(seqs),
        points=rng.integers(0, n_groups, n) / 2.0,
        had_bye=rng.random(n) < 0.3,
        played=np.sort([a * n + b for a, b in played]).astype(np.int64),
    )
    return state, seqs, played


def _assert_same_rounds(got: list[Round], want: list[Round]) -> None:
    """Rounds equal entry by entry, dtypes included."""
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        for a, b in zip(g, w, strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def _assert_same_states(got: list[SwissState], want: list[SwissState]) -> None:
    """States equal field by field, dtypes included."""
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.n_rounds == w.n_rounds
        for a, b in zip(g[:-1], w[:-1], strict=True):
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)
