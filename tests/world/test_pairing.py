"""Tests of simulator.world.pairing: Swiss events, round robins, online pool, random.

Stochastic tests take the shared ``seed`` fixture (tests/conftest.py:
``RATINGSIM_SEEDS=all`` sweeps 100 seeds, ``RATINGSIM_SEEDS=17`` reproduces
one) and run STREAMS independent streams of it, ``default_rng([seed, stream])``,
so that even a default run covers several random draws.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest

from simulator.world import pairing
from simulator.world.pairing import (
    BLACK,
    WHITE,
    Round,
    SwissState,
    pair_online,
    pair_random,
    pair_swiss_round,
    pair_swiss_rounds,
    record_swiss_round,
    record_swiss_rounds,
    round_robin,
    swiss_start,
)

#: Independent random streams per seed.
STREAMS = range(4)


# --------------------------------------------------------------------------
# Helpers


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


EVENTS = [(137, 7), (40, 9)]
# Legality must hold however lopsided the results: White winning nearly
# every game leaves many players needing the same colour.
STRESS = [(137, 7, 35.0), (40, 9, 35.0), (137, 7, 600.0), (40, 9, 600.0)]


# --------------------------------------------------------------------------
# Swiss: legality over whole events


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds", "edge"), STRESS)
def test_swiss_event_pairs_everyone_once_a_round(
    n: int, n_rounds: int, edge: float, seed: int, stream: int
):
    """Every round gives each entrant exactly one game or the bye, at most one bye."""
    rounds, _, players = _play_event(n, n_rounds, [seed, stream], edge)
    for rd in rounds:
        everyone = np.concatenate([rd.white, rd.black, rd.bye])
        assert np.array_equal(np.sort(everyone), np.sort(players))
        assert rd.bye.size == n % 2
        assert rd.white.dtype == rd.black.dtype == rd.bye.dtype == np.intp


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds", "edge"), STRESS)
def test_swiss_event_never_repeats_a_pairing(
    n: int, n_rounds: int, edge: float, seed: int, stream: int
):
    """No two entrants meet twice in an event."""
    rounds, _, _ = _play_event(n, n_rounds, [seed, stream], edge)
    pairs = [
        frozenset(g)
        for rd in rounds
        for g in zip(rd.white.tolist(), rd.black.tolist(), strict=True)
    ]
    assert len(pairs) == len(set(pairs))


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds"), [(137, 7), (41, 9)])
def test_swiss_byes_go_to_different_players(
    n: int, n_rounds: int, seed: int, stream: int
):
    """In an odd field each round has one bye, never twice the same player."""
    rounds, _, _ = _play_event(n, n_rounds, [seed, stream])
    byes = [int(p) for rd in rounds for p in rd.bye]
    assert len(byes) == n_rounds
    assert len(set(byes)) == n_rounds


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("n", "n_rounds"), EVENTS)
def test_swiss_colours_follow_absolute_rules(
    n: int, n_rounds: int, seed: int, stream: int
):
    """Colour differences stay within +-2 and nobody gets a colour thrice running."""
    rounds, states, players = _play_event(n, n_rounds, [seed, stream])
    seqs = _colour_sequences(rounds)
    assert all(_colour_ok(s) for s in seqs.values())
    # The state's colour bookkeeping agrees with the sequences.
    final = states[-1]
    for i, p in enumerate(players.tolist()):
        s = seqs.get(p, [])
        assert final.colour_diff[i] == sum(s)
        assert final.last_colour[i] == (s[-1] if s else 0)


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_points_add_up(seed: int, stream: int):
    """Points equal the sum of each entrant's scores and byes."""
    rounds, states, _ = _play_event(41, 5, [seed, stream])
    final = states[-1]
    # Every game hands out one point; every bye one point.
    assert final.points.sum() == pytest.approx(sum(rd.n_games + 1 for rd in rounds))
    assert final.had_bye.sum() == 5
    assert final.n_rounds == 5
    assert final.played.size == sum(rd.n_games for rd in rounds)


# --------------------------------------------------------------------------
# Swiss: the shape of the pairing


def test_swiss_round_one_pairs_top_half_against_bottom_half():
    """Round 1 pairs seed i with seed i + n/2, colours alternating by board."""
    rng = np.random.default_rng(3)
    rating = np.linspace(2200.0, 1500.0, 10)
    players = np.arange(100, 110)
    rd = pair_swiss_round(swiss_start(players, rating), rng)
    high = np.minimum(rd.white, rd.black)
    low = np.maximum(rd.white, rd.black)
    assert high.tolist() == [100, 101, 102, 103, 104]
    assert low.tolist() == [105, 106, 107, 108, 109]
    top_white = rd.white == high
    assert np.all(top_white[::2] == top_white[0])
    assert np.all(top_white[1::2] != top_white[0])


W, B = WHITE, BLACK


