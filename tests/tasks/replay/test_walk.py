"""Walk-forward replay: pre-game predictions, list calendars, file ratings, memory."""

from __future__ import annotations

import json
import math
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from test_pgn_records import pgn_game
from test_records import write_csv

from simulator.cli import main
from simulator.data.csv_records import csv_batches
from simulator.data.records import Players, read_games
from simulator.systems import make_system
from simulator.systems._common import Games, day_of
from simulator.tasks.replay.walk import _date_text, _date_texts, _Room, replay


def rows(*games: str, ratings: bool = False) -> list[str]:
    head = "white,black,score,date" + (",white_rating,black_rating" if ratings else "")
    return [head, *games]


def log_loss(expected: list[float], score: list[float]) -> float:
    return -float(
        np.mean(
            [
                s * math.log(e) + (1 - s) * math.log(1 - e)
                for e, s in zip(expected, score, strict=True)
            ]
        )
    )


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_per_game_predictions_are_pre_game() -> None:
    """Elo predicts a player's second game of a day from the first game's result."""
    result = replay(csv_batches(rows("A,B,1,2024-01-05", "A,B,1,2024-01-05")), ["elo"])
    # Game 1: 1500 v 1500 -> E .5; A wins: 1510 / 1490 (K 20).
    # Game 2: E = 1 / (1 + 10^(-20/400)) = .52875.
    second = 1 / (1 + 10 ** (-20 / 400))
    row = result.prediction.set_index("system").loc["elo"]
    assert row["log_loss"] == pytest.approx(log_loss([0.5, second], [1, 1]))
    assert row["brier"] == pytest.approx((0.25 + (1 - second) ** 2) / 2)
    # Then A gains 20 (1 - .52875) = 9.425: 1519.425 / 1480.575.
    gain = 20 * (1 - second)
    assert result.ratings["elo"].tolist() == pytest.approx([1510 + gain, 1490 - gain])


def test_fide_predicts_from_the_list_and_rates_at_its_close() -> None:
    """FIDE: January's games use the January list; February sees the new list."""
    games = rows("A,B,1,2024-01-05", "A,B,1,2024-01-20", "A,B,0,2024-02-03")
    players = Players()
    result = replay(
        csv_batches(games, players=players),
        ["fide"],
        players=players,
        start_rating=1500.0,
    )
    # Both enter at an assumed 1500 with G 0: K 40. January: PD .5 twice; A +20 +20.
    # List of 1 Feb: A 1540, B 1460; D 80 -> PD .61 (77-83); B wins.
    # Closed at the end: A 1540 + 40 (0 - .61) = 1540 - 24.4 -> 1516; B 1484.
    row = result.prediction.set_index("system").loc["fide"]
    assert row["log_loss"] == pytest.approx(log_loss([0.5, 0.5, 0.61], [1, 1, 0]))
    ratings = result.ratings.set_index("player")
    assert ratings["fide"].to_dict() == {"A": 1516.0, "B": 1484.0}
    assert ratings["games"].to_dict() == {"A": 3, "B": 3}
    assert ratings["last_date"].to_dict() == {"A": "2024-02-03", "B": "2024-02-03"}


def test_glicko2_periods_match_the_system_run_by_hand() -> None:
    """Glicko-2 monthly periods, empty ones included, as if rated directly."""
    games = rows(
        "A,B,1,2024-01-05", "B,C,0.5,2024-01-09", "C,A,1,2024-04-02", "A,B,0,2024-04-30"
    )
    result = replay(csv_batches(games), ["glicko2"])
    system = make_system("glicko2")
    state = system.new_state(3)
    jan = Games(np.array([0, 1]), np.array([1, 2]), np.array([1.0, 0.5]))
    apr = Games(np.array([2, 0]), np.array([0, 1]), np.array([1.0, 0.0]))
    empty = Games(np.empty(0, np.intp), np.empty(0, np.intp), np.empty(0))
    for period in (jan, empty, empty, apr):  # February and March: RD grows
        state = system.rate(state, period)
    np.testing.assert_allclose(result.ratings["glicko2"], system.rating(state))


