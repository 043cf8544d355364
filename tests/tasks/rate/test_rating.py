"""Rating a TRF: Madrid players checked by hand from docs/rules.md, the CLI, errors.

The hand checks use table 8.1.2 (docs/rules.md, section 1): with D = own - opponent
(capped at 400 for players under 2650), PD of the higher-rated player; the
lower-rated one gets 1 - PD. The change is K * sum(score - PD), rounded half
away from zero. The Madrid list is the one of 1 April 2018, so juniors are born
in 2000 or later; every rated player is assumed to have 30 games before (G),
so adults have K 20.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from simulator.cli import main
from simulator.data.trf import parse_trf, read_trf
from simulator.systems import SYSTEMS
from simulator.systems.lists.state import rules_expected
from simulator.tasks.rate.rating import rate_tournament

MADRID = Path(__file__).parents[2] / "data" / "swiss-madrid-2018.trf"


@pytest.fixture(scope="module")
def madrid_fide():  # type: ignore[no-untyped-def]
    return rate_tournament(read_trf(MADRID), "fide")


def player(start: int, rating: int, rounds: list[str], birth: str = "1990") -> str:
    """A ``001`` line in TRF-16's columns; each round is 'NNNN C R'."""
    line = f"001 {start:>4} m    {f'Player {start}':<33} {rating:>4} ESP"
    return line.ljust(69) + f"{birth:<10}      {start:>4}  " + "  ".join(rounds)


def test_player_with_a_bye_and_a_forfeit(madrid_fide) -> None:  # type: ignore[no-untyped-def]
    """Player 5 (1683): a forfeit win and byes are not rated; three games are."""
    p = madrid_fide.player(5)
    # Round 1: forfeit win against 68 (not rated); rounds 2, 5: H; round 7: Z.
    # Round 3, 43 (1530), loss: D = 153 -> PD .70 (146-153); 0 - .70 = -.70
    # Round 4, 62 (1457), win:  D = 226 -> PD .79 (226-235); 1 - .79 = +.21
    # Round 6, 39 (1540), win:  D = 143 -> PD .69 (138-145); 1 - .69 = +.31
    # sum = -.18; K 20 (adult, G 30): -3.6 -> -4; 1683 - 4 = 1679.
    assert [g.expected for g in p.games if g.rated] == [0.70, 0.79, 0.69]
    assert [g.reason for g in p.games if not g.rated] == [
        "forfeit: not rated",
        "half-point bye",
        "half-point bye",
        "absent (zero-point bye)",
    ]
    assert (p.k, p.n_rated, p.score) == (20, 3, 2.0)
    assert p.expected == pytest.approx(2.18)
    assert p.change == pytest.approx(-3.6)
    assert (p.rounded, p.new_rating) == (-4, 1679)
    # Player 17's forfeit win (round 4, against 97) leaves 6 rated games.
    assert madrid_fide.player(17).n_rated == 6


def test_player_with_a_capped_difference(madrid_fide) -> None:  # type: ignore[no-untyped-def]
    """Player 45 (1517): D = 459 against 117 (1058) counts as 400."""
    p = madrid_fide.player(45)
    # R1 117 (1058) win:  D = 459 -> 400 -> PD .92 (392-411); +.08
    # R2  30 (1562) draw: D = -45 -> .56 for 30 -> .44;        +.06
    # R3  75 (1406) loss: D = 111 -> .65 (107-113);            -.65
    # R4  80 (1394) win:  D = 123 -> .67 (122-129);            +.33
    # R5  88 (1350) win:  D = 167 -> .72 (163-170);            +.28
    # R6   9 (1660) loss: D = -143 -> .69 for 9 -> .31;        -.31
    # R7  98 (1310) loss: D = 207 -> .77 (207-215);            -.77
    # expected 4.48 (4.51 uncapped: D 459 -> .95), score 3.5, sum -.98;
    # K 20: -19.6 -> -20; 1517 - 20 = 1497.
    first = p.games[0]
    assert (first.difference, first.capped, first.expected) == (459.0, True, 0.92)
    assert [g.expected for g in p.games] == [0.92, 0.44, 0.65, 0.67, 0.72, 0.31, 0.77]
    assert p.expected == pytest.approx(4.48)
    assert p.change == pytest.approx(-19.6)
    assert p.new_rating == 1497
    # The other side of the game: 117 (1058) has D = -459 -> -400 -> .08.
    assert madrid_fide.player(117).games[0].expected == 0.08