@pytest.mark.parametrize(
    ("top", "bottom", "white"),
    [
        ([W], [B], 1),  # Both preferences granted.
        ([], [W], 0),  # Only one player has a preference.
        ([W, B], [B], 1),  # Mild vs strong: the stronger preference wins.
        ([B], [W, B], 0),
        ([W, B], [W, B], 0),  # Equal preferences: the higher-ranked player.
        ([B], [B], 0),
        ([B, B], [W, B, B], 0),  # Both absolute: the wider colour difference.
        ([W, B, B], [B, B], 1),
    ],
)
def test_swiss_colours_follow_c043_rule_e(top: list[int], bottom: list[int], white):
    """Colour allocation follows FIDE C.04.3 E for the two players of a pair."""
    rng = np.random.default_rng(0)
    state = swiss_start([0, 1], [2000.0, 1900.0])
    seqs = [top, bottom]
    state = state._replace(**_colour_fields(seqs))
    rd = pair_swiss_round(state, rng)
    assert rd.white.tolist() == [white]


def test_swiss_start_ranks_by_rating_unrated_last():
    """Starting rank: rating descending, NaN (unrated) last, ties in input order."""
    state = swiss_start([5, 6, 7, 8, 9], [1600, np.nan, 1800, 1600, np.nan])
    assert state.rank.tolist() == [1, 3, 0, 2, 4]


def test_swiss_odd_field_bye_to_lowest_ranked_without_bye():
    """The bye goes to the lowest-ranked player, then to the next who has none."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(7), np.arange(2000.0, 1300.0, -100.0))
    rd = pair_swiss_round(state, rng)
    assert rd.bye.tolist() == [6]
    # White wins everywhere and the bye scores nothing: player 6 is last on
    # points again, so the bye goes to the lowest-ranked loser instead.
    state = record_swiss_round(state, rd, np.ones(rd.n_games), bye_score=0.0)
    rd2 = pair_swiss_round(state, rng)
    assert rd2.bye.tolist() == [int(rd.black.max())]


def test_swiss_bye_score_is_a_parameter():
    """The bye scores ``bye_score`` points (default 1)."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(3), [1900.0, 1800.0, 1700.0])
    rd = pair_swiss_round(state, rng)
    half = record_swiss_round(state, rd, [0.5], bye_score=0.5)
    full = record_swiss_round(state, rd, [0.5])
    bye = int(rd.bye[0])
    assert half.points[bye] == 0.5
    assert full.points[bye] == 1.0
    assert half.had_bye[bye]


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_round_two_winners_meet_winners(seed: int, stream: int):
    """In round 2 the winners of round 1 nearly all meet each other."""
    rng = np.random.default_rng([seed, stream])
    n = 137
    strength = rng.normal(1700.0, 250.0, n)
    state = swiss_start(np.arange(n), strength + rng.normal(0.0, 80.0, n))
    rd = pair_swiss_round(state, rng)
    scores = _results(rng, strength[rd.white], strength[rd.black])
    state = record_swiss_round(state, rd, scores)
    winners = np.zeros(n, dtype=bool)
    winners[rd.white[scores == 1.0]] = True
    winners[rd.black[scores == 0.0]] = True
    rd2 = pair_swiss_round(state, rng)
    ww = winners[rd2.white] & winners[rd2.black]
    any_winner = winners[rd2.white] | winners[rd2.black]
    assert ww.sum() / any_winner.sum() >= 0.9
    # Nearly every pair is inside one score group.
    gap = np.abs(state.points[rd2.white] - state.points[rd2.black])
    assert np.mean(gap == 0) >= 0.9


def test_swiss_absent_players_get_no_game_and_no_bye():
    """Absent entrants are neither paired nor given the bye, and score nothing."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(10), np.linspace(2000, 1500, 10))
    rd = pair_swiss_round(state, rng, absent=[2, 9, 4])
    everyone = np.concatenate([rd.white, rd.black, rd.bye])
    assert sorted(everyone.tolist()) == [0, 1, 3, 5, 6, 7, 8]
    assert rd.bye.size == 1
    after = record_swiss_round(state, rd, np.full(rd.n_games, 0.5))
    assert after.points[[2, 4, 9]].tolist() == [0.0, 0.0, 0.0]


def test_swiss_record_does_not_modify_the_state():
    """Recording returns a new state and leaves the old one as it was."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(9), np.linspace(2000, 1500, 9))
    before = {k: np.copy(v) for k, v in state._asdict().items()}
    rd = pair_swiss_round(state, rng)
    new = record_swiss_round(state, rd, np.ones(rd.n_games))
    for k, v in state._asdict().items():
        assert np.array_equal(v, before[k])
    assert new.n_rounds == 1
    assert new.points.sum() == rd.n_games + 1