def test_per_game_systems_match_rating_all_games_at_once(seed: int) -> None:
    """Round-by-round replay on sub-states equals the system's own ``rate``."""
    rng = np.random.default_rng(seed)
    n, n_players = 600, 40
    white = rng.integers(0, n_players, n)
    black = (white + rng.integers(1, n_players, n)) % n_players
    score = rng.choice([0.0, 0.5, 1.0], n)
    day = np.sort(rng.uniform(0, 60, n)) + day_of("2024-01-01")
    text = [
        f"p{w},p{b},{s},{np.datetime64(int(d * 86400), 's')}"
        for w, b, s, d in zip(white, black, score, day, strict=True)
    ]
    players = Players()
    result = replay(
        csv_batches(rows(*text), players=players, batch_size=97),
        ["lichess", "elo"],
        players=players,
    )
    index = np.array([int(name[1:]) for name in players.names])
    for name in ("lichess", "elo"):
        system = make_system(name)
        days = np.floor(day * 86400) / 86400
        state = system.rate(
            system.new_state(n_players), Games(white, black, score, day=days)
        )
        expected = system.rating(state)[index]
        np.testing.assert_allclose(result.ratings[name], expected, rtol=1e-12)


class RoundByRound:
    """A per-game system without ``predict_and_rate``: replayed round by round."""

    per_game = True

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name

    def next_close(self, day: float) -> None:
        """No periods."""
        return None

    def new_state(self, n_players: int, **kwargs: Any) -> Any:
        """The inner system's."""
        return self.inner.new_state(n_players, **kwargs)

    def expected_score(self, state: Any, white: Any, black: Any) -> Any:
        """The inner system's."""
        return self.inner.expected_score(state, white, black)

    def rate(self, state: Any, games: Games, **kwargs: Any) -> Any:
        """The inner system's."""
        return self.inner.rate(state, games, **kwargs)

    def rating(self, state: Any) -> Any:
        """The inner system's."""
        return self.inner.rating(state)


@pytest.mark.parametrize(
    "system",
    [make_system("lichess"), make_system("elo"), make_system("glicko", per_game=True)],
    ids=["lichess", "elo", "glicko"],
)
def test_per_game_systems_replay_as_round_by_round(system: Any, seed: int) -> None:
    """predict_and_rate gives the replay of expected_score then rate, bit for bit.

    Games among few players, one of them in half of them, over several
    batches and a day with many games: hundreds of rounds.
    """
    rng = np.random.default_rng(seed)
    n, n_players = 700, 25
    white = rng.integers(0, n_players, n)
    black = (white + rng.integers(1, n_players, n)) % n_players
    black = np.where((rng.random(n) < 0.5) & (white != 0), 0, black)
    score = rng.choice(["1", "0", "1/2"], n)
    day = np.sort(rng.integers(0, 5, n)) + day_of("2024-01-30")
    text = [
        f"p{w},p{b},{s},{np.datetime64(int(d), 'D')}"
        for w, b, s, d in zip(white, black, score, day, strict=True)
    ]
    results = []
    for replayed in (system, RoundByRound(system)):
        players = Players()
        results.append(
            replay(
                csv_batches(rows(*text), players=players, batch_size=150),
                [replayed, "fide"],
                players=players,
            )
        )
    fast, slow = results
    for frame in ("prediction", "calibration", "ratings"):
        pd.testing.assert_frame_equal(
            getattr(fast, frame), getattr(slow, frame), check_exact=True
        )
    assert fast.prediction["n_games"].iloc[0] == n