def test_junior_k40(madrid_fide) -> None:  # type: ignore[no-untyped-def]
    """Player 36 (1544, born 2006) is a junior in 2018: K 40."""
    p = madrid_fide.player(36)
    # R1 105 (1271) W: D 273 -> .83; +.17    R2 59 (1459) W: D 85 -> .62; +.38
    # R3   6 (1670) W: D -126 -> .33; +.67   R4 43 (1530) W: D 14 -> .52; +.48
    # R5   2 (1731) D: D -187 -> .26; +.24   R6 46 (1516) L: D 28 -> .54; -.54
    # R7  16 (1639) D: D -95 -> .37; +.13
    # sum 1.53; K 40 (2018 - 2006 = 12 <= 18; 40 x 7 = 280 <= 700): +61.2 -> +61.
    assert (p.junior, p.k) == (True, 40)
    assert p.expected == pytest.approx(3.47)
    assert (p.rounded, p.new_rating) == (61, 1605)


def test_unrated_players_toward_an_initial_rating(madrid_fide) -> None:  # type: ignore[no-untyped-def]
    """Unrated players: Ru = Ra + dp(p) over the games against rated opponents."""
    # Player 130: 69 (1434) 1, 53 (1496) 0, 61 (1458) 1, 54 (1494) 1,
    # 4 (1698) 0, 51 (1501) 0 (round 1 a bye): n 6, 3 points;
    # Ra = (9081 + 2 x 1800) / 8 = 1585.125; p = 4/8 = .50 -> dp 0; Ru 1585.
    perf = madrid_fide.player(130).performance
    assert (perf.n_games, perf.points, perf.opponents) == (6, 3.0, 9081.0)
    assert (perf.ra, perf.p, perf.dp, perf.ru) == (1585.125, 0.5, 0, 1585.0)
    assert madrid_fide.player(130).new_rating == 1585
    # Player 3: six draws and a win: 1447, 1350, 1414, 1379, 1426 (won), 1476;
    # Ra = (8492 + 3600) / 8 = 1511.5; p = 4.5/8 = .5625 -> .56 -> dp 43;
    # Ru = 1554.5 -> 1555 (half up).
    perf = madrid_fide.player(3).performance
    assert (perf.ra, perf.p, perf.dp, perf.ru) == (1511.5, 0.56, 43, 1555.0)
    # Player 123: 1505 0, 1313 1, 1641 0, 1402 0, 1394 0: Ra = 10855 / 7 =
    # 1550.71; p = 2/7 -> .29 -> dp -158; Ru = 1392.71 -> 1393 < 1400: unrated.
    p = madrid_fide.player(123)
    assert (p.performance.dp, p.performance.ru, p.new_rating) == (-158, 1393.0, None)
    assert "below the 1400 floor" in p.status
    # Player 118: no point in 5 games against rated opponents (FIDE 8.2.2).
    p = madrid_fide.player(118)
    assert p.performance.n_games == 5 and p.new_rating is None
    assert p.status.startswith("0 points in the first event")
    # Games between two unrated players count for neither.
    assert madrid_fide.player(118).games[4].reason == "both unrated: rated for neither"


def test_rated_player_below_the_floor(madrid_fide) -> None:  # type: ignore[no-untyped-def]
    """Player 119 (1035, listed below 1400): -3 -> 1032, unrated on the next list."""
    p = madrid_fide.player(119)
    # R2 61 (1458) L: D -423 -> -400 -> .08; R3 71 (1425) L: D -390 -> .09;
    # R4 forfeit loss, R5 and R6 against unrated players: not rated.
    # sum -.17; K 20: -3.4 -> -3.
    assert [g.expected for g in p.games if g.rated] == [0.08, 0.09]
    assert (p.rounded, p.new_rating) == (-3, None)
    assert "1032 is below the 1400 floor" in p.status


def test_classic_rules_and_games_played() -> None:
    """Old rules: K 15 and cap 350; G from the options sets FIDE's K."""
    t = read_trf(MADRID)
    classic = rate_tournament(t, "classic")
    # Player 5: the same PDs, K 15 (G 30): -.18 x 15 = -2.7 -> -3 -> 1680.
    assert (classic.player(5).k, classic.player(5).new_rating) == (15, 1680)
    # Player 45: D 459 -> 350 -> PD .89 (345-357): sum -.95 x 15 = -14.25 -> 1503.
    assert classic.player(45).games[0].expected == 0.89
    assert classic.player(45).new_rating == 1503
    # Player 130 has 6 games: the old rules need 9 for a first rating.
    assert classic.player(130).new_rating is None
    assert str(classic.next_list) == "2018-07-01"
    # FIDE with G = 10 for player 5: K 40: -7.2 -> -7 -> 1676.
    fide = rate_tournament(t, "fide", games_played={5: 10})
    assert (fide.player(5).k, fide.player(5).new_rating) == (40, 1676)
    assert fide.player(4).k == 20
    with pytest.raises(ValueError, match="start number 999, not in the file"):
        rate_tournament(t, "fide", games_played={999: 3})