def test_swiss_backtracks_rather_than_repeat():
    """A bottom group whose natural pairings all repeat is repaired, not repeated."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(8), np.linspace(2000, 1300, 8))
    # Players 4..7 (the bottom score group) have all met each other already.
    bottom = [(4, 5), (4, 6), (4, 7), (5, 6), (5, 7), (6, 7)]
    keys = np.sort([a * 8 + b for a, b in bottom]).astype(np.int64)
    state = state._replace(
        points=np.array([3.0, 3.0, 3.0, 3.0, 0.0, 0.0, 0.0, 0.0]), played=keys
    )
    rd = pair_swiss_round(state, rng)
    pairs = {
        frozenset(g) for g in zip(rd.white.tolist(), rd.black.tolist(), strict=True)
    }
    assert not pairs & {frozenset(p) for p in bottom}
    assert len(pairs) == 4
    # The only way out: every bottom player meets a top player.
    assert all(len(p & {0, 1, 2, 3}) == 1 for p in pairs)


def test_swiss_pairs_within_halves_when_the_halves_have_all_met():
    """When top and bottom halves have all met, each half pairs within itself."""
    rng = np.random.default_rng(0)
    n = 8
    state = swiss_start(np.arange(n), np.linspace(2000, 1300, n))
    # Histories: 0 and 4 must have White, 1 and 5 Black, the rest may have either.
    seqs = [[-1, -1], [1, 1], [-1], [-1], [-1, -1], [1, 1], [1], [1]]
    played = [a * n + b for a in range(4) for b in range(4, 8)]
    state = state._replace(
        **_colour_fields(seqs), played=np.array(played, dtype=np.int64)
    )
    rd = pair_swiss_round(state, rng)
    everyone = np.concatenate([rd.white, rd.black])
    assert sorted(everyone.tolist()) == list(range(n))
    assert np.all((rd.white < 4) == (rd.black < 4))
    for p, colour in [(0, WHITE), (4, WHITE), (1, BLACK), (5, BLACK)]:
        assert (p in rd.white) == (colour == WHITE)


def test_swiss_too_many_rounds_raise():
    """Pairing past the last possible round raises a clear ValueError."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(4), [2000.0, 1900.0, 1800.0, 1700.0])
    for _ in range(3):
        rd = pair_swiss_round(state, rng)
        state = record_swiss_round(state, rd, np.full(rd.n_games, 0.5))
    with pytest.raises(ValueError, match=r"Round 4 cannot be paired.*repeated game"):
        pair_swiss_round(state, rng)


