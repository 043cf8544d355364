"""FIDE rules in a replay: unrated until a first rating, the floor, re-rating.

The issue's case: a player listed just above the 1400 floor drops under it,
is unrated again, and is re-rated from a new pool by FIDE 8.2 with its two
hypothetical 1800 draws, scoring 22 of 50 in all. Every figure below is
worked by hand from docs/rules.md, section 1.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simulator.data.csv_records import csv_batches
from simulator.data.records import Players
from simulator.tasks.replay import replay, to_table


def issue_case() -> list[str]:
    """X (file rating 1405) loses 5 in January, then scores 22/45 in February."""
    rows = ["white,black,score,date,white_rating,black_rating"]
    for i in range(5):  # January: five losses to players rated 1400
        rows.append(f"X,L{i},0,2024-01-{10 + i:02d},1405,1400")
    # February: 45 games against players rated 1900, 22 points; the first
    # day's game is a win (a first event without points would be dropped,
    # FIDE 8.2.2).
    scores = ["1"] + ["1"] * 21 + ["0"] * 23
    for i, s in enumerate(scores):
        day = 1 + i * 27 // 45
        rows.append(f"X,O{i},{s},2024-02-{day + 1:02d},,1900")
    rows.append("O0,O1,1/2,2024-03-05,1900,1900")  # a game after the re-rating
    return rows


def test_floor_and_re_rating_follow_fide_and_are_reported() -> None:
    """1405 -> 1354 (off the list) -> unrated -> re-rated 1889, all in the history."""
    players = Players()
    result = replay(
        csv_batches(issue_case(), players=players),
        ["fide", "glicko2"],
        players=players,
        seed="file",
        history=True,
        predictions=True,
    )
    h = result.history
    assert h is not None
    x = h[(h["system"] == "fide") & (h["player"] == "X")].reset_index(drop=True)
    events = [e for e in x["event"].astype(str) if e]
    assert events == [
        "entered with a seeded rating",
        "below the floor: unrated",
        "re-rated",
    ]
    # Entered at 1405 with G 30: K 20. January: PD .51 five times (D = 5),
    # 20 * (0 - 2.55) = -51 -> 1354 < 1400: off the list of 1 February.
    entered = x[x["event"] == "entered with a seeded rating"].iloc[0]
    assert entered["rating"] == 1405
    dropped = x[x["event"] == "below the floor: unrated"].iloc[0]
    assert dropped["date"] == pd.Timestamp("2024-02-01") and np.isnan(dropped["rating"])
    # February's pool (the January results are not reused): 45 games against
    # 1900, 22 points. Ra = (45 * 1900 + 2 * 1800) / 47 = 1895.74; p = 23/47
    # = .489 -> .49, dp -7; Ru = 1888.74 -> 1889 on the list of 1 March.
    rerated = x[x["event"] == "re-rated"].iloc[0]
    assert rerated["date"] == pd.Timestamp("2024-03-01")
    assert rerated["rating"] == 1889
    assert result.ratings.set_index("player").loc["X", "fide"] == 1889
    # While unrated, FIDE predicted X as its stand-in, 1550: D = -350 against
    # 1900 -> PD .11 (table 8.1.2, 345-357 -> .89 for the higher).
    p = result.predictions
    assert p is not None
    feb = p[(p["system"] == "fide") & (p["date"].dt.month == 2)]
    np.testing.assert_allclose(feb["expected"], 0.11)
    assert set(feb["pairs"].astype(str)) == {"one new"}
    # The printed assumptions say what happened and what FIDE predicts.
    text = to_table(result)
    assert "1 dropped below 1400, 1 re-rated" in text
    assert "predicted as rated 1550 (new_player_prediction='constant')" in text
    assert "two hypothetical 1800 draws" in text
    assert result.events["fide"]["re-rated"] == 1


def test_unseeded_players_stay_unrated_and_the_replay_says_so() -> None:
    """No list ratings: FIDE rates nobody, predicts its stand-in, and warns."""
    rows = ["white,black,score,date"] + [
        f"A,B,{s},2024-0{m}-10" for m, s in zip(range(1, 7), "101101", strict=True)
    ]
    result = replay(
        csv_batches(rows), ["fide", "fide-p=fide:new_player_prediction=performance"]
    )
    assert result.ratings["fide"].isna().all()
    text = "\n".join(result.assumptions)
    assert "unrated, as FIDE has it" in text
    assert "WARNING: fide rated nobody" in text
    assert "by its first-rating formula on the results pooled so far" in text
    assumed = replay(csv_batches(rows), ["fide"], start_rating=1500.0)
    assert "ASSUMED 1500" in "\n".join(assumed.assumptions)
    assert not assumed.ratings["fide"].isna().any()
