"""``ratingsim calc`` and ``ratingsim systems``: the seed pages' figures, errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from simulator.cli import main
from simulator.systems import SYSTEMS
from simulator.systems._common import Games
from simulator.systems.elo import Elo
from simulator.systems.lichess import Lichess

THREE_GAMES = ["--game", "1400:1", "--game", "1600:0.5", "--game", "1550:0"]
FIRST_RATING = [
    *("--game", "1902:0.5", "--game", "1877:0.5", "--game", "1884:1"),
    *("--game", "2012:0", "--game", "1832:1"),
]
GLICKMAN = [
    *("--rating", "1500", "--rd", "200"),
    *("--game", "1400/30:1", "--game", "1550/100:0", "--game", "1700/300:0"),
]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run(capsys, *argv, "--json")
    assert (code, err) == (0, ""), err
    result: dict[str, Any] = json.loads(out)
    return result


# --------------------------------------------------------------------------
# FIDE
# --------------------------------------------------------------------------


def test_fide_capped_win_table(capsys: pytest.CaptureFixture[str]) -> None:
    """1500 beats 1000 at K 20: the cap makes PD .92 and the change +1.6."""
    r = run_json(
        capsys, "calc", "fide", "--rating", "1500", "--k", "20", "--game", "1000:1"
    )
    assert r["expected"] == [0.92]
    assert r["change"] == pytest.approx(1.6)
    assert r["new_rating"] == 1502
    assert r["k"] == 20


def test_fide_capped_win_formula(capsys: pytest.CaptureFixture[str]) -> None:
    """With the formula E is .909 at the 400 cap and the change +1.8 (Croatian page)."""
    r = run_json(
        capsys,
        "calc",
        "fide",
        "--rating",
        "1500",
        "--k",
        "20",
        "--expectation",
        "formula",
        "--game",
        "1000:1",
    )
    assert r["expected"][0] == pytest.approx(1 / (1 + 10**-1), abs=1e-12)
    assert round(r["change"], 1) == 1.8


def test_fide_three_game_period_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The Croatian page's period: +7.2, +2.8, -8.6, total +1.4, new rating 1501."""
    code, out, err = run(
        capsys, "calc", "fide", "--rating", "1500", "--k", "20", *THREE_GAMES
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("fide: rating 1500, K 20")
    assert [line.split()[-1] for line in lines[2:5]] == ["+7.2", "+2.8", "-8.6"]
    assert lines[5].split()[-1] == "+1.4"
    assert "New rating: 1501" in lines


def test_fide_three_game_period_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The same period as JSON: the expected scores, +1.4 unrounded, 1501."""
    r = run_json(capsys, "calc", "fide", "--rating", "1500", "--k", "20", *THREE_GAMES)
    assert r["expected"] == [0.64, 0.36, 0.43]
    assert [g["change"] for g in r["games"]] == pytest.approx([7.2, 2.8, -8.6])
    assert r["change"] == pytest.approx(1.4)
    assert (r["rounded_change"], r["new_rating"], r["k"]) == (1, 1501, 20)


def test_fide_round_expectation(capsys: pytest.CaptureFixture[str]) -> None:
    """--round-expectation 2 gives the Croatian page's rounded E; unrounded differs."""
    args = [
        "calc",
        "fide",
        "--rating",
        "1500",
        "--k",
        "20",
        "--expectation",
        "formula",
        *THREE_GAMES,
    ]
    rounded = run_json(capsys, *args, "--round-expectation", "2")
    exact = run_json(capsys, *args)
    assert rounded["expected"] == pytest.approx([0.64, 0.36, 0.43], abs=1e-12)
    assert rounded["change"] == pytest.approx(1.4)
    assert exact["expected"][2] == pytest.approx(1 / (1 + 10 ** (50 / 400)))
    assert exact["change"] != pytest.approx(1.4)


def test_fide_unrated_first_rating(capsys: pytest.CaptureFixture[str]) -> None:
    """FIDE's published first rating: Ra 1872.43, p .57, dp 50 -> 1922."""
    r = run_json(capsys, "calc", "fide", "--unrated", *FIRST_RATING)
    assert r["initial_rating"] == 1922
    assert r["new_rating"] == 1922
    assert r["initial_rating_reason"] is None
    assert r["expected"] == [None] * 5
    assert r["k"] is None


def test_fide_unrated_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The table prints the first rating."""
    code, out, _ = run(capsys, "calc", "fide", "--unrated", *FIRST_RATING)
    assert code == 0
    assert "Initial rating: 1922" in out


def test_fide_unrated_too_few_games(capsys: pytest.CaptureFixture[str]) -> None:
    """Fewer than 5 games: no rating (null), and the table says why."""
    games = FIRST_RATING[:8]
    r = run_json(capsys, "calc", "fide", "--unrated", *games)
    assert r["initial_rating"] is None
    assert "4 games" in r["initial_rating_reason"]
    _, out, _ = run(capsys, "calc", "fide", "--unrated", *games)
    assert "Initial rating: none: 4 games against rated opponents" in out


def test_fide_unrated_below_floor(capsys: pytest.CaptureFixture[str]) -> None:
    """A first rating below 1400 is not published: null, with the floor named."""
    games = [a for _ in range(4) for a in ("--game", "1400:0")] + ["--game", "1400:="]
    r = run_json(capsys, "calc", "fide", "--unrated", *games)
    assert r["initial_rating"] is None
    assert "1400 floor" in r["initial_rating_reason"]


def test_fide_unrated_zero_points(capsys: pytest.CaptureFixture[str]) -> None:
    """0 points in the first event: its games leave the pool (FIDE 8.2.2)."""
    games = [a for _ in range(5) for a in ("--game", "1800:0")]
    r = run_json(capsys, "calc", "fide", "--unrated", *games)
    assert r["initial_rating"] is None
    assert "8.2.2" in r["initial_rating_reason"]


def test_rule_700(capsys: pytest.CaptureFixture[str]) -> None:
    """K 40 and 20 games: the 700 rule makes K 35 for the period."""
    games = [a for _ in range(20) for a in ("--game", "1500:1")]
    r = run_json(capsys, "calc", "fide", "--rating", "1500", "--k", "40", *games)
    assert (r["k"], r["k_list"]) == (35, 40)
    assert r["change"] == pytest.approx(35 * 20 * 0.5)
    _, out, _ = run(capsys, "calc", "fide", "--rating", "1500", "--k", "40", *games)
    assert "700 rule" in out


@pytest.mark.parametrize(
    ("extra", "k"),
    [
        (["--games-played", "10"], 40),
        (["--games-played", "30"], 20),
        (["--games-played", "50", "--birth-year", "2007"], 40),
        (["--games-played", "50", "--birth-year", "2006"], 20),
        (["--games-played", "50", "--birth-year", "2010", "--ever-2300"], 20),
        (["--games-played", "5", "--ever-2400"], 10),
        (["--games-played", "50", "--date", "2026-01-15", "--birth-year", "2007"], 20),
    ],
)
def test_derived_k(
    capsys: pytest.CaptureFixture[str], extra: list[str], k: int
) -> None:
    """K from --games-played, --birth-year (the list's year), --ever-2400/2300."""
    args = ["--date", "2025-06-15", *extra] if "--date" not in extra else extra
    r = run_json(capsys, "calc", "fide", "--rating", "2250", *args, "--game", "2250:1")
    assert r["k"] == k


def test_derived_k_rated_2400(capsys: pytest.CaptureFixture[str]) -> None:
    """A player rated 2400 on the list has K 10 whatever the games."""
    r = run_json(
        capsys,
        "calc",
        "fide",
        "--rating",
        "2400",
        "--games-played",
        "3",
        "--game",
        "2400:1",
    )
    assert r["k"] == 10


def test_exemption_2650(capsys: pytest.CaptureFixture[str]) -> None:
    """Rated 2650+, the 2025 rules use the real gap; --rules 2024 and fide-2024 cap."""
    args = ["--rating", "2700", "--k", "10", "--game", "2200:1"]
    assert run_json(capsys, "calc", "fide", *args)["expected"] == [0.96]
    capped = run_json(capsys, "calc", "fide", "--rules", "2024", *args)
    assert capped["expected"] == [0.92]
    assert capped["system"] == "fide-2024"
    assert run_json(capsys, "calc", "fide-2024", *args)["expected"] == [0.92]


def test_cap_applies_to_the_player_only(capsys: pytest.CaptureFixture[str]) -> None:
    """The 2200 side of a 2700 game is capped at 400 even under the 2025 rules."""
    r = run_json(
        capsys, "calc", "fide", "--rating", "2200", "--k", "20", "--game", "2700:0"
    )
    assert r["expected"] == [0.08]


def test_fide_below_floor(capsys: pytest.CaptureFixture[str]) -> None:
    """A new rating below 1400 is reported as leaving the list."""
    r = run_json(
        capsys, "calc", "fide", "--rating", "1400", "--k", "20", "--game", "1400:0"
    )
    assert (r["new_rating"], r["below_floor"]) == (1390, True)
    _, out, _ = run(
        capsys, "calc", "fide", "--rating", "1400", "--k", "20", "--game", "1400:0"
    )
    assert "below the 1400 floor" in out


# --------------------------------------------------------------------------
# Old-style FIDE
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "change", "new"), [("1", 3.6, 2404), ("0", -6.4, 2394), ("=", -1.4, 2399)]
)
def test_classic_seed_examples(
    capsys: pytest.CaptureFixture[str], score: str, change: float, new: int
) -> None:
    """The Danish page: 2400 vs 2300 at K 10: +3.6, -6.4, -1.4."""
    r = run_json(
        capsys,
        "calc",
        "classic",
        "--rating",
        "2400",
        "--k",
        "10",
        "--game",
        f"2300:{score}",
    )
    assert r["expected"] == [0.64]
    assert r["change"] == pytest.approx(change)
    assert r["new_rating"] == new