def test_swiss_odd_field_out_of_byes_raises():
    """An odd field in which everyone has had the bye cannot be paired."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(3), [2000.0, 1900.0, 1800.0])
    state = state._replace(had_bye=np.ones(3, dtype=bool))
    with pytest.raises(ValueError, match="have had a bye"):
        pair_swiss_round(state, rng)


def _matchings(nodes: list[int], ok) -> Iterator[list[tuple[int, int]]]:
    """Every perfect matching of ``nodes`` whose pairs satisfy ``ok`` (brute force)."""
    if not nodes:
        yield []
        return
    a = nodes[0]
    for j in range(1, len(nodes)):
        if ok(a, nodes[j]):
            rest = nodes[1:j] + nodes[j + 1 :]
            for m in _matchings(rest, ok):
                yield [(a, nodes[j]), *m]


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


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_finds_a_pairing_whenever_one_exists(seed: int, stream: int):
    """Brute force on small fields: legal if possible, colour-clean if possible."""
    rng = np.random.default_rng([seed, stream])
    for _ in range(60):
        n = int(rng.integers(2, 12))
        state, seqs, played = _random_state(
            rng, n, float(rng.choice([0.3, 0.6, 0.85])), 7
        )
        had_bye = state.had_bye
        absent = [p for p in range(n) if rng.random() < 0.1]
        here = [p for p in range(n) if p not in absent]

        def legal(a: int, b: int, had_bye=had_bye, played=played) -> bool:
            if b == -1:
                return not had_bye[a]
            return (min(a, b), max(a, b)) not in played

        def clean(a: int, b: int, seqs=seqs, legal=legal) -> bool:
            if b == -1:
                return legal(a, b)
            return legal(a, b) and (
                (_colour_ok([*seqs[a], WHITE]) and _colour_ok([*seqs[b], BLACK]))
                or (_colour_ok([*seqs[a], BLACK]) and _colour_ok([*seqs[b], WHITE]))
            )

        nodes = here + ([-1] if len(here) % 2 else [])
        possible = next(_matchings(nodes, legal), None) is not None
        clean_possible = next(_matchings(nodes, clean), None) is not None
        if not possible:
            with pytest.raises(ValueError, match="cannot be paired"):
                pair_swiss_round(state, rng, absent=absent)
            continue
        rd = pair_swiss_round(state, rng, absent=absent)
        everyone = np.concatenate([rd.white, rd.black, rd.bye]).tolist()
        assert sorted(everyone) == here
        assert all(
            legal(a, b)
            for a, b in zip(rd.white.tolist(), rd.black.tolist(), strict=True)
        )
        assert all(not had_bye[p] for p in rd.bye.tolist())
        if clean_possible:
            for w, b in zip(rd.white.tolist(), rd.black.tolist(), strict=True):
                assert _colour_ok([*seqs[w], WHITE])
                assert _colour_ok([*seqs[b], BLACK])


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_random_histories_are_paired_legally(seed: int, stream: int):
    """Mid-size fields with random histories and many forced colours pair legally."""
    rng = np.random.default_rng([seed, stream])
    for _ in range(20):
        n = int(rng.integers(16, 120))
        state, _, played = _random_state(rng, n, 0.3 * rng.random(), 5)
        rd = pair_swiss_round(state, rng)
        everyone = np.concatenate([rd.white, rd.black, rd.bye])
        assert sorted(everyone.tolist()) == list(range(n))
        assert rd.bye.size == n % 2
        assert not state.had_bye[rd.bye].any()
        pairs = zip(rd.white.tolist(), rd.black.tolist(), strict=True)
        assert not any((min(a, b), max(a, b)) in played for a, b in pairs)


def test_swiss_large_field_round_is_legal():
    """A 100,000-player event pairs two rounds legally (vectorised path)."""
    rng = np.random.default_rng(11)
    n = 100_000
    strength = rng.normal(1700.0, 250.0, n)
    state = swiss_start(np.arange(n), strength + rng.normal(0.0, 80.0, n))
    keys_before = np.empty(0, dtype=np.int64)
    for _ in range(2):
        rd = pair_swiss_round(state, rng)
        everyone = np.concatenate([rd.white, rd.black, rd.bye])
        assert everyone.size == n
        assert np.unique(everyone).size == n
        keys = np.minimum(rd.white, rd.black) * n + np.maximum(rd.white, rd.black)
        assert not np.isin(keys, keys_before).any()
        keys_before = np.concatenate([keys_before, keys])
        state = record_swiss_round(
            state, rd, _results(rng, strength[rd.white], strength[rd.black])
        )
    assert np.all(np.abs(state.colour_diff) <= 2)


# --------------------------------------------------------------------------
# Swiss: many events at once (the engine's path) equal event by event


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


def _pair_both_ways(
    states: list[SwissState],
    rng: np.random.Generator,
    absent: list[list[int] | None] | None = None,
) -> list[Round] | None:
    """Pair with :func:`pair_swiss_rounds` and event by event; assert equal.

    Both must give the same rounds, or raise the same error, and leave the
    generator in the same state. Returns the rounds (None after an error);
    ``rng`` has advanced as the pairing advances it.
    """
    twin = np.random.default_rng()
    twin.bit_generator.state = rng.bit_generator.state
    got: list[Round] | Exception
    want: list[Round] | Exception
    try:
        got = pair_swiss_rounds(states, rng, absent=absent)
    except ValueError as error:
        got = error
    try:
        want = [
            pair_swiss_round(s, twin, absent=None if absent is None else absent[i])
            for i, s in enumerate(states)
        ]
    except ValueError as error:
        want = error
    assert rng.bit_generator.state == twin.bit_generator.state
    if isinstance(want, Exception):
        assert isinstance(got, ValueError)
        assert str(got) == str(want)
        return None
    assert not isinstance(got, Exception)
    _assert_same_rounds(got, want)
    return got


@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_batch_equals_event_by_event_over_whole_events(seed: int, stream: int):
    """Concurrent events of all sizes, to the last round, pair as one by one."""
    rng = np.random.default_rng([seed, stream])
    sizes = [*rng.integers(4, 60, 16).tolist(), 4, 5, 7, 40, 41, 137]
    states, strength, n_rounds = [], [], []
    for i, n in enumerate(sizes):
        players = 1_000 * i + rng.permutation(3 * n)[:n]
        s = rng.normal(1700.0, 250.0, n)
        rating = s + rng.normal(0.0, 80.0, n)
        rating[rng.random(n) < 0.15] = np.nan
        states.append(swiss_start(players, rating))
        strength.append(dict(zip(players.tolist(), s.tolist(), strict=True)))
        n_rounds.append(min(int(rng.choice([5, 7, 9, 11])), n // 2))
    while True:
        live = [i for i, s in enumerate(states) if s.n_rounds < n_rounds[i]]
        if not live:
            break
        now = [states[i] for i in live]
        absent: list[list[int] | None] | None = None
        if rng.random() < 0.5:
            absent = [
                [p for p in s.players.tolist() if rng.random() < 0.08] or None
                for s in now
            ]
        rounds = _pair_both_ways(now, rng, absent)
        if rounds is None:  # Both raised alike: a field cannot spare its absentees.
            rounds = _pair_both_ways(now, rng)
        if rounds is None:
            break
        scores = [
            _results(
                rng,
                np.array([strength[i][p] for p in rd.white.tolist()]),
                np.array([strength[i][p] for p in rd.black.tolist()]),
                float(rng.choice([35.0, 600.0])),
            )
            for i, rd in zip(live, rounds, strict=True)
        ]
        after = record_swiss_rounds(now, rounds, scores)
        _assert_same_states(
            after,
            [
                record_swiss_round(s, rd, x)
                for s, rd, x in zip(now, rounds, scores, strict=True)
            ],
        )
        for i, s in zip(live, after, strict=True):
            states[i] = s


def _random_batch(
    rng: np.random.Generator, n_events: int
) -> tuple[list[SwissState], list[list[int] | None]]:
    """Random mid-event states (some dead ends among them) and absentees."""
    states, absent = [], []
    for _e in range(n_events):
        n = int(rng.integers(2, 50))
        state, _, _ = _random_state(
            rng, n, float(rng.choice([0.05, 0.3, 0.6])), int(rng.integers(2, 12))
        )
        states.append(state)
        away = [p for p in range(n) if rng.random() < 0.1]
        absent.append(away if away else None)
    return states, absent


@pytest.mark.parametrize("mixed", [False, True])
@pytest.mark.parametrize("stream", STREAMS)
def test_swiss_batch_equals_event_by_event_on_random_histories(
    seed: int, stream: int, mixed: bool, monkeypatch: pytest.MonkeyPatch
):
    """Random mid-event states, odd fields, absentees and dead ends: as one by one."""
    if mixed:  # Fields over 30 entrants take the per-event path, in the same call.
        monkeypatch.setattr(pairing, "_MAX_TABLE", 30 * 30)
    rng = np.random.default_rng([seed, stream])
    for _ in range(8):
        states, absent = _random_batch(rng, int(rng.integers(1, 16)))
        _pair_both_ways(states, rng, absent if rng.random() < 0.7 else None)


def test_swiss_batch_mixes_exact_repairs_and_dead_ends_with_the_compiled_path(
    monkeypatch: pytest.MonkeyPatch,
):
    """Events left to the exact final repair, and a field out of byes, in a batch."""
    exact: list[SwissState] = []
    final_repair = pairing._final_repair

    def spy(state: SwissState, *args: object) -> None:
        exact.append(state)
        final_repair(state, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(pairing, "_final_repair", spy)
    rng = np.random.default_rng(2)
    for _ in range(50):
        states, absent = _random_batch(rng, 12)
        twin = np.random.default_rng()
        twin.bit_generator.state = rng.bit_generator.state
        exact.clear()
        try:
            pair_swiss_rounds(states, twin, absent=absent)
        except ValueError:
            continue
        # Some events, not all, need the exact repair of step 5.
        if 0 < len(exact) < len(states):
            break
    else:
        pytest.fail("No batch with an event for the exact repairs.")
    assert _pair_both_ways(states, rng, absent) is not None
    # A field out of byes: the batch raises as one by one, after the same lots.
    stuck = swiss_start(np.arange(3), [2000.0, 1900.0, 1800.0])
    stuck = stuck._replace(had_bye=np.ones(3, dtype=bool))
    assert _pair_both_ways([*states, stuck, states[0]], rng, None) is None


def test_swiss_batch_check_catches_broken_matchings():
    """The batch's check of the contract rejects every kind of broken matching."""
    rng = np.random.default_rng(4)
    # Players 0..n-1: positions in an event are the players.
    states = [swiss_start(np.arange(n), rng.normal(1800.0, 200.0, n)) for n in (5, 6)]
    first = pair_swiss_rounds(states, rng)
    states = record_swiss_rounds(states, first, [np.ones(r.n_games) for r in first])
    batch = pairing._SwissBatch(states, [None, None])
    batch.match()
    good = batch.mate.copy()

    def broken(event: int, pairs: list[tuple[int, int]]) -> bool:
        """The check, with ``pairs`` (positions in ``event``) replacing the matching."""
        batch.mate[:] = good
        b = int(batch.base[event])
        for x, y in pairs:
            batch.mate[b + x] = y
            if y >= 0:
                batch.mate[b + y] = x
        return bool(
            pairing._broken_matching(
                batch.base,
                batch.n,
                batch.order,
                batch.first_place,
                batch.n_present,
                batch.keys,
                batch.key_start,
                batch.ctx.had_bye,
                batch.mate,
            )
        )

    (w1, w2), (b1, b2) = first[0].white.tolist(), first[0].black.tolist()
    had_bye = int(first[0].bye[0])
    (u1, u2, u3), (v1, v2, v3) = first[1].white.tolist(), first[1].black.tolist()
    assert not broken(0, [])
    # Other pairings of fresh pairs, the bye to someone without one: fine.
    assert not broken(0, [(w1, 5), (w2, b1), (b2, had_bye)])
    assert not broken(1, [(u1, v2), (u2, v3), (u3, v1)])
    assert broken(1, [(u1, -1), (v1, -1), (u2, v3), (u3, v2)])  # Two unpaired.
    assert broken(1, [(u1, v1), (v1, u2)])  # Partners disagree.
    assert broken(1, [(u1, u1), (v1, v1), (u2, v3), (u3, v2)])  # With themselves.
    assert broken(1, [(u1, v1), (u2, u3), (v2, v3)])  # A repeated game.
    assert broken(1, [(u1, 6), (v1, -1)])  # A bye in an even field.
    assert broken(0, [(had_bye, 5), (w1, w2), (b1, b2)])  # A second bye.


