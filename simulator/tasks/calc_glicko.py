"""The calculator for plain Elo and the Glicko systems: elo, glicko2, glicko, lichess.

Plain Elo and Lichess rate game by game, the player's values carried from one
game to the next; Glicko-2 and Glicko-1 rate the games as one rating period
(Glickman's steps), each game's change its share of the period's change. Every
figure comes from the system itself (``rate``, ``expected_score``, the ``g``
functions), and the shares are checked to add up to the system's change.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from simulator.systems import make_system
from simulator.systems._common import FloatArray, Games
from simulator.systems.elo import Elo
from simulator.systems.glicko import Glicko, GlickoState, Q, grow_rd
from simulator.systems.glicko import g as glicko_g
from simulator.systems.glicko2 import SCALE, Glicko2, Glicko2State
from simulator.systems.glicko2 import g as glicko2_g
from simulator.systems.lichess import Lichess, LichessState, provisional
from simulator.tasks.calc_types import (
    CalcResult,
    EloInputs,
    GameInput,
    GameRow,
    Glicko2Inputs,
    GlickoInputs,
    LichessInputs,
    check_games,
)

__all__ = ["calc_elo", "calc_glicko", "calc_glicko2", "calc_lichess"]

#: The figures every result gives first and last.
_HEAD = ("system", "rating")
_TOTALS = ("games", "expected", "points", "change", "new_rating")


def _one_game(white: int, black: int, score: float) -> Games:
    """A single game, White's score, on day 0 (the calculator's clock)."""
    return Games(
        np.array([white], dtype=np.intp),
        np.array([black], dtype=np.intp),
        np.array([score]),
        day=np.zeros(1),
    )


def calc_elo(name: str, inputs: EloInputs, games: list[GameInput]) -> CalcResult:
    """Plain Elo, one game after another."""
    check_games(games, rd_for="elo")
    params: dict[str, Any] = {}
    if inputs.k is not None:
        params["k_factor"] = inputs.k
    system = make_system("elo", **params)
    assert isinstance(system, Elo)
    rating = system.initial_rating if inputs.rating is None else float(inputs.rating)
    n = len(games)
    opp = np.array([gm.opponent for gm in games], dtype=np.float64)
    state = system.new_state(n + 1, rating=np.concatenate([[rating], opp]))
    rows = []
    for i, gm in enumerate(games, 1):
        e = float(system.expected_score(state, [0], [i])[0])
        before = float(state.rating[0])
        state = system.rate(state, _one_game(0, i, gm.score))
        after = float(state.rating[0])
        rows.append(
            GameRow(gm.opponent, gm.score, e, after - before, rating_after=after)
        )
    new_rating = float(state.rating[0])
    return CalcResult(
        keys=("system", "rating", "k", *_TOTALS),
        system="elo",
        rating=rating,
        k=system.k_factor,
        games=tuple(rows),
        expected=tuple(r.expected for r in rows),
        points=float(sum(gm.score for gm in games)),
        change=new_rating - rating,
        new_rating=new_rating,
    )


# --------------------------------------------------------------------------
# The Glicko systems
# --------------------------------------------------------------------------


def _period_state(
    system: Glicko2 | Glicko | Lichess,
    inputs: Glicko2Inputs | GlickoInputs | LichessInputs,
    games: list[GameInput],
) -> tuple[
    GlickoState | Glicko2State | LichessState, FloatArray, FloatArray, list[str]
]:
    """The player (index 0) and one opponent per game; the opponents' RDs, scores.

    Returns the state, the opponents' RDs, the player's scores and notes on
    defaults. An opponent without an RD has the system's new-player RD.
    """
    lichess = isinstance(system, Lichess)
    check_games(games, colour=lichess)
    notes = []
    missing = [gm.text for gm in games if gm.rd is None]
    if missing:
        notes.append(
            f"No opponent RD in {', '.join(missing)}: {system.name}'s new-player RD "
            f"{system.initial_rd:g} is used."
        )
    opp = np.array([gm.opponent for gm in games], dtype=np.float64)
    opp_rd = np.array(
        [system.initial_rd if gm.rd is None else gm.rd for gm in games],
        dtype=np.float64,
    )
    score = np.array([gm.score for gm in games], dtype=np.float64)
    n = len(games)
    rating = np.concatenate([[_rating(system, inputs)], opp])
    rd = np.concatenate([[_rd(system, inputs)], opp_rd])
    state: GlickoState | Glicko2State | LichessState
    if isinstance(system, Glicko):
        state = system.new_state(n + 1, rating=rating, rd=rd)
    else:
        assert not isinstance(inputs, GlickoInputs)
        volatility = np.concatenate(
            [[_volatility(system, inputs)], np.full(n, system.initial_volatility)]
        )
        state = system.new_state(n + 1, rating=rating, rd=rd, volatility=volatility)
    return state, opp_rd, score, notes


def _start(
    name: str,
    params: dict[str, Any],
    inputs: Glicko2Inputs | LichessInputs,
    games: list[GameInput],
) -> tuple[
    Glicko2 | Lichess,
    GlickoState | Glicko2State | LichessState,
    FloatArray,
    FloatArray,
    list[str],
]:
    """Glicko-2 or Lichess with ``params`` and the inputs' tau, and its period."""
    if inputs.tau is not None:
        params = {**params, "tau": inputs.tau}
    system = make_system(name, **params)
    assert isinstance(system, Glicko2 | Lichess)
    return system, *_period_state(system, inputs, games)


