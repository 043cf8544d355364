"""Tests of simulator.tasks.calc_glicko: plain Elo, Glicko-2, Glicko-1 and Lichess."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.systems._common import Games
from simulator.systems.elo import Elo
from simulator.systems.lichess import Lichess
from simulator.tasks.calc import (
    CalcError,
    EloInputs,
    Glicko2Inputs,
    GlickoInputs,
    LichessInputs,
    calculate,
    parse_game,
)

#: Glickman's example: the player and the three opponents.
GLICKMAN = {"rating": 1500.0, "rd": 200.0}
GLICKMAN_GAMES = [parse_game(g) for g in ("1400/30:1", "1550/100:0", "1700/300:0")]


def test_elo_per_game() -> None:
    """Plain Elo rates game by game; the result matches Elo.rate on the same games."""
    r = calculate(
        "elo",
        EloInputs(rating=1500, k=20),
        [parse_game("1400:1"), parse_game("1600:0.5")],
    )
    system = Elo(k_factor=20)
    state = system.new_state(3, rating=np.array([1500.0, 1400.0, 1600.0]))
    state = system.rate(
        state, Games(np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.5]))
    )
    assert r.new_rating == pytest.approx(float(state.rating[0]), abs=1e-12)
    first = 1 / (1 + 10 ** (-100 / 400))
    assert r.expected[0] == pytest.approx(first)
    assert r.games[0].change == pytest.approx(20 * (1 - first))
    # The second game is played at the new rating.
    after = 1500 + 20 * (1 - first)
    assert r.expected[1] == pytest.approx(1 / (1 + 10 ** ((1600 - after) / 400)))
    assert r.k == 20


def test_elo_defaults() -> None:
    """Without inputs the player is Elo's new player with Elo's K."""
    r = calculate("elo", None, [parse_game("1500:1")])
    assert (r.rating, r.k) == (Elo().initial_rating, Elo().k_factor)


def test_glicko2_glickman_example() -> None:
    """Glickman's example: 1464.0507, 151.5165, 0.0599960."""
    r = calculate(
        "glicko2", Glicko2Inputs(**GLICKMAN, volatility=0.06, tau=0.5), GLICKMAN_GAMES
    )
    assert r.new_rating == pytest.approx(1464.0507, abs=5e-5)
    assert r.new_rd == pytest.approx(151.5165, abs=5e-5)
    assert r.new_volatility == pytest.approx(0.0599960, abs=5e-8)
    assert r.expected == pytest.approx([0.639, 0.432, 0.303], abs=1e-3)
    assert sum(g.change or 0.0 for g in r.games) == pytest.approx(r.change)


def test_glicko1_example() -> None:
    """Glicko-1 on the same inputs without RD growth: 1464.106, RD 151.399."""
    r = calculate("glicko", GlickoInputs(**GLICKMAN), GLICKMAN_GAMES)
    assert r.new_rating == pytest.approx(1464.106, abs=5e-4)
    assert r.new_rd == pytest.approx(151.399, abs=5e-4)
    assert r.new_volatility is None
    assert "new_volatility" not in r.to_dict()
    grown = calculate("glicko", GlickoInputs(**GLICKMAN, c=34.6), GLICKMAN_GAMES)
    assert grown.new_rd is not None and r.new_rd is not None
    assert grown.new_rd > r.new_rd


def test_missing_opponent_rd_is_noted() -> None:
    """An opponent without an RD gets the new-player RD, and a note says so."""
    r = calculate("glicko2", None, [parse_game("1400:1")])
    assert r.games[0].opponent_rd == 350
    assert r.notes[0].startswith("No opponent RD in 1400:1: glicko2's new-player RD")


def test_lichess_calculator_test() -> None:
    """Lichess's test: 1500/350/0.06 beats the same, no advantage, no regulator."""
    r = calculate(
        "lichess",
        LichessInputs(
            rating=1500,
            rd=350,
            volatility=0.06,
            colour_advantage=False,
            regulator=False,
        ),
        [parse_game("1500/350:1")],
    )
    assert r.new_rating == pytest.approx(1662.21, abs=5e-3)
    assert r.new_rd == pytest.approx(290.2305, abs=5e-4)
    assert r.expected == (0.5,)
    assert r.display == "1662?"


def test_lichess_issue_example_matches_system() -> None:
    """The issue's example, rated in order, equals Lichess.rate on the same games."""
    r = calculate(
        "lichess",
        LichessInputs(rating=1500, rd=500, volatility=0.09),
        [parse_game("1500/500:1"), parse_game("1600/80:0")],
    )
    system = Lichess()
    state = system.new_state(
        3, rating=np.array([1500.0, 1500.0, 1600.0]), rd=np.array([500.0, 500.0, 80.0])
    )
    state = system.rate(
        state, Games(np.array([0, 0]), np.array([1, 2]), np.array([1.0, 0.0])), day=0.0
    )
    assert r.new_rating == pytest.approx(float(state.rating[0]), abs=1e-9)
    assert r.new_rd == pytest.approx(float(state.rd[0]), abs=1e-9)
    assert r.new_volatility == pytest.approx(float(state.volatility[0]), abs=1e-12)
    assert (r.expected[0] or 0.0) > 0.5  # White's advantage


def test_lichess_black() -> None:
    """As Black the player's E is the mirror of White's, and the result matches."""
    player = LichessInputs(rating=1700, rd=80)
    white = calculate("lichess", player, [parse_game("1500/300:1:w")])
    black = calculate("lichess", player, [parse_game("1500/300:1:b")])
    flag = calculate(
        "lichess",
        LichessInputs(rating=1700, rd=80, colour="black"),
        [parse_game("1500/300:1")],
    )
    assert (black.expected[0] or 0.0) < (white.expected[0] or 0.0)
    assert flag.expected == black.expected
    system = Lichess()
    state = system.new_state(
        2, rating=np.array([1700.0, 1500.0]), rd=np.array([80.0, 300.0])
    )
    state = system.rate(
        state, Games(np.array([1]), np.array([0]), np.array([0.0])), day=0.0
    )
    assert black.new_rating == pytest.approx(float(state.rating[0]), abs=1e-9)


def test_lichess_clamp_notes() -> None:
    """Inputs Lichess clamps (rating, RDs, volatility) are noted."""
    r = calculate(
        "lichess",
        LichessInputs(rating=300, rd=20, volatility=0.2),
        [parse_game("1400/900:1")],
    )
    assert any(note.startswith("Lichess rates a rating 300 as 400") for note in r.notes)
    assert any("RD 20, 900 counts as the nearest bound" in note for note in r.notes)
    assert any(note.startswith("Lichess rates a volatility 0.2") for note in r.notes)


@pytest.mark.parametrize(
    ("system", "game", "message"),
    [
        ("elo", "1400/30:1", "an opponent RD makes no sense for elo"),
        ("elo", "1400:1:w", "the colour only matters for lichess"),
        ("glicko2", "1400/30:1:w", "the colour only matters for lichess"),
        ("glicko", "1400:1:b", "the colour only matters for lichess"),
    ],
)
def test_what_a_system_cannot_read_is_refused(
    system: str, game: str, message: str
) -> None:
    """An RD for Elo, a colour for any system but Lichess: a CalcError."""
    with pytest.raises(CalcError, match=message):
        calculate(system, None, [parse_game(game)])