def test_swiss_batch_broken_by_a_bug_warns_and_pairs_event_by_event(
    monkeypatch: pytest.MonkeyPatch,
):
    """A batch failing its contract check (a bug) warns, then pairs one by one."""
    rng = np.random.default_rng(6)
    states = [swiss_start(np.arange(n), rng.normal(1800.0, 200.0, n)) for n in (5, 8)]
    twin = np.random.default_rng()
    twin.bit_generator.state = rng.bit_generator.state
    calls: list[object] = []

    def broken(*args: object) -> bool:
        calls.append(args)
        return True

    monkeypatch.setattr(pairing, "_broken_matching", broken)
    with pytest.warns(RuntimeWarning, match="Internal error.*event by event"):
        got = pair_swiss_rounds(states, rng)
    assert len(calls) == 1
    _assert_same_rounds(got, [pair_swiss_round(s, twin) for s in states])
    assert rng.bit_generator.state == twin.bit_generator.state


def test_swiss_batch_handles_large_and_empty_fields():
    """Fields over the batched size, fields with everyone absent, and none at all."""
    rng = np.random.default_rng(5)
    assert pair_swiss_rounds([], rng) == []
    states = [
        swiss_start(np.arange(n), rng.normal(1800.0, 200.0, n))
        for n in (1_500, 6, 2_500, 9)
    ]
    absent = [None, list(range(6)), list(range(0, 2_500, 3)), [8]]
    for _ in range(3):
        rounds = _pair_both_ways(states, rng, absent)
        assert rounds is not None
        states = record_swiss_rounds(
            states, rounds, [_results(rng, rd.white, rd.black) for rd in rounds]
        )
    with pytest.raises(ValueError, match="one entry per event"):
        pair_swiss_rounds(states, rng, absent=[None])