def test_small_batches_rate_as_one_batch(seed: int) -> None:
    """New players entering batch after batch: the final ratings of one batch.

    In batches of 7 games new players enter the states nearly every batch
    (into the room kept for them, the per-game states written in place);
    in one batch they enter once. Every system's final ratings, games and
    last dates are the same, bit for bit, and so are the predictions' counts;
    but Glicko-2's, within 1e-9 relative: its period is folded into sums
    batch by batch, which adds each player's terms in another order
    (``test_fold.py``).
    """
    rng = np.random.default_rng(seed)
    n, n_players = 500, 300
    white = rng.integers(0, n_players, n)
    black = (white + rng.integers(1, n_players, n)) % n_players
    score = rng.choice(["1", "0", "1/2"], n)
    day = np.sort(rng.integers(0, 120, n)) + day_of("2024-01-01")
    known = rng.random(n) < 0.5
    rating = rng.integers(1000, 2500, (2, n))
    text = [
        f"p{w},p{b},{s},{np.datetime64(int(d), 'D')}," + (f"{rw},{rb}" if k else ",")
        for w, b, s, d, k, rw, rb in zip(
            white, black, score, day, known, *rating, strict=True
        )
    ]
    systems = ["fide", "glicko2", "lichess", "elo", "classic"]
    results = []
    for batch_size in (7, 10_000):
        players = Players()
        results.append(
            replay(
                csv_batches(
                    rows(*text, ratings=True), players=players, batch_size=batch_size
                ),
                systems,
                players=players,
                seed="file",
            )
        )
    small, whole = results
    exact = [c for c in small.ratings.columns if c != "glicko2"]
    pd.testing.assert_frame_equal(
        small.ratings[exact], whole.ratings[exact], check_exact=True
    )
    np.testing.assert_allclose(
        small.ratings["glicko2"], whole.ratings["glicko2"], rtol=1e-9, atol=0
    )
    assert small.n_players == whole.n_players == len(set(white) | set(black))
    assert small.prediction["n_games"].tolist() == whole.prediction["n_games"].tolist()
    np.testing.assert_allclose(
        small.prediction["log_loss"], whole.prediction["log_loss"], rtol=1e-12
    )


def test_room_extends_as_concatenate() -> None:
    """The room's views hold what np.concatenate gives; earlier views keep theirs."""
    room = _Room()
    rng = np.random.default_rng(0)
    whole = np.zeros((2, 0))
    held = room.extend("a", np.zeros((2, 0)), np.zeros((2, 0)))
    views = []
    for k in rng.integers(0, 40, 30):
        new = rng.normal(size=(2, k))
        want = np.concatenate([whole, new], axis=1)
        held = room.extend("a", held, new)
        assert held.dtype == want.dtype and np.array_equal(held, want)
        assert room.holds("a", held)
        views.append((held, want))
        whole = want
    for view, want in views:  # later extensions wrote past every view
        assert np.array_equal(view, want)
    # An array the room did not return is copied, never written into.
    other = np.arange(3)
    out = room.extend("a", other, np.array([True]))
    assert out.dtype == np.concatenate([other, [True]]).dtype
    assert out.tolist() == [0, 1, 2, 1] and other.tolist() == [0, 1, 2]
    assert not room.holds("a", other) and not room.holds("b", out)