def test_classic_german_examples(capsys: pytest.CaptureFixture[str]) -> None:
    """The German page: 1830 draws 1980 at K 15 -> +3.0; 1950 loses to 1820 -> -10.2."""
    draw = run_json(
        capsys,
        "calc",
        "classic",
        "--rating",
        "1830",
        "--games-played",
        "40",
        "--game",
        "1980:=",
    )
    loss = run_json(
        capsys,
        "calc",
        "classic",
        "--rating",
        "1950",
        "--games-played",
        "40",
        "--game",
        "1820:0",
    )
    assert (draw["k"], draw["change"]) == (15, pytest.approx(3.0))
    assert loss["change"] == pytest.approx(-10.2)


def test_classic_derived_k(capsys: pytest.CaptureFixture[str]) -> None:
    """Old rules: K 25 under 30 games, 10 from 2400 on, else 15."""
    k = [
        run_json(
            capsys,
            "calc",
            "classic",
            "--rating",
            rating,
            "--games-played",
            games,
            "--game",
            "2000:1",
        )["k"]
        for rating, games in [("2450", "10"), ("2450", "40"), ("2300", "40")]
    ]
    assert k == [25, 10, 15]


def test_classic_national_initial(capsys: pytest.CaptureFixture[str]) -> None:
    """German national start value: mean + 700 (p - 0.5) n / (n + 2), 7 games."""
    games = [
        a for s in ("1", "1", "1", "0", "0", "=", "=") for a in ("--game", f"1600:{s}")
    ]
    r = run_json(
        capsys, "calc", "classic", "--unrated", "--initial", "national", *games
    )
    assert r["initial_rating"] == round(1600 + 700 * (4 / 7 - 0.5) * 7 / 9)
    few = run_json(
        capsys, "calc", "classic", "--unrated", "--initial", "national", *games[:12]
    )
    assert few["initial_rating"] is None
    assert "needs 7" in few["initial_rating_reason"]


