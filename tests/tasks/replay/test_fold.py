"""Glicko-2's and Glicko-1's periods folded into per-player sums as games come.

The oracle is the replay with the period's games kept and rated in one call
(``pending_for(..., fold=False)``, itself held to the old joined batches byte
for byte by ``test_replay_pending.py``). The fold adds each segment's sums
in turn, so a player's terms are summed in another order: the ratings agree
within 1e-9 relative (the differences seen are about 1e-15), and everything
that does not depend on a sum's last bits is equal.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from test_replay_pending import _batches

from simulator.data.records import GameBatch, Players, read_games
from simulator.data.samples import write_lichess_pgn
from simulator.data.trf import read_trf
from simulator.systems import make_system
from simulator.systems._common import Games
from simulator.systems.glicko import Glicko
from simulator.systems.glicko2 import (
    Glicko2,
    Glicko2Sums,
    add_sums,
    period_sums,
    rate_from_sums,
    rate_period,
)
from simulator.tasks.replay import walk
from simulator.tasks.replay.pending import Folded, folds, pending_for
from simulator.tasks.replay.tournament import tournament_batches
from simulator.tasks.replay.walk import replay

#: The fold's tolerance against the games rated in one call (relative).
RTOL = 1e-9

TRF = Path(__file__).parents[2] / "data" / "swiss-madrid-2018.trf"


def _kept(system: Any, state: Any) -> Any:
    return pending_for(system, state, fold=False)


def _both(
    make: Any, systems: list[str], monkeypatch: pytest.MonkeyPatch, **options: Any
) -> tuple[walk.ReplayResult, walk.ReplayResult]:
    """The replay folded, then with the period's games kept."""
    folded = replay(make(), systems, **options)
    with monkeypatch.context() as m:
        m.setattr(walk, "pending_for", _kept)
        kept = replay(make(), systems, **options)
    return folded, kept


def _assert_close(a: pd.DataFrame, b: pd.DataFrame) -> None:
    """Equal frames, float columns within RTOL."""
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    for name in a.columns:
        x, y = a[name].to_numpy(), b[name].to_numpy()
        if x.dtype.kind == "f":
            np.testing.assert_allclose(x, y, rtol=RTOL, atol=0, equal_nan=True)
        else:
            assert np.array_equal(x, y), name


def _assert_same(folded: walk.ReplayResult, kept: walk.ReplayResult) -> None:
    assert folded.n_games == kept.n_games and folded.n_players == kept.n_players
    for name in ("ratings", "history", "predictions", "prediction"):
        a, b = getattr(folded, name), getattr(kept, name)
        assert (a is None) == (b is None), name
        if a is not None:
            _assert_close(a, b)


@pytest.mark.parametrize(
    "systems",
    [
        ["glicko2", "fide", "elo", "glicko"],
        ["w=glicko2:period=week", "y=glicko2:period=year:tau=0.3"],
        ["gq=glicko:period=quarter:c=20", "gw=glicko:period=week"],
    ],
)
@pytest.mark.parametrize("rated_share", [0.15, 0.6])
def test_fold_rates_as_the_kept_games(
    systems: list[str], rated_share: float, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Generated games over 14 months: ratings, history and predictions agree."""

    def make() -> Any:
        return iter(_batches(3, rated_share=rated_share))

    folded, kept = _both(
        make, systems, monkeypatch, history=True, predictions=True, seed="file"
    )
    _assert_same(folded, kept)


def test_fold_on_a_lichess_month(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generated Lichess-style month read in small batches: one period, folded."""
    out = io.BytesIO()
    write_lichess_pgn(out, 6000, n_players=400, seed=5)
    path = tmp_path / "month.pgn"
    path.write_bytes(out.getvalue())

    def make() -> Any:
        return read_games(path, players=Players(), batch_size=700)

    systems = ["glicko2", "glicko", "lichess"]
    folded, kept = _both(make, systems, monkeypatch, predictions=True)
    _assert_same(folded, kept)
    # Many parts per player: the fold is in use, and its sums' order shows
    # in the last bits of some ratings.
    a, b = folded.ratings["glicko2"], kept.ratings["glicko2"]
    assert folded.n_games == 6000 and (a != b).any()


def test_fold_on_the_shipped_tournament(monkeypatch: pytest.MonkeyPatch) -> None:
    """The shipped TRF, in batches of 20 games, weekly periods."""

    def make() -> Any:
        (batch,) = tournament_batches(read_trf(TRF))
        g, n = batch.games, batch.games.n_games
        for lo in range(0, n, 20):
            part = slice(lo, lo + 20)
            yield GameBatch(
                g.take(np.arange(n)[part]),
                batch.white_rating[part],
                batch.black_rating[part],
                batch.n_players,
            )

    folded, kept = _both(
        make, ["glicko2", "w=glicko2:period=week"], monkeypatch, seed="file"
    )
    assert folded.n_games == 396
    _assert_same(folded, kept)


def test_parts_of_a_period_add_up_to_the_period() -> None:
    """Sums of parts, added, rate a period as rate_period does, within RTOL."""
    rng = np.random.default_rng(11)
    n, m = 60, 900
    rating = rng.normal(1500, 300, n)
    rd = rng.uniform(40, 350, n)
    vol = rng.uniform(0.04, 0.09, n)
    white = rng.integers(0, n, m)
    black = (white + rng.integers(1, n, m)) % n
    score = rng.choice([0.0, 0.5, 1.0], m)
    whole = rate_period(rating, rd, vol, white, black, score)
    # One part is the whole: the same bits.
    one = rate_from_sums(rating, rd, vol, period_sums(rating, rd, white, black, score))
    for x, y in zip(whole, one, strict=True):
        assert np.array_equal(x, y)
    sums = period_sums(rating, rd, white[:0], black[:0], score[:0])
    assert not sums.info.any() and not sums.n_games.any()
    for lo in range(0, m, 77):
        part = slice(lo, lo + 77)
        sums = add_sums(
            sums, period_sums(rating, rd, white[part], black[part], score[part])
        )
    assert np.array_equal(sums.n_games, np.bincount(np.r_[white, black], minlength=n))
    parts = rate_from_sums(rating, rd, vol, sums)
    for x, y in zip(whole, parts, strict=True):
        np.testing.assert_allclose(y, x, rtol=RTOL, atol=0)


def test_rate_is_rate_from_sums() -> None:
    """Glicko2.rate is rate_from_sums of period_sums, bit for bit."""
    system = Glicko2(period="week")
    state = system.new_state(5, rating=[1500, np.nan, 1700, 1400, np.nan])
    games = Games([0, 2, 3, 0], [2, 3, 0, 3], [1.0, 0.5, 0.0, 1.0])
    a = system.rate(state, games)
    b = system.rate_from_sums(state, system.period_sums(state, games))
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x, y)
    # Never-played players stay new: no step-6 growth.
    assert a.rd[1] == a.rd[4] == system.initial_rd