def test_record_swiss_rounds_rejects_as_event_by_event():
    """Bad rounds in a batch raise what record_swiss_round raises for them."""
    rng = np.random.default_rng(0)
    states = [
        swiss_start(np.arange(k, k + 4), [2000.0, 1900.0, 1800.0, 1700.0])
        for k in (0, 10)
    ]
    rounds = pair_swiss_rounds(states, rng)
    good = [[1.0, 0.0], [0.5, 0.5]]
    empty = np.empty(0, dtype=np.intp)
    stranger = Round(np.array([10, 0]), np.array([11, 12]), empty)
    twice = Round(np.array([10, 11]), np.array([11, 12]), empty)
    cases = [
        ([rounds[0], stranger], good, "player 0 is not an entrant"),
        ([rounds[0]._replace(white=rounds[0].white + 99), rounds[1]], good, "is not"),
        ([rounds[0], twice], good, r"distinct players\. Got player 11"),
        (rounds, [[1.0, 0.0], [1.0, 0.3]], r"must be 0, 0\.5 or 1"),
        (rounds, [[1.0, 0.0], [1.0]], "equal lengths"),
    ]
    for rds, scores, message in cases:
        with pytest.raises(ValueError, match=message):
            record_swiss_rounds(states, rds, scores)
    with pytest.raises(ValueError, match="'bye_score' parameter"):
        record_swiss_rounds(states, rounds, good, bye_score=2.0)
    with pytest.raises(ValueError, match="equal lengths"):
        record_swiss_rounds(states, rounds[:1], good)
    after = record_swiss_rounds(states, rounds, good)
    with pytest.raises(ValueError, match="have met before"):
        record_swiss_rounds(after, rounds, good)
    assert record_swiss_rounds([], [], []) == []


def test_record_swiss_rounds_overlapping_events_and_huge_indices():
    """Events sharing a player, and huge player indices: as event by event."""
    rng = np.random.default_rng(3)
    for players in (
        [np.arange(6), np.arange(3, 9)],  # Players 3 to 5 in both events.
        [np.arange(6) * 10**12, np.arange(1, 7) * 10**12 + 1],
    ):
        states = [swiss_start(p, rng.normal(1800.0, 200.0, 6)) for p in players]
        for _ in range(3):
            rounds = [pair_swiss_round(s, rng) for s in states]
            even = [np.zeros(rd.n_games) for rd in rounds]
            scores = [_results(rng, x, x) for x in even]
            after = record_swiss_rounds(states, rounds, scores)
            _assert_same_states(
                after,
                [
                    record_swiss_round(s, rd, x)
                    for s, rd, x in zip(states, rounds, scores, strict=True)
                ],
            )
            states = after