def test_classic_international_initial(capsys: pytest.CaptureFixture[str]) -> None:
    """Old international rule: 9 games, 12.5 per half point above 50 %."""
    games = ["--game", "2000:1"] * 2 + ["--game", "2000:="] * 7
    r = run_json(capsys, "calc", "classic", "--unrated", *games)
    assert r["initial_rating"] == 2025


# --------------------------------------------------------------------------
# Plain Elo
# --------------------------------------------------------------------------


def test_elo_per_game(capsys: pytest.CaptureFixture[str]) -> None:
    """Plain Elo rates game by game; the result matches Elo.rate on the same games."""
    r = run_json(
        capsys,
        "calc",
        "elo",
        "--rating",
        "1500",
        "--k",
        "20",
        "--game",
        "1400:1",
        "--game",
        "1600:0.5",
    )
    system = Elo(k_factor=20)
    state = system.new_state(3, rating=np.array([1500.0, 1400.0, 1600.0]))
    state = system.rate(
        state, Games(np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.5]))
    )
    assert r["new_rating"] == pytest.approx(float(state.rating[0]), abs=1e-12)
    first = 1 / (1 + 10 ** (-100 / 400))
    assert r["expected"][0] == pytest.approx(first)
    assert r["games"][0]["change"] == pytest.approx(20 * (1 - first))
    # The second game is played at the new rating.
    after = 1500 + 20 * (1 - first)
    assert r["expected"][1] == pytest.approx(1 / (1 + 10 ** ((1600 - after) / 400)))
    assert r["k"] == 20


# --------------------------------------------------------------------------
# Glicko-2, Glicko-1, Lichess
# --------------------------------------------------------------------------