def test_room_reuse_promotes_as_concatenate() -> None:
    """A held buffer of another dtype is not written into: the view promotes.

    And arrays that cannot join along the players' axis are an error, as
    np.concatenate makes them.
    """
    room = _Room()
    held = room.extend("n", np.zeros(0, dtype=np.intp), np.array([1, 2]))
    out = room.extend("n", held, np.array([1.5]))
    want = np.concatenate([held, [1.5]])
    assert out.dtype == want.dtype and out.tolist() == want.tolist()
    wide = room.extend("w", np.zeros((2, 0)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="'w'"):
        room.extend("w", wide, np.ones((1, 2)))


class OwnPrediction(type(make_system("lichess"))):  # type: ignore[misc]
    """Lichess with its own expected score: replay must use it."""

    def expected_score(self, state: Any, white: Any, black: Any) -> Any:
        """Half of Lichess's expected score (so that it shows)."""
        return super().expected_score(state, white, black) / 2.0


def test_overridden_expected_score_is_used() -> None:
    """A subclass's expected_score is replayed, not bypassed by predict_and_rate."""
    text = ["a,b,1,2024-01-01", "b,c,0,2024-01-02", "a,c,1/2,2024-01-02"]
    results = []
    for system in (make_system("lichess"), OwnPrediction()):
        players = Players()
        results.append(
            replay(csv_batches(rows(*text), players=players), [system], players=players)
        )
    plain, own = results
    assert own.prediction["brier"].iloc[0] != plain.prediction["brier"].iloc[0]
    pd.testing.assert_frame_equal(own.ratings, plain.ratings, check_exact=True)


def test_date_texts() -> None:
    """The ratings' last dates, in numpy calls, as one at a time."""
    days = np.array([np.nan, 0.0, 19783.25, -1.5, 2932896.0, np.nan, 19783.999])
    want = ["" if np.isnan(d) else _date_text(float(d)) for d in days]
    assert _date_texts(days) == want
    assert want[1:5] == ["1970-01-01", "2024-03-01", "1969-12-30", "9999-12-31"]
    assert _date_texts(np.zeros(0)) == []


def test_file_ratings_scored_beside_the_systems() -> None:
    """The file's ratings are a predictor on the games where both are given."""
    games = rows(
        "A,B,1,2024-01-05,1800,1600",
        "B,C,0,2024-01-06,1600,",
        "C,A,1/2,2024-01-07,1700,1800",
        ratings=True,
    )
    result = replay(csv_batches(games), ["elo"])
    assert result.file_prediction is not None
    table = result.file_prediction.set_index("system")
    assert table.loc["file", "n_games"] == 2
    e1 = 1 / (1 + 10 ** (-200 / 400))  # 1800 v 1600
    e2 = 1 / (1 + 10 ** (100 / 400))  # 1700 v 1800
    assert table.loc["file", "log_loss"] == pytest.approx(log_loss([e1, e2], [1, 0.5]))
    assert result.prediction.set_index("system").loc["elo", "n_games"] == 3
    assert (
        replay(csv_batches(rows("A,B,1,2024-01-05")), ["elo"]).file_prediction is None
    )


def test_seed_from_the_file() -> None:
    """seed='file': FIDE lists and Elo start from the file's ratings."""
    games = rows("A,B,1,2024-01-05,1800,1600", ratings=True)
    result = replay(csv_batches(games), ["fide", "elo"], seed="file")
    table = result.prediction.set_index("system")
    # FIDE: D 200 -> PD .76 (198-206); Elo: 1 / (1 + 10^(-200/400)) = .7597.
    assert table.loc["fide", "log_loss"] == pytest.approx(-math.log(0.76))
    assert table.loc["elo", "log_loss"] == pytest.approx(-math.log(1 / (1 + 10**-0.5)))
    # FIDE with G 30 (K 20) after the list closes: 1800 + 20 x .24 = 1804.8 -> 1805.
    assert result.ratings["fide"].tolist() == [1805.0, 1595.0]
    unrated = replay(csv_batches(rows("A,B,1,2024-01-05")), ["fide"], start_rating=None)
    assert unrated.ratings["fide"].isna().all()


def test_bad_arguments() -> None:
    """A system twice, or an unknown seed mode, is an error."""
    with pytest.raises(ValueError, match="Each system label can be used once"):
        replay(csv_batches(rows("A,B,1,2024-01-05")), ["elo", "elo"])
    with pytest.raises(ValueError, match="seed must be 'none' or 'file'"):
        replay(csv_batches(rows("A,B,1,2024-01-05")), ["elo"], seed="x")


def test_replay_memory_does_not_grow_with_the_file(tmp_path: Path) -> None:
    """Four times the games (same density) leave the peak memory flat."""
    peaks = []
    for n_games in (15_000, 60_000):
        path = tmp_path / f"g{n_games}.csv"
        write_csv(path, n_games)
        players = Players()
        tracemalloc.start()
        try:
            result = replay(
                read_games(path, players=players, batch_size=1000),
                ["elo", "fide"],
                players=players,
            )
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        assert result.n_games == n_games
    assert peaks[1] < 1.25 * peaks[0], peaks


def test_cli_replay_pgn_with_file_ratings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PGN with WhiteElo/BlackElo: the file's ratings are scored too."""
    path = tmp_path / "g.pgn"
    path.write_text(
        pgn_game("A", "B", "1-0", UTCDate="2024.01.05", UTCTime="10:00:00",
                 WhiteElo="1900", BlackElo="1500")
        + pgn_game("B", "A", "1/2-1/2", UTCDate="2024.01.05", UTCTime="11:00:00",
                   WhiteElo="1490", BlackElo="1905")
    )  # fmt: skip
    code, out, _ = run(
        capsys, "replay", str(path), "--systems", "lichess", "--format", "json"
    )
    data = json.loads(out)
    assert code == 0
    assert [r["system"] for r in data["file_prediction"]] == [
        "lichess",
        "file",
        "coin flip",
    ]
    path.write_text(path.read_text().replace("1/2-1/2", "2-0"))
    code, out, err = run(capsys, "replay", str(path), "--quiet")
    assert (code, out) == (2, "")
    assert err == (
        f"ratingsim replay: error: {path}, line 15: result '2-0' is not 1-0, 0-1 "
        "or 1/2-1/2\n"
    )


def test_cli_replay_malformed_and_skip_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad row: exit 2 with file and line; --skip-bad counts and reports it."""
    path = tmp_path / "g.csv"
    path.write_text(
        "white,black,score,date\nA,B,1,2024-01-05\nA,B,win,2024-01-06\nB,A,0,2024-01-07\n"
    )
    code, out, err = run(capsys, "replay", str(path), "--quiet")
    assert (code, out) == (2, "")
    assert err == (
        f"ratingsim replay: error: {path}, line 3: score 'win' is not 1, 0.5 or 0 "
        "(White's score)\n"
    )
    code, out, err = run(capsys, "replay", str(path), "--quiet", "--skip-bad")
    assert code == 0
    assert "ratingsim replay: Skipped 1 bad record(s) (--skip-bad):" in err
    assert f"  {path}, line 3: score 'win'" in out
    assert "2 games of 2 players" in out


def test_cli_replay_sort_and_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Out of date order: an error naming --sort, which sorts; bad options exit 2."""
    path = tmp_path / "g.csv"
    path.write_text("white,black,score,date\nA,B,1,2024-03-05\nC,D,1,2024-01-06\n")
    code, _, err = run(capsys, "replay", str(path), "--quiet")
    assert code == 2 and "line 3: the game is dated 2024-01-06" in err
    assert "use --sort" in err
    code, out, _ = run(capsys, "replay", str(path), "--quiet", "--sort")
    assert code == 0 and "2024-01-06 to 2024-03-05" in out
    code, _, err = run(capsys, "replay", str(path), "--systems", "fide,nope")
    assert code == 2 and "Unknown rating system 'nope'" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "none.csv"), "--quiet")
    assert code == 2 and err.startswith("ratingsim replay: error: cannot read")


def test_progress_counts_the_games_read() -> None:
    """The progress callback hears each batch's games as it is read."""
    counts: list[int] = []
    games = rows(*(f"A,B,1,2024-01-0{d}" for d in range(1, 6)))
    replay(csv_batches(games, batch_size=2), ["elo"], progress=counts.append)
    assert counts == [2, 2, 1]