@pytest.mark.parametrize("skip", [0, 1, 2])
def test_colour_lots_drawn_together_as_one_by_one(skip: int):
    """One draw of many lots takes the same numbers as one draw per event."""
    for seed in range(20):
        one = np.random.default_rng(seed)
        for _ in range(skip):  # Leaves half of a 64-bit output buffered.
            one.integers(2)
        together = np.random.default_rng()
        together.bit_generator.state = one.bit_generator.state
        lots = [pairing._draw_lot(one) for _ in range(seed)]
        assert pairing._draw_lots(together, seed).tolist() == lots
        assert together.bit_generator.state == one.bit_generator.state


# --------------------------------------------------------------------------
# Round robin

# FIDE Handbook C.05 Annex 1, Berger table for 9 or 10 players (White first).
BERGER_10 = """
1-10 2-9 3-8 4-7 5-6
10-6 7-5 8-4 9-3 1-2
2-10 3-1 4-9 5-8 6-7
10-7 8-6 9-5 1-4 2-3
3-10 4-2 5-1 6-9 7-8
10-8 9-7 1-6 2-5 3-4
4-10 5-3 6-2 7-1 8-9
10-9 1-8 2-7 3-6 4-5
5-10 6-4 7-3 8-2 9-1
"""


def test_round_robin_matches_the_fide_berger_table():
    """Ten players reproduce FIDE's Berger table board by board."""
    rounds = round_robin(np.arange(1, 11))
    table = [
        [tuple(int(x) for x in g.split("-")) for g in line.split()]
        for line in BERGER_10.strip().splitlines()
    ]
    assert [
        list(zip(r.white.tolist(), r.black.tolist(), strict=True)) for r in rounds
    ] == table


@pytest.mark.parametrize("n", range(2, 13))
def test_round_robin_every_pair_exactly_once(n: int):
    """Every pair meets exactly once; byes for odd n; colours balanced within 1."""
    players = np.arange(50, 50 + n)
    rounds = round_robin(players)
    assert len(rounds) == n - 1 + n % 2
    pairs = [
        frozenset(g)
        for r in rounds
        for g in zip(r.white.tolist(), r.black.tolist(), strict=True)
    ]
    assert len(pairs) == len(set(pairs)) == n * (n - 1) // 2
    byes = [int(p) for r in rounds for p in r.bye]
    assert sorted(byes) == (players.tolist() if n % 2 else [])
    for r in rounds:
        everyone = np.concatenate([r.white, r.black, r.bye])
        assert sorted(everyone.tolist()) == players.tolist()
    seqs = _colour_sequences(rounds)
    assert all(abs(sum(s)) <= 1 for s in seqs.values())


def test_round_robin_rejects_duplicates():
    """Duplicate players are a ValueError naming the player."""
    with pytest.raises(ValueError, match=r"distinct players\. Got player 3"):
        round_robin([1, 3, 2, 3])


# --------------------------------------------------------------------------
# Online pool


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("window", [0.0, 50.0, 150.0, 400.0])
def test_online_pairs_within_window_and_nobody_twice(
    seed: int, stream: int, window: float
):
    """Every online pairing is within the window; each player appears once."""
    rng = np.random.default_rng([seed, stream])
    n = 2001
    players = rng.permutation(10 * n)[:n]
    rating = np.round(rng.normal(1500.0, 300.0, n))
    rd = pair_online(players, rating, rng, window=window)
    everyone = np.concatenate([rd.white, rd.black, rd.bye])
    assert np.array_equal(np.sort(everyone), np.sort(players))
    r = dict(zip(players.tolist(), rating.tolist(), strict=True))
    diff = np.abs(
        [r[w] - r[b] for w, b in zip(rd.white.tolist(), rd.black.tolist(), strict=True)]
    )
    assert np.all(diff <= window)


@pytest.mark.parametrize("stream", STREAMS)
def test_online_without_jitter_leaves_out_only_isolated_players(seed: int, stream: int):
    """Without jitter, no two players left alone could have played each other."""
    rng = np.random.default_rng([seed, stream])
    rating = rng.normal(1500.0, 300.0, 500)
    rd = pair_online(np.arange(500), rating, rng, window=20.0, jitter=0.0)
    alone = np.sort(rating[rd.bye])
    assert np.all(np.diff(alone) > 20.0)
    assert rd.n_games > 150


def test_online_odd_run_sits_out_a_random_end_or_inner_player():
    """In a run of three, the one who sits out is drawn: first or last, not middle."""
    rng = np.random.default_rng(4)
    out = set()
    for _ in range(40):
        rd = pair_online([7, 8, 9], [1500.0, 1510.0, 1520.0], rng, jitter=0.0)
        assert rd.n_games == 1
        out.add(int(rd.bye[0]))
    assert out == {7, 9}