def test_glicko1_rate_is_rate_from_sums() -> None:
    """Glicko-1's period: one part bit for bit, parts within RTOL, last days kept."""
    system = Glicko(period="week")
    rng = np.random.default_rng(4)
    n, m = 40, 600
    state = system.new_state(n, rating=np.where(rng.random(n) < 0.8, 1600.0, np.nan))
    white = rng.integers(0, n - 2, m)  # the last two never play
    black = (white + rng.integers(1, n - 2, m)) % (n - 2)
    day = np.sort(rng.uniform(0, 6, m)) + 19723
    games = Games(white, black, rng.choice([0.0, 0.5, 1.0], m), day=day)
    whole = system.rate(state, games)
    one = system.rate_from_sums(state, system.period_sums(state, games))
    for x, y in zip(whole, one, strict=True):
        assert np.array_equal(x, y, equal_nan=True)
    sums = system.period_sums(state, games.take(np.arange(0)))
    for lo in range(0, m, 50):
        sums = system.add_sums(
            sums, system.period_sums(state, games.take(np.arange(lo, min(lo + 50, m))))
        )
    parts = system.rate_from_sums(state, sums)
    for x, y in zip(whole, parts, strict=True):
        np.testing.assert_allclose(y, x, rtol=RTOL, atol=0, equal_nan=True)
    assert np.array_equal(whole.last_day, parts.last_day, equal_nan=True)
    assert np.isnan(parts.last_day[-2:]).all() and parts.n_games[-2:].tolist() == [0, 0]
    # Games without days: the period's day is their players' last day.
    undated = Games(white, black, games.score)
    a = system.rate(state, undated, day=19730.0)
    b = system.rate_from_sums(state, system.period_sums(state, undated), day=19730.0)
    assert np.array_equal(a.last_day, b.last_day, equal_nan=True)
    assert (a.last_day[:-2] == 19730.0).all()


def test_folded_memory_does_not_grow_with_games() -> None:
    """The running sums are per player; players who enter late join them."""
    system = Glicko2()
    fold = Folded(system)
    state = system.new_state(1000)
    rng = np.random.default_rng(2)
    sizes = []
    for n_players in (600, 600, 1000, 1000, 1000):
        white = rng.integers(0, n_players, 5000)
        black = (white + rng.integers(1, n_players, 5000)) % n_players
        fold.add(Games(white, black, rng.choice([0.0, 1.0], 5000)), state=state)
        sizes.append(sum(a.nbytes for a in fold._sums))
    assert fold.n_games == 25_000 and len(set(sizes)) == 1
    sums = fold.take(state)
    assert isinstance(sums, Glicko2Sums) and sums.n_games.sum() == 50_000
    # A period without games: the sums of none, its deviations grow.
    empty = fold.take(state)
    assert fold.n_games == 0 and not empty.n_games.any() and empty.info.shape == (1000,)


def test_only_systems_that_rate_from_sums_fold() -> None:
    """Glicko-2 and Glicko-1 fold; a subclass overriding rate, a list system not."""

    class Own(Glicko2):
        def rate(self, state: Any, games: Games, **kwargs: Any) -> Any:
            return super().rate(state, games, **kwargs)

    assert folds(Glicko2()) and not folds(Own())
    assert folds(Glicko()) and not folds(Glicko(per_game=True))
    for name in ("fide", "classic", "fide-2024", "glicko2", "glicko"):
        system = make_system(name)
        state = system.new_state(0, day=19723.0)
        folded = isinstance(pending_for(system, state), Folded)
        assert folded == name.startswith("glicko"), name
