"""A FIDE tournament report (TRF-16) as game records for a replay.

A TRF (:mod:`simulator.data.trf`) holds every round of one tournament with
the round dates and each player's rating on the list the event used. As
game records it gives the played, rated games (result codes ``1 = 0`` with
colours; unrated games ``W D L`` and forfeits are left out), dated by their
round (the tournament's start where the file gives no round date), with both
players' TRF ratings as the file's ratings (``seed="file"``). Players are
named by their TRF name, or ``#START`` where the name was removed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import numpy as np

from simulator.data.records import GameBatch, Players
from simulator.data.trf import PLAYED, Tournament
from simulator.systems._common import Games

__all__ = ["tournament_batches"]

_EPOCH = dt.date(1970, 1, 1)


def tournament_batches(
    tournament: Tournament, players: Players | None = None
) -> Iterator[GameBatch]:
    """The tournament's rated games, in round order, as one batch.

    Examples
    --------
    >>> from simulator.data.trf import read_trf
    >>> t = read_trf("tests/data/swiss-madrid-2018.trf")
    >>> batch = next(tournament_batches(t))
    >>> batch.games.n_games, str(np.datetime64(int(batch.games.day[0]), "D"))
    (396, '2018-04-08')
    """
    players = Players() if players is None else players
    by_start = {p.start: p for p in tournament.players}
    games = [g for g in tournament.games if g.code in PLAYED and g.colours]
    games.sort(key=lambda g: (g.round, g.white))
    if not games:
        return
    white, black, score, day, wr, br = [], [], [], [], [], []
    for g in games:
        w, b = by_start[g.white], by_start[g.black]
        white.append(players.index_of(w.name or f"#{w.start}"))
        black.append(players.index_of(b.name or f"#{b.start}"))
        score.append(g.score)
        day.append(float(((g.day or tournament.start) - _EPOCH).days))
        wr.append(np.nan if w.rating is None else float(w.rating))
        br.append(np.nan if b.rating is None else float(b.rating))
    yield GameBatch(
        Games(
            np.asarray(white, dtype=np.intp),
            np.asarray(black, dtype=np.intp),
            np.asarray(score, dtype=np.float64),
            day=np.asarray(day, dtype=np.float64),
        ),
        np.asarray(wr, dtype=np.float64),
        np.asarray(br, dtype=np.float64),
        len(players),
    )