def test_online_jitter_varies_the_neighbours():
    """Repeated calls pair different neighbours; colours are drawn at random."""
    rng = np.random.default_rng(5)
    rating = rng.normal(1500.0, 200.0, 400)
    first = pair_online(np.arange(400), rating, rng)
    second = pair_online(np.arange(400), rating, rng)
    a = {
        frozenset(g)
        for g in zip(first.white.tolist(), first.black.tolist(), strict=True)
    }
    b = {
        frozenset(g)
        for g in zip(second.white.tolist(), second.black.tolist(), strict=True)
    }
    assert len(a & b) < 0.5 * len(a)
    lower_white = rating[first.white] < rating[first.black]
    assert 0.3 < lower_white.mean() < 0.7


def test_online_rejects_bad_input():
    """Negative window, NaN ratings, misaligned ratings and duplicates raise."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="'window' parameter of pair_online"):
        pair_online([0, 1], [1500.0, 1500.0], rng, window=-1.0)
    with pytest.raises(ValueError, match="'jitter' parameter of pair_online"):
        pair_online([0, 1], [1500.0, 1500.0], rng, jitter=-1.0)
    with pytest.raises(ValueError, match="must be finite"):
        pair_online([0, 1], [1500.0, np.nan], rng)
    with pytest.raises(ValueError, match="one entry per player"):
        pair_online([0, 1], [1500.0], rng)
    with pytest.raises(ValueError, match="distinct players"):
        pair_online([0, 0], [1500.0, 1500.0], rng)


# --------------------------------------------------------------------------
# Random pairing


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("n", [0, 1, 2, 7, 100])
def test_random_is_a_perfect_matching(seed: int, stream: int, n: int):
    """Everyone plays exactly once, except one bye when n is odd."""
    rng = np.random.default_rng([seed, stream])
    players = rng.permutation(3 * n)[:n]
    rd = pair_random(players, rng)
    assert rd.n_games == n // 2
    assert rd.bye.size == n % 2
    everyone = np.concatenate([rd.white, rd.black, rd.bye])
    assert np.array_equal(np.sort(everyone), np.sort(players))


def test_random_varies_opponents_and_colours():
    """Over many draws a player meets many opponents with both colours."""
    rng = np.random.default_rng(2)
    opponents, whites = set(), 0
    for _ in range(400):
        rd = pair_random(np.arange(10), rng)
        if 0 in rd.white:
            whites += 1
            opponents.add(int(rd.black[rd.white == 0][0]))
        else:
            opponents.add(int(rd.white[rd.black == 0][0]))
    assert opponents == set(range(1, 10))
    assert 140 < whites < 260


# --------------------------------------------------------------------------
# Invalid input


def test_duplicate_players_raise_everywhere():
    """Every entry point rejects a player listed twice, naming the player."""
    rng = np.random.default_rng(0)
    msg = r"distinct players\. Got player 4 more than once"
    with pytest.raises(ValueError, match=msg):
        swiss_start([1, 4, 4], [1500.0, 1600.0, 1700.0])
    with pytest.raises(ValueError, match=msg):
        pair_random([4, 1, 4], rng)
    state = swiss_start([1, 4, 5], [1500.0, 1600.0, 1700.0])
    with pytest.raises(ValueError, match=msg):
        pair_swiss_round(state, rng, absent=[4, 4])


def test_record_rejects_bad_rounds():
    """Strangers, bad scores, a player twice and repeated pairings raise."""
    rng = np.random.default_rng(0)
    state = swiss_start(np.arange(4), [2000.0, 1900.0, 1800.0, 1700.0])
    rd = pair_swiss_round(state, rng)
    with pytest.raises(ValueError, match=r"must be 0, 0\.5 or 1"):
        record_swiss_round(state, rd, [1.0, 0.3])
    with pytest.raises(ValueError, match="equal lengths"):
        record_swiss_round(state, rd, [1.0])
    with pytest.raises(ValueError, match="'bye_score' parameter"):
        record_swiss_round(state, rd, [1.0, 0.0], bye_score=2.0)
    stranger = Round(np.array([0, 9]), np.array([1, 2]), np.empty(0, dtype=np.intp))
    with pytest.raises(ValueError, match="player 9 is not an entrant"):
        record_swiss_round(state, stranger, [1.0, 0.0])
    twice = Round(np.array([0, 1]), np.array([1, 2]), np.empty(0, dtype=np.intp))
    with pytest.raises(ValueError, match=r"distinct players\. Got player 1"):
        record_swiss_round(state, twice, [1.0, 0.0])
    state = record_swiss_round(state, rd, [1.0, 0.0])
    with pytest.raises(ValueError, match="have met before"):
        record_swiss_round(state, rd, [1.0, 0.0])


def test_bad_players_and_rng_raise():
    """Non-integer, negative or 2-D players and a non-Generator rng are rejected."""
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="integer player indices"):
        pair_random([0.5, 1.0], rng)
    with pytest.raises(ValueError, match="non-negative"):
        pair_random([-1, 2], rng)
    with pytest.raises(ValueError, match="one-dimensional"):
        pair_random([[0, 1]], rng)
    with pytest.raises(ValueError, match="one entry per player"):
        swiss_start([0, 1], [1500.0])
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        pair_random([0, 1], 42)  # type: ignore[arg-type]
