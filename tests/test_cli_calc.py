"""``ratingsim calc`` and ``ratingsim systems``: options, tables, JSON, errors.

The calculator's figures are tested through its API in tests/tasks/test_calc*.py;
these tests hold the command line to it: each option reaches the inputs, the
table and the JSON show the result, bad input is one line on stderr.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from simulator.cli import calc as cli_calc
from simulator.cli import main
from simulator.systems import SYSTEMS
from simulator.tasks.calc import (
    CALCULATORS,
    EloInputs,
    Glicko2Inputs,
    GlickoInputs,
    LichessInputs,
    ListInputs,
    calculate,
    parse_game,
)

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
# The options reach the calculator
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "inputs"),
    [
        (
            [
                *("fide", "--rating", "2250", "--games-played", "50"),
                *("--birth-year", "2007", "--date", "2025-06-15", "--ever-2300"),
                *("--junior-2300", "current", "--expectation", "formula"),
                *("--round-expectation", "2", "--cap", "none"),
            ],
            ListInputs(
                rating=2250,
                games_played=50,
                birth_year=2007,
                date=dt.date(2025, 6, 15),
                ever_2300=True,
                junior_2300="current",
                expectation="formula",
                round_expectation=2,
                cap=float("inf"),
            ),
        ),
        (
            ["fide", "--rating", "2700", "--k", "10", "--rules", "2024"],
            ListInputs(rating=2700, k=10, rules="2024"),
        ),
        (
            ["classic", "--rating", "2450", "--games-played", "10", "--ever-2400"],
            ListInputs(rating=2450, games_played=10, ever_2400=True),
        ),
        (
            ["classic", "--unrated", "--initial", "national", "--cap", "300"],
            ListInputs(unrated=True, initial="national", cap=300.0),
        ),
        (["elo", "--rating", "1500", "--k", "20"], EloInputs(rating=1500, k=20)),
        (
            [
                *("glicko2", "--rating", "1500", "--rd", "200"),
                *("--volatility", "0.06", "--tau", "0.5"),
            ],
            Glicko2Inputs(rating=1500, rd=200, volatility=0.06, tau=0.5),
        ),
        (
            ["glicko", "--rating", "1500", "--rd", "200", "--c", "34.6"],
            GlickoInputs(rating=1500, rd=200, c=34.6),
        ),
        (
            [
                *("lichess", "--rating", "1500", "--rd", "350", "--volatility"),
                *("0.06", "--tau", "0.5", "--no-colour-advantage", "--no-regulator"),
                *("--speed", "bullet", "--colour", "black", "--idle-days", "30"),
            ],
            LichessInputs(
                rating=1500,
                rd=350,
                volatility=0.06,
                tau=0.5,
                colour_advantage=False,
                regulator=False,
                speed="bullet",
                colour="black",
                idle_days=30,
            ),
        ),
        (["lichess"], LichessInputs()),
    ],
)
def test_options_reach_the_calculator(
    capsys: pytest.CaptureFixture[str], argv: list[str], inputs: Any
) -> None:
    """Each option sets the input of its name: the JSON is the API's result."""
    games = ["1500:1", "1600:="]
    printed = run_json(
        capsys, "calc", *argv, *(a for g in games for a in ("--game", g))
    )
    expected = calculate(argv[0], inputs, [parse_game(g) for g in games])
    assert printed == json.loads(json.dumps(expected.to_dict()))


# --------------------------------------------------------------------------
# Tables and JSON
# --------------------------------------------------------------------------


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


def test_rule_700(capsys: pytest.CaptureFixture[str]) -> None:
    """K 40 and 20 games: the 700 rule makes K 35 for the period."""
    games = [a for _ in range(20) for a in ("--game", "1500:1")]
    r = run_json(capsys, "calc", "fide", "--rating", "1500", "--k", "40", *games)
    assert (r["k"], r["k_list"]) == (35, 40)
    assert r["change"] == pytest.approx(35 * 20 * 0.5)
    _, out, _ = run(capsys, "calc", "fide", "--rating", "1500", "--k", "40", *games)
    assert "700 rule" in out


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


def test_every_calculator_has_a_subcommand() -> None:
    """``ratingsim calc`` has a subcommand for each calculator of the task."""
    assert set(cli_calc._CALCULATORS) == set(CALCULATORS)


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