def test_glicko2_glickman_example(capsys: pytest.CaptureFixture[str]) -> None:
    """Glickman's example: 1464.0507, 151.5165, 0.0599960."""
    r = run_json(
        capsys, "calc", "glicko2", *GLICKMAN, "--volatility", "0.06", "--tau", "0.5"
    )
    assert r["new_rating"] == pytest.approx(1464.0507, abs=5e-5)
    assert r["new_rd"] == pytest.approx(151.5165, abs=5e-5)
    assert r["new_volatility"] == pytest.approx(0.0599960, abs=5e-8)
    assert r["expected"] == pytest.approx([0.639, 0.432, 0.303], abs=1e-3)
    assert sum(g["change"] for g in r["games"]) == pytest.approx(r["change"])


def test_glicko2_table(capsys: pytest.CaptureFixture[str]) -> None:
    """The table shows the paper's rounded figures."""
    code, out, _ = run(capsys, "calc", "glicko2", *GLICKMAN)
    assert code == 0
    assert "New rating: 1464.05, RD 151.52, volatility 0.059996" in out


def test_glicko1_example(capsys: pytest.CaptureFixture[str]) -> None:
    """Glicko-1 on the same inputs without RD growth: 1464.106, RD 151.399."""
    r = run_json(capsys, "calc", "glicko", *GLICKMAN)
    assert r["new_rating"] == pytest.approx(1464.106, abs=5e-4)
    assert r["new_rd"] == pytest.approx(151.399, abs=5e-4)
    assert "new_volatility" not in r
    grown = run_json(capsys, "calc", "glicko", *GLICKMAN, "--c", "34.6")
    assert grown["new_rd"] > r["new_rd"]


def test_lichess_calculator_test(capsys: pytest.CaptureFixture[str]) -> None:
    """Lichess's test: 1500/350/0.06 beats the same, no advantage, no regulator."""
    r = run_json(
        capsys,
        "calc",
        "lichess",
        "--rating",
        "1500",
        "--rd",
        "350",
        "--volatility",
        "0.06",
        "--no-colour-advantage",
        "--no-regulator",
        "--game",
        "1500/350:1",
    )
    assert r["new_rating"] == pytest.approx(1662.21, abs=5e-3)
    assert r["new_rd"] == pytest.approx(290.2305, abs=5e-4)
    assert r["expected"] == [0.5]
    assert r["display"] == "1662?"


def test_lichess_issue_example_matches_system(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The issue's example, rated in order, equals Lichess.rate on the same games."""
    r = run_json(
        capsys,
        "calc",
        "lichess",
        "--rating",
        "1500",
        "--rd",
        "500",
        "--volatility",
        "0.09",
        "--game",
        "1500/500:1",
        "--game",
        "1600/80:0",
    )
    system = Lichess()
    state = system.new_state(
        3, rating=np.array([1500.0, 1500.0, 1600.0]), rd=np.array([500.0, 500.0, 80.0])
    )
    state = system.rate(
        state, Games(np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.0])), day=0.0
    )
    assert r["new_rating"] == pytest.approx(float(state.rating[0]), abs=1e-9)
    assert r["new_rd"] == pytest.approx(float(state.rd[0]), abs=1e-9)
    assert r["new_volatility"] == pytest.approx(float(state.volatility[0]), abs=1e-12)
    assert r["expected"][0] > 0.5  # White's advantage


def test_lichess_black(capsys: pytest.CaptureFixture[str]) -> None:
    """As Black the player's E is the mirror of White's, and the result matches."""
    base = ["calc", "lichess", "--rating", "1700", "--rd", "80", "--game"]
    white = run_json(capsys, *base, "1500/300:1:w")
    black = run_json(capsys, *base, "1500/300:1:b")
    flag = run_json(capsys, *base, "1500/300:1", "--colour", "black")
    assert black["expected"][0] < white["expected"][0]
    assert flag["expected"] == black["expected"]
    system = Lichess()
    state = system.new_state(
        2, rating=np.array([1700.0, 1500.0]), rd=np.array([80.0, 300.0])
    )
    state = system.rate(
        state, Games(np.array([1]), np.array([0]), np.array([0.0])), day=0.0
    )
    assert black["new_rating"] == pytest.approx(float(state.rating[0]), abs=1e-9)


# --------------------------------------------------------------------------
# Scores, systems, help
# --------------------------------------------------------------------------


@pytest.mark.parametrize("draw", ["0.5", ".5", "=", "½", "1/2"])
def test_draw_spellings(capsys: pytest.CaptureFixture[str], draw: str) -> None:
    """A draw may be written 0.5, =, ½ or 1/2."""
    r = run_json(
        capsys,
        "calc",
        "classic",
        "--rating",
        "2400",
        "--k",
        "10",
        "--game",
        f"2300:{draw}",
    )
    assert r["games"][0]["score"] == 0.5


