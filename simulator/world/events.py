"""Which OTB events a week's entrants form: :class:`EventsConfig`, :func:`form_events`.

Each week the engine draws who enters an event (by activity) and hands them
here with their pairing ratings and federations. :func:`form_events` splits
them into round robins and Swiss opens:

- round robins are filled by a documented rule (``round_robin_fill``): the
  top-rated share in groups of similar rating (the simple world), a random
  share in rating bands (norm events at every level), a random share in
  random groups, or invitations whose chance rises with rating;
- Swiss opens are of a mean size with an optional spread
  (``field_size_spread``), national (within a federation) or, for a share
  of the entries (``international_share``), international;
- a Swiss event's number of rounds is drawn with ``round_weights``
  (:func:`draw_rounds`).

With the simple world's keys (``experiments/world-simple.toml``: equal
rounds, no spread, ``"top"``, no international share) every draw is the
default world's before issue 17, in the same order.
Sources: docs/world.md, "FIDE standard (OTB classical)" ("Swiss opens of 5, 7
or 9 rounds dominate; round robins of about 10 players; most games are
domestic").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from simulator._validate import check_interval
from simulator.world import _keys

__all__ = [
    "DEFAULT_ROUNDS",
    "DEFAULT_ROUND_WEIGHTS",
    "FILL_RULES",
    "EventsConfig",
    "check_rounds",
    "draw_rounds",
    "form_events",
    "round_weights",
]

_OWNER = "EventsConfig"
IntArray = NDArray[np.intp]
FloatArray = NDArray[np.float64]

#: ``round_robin_fill`` choices.
FILL_RULES = ("top", "bands", "random", "invitation")
#: The schedule's default numbers of rounds, and how often each is played
#: when ``round_weights`` is not set (docs/world.md, "FIDE standard (OTB
#: classical)": opens of 5, 7 or 9 rounds; weekend opens the commonest, our
#: reading).
DEFAULT_ROUNDS = (5, 7, 9)
DEFAULT_ROUND_WEIGHTS = (0.4, 0.35, 0.25)


@dataclass(frozen=True)
class EventsConfig:
    """How a week's entrants form events (``[arena.schedule.events]``).

    Parameters
    ----------
    round_weights : tuple of float or None, default None
        Relative frequency (dimensionless) of each entry of the schedule's
        ``rounds``; empty: equally often. None: ``(0.4, 0.35, 0.25)`` when
        ``rounds`` is the default ``(5, 7, 9)``, equally often for any other
        ``rounds``. Source: docs/world.md, "FIDE standard (OTB classical)":
        Swiss opens of 5, 7 or 9 rounds dominate (9 rounds weighed least,
        weekend opens being the commonest; our reading).
        Unit: dimensionless (relative frequencies).
    field_size_spread : float, default 0.6
        Log-SD (log units) of a Swiss event's size, a lognormal of mean
        ``field_size`` (at least 4 players); 0: the week's Swiss entrants split
        into equal events. Our assumption: opens range from a dozen club
        players to hundreds (docs/world.md, "FIDE standard (OTB
        classical)").
        Unit: log units.
    round_robin_fill : {"top", "bands", "random", "invitation"}, default "bands"
        Who plays the week's round robins (``round_robin_share`` of the
        entries): ``"top"`` the top-rated entrants, in groups of similar
        rating (the simple world; it isolates the strongest players);
        ``"bands"`` a random share, in groups of similar rating (norm and
        club round robins at every level); ``"random"`` a random share in
        random groups; ``"invitation"`` a share drawn with weights
        ``exp(rating / invitation_width)`` (stronger players are invited
        more often, not always), in groups of similar rating. Source:
        docs/world.md, "FIDE standard (OTB classical)": round robins of
        about 10 players; issue 17 shows the top rule's effect.
    invitation_width : float, default 200.0
        Rating points per factor e of the invitation weight.
        Unit: rating points.
    international_share : float, default 0.15
        Share (0-1) of Swiss entries that go to international events, open
        to every federation; the others play national events within their
        federation (a federation with fewer than 4 such entrants in a week
        sends them to the international events). No draw with one
        federation. Source: docs/world.md, "FIDE standard (OTB classical)":
        most games are domestic.
        Unit: share of entries (0 to 1).
    """

    round_weights: tuple[float, ...] | None = None
    field_size_spread: float = 0.6
    round_robin_fill: str = "bands"
    invitation_width: float = 200.0
    international_share: float = 0.15

    def __post_init__(self) -> None:
        if self.round_weights is not None:
            w = _keys.floats(_OWNER, "round_weights", self.round_weights, empty=True)
            if w:
                _keys.weights(_OWNER, "round_weights", w)
            object.__setattr__(self, "round_weights", w)
        check_interval(_OWNER, "field_size_spread", self.field_size_spread, 0, 3)
        _keys.choice(_OWNER, "round_robin_fill", self.round_robin_fill, FILL_RULES)
        check_interval(
            _OWNER, "invitation_width", self.invitation_width, 0, 4000, closed="right"
        )
        check_interval(_OWNER, "international_share", self.international_share, 0, 1)


def check_rounds(owner: str, rounds: tuple[int, ...], events: EventsConfig) -> None:
    """Whole numbers of rounds in [1, 30], and one weight per entry if weighted."""
    if not rounds or any(
        not isinstance(r, int) or isinstance(r, bool) or r < 1 or r > 30 for r in rounds
    ):
        raise ValueError(
            f"The 'rounds' parameter of {owner} must be whole numbers in "
            f"[1, 30]. Got {rounds!r} instead."
        )
    if events.round_weights and len(events.round_weights) != len(rounds):
        raise ValueError(
            f"The 'round_weights' parameter of {_OWNER} must have one entry per "
            f"entry of 'rounds' ({len(rounds)}). Got {events.round_weights!r} instead."
        )


def round_weights(rounds: tuple[int, ...], events: EventsConfig) -> tuple[float, ...]:
    """The weights of ``rounds`` in force; empty: equally often.

    ``round_weights = None`` gives :data:`DEFAULT_ROUND_WEIGHTS` for
    :data:`DEFAULT_ROUNDS` and equal weights for other rounds, so a config
    that sets only ``rounds`` needs no weights.
    """
    if events.round_weights is not None:
        return events.round_weights
    return DEFAULT_ROUND_WEIGHTS if tuple(rounds) == DEFAULT_ROUNDS else ()


def draw_rounds(
    rounds: tuple[int, ...], events: EventsConfig, rng: np.random.Generator
) -> int:
    """A Swiss event's number of rounds (before the cap for small fields)."""
    weights = round_weights(rounds, events)
    if not weights:
        # The original draw: rng.choice(rounds) without its overhead.
        return rounds[int(rng.integers(0, len(rounds)))]
    # rng.choice(len(rounds), p=p) by its own steps (one uniform against the
    # normalised cumulative weights): the same draw and the same stream,
    # without choice's checks of p at every event.
    u = rng.random()
    return rounds[int(np.searchsorted(_cdf(weights), u, side="right"))]