def _rating(
    system: Glicko2 | Glicko | Lichess,
    inputs: Glicko2Inputs | GlickoInputs | LichessInputs,
) -> float:
    return system.initial_rating if inputs.rating is None else inputs.rating


def _rd(
    system: Glicko2 | Glicko | Lichess,
    inputs: Glicko2Inputs | GlickoInputs | LichessInputs,
) -> float:
    return system.initial_rd if inputs.rd is None else inputs.rd


def _volatility(
    system: Glicko2 | Lichess, inputs: Glicko2Inputs | LichessInputs
) -> float:
    if inputs.volatility is None:
        return system.initial_volatility
    return inputs.volatility


def _check_share(name: str, shares: FloatArray, change: float) -> None:
    """The per-game shares must add up to the system's change."""
    if not math.isclose(float(shares.sum()), change, rel_tol=1e-9, abs_tol=1e-9):
        raise RuntimeError(
            f"calc {name}: per-game shares {float(shares.sum())} do not add up to the "
            f"change {change} (report this bug)"
        )


_SHARES = "Per-game changes are each game's share of the period's change."


def _period_rows(
    games: list[GameInput],
    opp_rd: FloatArray,
    expected: FloatArray,
    shares: FloatArray,
) -> tuple[GameRow, ...]:
    return tuple(
        GameRow(gm.opponent, gm.score, float(e), float(c), opponent_rd=float(r))
        for gm, r, e, c in zip(games, opp_rd, expected, shares, strict=True)
    )


def calc_glicko2(
    name: str, inputs: Glicko2Inputs, games: list[GameInput]
) -> CalcResult:
    """Glickman's Glicko-2: one rating period."""
    system, state, opp_rd, score, notes = _start("glicko2", {}, inputs, games)
    assert isinstance(system, Glicko2) and isinstance(state, Glicko2State)
    rating, rd = _rating(system, inputs), _rd(system, inputs)
    vol = _volatility(system, inputs)
    n = len(games)
    white, black = np.zeros(n, dtype=np.intp), np.arange(1, n + 1)
    expected = system.expected_score(state, white, black)
    new = system.rate(state, Games(white, black, score))
    new_rating, new_rd = float(new.rating[0]), float(new.rd[0])
    change = new_rating - rating
    # Step 7: mu' - mu = phi'^2 sum_j g(phi_j)(s_j - E_j); each game's share.
    shares = new_rd**2 / SCALE * glicko2_g(opp_rd / SCALE) * (score - expected)
    _check_share("glicko2", shares, change)
    notes.append(_SHARES)
    return CalcResult(
        keys=(*_HEAD, "rd", "volatility", "tau", *_TOTALS, "new_rd", "new_volatility"),
        system="glicko2",
        rating=rating,
        rd=rd,
        volatility=vol,
        tau=system.tau,
        games=_period_rows(games, opp_rd, expected, shares),
        expected=tuple(float(e) for e in expected),
        points=float(score.sum()),
        change=change,
        new_rating=new_rating,
        new_rd=new_rd,
        new_volatility=float(new.volatility[0]),
        notes=tuple(notes),
    )


def calc_glicko(name: str, inputs: GlickoInputs, games: list[GameInput]) -> CalcResult:
    """Glickman's Glicko-1: one rating period (``c`` ages every RD first)."""
    system = make_system("glicko", c=inputs.c)
    assert isinstance(system, Glicko)
    rating, rd = _rating(system, inputs), _rd(system, inputs)
    state, _, score, notes = _period_state(system, inputs, games)
    assert isinstance(state, GlickoState)
    n = len(games)
    white, black = np.zeros(n, dtype=np.intp), np.arange(1, n + 1)
    # Step 1: the RDs at the onset of the period, on which E and the update rest.
    onset = state._replace(
        rd=grow_rd(state.rd, 1.0, c=system.c, max_rd=system.initial_rd)
    )
    if np.any(state.rd > system.initial_rd):
        notes.append(
            f"RDs above {system.initial_rd:g} count as {system.initial_rd:g} "
            "(step 1's ceiling)."
        )
    # The system's own E already reads the RDs at the onset of the period.
    expected = system.expected_score(state, white, black)
    new = system.rate(state, Games(white, black, score))
    new_rating, new_rd = float(new.rating[0]), float(new.rd[0])
    change = new_rating - rating
    # r' - r = q RD'^2 sum_j g(RD_j)(s_j - E_j); each game's share.
    shares = Q * new_rd**2 * glicko_g(onset.rd[1:]) * (score - expected)
    _check_share("glicko", shares, change)
    notes.append(_SHARES)
    return CalcResult(
        keys=(*_HEAD, "rd", "c", *_TOTALS, "new_rd"),
        system="glicko",
        rating=rating,
        rd=rd,
        c=system.c,
        games=_period_rows(games, onset.rd[1:], expected, shares),
        expected=tuple(float(e) for e in expected),
        points=float(score.sum()),
        change=change,
        new_rating=new_rating,
        new_rd=new_rd,
        notes=tuple(notes),
    )


