"""A DataFrame of games between named players as the walk-forward replay reads it.

The notebook API (:func:`simulator.api.rate`, :func:`simulator.api.tune`)
takes games as a pandas DataFrame; :func:`prepare` checks it and turns it into
the batches the replay reads (:class:`~simulator.data.records.GameBatch`),
with the names numbered as the file readers number them
(:class:`~simulator.data.records.Players`: in order of first appearance,
White before Black). The results' spellings are the readers'
(:func:`~simulator.data.records.parse_score`); a bad value is a
``ValueError`` naming the column and the row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from simulator.data.records import BATCH_SIZE, GameBatch, Players, parse_score
from simulator.systems._common import Games

__all__ = ["GAME_COLUMNS", "Prepared", "prepare"]

#: The columns :func:`prepare` reads (``white_rating``/``black_rating`` too,
#: where present: ratings the games carry, scored beside the systems).
GAME_COLUMNS = ("white", "black", "result", "date")
_EPOCH = pd.Timestamp("1970-01-01")


def _score(value: Any) -> float | None:
    """One result as White's score; None if it is no result."""
    if isinstance(value, str):
        return parse_score(value)
    if isinstance(value, bool) or not isinstance(
        value, int | float | np.integer | np.floating
    ):
        return None
    return float(value) if float(value) in (0.0, 0.5, 1.0) else None


def _results(values: pd.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    """White's scores from 1/0.5/0 or their spellings ("1-0", "1/2-1/2", "0-1").

    Each distinct value is read once (a column holds a handful).
    """
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    scores = np.array(
        [_score(u) for u in uniques.tolist()] + [None], dtype=np.float64
    )  # None -> NaN; the last entry is the missing value's (code -1)
    out = scores[codes]
    bad = np.isnan(out)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The 'result' column of games must be 1, 0.5 or 0 (or '1-0', "
            f"'1/2-1/2', '0-1'). Got {values.iloc[i]!r} in row {i}."
        )
    return out


def _days(values: pd.Series) -> np.ndarray[Any, np.dtype[np.float64]]:
    """Days since 1970-01-01 (UTC) of dates, date-times or ISO texts."""
    try:
        stamps = pd.to_datetime(values)
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"The 'date' column of games must hold dates. {exc}".rstrip(".") + "."
        ) from None
    bad = stamps.isna().to_numpy()
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"The 'date' column of games must hold dates. Got "
            f"{values.iloc[i]!r} in row {i}."
        )
    if getattr(stamps.dt, "tz", None) is not None:
        stamps = stamps.dt.tz_convert("UTC").dt.tz_localize(None)
    days = (stamps - _EPOCH) / pd.Timedelta(days=1)
    return np.asarray(days, dtype=np.float64)


@dataclass(frozen=True)
class Prepared:
    """A games DataFrame as the replay reads it: batches and the names."""

    batches: tuple[GameBatch, ...]
    players: Players
    n_games: int


def prepare(games: pd.DataFrame, batch_size: int = BATCH_SIZE) -> Prepared:
    """Check and convert a DataFrame of games, sorted by date (stably)."""
    if not isinstance(games, pd.DataFrame):
        raise ValueError(
            f"The 'games' parameter must be a pandas DataFrame with columns "
            f"{', '.join(GAME_COLUMNS)}. Got {type(games).__name__} instead."
        )
    missing = [c for c in GAME_COLUMNS if c not in games.columns]
    if missing:
        raise ValueError(
            f"The 'games' DataFrame needs the columns {', '.join(GAME_COLUMNS)}. "
            f"Missing: {', '.join(missing)}."
        )
    if len(games) == 0:
        raise ValueError("The 'games' DataFrame has no games.")
    for side in ("white", "black"):
        missing_name = games[side].isna().to_numpy()
        if missing_name.any():
            i = int(np.flatnonzero(missing_name)[0])
            raise ValueError(f"The {side!r} column of games has no name in row {i}.")
    day = _days(games["date"])
    score = _results(games["result"])
    order = np.argsort(day, kind="stable")
    white_names = games["white"].astype(str).to_numpy()[order]
    black_names = games["black"].astype(str).to_numpy()[order]
    same = np.flatnonzero(white_names == black_names)
    if same.size:
        raise ValueError(
            f"A game pairs player {white_names[same[0]]!r} with themself "
            f"(row {int(order[same[0]])} of games)."
        )
    # Indices in the order of first appearance, White before Black in each
    # game: the readers' numbering (simulator.data.records.Players).
    both = np.column_stack([white_names, black_names]).reshape(-1)
    codes, names = pd.factorize(both, sort=False)
    players = Players()
    for name in names.tolist():
        players.index_of(str(name))
    white, black = codes[0::2].astype(np.intp), codes[1::2].astype(np.intp)
    seen = np.maximum.accumulate(np.maximum(white, black)) + 1
    ratings = {
        side: (
            pd.to_numeric(games[f"{side}_rating"], errors="coerce").to_numpy(
                dtype=np.float64
            )[order]
            if f"{side}_rating" in games.columns
            else np.full(len(games), np.nan)
        )
        for side in ("white", "black")
    }
    n = len(games)
    batches = tuple(
        GameBatch(
            Games(
                white[i : i + batch_size],
                black[i : i + batch_size],
                score[order][i : i + batch_size],
                day=day[order][i : i + batch_size],
            ),
            ratings["white"][i : i + batch_size],
            ratings["black"][i : i + batch_size],
            int(seen[min(i + batch_size, n) - 1]),
        )
        for i in range(0, n, batch_size)
    )
    return Prepared(batches, players, n)
