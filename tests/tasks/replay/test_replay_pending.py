"""The replay's compact period games give the outputs of the old list of batches.

The oracle is the replay as it was before :mod:`simulator.tasks.replay.pending`:
every segment kept as a ``Games`` with all its fields, joined at the close,
the closing window cut by ``day``. It stands in for :func:`pending_for` here,
and both replays must agree to the byte on every output, with Glicko-2's
games kept (``fold=False``), not folded into sums: the fold sums in another
order, and ``test_fold.py`` holds it to the kept games within a tolerance.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from simulator.data.records import GameBatch
from simulator.evaluation.protocol import Window
from simulator.systems._common import Games
from simulator.tasks.replay import walk
from simulator.tasks.replay.pending import Pending, pending_for
from simulator.tasks.replay.walk import replay


class _Concat:
    """The old pending games: a list of whole segments, joined at the close."""

    def __init__(self) -> None:
        self.parts: list[Games] = []

    @property
    def n_games(self) -> int:
        return sum(p.n_games for p in self.parts)

    def add(self, games: Games, **_: Any) -> None:
        self.parts.append(games)

    def take(self, cut: int | None = None) -> Games:
        games = Games.concat(self.parts)
        self.parts = []
        if cut is not None and games.n_games:
            assert games.day is not None
            late = games.day >= cut
            if late.any():
                self.parts = [games.take(late)]
                games = games.take(~late)
        return games


def _batches(
    seed: int, *, n_games: int = 4000, n_players: int = 250, rated_share: float = 0.5
) -> list[GameBatch]:
    """Games over 14 months, skewed activity, some at fractional days."""
    rng = np.random.default_rng(seed)
    day = 19723.0 + rng.uniform(0, 14 * 30.4, n_games)  # from 2024-01-01
    day = np.sort(np.where(rng.random(n_games) < 0.5, np.floor(day), day))
    white = np.minimum((rng.pareto(1.2, n_games) * 20).astype(int), n_players - 1)
    black = (white + 1 + rng.integers(0, n_players - 1, n_games)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n_games, p=[0.4, 0.2, 0.4])
    strength = rng.normal(1700, 250, n_players).round()
    has = rng.random(n_players) < rated_share
    # Players numbered in order of appearance, as a reader numbers them.
    both = np.column_stack([white, black]).ravel()
    ids, first = np.unique(both, return_index=True)
    number = np.zeros(n_players, dtype=np.intp)
    number[ids[np.argsort(first)]] = np.arange(ids.size)
    rating_w = np.where(has[white], strength[white], np.nan)
    rating_b = np.where(has[black], strength[black], np.nan)
    white, black = number[white], number[black]
    out = []
    for lo in range(0, n_games, 500):
        part = slice(lo, lo + 500)
        top = int(max(white[: lo + 500].max(), black[: lo + 500].max())) + 1
        games = Games(white[part], black[part], score[part], day=day[part])
        out.append(GameBatch(games, rating_w[part], rating_b[part], top))
    return out


def _outputs(result: walk.ReplayResult) -> dict[str, Any]:
    out: dict[str, Any] = {
        name: getattr(result, name)
        for name in ("n_games", "n_players", "assumptions", "draw_parameters", "events")
    }
    for name in ("prediction", "calibration", "file_prediction", "ratings"):
        frame = getattr(result, name)
        out[name] = None if frame is None else frame.to_csv(float_format="%.17g")
    for name in ("history", "predictions"):
        frame = getattr(result, name)
        out[name] = None if frame is None else frame.to_csv(float_format="%.17g")
    out["protocol"] = repr(result.protocol)
    return out


CASES = [
    (["fide", "glicko2", "lichess", "elo"], {"predictions": True}),
    (["fide", "glicko2", "glicko"], {"seed": "file"}),
    (["fide", "classic", "fide-2024", "fide-history"], {"start_rating": 1500.0}),
    (
        ["f=fide:closing_days=6", "c=classic:closing_days=25", "w=glicko2:period=week"],
        {"seed": "file", "window": Window(test_share=0.3)},
    ),
    (["fc=fide:closing_days=12", "fide", "gq=glicko:period=quarter"], {"seed": "file"}),
]


def _kept(system: Any, state: Any) -> Any:
    """The replay's pending games, never folded into sums."""
    return pending_for(system, state, fold=False)


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("rated_share", [0.15, 0.6])
def test_compact_pending_gives_the_old_outputs(
    case: int, rated_share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every output, byte for byte, as with the old joined batches."""
    systems, options = CASES[case]
    options = {"history": True, **options}
    monkeypatch.setattr(walk, "pending_for", _kept)
    new = replay(iter(_batches(case, rated_share=rated_share)), systems, **options)
    monkeypatch.setattr(walk, "pending_for", lambda system, state: _Concat())
    old = replay(iter(_batches(case, rated_share=rated_share)), systems, **options)
    assert _outputs(new) == _outputs(old)


def _games(white: list[int], black: list[int], day: list[float]) -> Games:
    start = np.floor(day)
    score = np.resize([1.0, 0.5, 0.0], len(white))
    return Games(white, black, score, day, start.astype(np.intp), start)


def test_games_between_unrated_players_are_kept_once_a_player() -> None:
    """One such game per player and rating call; the others are all kept."""
    pending = Pending(days=False, events=True, unrated_once=True)
    unrated = np.array([True, True, True, False])
    games = _games([0, 1, 0, 2, 3, 1], [1, 0, 2, 1, 0, 2], [1, 2, 3, 4, 5, 6])
    pending.add(games, unrated_w=unrated[games.white], unrated_b=unrated[games.black])
    # Each unrated player's first side keeps its game (White's sides are
    # read first): 0 and 1 (players 0, 1), 3 (player 2); 2 and 5 repeat
    # them; game 4 has a rated side.
    again = _games([2, 1], [0, 0], [7, 8])
    pending.add(again, unrated_w=unrated[again.white], unrated_b=unrated[again.black])
    taken = pending.take()
    assert taken.white.tolist() == [0, 1, 2, 3]
    assert taken.black.tolist() == [1, 0, 1, 0]
    assert taken.score.tolist() == [1.0, 0.5, 1.0, 0.5]
    assert taken.event_start is not None and taken.event is not None
    assert taken.event_start.tolist() == [1.0, 2.0, 4.0, 5.0]
    assert taken.event.tolist() == [1, 2, 4, 5]
    assert taken.day is None
    # A new rating call: the players' games between them are kept again.
    pending.add(again, unrated_w=unrated[again.white], unrated_b=unrated[again.black])
    assert pending.take().white.tolist() == [2, 1]


def test_closing_window_games_stay_for_the_next_call() -> None:
    """take(cut) rates the games before cut; those on or after it stay, in order."""
    pending = Pending(days=True, events=True, unrated_once=False)
    games = _games([0, 1, 2, 3], [1, 2, 3, 0], [10.25, 19.5, 20.0, 21.75])
    pending.add(games)
    now = pending.take(cut=20)
    assert now.day is not None and now.day.tolist() == [10.25, 19.5]
    assert pending.n_games == 2
    rest = pending.take()
    assert rest.day is not None and rest.day.tolist() == [20.0, 21.75]
    assert rest.white.tolist() == [2, 3] and pending.n_games == 0


def test_pending_memory_per_game() -> None:
    """Glicko-2's kept games cost 10 bytes each, a list system's 14."""
    n = 50_000
    rng = np.random.default_rng(1)
    white = rng.integers(0, 1000, n)
    black = (white + 1 + rng.integers(0, 998, n)) % 1000
    games = _games(white.tolist(), black.tolist(), np.linspace(0, 27, n).tolist())
    for events, per_game in ((False, 10), (True, 14)):
        pending = Pending(days=False, events=events, unrated_once=False)
        pending.add(games)
        kept = sum(a[: pending.n_games].nbytes for a in pending._arrays.values())
        assert kept == per_game * n
        taken = pending.take()
        assert np.array_equal(taken.white, white) and np.array_equal(
            taken.score, games.score
        )


def test_wide_indices_and_far_days() -> None:
    """Indices past int32 widen the store; a day past 2**24 is an error."""
    pending = Pending(days=False, events=True, unrated_once=False)
    pending.add(_games([0], [1], [5.0]))
    pending.add(_games([2**31 + 5], [3], [6.0]))
    assert pending.take().white.tolist() == [0, 2**31 + 5]
    with pytest.raises(ValueError, match="within 2\\*\\*24 days"):
        pending.add(_games([0], [1], [2.0**24 + 3]))