def test_systems_lists_registry(capsys: pytest.CaptureFixture[str]) -> None:
    """`ratingsim systems` prints every registered system with a description."""
    code, out, _ = run(capsys, "systems")
    assert code == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == list(SYSTEMS)
    assert all(len(line.split(maxsplit=1)) == 2 for line in lines)


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """--help prints the usage and returns 0."""
    code, out, _ = run(capsys, "calc", "fide", "--help")
    assert code == 0
    assert "--games-played" in out


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "bad"),
    [
        (
            ["calc", "fide", "--rating", "1500", "--k", "20", "--game", "1400:2"],
            "1400:2",
        ),
        (["calc", "glicko2", "--rd", "-5", "--game", "1400/30:1"], "-5"),
        (["calc", "glicko2", "--game", "1400/-5:1"], "1400/-5:1"),
        (["calc", "fide", "--rating", "1500", "--k", "20"], "no games"),
        (["calc", "foo", "--game", "1400:1"], "foo"),
        (
            ["calc", "fide", "--rating", "1500", "--k", "20", "--game", "1400-1"],
            "1400-1",
        ),
        (["calc", "fide", "--rating", "1500", "--k", "20", "--game", "abc:1"], "abc"),
        (
            [
                "calc",
                "fide",
                "--rating",
                "1500",
                "--k",
                "20",
                "--rd",
                "200",
                "--game",
                "1400:1",
            ],
            "--rd 200",
        ),
        (["calc", "elo", "--rd", "200", "--game", "1400:1"], "--rd 200"),
        (
            ["calc", "fide", "--rating", "1500", "--k", "20", "--game", "1400/30:1"],
            "1400/30:1",
        ),
        (["calc", "fide", "--unrated", "--k", "20", "--game", "1400:1"], "--k 20"),
        (
            ["calc", "fide", "--rating", "1500.5", "--k", "20", "--game", "1400:1"],
            "1500.5",
        ),
        (["calc", "fide", "--rating", "1500", "--game", "1400:1"], "--k"),
        (
            [
                "calc",
                "fide",
                "--rating",
                "1500",
                "--k",
                "20",
                "--games-played",
                "40",
                "--game",
                "1400:1",
            ],
            "--games-played 40",
        ),
        (
            [
                "calc",
                "fide",
                "--rating",
                "1500",
                "--k",
                "20",
                "--round-expectation",
                "2",
                "--game",
                "1400:1",
            ],
            "--round-expectation 2",
        ),
        (["calc", "glicko2", "--tau", "-1", "--game", "1400/30:1"], "-1"),
        (["calc", "glicko2", "--game", "1400/30:1:w"], "1400/30:1:w"),
        (["calc", "lichess", "--game", "1400/30:1:x"], "'x'"),
        (
            [
                "calc",
                "fide",
                "--rating",
                "1500",
                "--k",
                "20",
                "--date",
                "2025-13-01",
                "--game",
                "1400:1",
            ],
            "2025-13-01",
        ),
        (
            [
                "calc",
                "classic",
                "--rating",
                "1500",
                "--k",
                "20",
                "--birth-year",
                "2000",
                "--game",
                "1400:1",
            ],
            "--birth-year 2000",
        ),
        (["calc", "fide", "--rating", "nan", "--k", "20", "--game", "1400:1"], "nan"),
    ],
)
def test_bad_input(
    capsys: pytest.CaptureFixture[str], argv: list[str], bad: str
) -> None:
    """Bad input: exit 2, one line on stderr naming the bad value, nothing on stdout."""
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.endswith("\n") and err.count("\n") == 1
    assert bad in err
    assert "error" in err


# --------------------------------------------------------------------------
# The installed entry point
# --------------------------------------------------------------------------


def _script() -> str:
    beside = Path(sys.executable).with_name("ratingsim")
    found = str(beside) if beside.exists() else shutil.which("ratingsim")
    assert found is not None, "the ratingsim console script is not installed"
    return found


def test_entry_point_runs() -> None:
    """The installed `ratingsim` script computes the seed page's period."""
    done = subprocess.run(
        [
            _script(),
            "calc",
            "fide",
            "--rating",
            "1500",
            "--k",
            "20",
            *THREE_GAMES,
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["new_rating"] == 1501


def test_entry_point_bad_input() -> None:
    """The installed script exits 2 with one line on stderr and no traceback."""
    done = subprocess.run(
        [
            _script(),
            "calc",
            "fide",
            "--rating",
            "1500",
            "--k",
            "20",
            "--game",
            "1400:2",
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert "1400:2" in done.stderr
