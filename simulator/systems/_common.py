"""Shared pieces of every rating system: validation, rounding, calendars, rounds.

Everything here is used by more than one system; a rule that belongs to one
system lives in that system's module. The batch of games they all rate,
:class:`~simulator.systems.games.Games`, has a module of its own and is
re-exported here.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from simulator._jit import jit
from simulator._types import BoolArray, FloatArray, IntArray, read_only_view
from simulator._validate import check_choice, check_interval
from simulator.systems.games import Games
from simulator.systems.tables import dp_from_p

__all__ = [
    "EPOCH",
    "FloatArray",
    "Games",
    "IntArray",
    "check_choice",
    "check_interval",
    "check_players_count",
    "day_of",
    "list_day_after",
    "list_day_on",
    "player_sum",
    "read_only_view",
    "round_half_away",
    "round_half_up",
    "year_of",
]


#: Days are counted from this date (numpy's own epoch), so ``day 0`` is
#: 1970-01-01 and ``np.datetime64(day, "D")`` converts back.
EPOCH = np.datetime64("1970-01-01", "D")


def round_half_away(x: ArrayLike) -> FloatArray:
    """Round to whole numbers, halves away from zero (FIDE: +2.5 -> 3, -2.5 -> -3).

    Python's ``round`` and ``np.round`` round halves to even, which FIDE does not.

    >>> round_half_away([2.5, -2.5, 1.4, -1.6]).tolist()
    [3.0, -3.0, 1.0, -2.0]
    """
    a = np.asarray(x, dtype=np.float64)
    # Not floor(|a| + 0.5): that sum is itself rounded, so 0.49999999999999994
    # would become 1 and odd integers above 2**52 would move. ``a - trunc(a)``
    # is exact.
    whole = np.trunc(a)
    with np.errstate(invalid="ignore"):  # inf - inf for infinite entries
        half_or_more = np.abs(a - whole) >= 0.5
    out: FloatArray = whole + np.sign(a) * half_or_more
    return out


def round_half_up(x: ArrayLike, decimals: int = 0) -> FloatArray:
    """Round halves up (towards +inf), as FIDE's initial-rating arithmetic reads.

    A tiny relative nudge absorbs binary representation error, so that
    ``4/7`` style values that are exactly ``.xx5`` on paper round up.

    >>> round_half_up([0.565, 1872.5, -0.5], 0).tolist()
    [1.0, 1873.0, 0.0]
    >>> round_half_up(0.565, 2).item()
    0.57
    """
    a = np.asarray(x, dtype=np.float64)
    scale = 10.0**decimals
    scaled = a * scale
    return np.floor(scaled + 0.5 + 1e-9 * np.maximum(1.0, np.abs(scaled))) / scale


def player_sum(index: IntArray, weights: ArrayLike, n_players: int) -> FloatArray:
    """Sum ``weights`` per player: one ``np.bincount`` pass, a scatter-add."""
    sums = np.bincount(index, weights=weights, minlength=n_players)
    return sums.astype(np.float64, copy=False)


def day_of(date: str | np.datetime64) -> int:
    """Day number of a calendar date (days since 1970-01-01).

    >>> day_of("2024-03-01")
    19783
    """
    return int(np.asarray(date, dtype="datetime64[D]").astype(np.int64))


def year_of(day: float) -> int:
    """Calendar year of a day number.

    >>> year_of(day_of("2024-12-31"))
    2024
    """
    return (
        int(np.datetime64(int(np.floor(day)), "D").astype("datetime64[Y]").astype(int))
        + 1970
    )


def list_day_after(day: float, months: int) -> int:
    """The first list date after ``day`` on a calendar of ``months``-month lists.

    Lists are dated the 1st of a month whose index (months since January 1970) is
    a multiple of ``months``: monthly lists every 1st, quarterly lists on 1 January,
    1 April, 1 July and 1 October.

    >>> str(np.datetime64(list_day_after(day_of("2024-03-15"), 1), "D"))
    '2024-04-01'
    >>> str(np.datetime64(list_day_after(day_of("2024-04-01"), 3), "D"))
    '2024-07-01'
    """
    month = int(
        np.datetime64(int(np.floor(day)), "D").astype("datetime64[M]").astype(int)
    )
    nxt = (month // months + 1) * months
    return int(np.datetime64(nxt, "M").astype("datetime64[D]").astype(np.int64))


def list_day_on(day: float, months: int) -> int:
    """The list in force on ``day``: the last list date at or before it.

    >>> str(np.datetime64(list_day_on(day_of("2024-05-20"), 3), "D"))
    '2024-04-01'
    """
    month = int(
        np.datetime64(int(np.floor(day)), "D").astype("datetime64[M]").astype(int)
    )
    start = (month // months) * months
    return int(np.datetime64(start, "M").astype("datetime64[D]").astype(np.int64))


def check_lengths(owner: str, **arrays: np.ndarray[Any, Any]) -> None:
    """Raise ValueError unless the named arrays are 1-D and of one length.

    The compiled loops read their arrays by position, without bounds checks:
    a shorter array would be read (or written) past its end.
    """
    shapes = {name: array.shape for name, array in arrays.items()}
    if len(set(shapes.values())) > 1 or any(len(s) != 1 for s in shapes.values()):
        shown = ", ".join(f"{name} {shape}" for name, shape in shapes.items())
        raise ValueError(
            f"{owner}: these arrays must be 1-D and of one length; got shapes {shown}."
        )


def check_players_count(n_players: object) -> None:
    """Raise ``ValueError`` unless ``n_players`` is a whole number >= 0."""
    if not isinstance(n_players, int | np.integer) or isinstance(n_players, bool):
        raise ValueError(f"n_players must be a whole number. Got {n_players!r}.")
    if n_players < 0:
        raise ValueError(f"n_players must be >= 0. Got {n_players!r}.")


_Array = TypeVar("_Array", bound="np.ndarray[Any, Any]")


def reusable(array: _Array, overwrite: bool) -> _Array:
    """``array`` itself when the caller allows overwriting it, else a copy.

    The ``overwrite_state`` option of a per-game system's ``rate`` (the
    convention of scipy's ``overwrite_a``): the engine, which drops the old
    state, saves a copy of every per-player array each round. Read-only
    arrays are copied all the same.
    """
    return array if overwrite and array.flags.writeable else array.copy()


def game_days(games: Games, day: float | None, owner: str) -> FloatArray:
    """Each game's day: ``games.day``, else ``day`` for all, else ValueError.

    For the per-game systems whose deviation grows with the time between
    games; ``owner`` names the system in the messages.
    """
    if games.day is not None:
        days = np.asarray(games.day, dtype=np.float64)
    elif day is not None:
        days = np.full(games.n_games, float(day))
    else:
        raise ValueError(
            f"{owner}.rate needs the day of every game for the RD growth: "
            "give Games.day or the day= argument."
        )
    if not np.all(np.isfinite(days)):
        raise ValueError(f"{owner}.rate: game days must be finite numbers.")
    return days


def days_since_last(
    days: FloatArray, before: FloatArray, player: IntArray, owner: str
) -> FloatArray:
    """Days from each side's last game to this round's, 0 before a first game.

    ``player`` and ``before`` (the last game's day, NaN for none) are the
    round's sides, White's then Black's; ``days`` is each game's day. A game
    before a side's last one is a ValueError naming the player (``owner``
    names the system).
    """
    k = days.shape[0]
    elapsed = np.empty(2 * k)
    np.subtract(days, before[:k], out=elapsed[:k])
    np.subtract(days, before[k:], out=elapsed[k:])
    elapsed = np.where(np.isnan(before), 0.0, elapsed)
    if np.any(elapsed < 0):
        i = int(np.flatnonzero(elapsed < 0)[0])
        raise ValueError(
            f"{owner}.rate: player {int(player[i])} has a game on day "
            f"{float(days[i % k])!r}, before their last game on day "
            f"{float(before[i])!r}."
        )
    return elapsed


_Tuple = TypeVar("_Tuple", bound=tuple[Any, ...])


def reusable_state(state: _Tuple, overwrite: bool) -> _Tuple:
    """A state (a NamedTuple of per-player arrays) with :func:`reusable` arrays."""
    return type(state)(*(reusable(a, overwrite) for a in state))


def grown_size(owner: str, size: int, n_players: object) -> int:
    """Check a ``grow`` to ``n_players`` from a state of ``size`` players.

    Returns ``n_players`` as an int; ValueError (naming ``owner``) if the
    state has no player to copy or ``n_players`` is smaller than ``size``.
    """
    check_players_count(n_players)
    n: int = operator.index(n_players)  # type: ignore[arg-type]
    if size == 0:
        raise ValueError(
            f"{owner}.grow copies the state's last player; the state has none."
        )
    if n < size:
        raise ValueError(
            f"{owner}.grow: n_players ({n}) must be at least the state's "
            f"{size} players."
        )
    return n


def with_copies_of_last(a: _Array, n_players: int) -> _Array:
    """``a`` grown to ``n_players`` on its last axis, by copies of its last entry."""
    size = a.shape[-1]
    out = np.empty((*a.shape[:-1], n_players), dtype=a.dtype)
    out[..., :size] = a
    out[..., size:] = a[..., size - 1 : size]
    return out  # type: ignore[return-value]


def grow_state(state: _Tuple, n_players: int, owner: str) -> _Tuple:
    """``state`` (a NamedTuple of per-player arrays) grown to ``n_players``.

    The players appended are copies of the last one. For the ``grow`` of the
    systems whose state is one value per player and field, with no field
    that depends on the player (``GrowingSystem``, docs/design.md, "Period
    states grow with the pool"): a player who never played holds what any
    other such player holds.
    """
    n = grown_size(owner, state[0].shape[0], n_players)
    return type(state)(*(with_copies_of_last(a, n) for a in state))


@jit
def gather(values: FloatArray, index: IntArray, out: FloatArray) -> FloatArray:
    """``values[index]`` into ``out``, for valid indices (unchecked).

    One array per loop: gathering several at once is slower when together
    they do not fit in the CPU's cache (as with four arrays of 100,000
    players), one at a time they do.
    """
    for i in range(index.shape[0]):
        out[i] = values[index[i]]
    return out


@jit
def scatter(values: FloatArray, index: IntArray, out: FloatArray) -> None:
    """``out[index] = values`` for valid indices (unchecked), as :func:`gather`."""
    for i in range(index.shape[0]):
        out[index[i]] = values[i]


def round_arrays(
    old: tuple[FloatArray, ...], player: IntArray, overwrite: bool
) -> list[FloatArray]:
    """The arrays a per-game round's new values go into, at ``player``.

    ``old`` are the state's arrays of values (rating, RD, ...) and
    ``player`` the round's sides (White's then Black's, all distinct). The
    old arrays themselves when ``overwrite`` allows it (:func:`reusable`),
    else new ones: empty when everyone played (every entry is written, by
    :func:`scatter`), copies otherwise.
    """
    everyone = player.size == old[0].shape[0]
    return [
        np.empty_like(a)
        if everyone and not (overwrite and a.flags.writeable)
        else reusable(a, overwrite)
        for a in old
    ]


def round_counts(
    n_games: IntArray,
    last_day: FloatArray,
    player: IntArray,
    days: FloatArray,
    overwrite: bool,
) -> tuple[IntArray, FloatArray]:
    """Game counts and last-game days after a per-game round.

    ``player`` are the round's sides (White's then Black's, all distinct),
    ``days`` each game's day. Written into the old arrays when
    ``overwrite`` allows it (:func:`reusable`).
    """
    n_players = n_games.shape[0]
    if player.size == n_players:
        # Everyone played: whole arrays, written into when allowed. Each
        # side's day: one number if the round has one (bit for bit, as the
        # engine's rounds do).
        bits = days.view(np.int64)
        when = days[0] if np.all(bits == bits[0]) else np.concatenate([days, days])
        if overwrite and n_games.flags.writeable:
            n_games += 1
        else:
            n_games = n_games + 1
        if not (overwrite and last_day.flags.writeable):
            last_day = np.empty(n_players)
        if np.ndim(when) == 0:
            last_day[:] = when
        else:
            last_day[player] = when
        return n_games, last_day
    n_games = reusable(n_games, overwrite)
    last_day = reusable(last_day, overwrite)
    _count_sides(n_games, last_day, player, days)
    return n_games, last_day


@jit
def _count_sides(
    n_games: IntArray, last_day: FloatArray, player: IntArray, days: FloatArray
) -> None:
    """One more game and the game's day for each side (all distinct), in place.

    ``player`` holds White's sides then Black's, ``days`` each game's day:
    side ``i`` played on ``days[i % n_games_in_round]``. One loop, not two
    fancy-indexed writes: a round of a few games costs microseconds.
    """
    k = days.shape[0]
    for i in range(player.shape[0]):
        p = player[i]
        n_games[p] += 1
        last_day[p] = days[i % k]


_State = TypeVar("_State")


def rate_games(
    state: _Tuple,
    games: Games,
    day: float | None,
    owner: str,
    rate_round: Callable[..., _Tuple],
    overwrite: bool,
    predict: Callable[[_Tuple, IntArray, IntArray], FloatArray] | None = None,
    expected: FloatArray | None = None,
) -> _Tuple:
    """A per-game system's ``rate`` (and ``predict_and_rate``) of checked ``games``.

    No games: the state as it is (:func:`reusable_state`); otherwise each
    game's day (:func:`game_days`, ``owner`` naming the system in errors) and
    :func:`rate_in_rounds`, with ``predict`` and ``expected`` passed on.
    """
    if games.n_games == 0:
        return reusable_state(state, overwrite)
    days = game_days(games, day, owner)
    return rate_in_rounds(
        state, games, days, rate_round, overwrite, predict=predict, expected=expected
    )


def predict_and_rate_games(
    state: _Tuple,
    games: Games,
    day: float | None,
    owner: str,
    rate_round: Callable[..., _Tuple],
    overwrite: bool,
    predict: Callable[[_Tuple, IntArray, IntArray], FloatArray],
) -> tuple[_Tuple, FloatArray]:
    """A per-game system's ``predict_and_rate`` of checked ``games``.

    :func:`rate_games`, with each game's ``predict(state, white, black)``
    (White's expected score) from the state before its round.
    """
    expected = np.empty(games.n_games)
    state = rate_games(
        state, games, day, owner, rate_round, overwrite, predict, expected
    )
    return state, expected


def rate_in_rounds(
    state: _State,
    games: Games,
    days: FloatArray,
    rate_round: Callable[..., _State],
    overwrite: bool,
    predict: Callable[[_State, IntArray, IntArray], FloatArray] | None = None,
    expected: FloatArray | None = None,
) -> _State:
    """Rate non-empty ``games`` in order, one round of distinct players at a time.

    ``rate_round(state, white, black, score, days, overwrite=...)`` rates one
    round. The engine's rounds (no player twice) go in one call; other
    batches are split by :func:`split_rounds`, and after the first round the
    state is this call's own, so later rounds may overwrite it.

    With ``predict`` (``predict(state, white, black)``, White's expected
    scores) each round's games are first predicted from the state before
    the round, into ``expected`` (one entry per game): the per-game
    systems' ``predict_and_rate``.
    """
    white, black, score = games.white, games.black, games.score
    if _disjoint(white, black):
        if predict is not None:
            assert expected is not None
            expected[:] = predict(state, white, black)
        return rate_round(state, white, black, score, days, overwrite=overwrite)
    for i, idx in enumerate(_rounds_of(white, black)):
        w, b = white[idx], black[idx]
        if predict is not None:
            assert expected is not None
            expected[idx] = predict(state, w, b)
        state = rate_round(
            state,
            w,
            b,
            score[idx],
            days[idx],
            overwrite=overwrite or i > 0,
        )
    return state


@jit
def _disjoint(white: IntArray, black: IntArray) -> bool:
    """Whether ``white`` and ``black`` name every player at most once.

    O(n), no sort: mark every player named, stopping at one named twice.
    False for negative indices, which are left to the general path.
    """
    if white.shape[0] == 0 and black.shape[0] == 0:
        return True
    # The bounds by loops: .min() and .max() are slow to compile.
    low = high = white[0] if white.shape[0] else black[0]
    for p in white:
        low, high = min(low, p), max(high, p)
    for p in black:
        low, high = min(low, p), max(high, p)
    if low < 0:
        return False
    seen = np.zeros(high + 1, dtype=np.bool_)
    return _mark_once(white, seen) and _mark_once(black, seen)


@jit
def _mark_once(players: IntArray, seen: BoolArray) -> bool:
    """Mark ``players`` in ``seen``; False at the first one marked already."""
    for p in players:
        if seen[p]:
            return False
        seen[p] = True
    return True


def split_rounds(white: IntArray, black: IntArray) -> list[IntArray]:
    """Split games, in order, into rounds in which each player plays at most once.

    Updating a round at once equals updating its games one by one, so per-game
    systems stay exact under vectorisation. A game joins the earliest round
    after every earlier game of either of its players. The engine already
    delivers rounds (one, found without a sort); other batches (a replayed
    game list, a month of games in one call) take one compiled pass over the
    games, however many rounds they make.

    Parameters
    ----------
    white, black : ndarray of int, shape (n_games,)
        Player indices, non-negative, in the order the games were played.

    Returns
    -------
    list of ndarray of int
        The positions of each round's games, in game order; no round is empty.

    >>> white, black = np.array([0, 1, 2, 4]), np.array([1, 2, 3, 5])
    >>> [r.tolist() for r in split_rounds(white, black)]
    [[0, 3], [1], [2]]
    """
    n_games = white.shape[0]
    if n_games == 0:
        return []
    if _disjoint(white, black):
        return [np.arange(n_games)]
    return _rounds_of(white, black)


def _rounds_of(white: IntArray, black: IntArray) -> list[IntArray]:
    """:func:`split_rounds` of non-empty games known not to be one round."""
    low = min(int(white.min()), int(black.min()))
    if low < 0:
        raise ValueError(f"split_rounds: player indices must be >= 0, got {low}.")
    n_players = max(int(white.max()), int(black.max())) + 1
    order, starts = _by_round(
        np.asarray(white, dtype=np.intp), np.asarray(black, dtype=np.intp), n_players
    )
    return np.split(order, starts[1:])


@jit
def _by_round(
    white: IntArray, black: IntArray, n_players: int
) -> tuple[IntArray, IntArray]:
    """Each game's round (1 + the latest round of either player so far), grouped.

    Returns the games' positions sorted by round, stably, and where each
    round's games start in that order: a counting sort, O(n_games +
    n_players).
    """
    n_games = white.shape[0]
    latest = np.zeros(n_players, dtype=np.intp)
    round_of = np.empty(n_games, dtype=np.intp)
    n_rounds = 0
    for i in range(n_games):
        r = max(latest[white[i]], latest[black[i]]) + 1
        latest[white[i]] = r
        latest[black[i]] = r
        round_of[i] = r
        n_rounds = max(n_rounds, r)
    # Round r's games (r from 1) start at starts[r - 1] once sorted; each
    # game goes to its round's next free place.
    count = np.zeros(n_rounds, dtype=np.intp)
    for i in range(n_games):
        count[round_of[i] - 1] += 1
    starts = np.empty(n_rounds, dtype=np.intp)
    free = np.empty(n_rounds, dtype=np.intp)
    at = 0
    for r in range(n_rounds):
        starts[r] = free[r] = at
        at += count[r]
    order = np.empty(n_games, dtype=np.intp)
    for i in range(n_games):
        r = round_of[i] - 1
        order[free[r]] = i
        free[r] += 1
    return order, starts


def initial_values(
    n_players: int,
    values: ArrayLike | None,
    default: float,
    name: str,
    *,
    low: float = -np.inf,
    high: float = np.inf,
) -> FloatArray:
    """Per-player starting values: ``values`` where given and not NaN, else ``default``.

    A given value outside ``[low, high]`` (an infinite one always) is a
    ``ValueError`` naming the first.

    >>> initial_values(3, [1800, np.nan, 2000], 1500.0, "rating").tolist()
    [1800.0, 1500.0, 2000.0]
    """
    if values is None:
        return np.full(n_players, float(default))
    a = np.array(values, dtype=np.float64)
    if a.shape != (n_players,):
        raise ValueError(f"{name!r} must have one entry per player ({n_players}).")
    bad = ~np.isnan(a) & ~((a >= low) & (a <= high) & np.isfinite(a))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name!r} of player {i} is {float(a[i])!r}: it must lie in "
            f"[{low:g}, {high:g}]."
        )
    return np.where(np.isnan(a), default, a)


def seeded_last_day(
    n_players: int, rating: ArrayLike | None, n_games: IntArray, day: float | None
) -> FloatArray:
    """Each player's last game day in a new per-game pool (Glicko, Lichess).

    A seeded player (a ``rating`` given and not NaN, or ``n_games > 0``)
    counts as having last played on ``day``; everyone else, and everyone
    without ``day``, has NaN (never played).

    >>> seeded_last_day(3, [1800, np.nan, np.nan], np.array([0, 2, 0]), 10).tolist()
    [10.0, 10.0, nan]
    """
    last_day = np.full(n_players, np.nan)
    if day is not None:
        seeded = n_games > 0
        if rating is not None:
            seeded |= ~np.isnan(np.asarray(rating, dtype=np.float64))
        last_day[seeded] = float(day)
    return last_day


#: The largest deviation a Glicko system takes (its own default is 350; the
#: squares of much larger ones overflow to inf and make every rating NaN).
MAX_RD = 10_000.0
#: The largest volatility a Glicko-2 system takes (Glickman's default is
#: 0.06; 1e300 overflows its square).
MAX_VOLATILITY = 10.0


def check_new_player(
    owner: str,
    initial_rating: float,
    initial_rd: float,
    initial_volatility: float | None = None,
) -> None:
    """Check a Glicko system's new-player values, in this order.

    The rating finite (an infinite one makes every E NaN), the deviation and
    the volatility (where the system has one) positive and at most
    :data:`MAX_RD` and :data:`MAX_VOLATILITY`.
    """
    check_interval(
        owner,
        "initial_rating",
        initial_rating,
        -np.inf,
        np.inf,
        closed="neither",
    )
    check_interval(owner, "initial_rd", initial_rd, 0, MAX_RD, closed="right")
    if initial_volatility is not None:
        check_interval(
            owner,
            "initial_volatility",
            initial_volatility,
            0,
            MAX_VOLATILITY,
            closed="right",
        )


def average_and_dp(
    opp_rating_sum: ArrayLike, n: ArrayLike, points: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray, NDArray[np.int64]]:
    """The inputs of the old initial-rating rules, without hypothetical opponents.

    ``n`` and ``points`` (W) as floats, ``Ra`` the plain average of the rated
    opponents (``sum / n``) and ``dp(p)`` of table 8.1.1 with ``p = W / n``
    rounded half up to hundredths (0.50 where ``n`` is 0): what the 2003
    Handbook B0206 and FIDE 7.1.4 as in force 2014-2024 start from.

    >>> [a.item() for a in average_and_dp(9 * 2000, 9, 3)]
    [9.0, 3.0, 2000.0, -125]
    """
    n = np.asarray(n, dtype=np.float64)
    w = np.asarray(points, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        ra = np.asarray(opp_rating_sum, dtype=np.float64) / n
        p = np.rint(round_half_up(np.where(n > 0, w / n, 0.5), 2) * 100)
    return n, w, ra, dp_from_p(p.astype(np.int64))
