"""Tests of world.events: round-robin fill rules, Swiss sizes, rounds, federations."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.config import ScheduleConfig
from simulator.world.events import (
    EventsConfig,
    check_rounds,
    draw_rounds,
    form_events,
    round_weights,
)


def _form(rng: np.random.Generator, n: int = 400, fed: object = None, **keys: object):
    players = np.arange(1000, 1000 + n)
    rating = 1200.0 + 1200.0 * rng.random(n)
    federation = np.zeros(n, np.int16) if fed is None else fed
    robins, swiss = form_events(
        players,
        rating,
        federation,  # type: ignore[arg-type]
        share=0.2,
        size=10,
        field_size=40,
        events=EventsConfig(**keys),  # type: ignore[arg-type]
        rng=rng,
    )
    return players, rating, robins, swiss


@pytest.mark.parametrize("fill", ["top", "bands", "random", "invitation"])
def test_everyone_plays_once(rng: np.random.Generator, fill: str) -> None:
    """Every entrant is in exactly one event; round robins have their size."""
    players, _, robins, swiss = _form(rng, round_robin_fill=fill)
    seen = np.concatenate([*robins, *swiss])
    assert np.array_equal(np.sort(seen), players)
    assert len(robins) == 8 and all(r.size == 10 for r in robins)


def test_fill_rules(rng: np.random.Generator) -> None:
    """Top: the strongest; bands, random: every level; invitation leans up."""
    by = {}
    for fill in ("top", "bands", "random", "invitation"):
        _, rating, robins, _ = _form(rng, round_robin_fill=fill)
        r = rating[np.concatenate(robins) - 1000]
        by[fill] = r
        if fill != "random":
            # Groups of similar rating: each group within its own range.
            groups = [rating[g - 1000] for g in robins]
            spans = [g.max() - g.min() for g in groups]
            assert np.mean(spans) < 0.5 * (r.max() - r.min())
    assert by["top"].min() >= np.quantile(by["random"], 0.5)
    assert by["bands"].min() < 1500 and by["random"].min() < 1500
    assert by["invitation"].mean() > by["random"].mean()


def test_national_and_international(rng: np.random.Generator) -> None:
    """National Swiss events hold one federation; the rest are international."""
    fed = (np.arange(2000) % 4).astype(np.int16)
    _, _, _, swiss = _form(rng, n=2000, fed=fed, international_share=0.2)
    mixed = [s for s in swiss if np.unique(fed[s - 1000]).size > 1]
    single = [s for s in swiss if np.unique(fed[s - 1000]).size == 1]
    n_single = sum(s.size for s in single)
    n_mixed = sum(s.size for s in mixed)
    share = n_mixed / (n_single + n_mixed)
    assert 0.1 < share < 0.3


def test_swiss_sizes_and_rounds(rng: np.random.Generator) -> None:
    """Swiss sizes spread around the mean; rounds follow their weights."""
    _, _, _, swiss = _form(rng, n=4000, field_size_spread=0.6)
    sizes = np.array([s.size for s in swiss])
    assert sizes.min() >= 4 and sizes.std() > 10
    assert abs(sizes.mean() - 40) < 8
    events = EventsConfig(round_weights=(0.6, 0.3, 0.1))
    draws = np.array([draw_rounds((5, 7, 9), events, rng) for _ in range(3000)])
    assert abs(np.mean(draws == 5) - 0.6) < 5 * np.sqrt(0.24 / 3000)


def test_round_weights_match_rounds() -> None:
    """One weight per entry of ``rounds``, or a one-line error."""
    with pytest.raises(ValueError, match="round_weights"):
        ScheduleConfig(
            rounds=(5, 7), events=EventsConfig(round_weights=(1.0, 1.0, 1.0))
        )
    with pytest.raises(ValueError, match=r"round_robin_fill.*'elite'"):
        EventsConfig(round_robin_fill="elite")


def test_unset_round_weights_follow_the_rounds() -> None:
    """Unset weights: the documented ones for 5, 7, 9 rounds, equal otherwise."""
    events = EventsConfig()
    assert round_weights((5, 7, 9), events) == (0.4, 0.35, 0.25)
    assert round_weights((7, 9), events) == ()
    assert round_weights((5, 7, 9), EventsConfig(round_weights=())) == ()
    check_rounds("ScheduleConfig", (7, 9), events)  # no weights to match