@functools.cache
def _cdf(weights: tuple[float, ...]) -> FloatArray:
    """The cumulative probabilities of ``weights``, as ``Generator.choice`` has them."""
    p = np.asarray(weights) / np.sum(weights)
    cdf: FloatArray = p.cumsum()
    cdf /= cdf[-1]
    cdf.flags.writeable = False
    return cdf


def _by_rating(players: IntArray, rating: FloatArray) -> IntArray:
    """``players`` from the highest rating down, unrated last (stable)."""
    order = np.argsort(-np.where(np.isnan(rating), -np.inf, rating), kind="stable")
    out: IntArray = players[order]
    return out


def _swiss_groups(
    players: IntArray, field_size: int, spread: float, rng: np.random.Generator
) -> list[IntArray]:
    """Split (already shuffled) Swiss entrants into events."""
    if spread == 0:
        n_events = max(1, round(players.size / field_size))
        return list(np.array_split(players, n_events))
    sizes: list[int] = []
    while sum(sizes) < players.size:
        draw = field_size * np.exp(spread * rng.standard_normal() - 0.5 * spread**2)
        sizes.append(max(4, round(float(draw))))
    return list(np.split(players, np.cumsum(sizes)[:-1]))


def form_events(
    entrants: IntArray,
    rating: FloatArray,
    federation: NDArray[np.int16],
    *,
    share: float,
    size: int,
    field_size: int,
    events: EventsConfig,
    rng: np.random.Generator,
) -> tuple[list[IntArray], list[IntArray]]:
    """The week's round robins and Swiss events from its entrants.

    Parameters
    ----------
    entrants : ndarray of intp, shape (n,)
        The week's entrants.
    rating : ndarray of float64, shape (n,)
        Their pairing ratings (NaN: unrated, ranked last).
    federation : ndarray of int16, shape (n,)
        Their federations.
    share, size, field_size : float, int, int
        The schedule's ``round_robin_share``, ``round_robin_size`` and
        ``field_size``.
    events : EventsConfig
        The rules.
    rng : numpy.random.Generator
        The run's generator.

    Returns
    -------
    robins : list of ndarray
        Each round robin's players (``size`` each; the caller shuffles them).
    swiss : list of ndarray
        Each Swiss event's players (groups under 4 are the caller's to drop).
    """
    n_rr = int(entrants.size * share)
    n_rr -= n_rr % size
    fill = events.round_robin_fill
    if fill == "top":
        ranked = _by_rating(entrants, rating)
        rr, rest = ranked[:n_rr], ranked[n_rr:]
    else:
        if fill == "invitation":
            top = np.nanmax(rating) if np.any(~np.isnan(rating)) else 0.0
            low = np.nanmin(rating) if np.any(~np.isnan(rating)) else 0.0
            r = np.where(np.isnan(rating), low, rating) - top
            # Weighted sampling without replacement (Efraimidis-Spirakis keys).
            key = np.log(rng.random(entrants.size)) / np.exp(
                r / events.invitation_width
            )
            pick = np.argsort(-key, kind="stable")
        else:
            pick = rng.permutation(entrants.size)
        chosen, rest = pick[:n_rr], entrants[pick[n_rr:]]
        rr = (
            entrants[chosen]
            if fill == "random"
            else _by_rating(entrants[chosen], rating[chosen])
        )
    robins = list(rr.reshape(-1, size))
    swiss_players = rng.permutation(rest)
    if events.international_share == 0 or not np.any(federation):
        return robins, _swiss_groups(
            swiss_players, field_size, events.field_size_spread, rng
        )
    # National events within each federation, international ones across them.
    fed = np.zeros(entrants.max() + 1, dtype=np.int16)
    fed[entrants] = federation
    fed_of = fed[swiss_players]
    abroad = rng.random(swiss_players.size) < events.international_share
    swiss: list[IntArray] = []
    for f in np.unique(fed_of):
        home = swiss_players[(fed_of == f) & ~abroad]
        if home.size < 4:
            abroad[(fed_of == f)] = True
            continue
        swiss += _swiss_groups(home, field_size, events.field_size_spread, rng)
    swiss += _swiss_groups(
        swiss_players[abroad], field_size, events.field_size_spread, rng
    )
    return robins, swiss