def test_2650_exemption_between_fide_and_fide_2024() -> None:
    """A 2700 beating a 2200: 2025 rules use D 500 for him, 2024 rules cap it."""
    lines = [
        "012 T",
        "042 2026/01/10",
        player(1, 2700, ["   2 w 1"]),
        player(2, 2200, ["   1 b 0"]),
    ]
    t = parse_trf(lines)
    new = rate_tournament(t, "fide")
    old = rate_tournament(t, "fide-2024")
    # fide: D 500 -> .96 (485-517); K 10 (rated 2400+): +.4 -> 0.
    # fide-2024: D 400 -> .92: +.8 -> +1. The 2200 is capped in both: .08,
    # K 20 (adult, G 30): -1.6 -> -2.
    assert new.player(1).games[0].expected == 0.96
    assert (new.player(1).k, new.player(1).new_rating) == (10, 2700)
    assert old.player(1).new_rating == 2701
    assert new.player(2).new_rating == old.player(2).new_rating == 2198
    assert str(new.next_list) == "2026-02-01"


@pytest.mark.parametrize("system", ["fide", "fide-2024", "classic"])
def test_every_rated_game_has_its_own_pd(system: str) -> None:
    """Each rated game's PD is the system's function of that game's ratings.

    (The PDs of all games are taken in one call: each must still be the one
    of its own game, as a call per game gives it.) Unrated games have none.
    """
    result = rate_tournament(read_trf(MADRID), system)
    rules = SYSTEMS[system]().rules
    n_rated = 0
    for p in result.players:
        for line in p.games:
            if not line.rated:
                assert line.expected is None
                continue
            assert p.rating is not None and line.opponent_rating is not None
            own, opponent = float(p.rating), float(line.opponent_rating)
            one = rules_expected(rules, [own], [opponent])
            assert line.expected == float(one[0]) / 100.0
            assert line.difference == p.rating - line.opponent_rating
            n_rated += 1
    assert n_rated > 500


def test_700_rule() -> None:
    """Eighteen games at K 40: K * n = 720 > 700, so K is 700 // 18 = 38."""
    rounds_1 = [f"   2 {'wb'[r % 2]} =" for r in range(18)]
    rounds_2 = [f"   1 {'bw'[r % 2]} =" for r in range(18)]
    t = parse_trf(
        ["042 2026/01/10", player(1, 1600, rounds_1), player(2, 1500, rounds_2)]
    )
    result = rate_tournament(t, "fide", games_played_default=0)
    p = result.player(1)
    # D 100 -> .64 per game: 18 x (.5 - .64) = -2.52; x 38 = -95.76 -> -96.
    assert (p.k_list, p.k, p.rounded, p.new_rating) == (40, 38, -96, 1504)
    assert "700 rule: K 40 -> 38" in p.status
    assert result.player(2).new_rating == 1596


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_games_played_option(capsys: pytest.CaptureFixture[str]) -> None:
    """--games-played START=G changes one player's K."""
    code, out, _ = run(
        capsys, "rate", str(MADRID), "--games-played", "5=10", "--format", "json"
    )
    assert code == 0
    assert json.loads(out)["players"][4]["new_rating"] == 1676


def test_cli_malformed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A malformed line: one line on stderr with file and line, exit 2; --skip-bad."""
    lines = MADRID.read_text().splitlines()
    lines[20] = lines[20][:98] + "?" + lines[20][99:]  # player 8, round 1 result
    bad = tmp_path / "bad.trf"
    bad.write_text("\n".join(lines) + "\n")
    code, out, err = run(capsys, "rate", str(bad))
    assert (code, out) == (2, "")
    assert err == (
        f"ratingsim rate: error: {bad}, line 21: round 1 (columns 92-99): result '?' "
        "is not a TRF-16 code (1 = 0, W D L, + -, H F U Z)\n"
    )
    code, out, err = run(capsys, "rate", str(bad), "--skip-bad")
    assert code == 0
    assert "skipped 8 bad record(s)" in err
    assert f"  {bad}, line 21: round 1" in out
    # Player 8's line is out, and with it the games of their seven opponents.
    assert (
        sum("opponent 8 is not in the file" in line for line in out.splitlines()) == 7
    )


def test_cli_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A missing file and a system that cannot rate a TRF exit 2 with one line."""
    code, _, err = run(capsys, "rate", str(tmp_path / "none.trf"))
    assert code == 2
    assert (
        err.startswith("ratingsim rate: error: cannot read ") and err.count("\n") == 1
    )
    code, _, err = run(capsys, "rate", str(MADRID), "--compare", "fide,elo")
    assert code == 2 and "elo does not rate tournaments" in err
    code, _, err = run(capsys, "rate", str(MADRID), "--games-played", "5:10")
    assert code == 2 and "is not START=G" in err


def test_cli_literals_match_the_module() -> None:
    """The parser's system choices and default G are simulator.tasks.rate's."""
    from simulator.cli import commands as cli
    from simulator.tasks import rate, replay

    assert cli._RATE_SYSTEMS == rate.RATE_SYSTEMS
    assert cli._GAMES_PLAYED_DEFAULT == rate.GAMES_PLAYED_DEFAULT
    assert cli._GAMES_PLAYED_DEFAULT == replay.GAMES_PLAYED_DEFAULT