def calc_lichess(
    name: str, inputs: LichessInputs, games: list[GameInput]
) -> CalcResult:
    """Lichess's Glicko-2: each game its own period, the player's values carried."""
    params: dict[str, Any] = {
        "colour_advantage": inputs.colour_advantage,
        "regulator": inputs.regulator,
        "speed": inputs.speed,
    }
    system, state, opp_rd, score, notes = _start("lichess", params, inputs, games)
    assert isinstance(system, Lichess) and isinstance(state, LichessState)
    rating, rd = _rating(system, inputs), _rd(system, inputs)
    vol = _volatility(system, inputs)
    n = len(games)
    # The player last played idle_days before the first game (RD growth);
    # the opponents' RDs are taken as they are at their game (no growth).
    last_day = np.full(n + 1, np.nan)
    if inputs.idle_days:
        last_day[0] = -float(inputs.idle_days)
    state = state._replace(last_day=last_day)
    rows = []
    for i, gm in enumerate(games, 1):
        colour = gm.colour or inputs.colour[0]
        before = float(state.rating[0])
        if colour == "w":
            e = float(system.expected_score(state, [0], [i])[0])
            one = _one_game(0, i, gm.score)
        else:
            # expected_score gives White's E, with Black's RD in g. The player's
            # E as Black (g of the opponent's RD) is 1 - White's E when the
            # player carries the opponent's RD: E is logistic in the difference.
            swapped = state.rd.copy()
            swapped[0] = state.rd[i]
            e = 1.0 - float(
                system.expected_score(state._replace(rd=swapped), [i], [0])[0]
            )
            one = _one_game(i, 0, 1.0 - gm.score)
        state = system.rate(state, one)
        rows.append(
            GameRow(
                gm.opponent,
                gm.score,
                e,
                float(state.rating[0]) - before,
                opponent_rd=float(opp_rd[i - 1]),
                colour="white" if colour == "w" else "black",
                rating_after=float(state.rating[0]),
                rd_after=float(state.rd[0]),
                volatility_after=float(state.volatility[0]),
            )
        )
    new_rating = float(state.rating[0])
    is_provisional = bool(provisional(state)[0])
    display = f"{math.trunc(new_rating)}{'?' if is_provisional else ''}"
    notes += _lichess_clamp_notes(system, rating, rd, vol, opp_rd)
    return CalcResult(
        keys=(
            *(*_HEAD, "rd", "volatility", "tau", "colour_advantage", "regulator"),
            *("idle_days", *_TOTALS, "new_rd", "new_volatility"),
            *("display", "provisional"),
        ),
        system="lichess",
        rating=rating,
        rd=rd,
        volatility=vol,
        tau=system.tau,
        colour_advantage=system.colour_advantage,
        regulator=system.speed if system.regulator else None,
        idle_days=float(inputs.idle_days),
        games=tuple(rows),
        expected=tuple(r.expected for r in rows),
        points=float(score.sum()),
        change=new_rating - rating,
        new_rating=new_rating,
        new_rd=float(state.rd[0]),
        new_volatility=float(state.volatility[0]),
        display=display,
        provisional=is_provisional,
        notes=tuple(notes),
    )


def _lichess_clamp_notes(
    system: Lichess, rating: float, rd: float, vol: float, opp_rd: FloatArray
) -> list[str]:
    """Notes on the inputs Lichess clamps before a game."""
    notes = []
    if rating < system.min_rating:
        notes.append(f"Lichess rates a rating {rating:g} as {system.min_rating:g}.")
    outside = [
        x for x in (rd, *opp_rd.tolist()) if not system.min_rd <= x <= system.max_rd
    ]
    if outside:
        shown = ", ".join(f"{x:g}" for x in outside)
        notes.append(
            f"Lichess clamps RD to [{system.min_rd:g}, {system.max_rd:g}]: RD {shown} "
            "counts as the nearest bound."
        )
    if vol > system.max_volatility:
        notes.append(
            f"Lichess rates a volatility {vol:g} as {system.max_volatility:g}."
        )
    return notes
