"""The calculator for the list-based Elo systems: ``fide``, ``fide-2024``, ``classic``.

One rating period: the player (index 0 of a small state) and one opponent per
game, rated by the system's own ``rate``; the per-game figures come from the
pure functions the system uses (:func:`~simulator.systems.lists.state.rules_expected`,
:func:`~simulator.systems.lists.state.apply_700_rule`,
:func:`~simulator.systems.fide.initial_rating`, ...), and the result is
checked against the system's new rating. An unrated player gets the initial
rating of FIDE 8.2 (or the old international / German national rule), or the
reason there is none.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from simulator.systems import make_system
from simulator.systems._common import (
    FloatArray,
    Games,
    day_of,
    list_day_on,
    player_sum,
    round_half_away,
    round_half_up,
)
from simulator.systems.classic import (
    Classic,
    initial_rating_international,
    national_start_values,
)
from simulator.systems.fide import INITIAL_MAX, Fide, initial_rating
from simulator.systems.lists.state import (
    ListState,
    apply_700_rule,
    period_k,
    rules_expected,
)
from simulator.tasks.calc_types import (
    CalcError,
    CalcResult,
    GameInput,
    GameRow,
    ListInputs,
    check_games,
)

__all__ = ["calc_list"]

_K_INPUTS = ("games_played", "birth_year", "ever_2400", "ever_2300")

#: Inputs of fide and fide-2024 only, and their defaults.
_FIDE_ONLY = {
    "birth_year": None,
    "ever_2300": False,
    "junior_2300": "ever",
    "rules": None,
    "round_expectation": None,
}


def _option(dest: str) -> str:
    return "--" + dest.replace("_", "-")


def games_text(n: int) -> str:
    """``n game`` or ``n games``."""
    return f"{n} game" if n == 1 else f"{n} games"


def score_text(x: float) -> str:
    """A score: 1, 0.5, 3."""
    text = f"{x:.1f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _given_k_inputs(inputs: ListInputs) -> list[str]:
    """The K inputs (``--games-played`` ...) given."""
    given = []
    for dest in _K_INPUTS:
        value = getattr(inputs, dest)
        if value is not None and value is not False:
            given.append(_option(dest) if value is True else f"{_option(dest)} {value}")
    return given


def list_system(name: str, inputs: ListInputs) -> Fide | Classic:
    """The FIDE or old-style system the inputs ask for, from the registry."""
    params: dict[str, Any] = {}
    if name in ("fide", "fide-2024"):
        if inputs.initial != "international":
            raise CalcError(f"{_option('initial')}: it applies to classic")
        if inputs.rules == "2024":
            name = "fide-2024"
        elif inputs.rules == "2025" and name == "fide-2024":
            raise CalcError(
                "--rules 2025 contradicts fide-2024 (the 2024 rules): use 'fide'"
            )
        if inputs.round_expectation is not None:
            if inputs.expectation != "formula":
                raise CalcError(
                    f"--round-expectation {inputs.round_expectation} needs "
                    "--expectation formula (table values are already rounded)"
                )
            params["round_expectation"] = inputs.round_expectation
        params["junior_2300"] = inputs.junior_2300
    else:
        for dest, default in _FIDE_ONLY.items():
            if getattr(inputs, dest) != default:
                raise CalcError(f"{_option(dest)}: it applies to fide and fide-2024")
        params["initial"] = inputs.initial
    params["expectation"] = inputs.expectation
    if inputs.cap is not None:
        params["cap"] = None if math.isinf(inputs.cap) else inputs.cap
    system = make_system(name, **params)
    assert isinstance(system, Fide | Classic)
    return system


def list_state(
    system: Fide | Classic,
    inputs: ListInputs,
    rating: float,
    opp: FloatArray,
    day: int,
) -> ListState:
    """The list in force on ``day``: the player (index 0) and one opponent per game."""
    n_players = opp.shape[0] + 1
    n_games = np.zeros(n_players, dtype=np.intp)
    n_games[0] = inputs.games_played or 0
    birth_year = np.full(n_players, np.nan)
    if inputs.birth_year is not None:
        birth_year[0] = inputs.birth_year
    state = system.new_state(
        n_players,
        day=day,
        rating=np.concatenate([[rating], opp]),
        n_games=n_games,
        birth_year=birth_year,
    )
    ever_2400 = bool(inputs.ever_2400)
    ever_2300 = bool(inputs.ever_2300)
    if ever_2400 or ever_2300:
        # Published ratings before this list reached 2400 / 2300: K comes from
        # the system's own K rule on the amended list.
        e24 = state.ever_2400.copy()
        e23 = state.ever_2300.copy()
        e24[0] |= ever_2400
        e23[0] |= ever_2300 or ever_2400
        state = state._replace(ever_2400=e24, ever_2300=e23)
        state = state._replace(list_k=period_k(system.rules, state.rating, state)[None])
    if inputs.k is not None:
        list_k = state.list_k.copy()
        list_k[-1, 0] = inputs.k
        state = state._replace(list_k=list_k)
    return state


def initial_reason(
    system: Fide | Classic, opp: FloatArray, score: FloatArray
) -> tuple[float | None, str | None]:
    """The initial rating by the system's pure functions, or why there is none.

    Returns ``(rating, None)`` or ``(None, reason)``. :func:`calc_list` checks
    the answer against the system's ``rate``.
    """
    if isinstance(system, Classic) and system.initial == "national":
        ru, reason = _national(system, opp, score)
    else:
        ru, reason = _international(system, opp, float(score.sum()))
    if reason is not None or ru is None:
        return None, reason
    if ru < system.floor:
        return None, (
            f"Ru = {ru:g} is below the {system.floor:g} floor: the player stays unrated"
        )
    return ru, None


def _international(
    system: Fide | Classic, opp: FloatArray, points: float
) -> tuple[float | None, str | None]:
    """FIDE 8.2's Ru, or the old international rule's (2003 Handbook B0206)."""
    n = opp.shape[0]
    formula: Callable[..., Any]
    if isinstance(system, Fide):
        formula, needed = initial_rating, system.min_initial_games
        if points == 0:
            return None, (
                "0 points in the first event: its games leave the pool for good "
                "(FIDE 8.2.2)"
            )
    else:
        formula, needed = initial_rating_international, system.min_games
        if n < 3:
            return None, (
                f"{n} rated opponent(s) in the event; an event counts only with 3 "
                "(2003 Handbook B0206)"
            )
        if points <= 0.5:
            return None, (
                f"{score_text(points)} point(s) in the event; an event with 0.5 or "
                "less is disregarded (2003 Handbook B0206)"
            )
    if n < needed:
        return None, (
            f"{games_text(n)} against rated opponents; a first rating needs {needed}"
        )
    return float(formula(opp.sum(), n, points, min_games=needed).item()), None


def _national(
    system: Classic, opp: FloatArray, score: FloatArray
) -> tuple[float | None, str | None]:
    """The German national start value, once the player has its games."""
    n = opp.shape[0]
    start = national_start_values(
        n + 1,
        np.zeros(n, dtype=np.intp),
        np.arange(1, n + 1, dtype=np.intp),
        opp,
        score,
        np.arange(n + 1) == 0,
    )
    ru = float(round_half_up(start[0]).item())
    if n < system.min_games:
        return None, (
            f"{games_text(n)}; a first national rating needs {system.min_games} "
            f"(start value now {ru:g})"
        )
    return ru, None


def _check_inputs(inputs: ListInputs) -> None:
    """Rated with K or its sources, or unrated without."""
    k_inputs = _given_k_inputs(inputs)
    if inputs.unrated:
        if inputs.rating is not None:
            raise CalcError(
                f"--rating {inputs.rating}: not allowed with --unrated (give one)"
            )
        if inputs.k is not None or k_inputs:
            bad = f"--k {inputs.k}" if inputs.k is not None else k_inputs[0]
            raise CalcError(f"{bad}: an unrated player has no K (--unrated)")
        return
    if inputs.rating is None:
        raise CalcError("give --rating, or --unrated for a player without one")
    if inputs.k is not None and k_inputs:
        raise CalcError(
            f"--k {inputs.k} and {k_inputs[0]}: give K or what it is derived "
            "from, not both"
        )
    if inputs.k is None and inputs.games_played is None:
        raise CalcError(
            "give --k, or --games-played (with --birth-year, --ever-2400 ... as "
            "they apply) to derive K"
        )


def calc_list(name: str, inputs: ListInputs, games: list[GameInput]) -> CalcResult:
    """FIDE (2025 or 2024 rules) or old-style FIDE: one rating period."""
    system = list_system(name, inputs)
    fide_2024 = isinstance(system, Fide) and system.exempt_from is None
    shown = "fide-2024" if fide_2024 else system.name
    check_games(games, rd_for=f"{name} (an Elo system)", published=name)
    _check_inputs(inputs)
    date: dt.date = inputs.date or dt.date.today()
    day = day_of(date.isoformat())
    list_date = str(np.datetime64(list_day_on(day, system.months), "D"))

    n = len(games)
    opp = np.array([gm.opponent for gm in games], dtype=np.float64)
    score = np.array([gm.score for gm in games], dtype=np.float64)
    rating = np.nan if inputs.unrated else float(inputs.rating or 0)
    state = list_state(system, inputs, rating, opp, day)
    # The player is White in every game; these rules ignore colours.
    period = Games(np.zeros(n, dtype=np.intp), np.arange(1, n + 1), score)
    after = float(system.rate(state, period).rating[0])
    head: dict[str, Any] = {
        "system": shown,
        "rating": None if inputs.unrated else int(rating),
        "list_date": list_date,
        "points": float(score.sum()),
    }
    if inputs.unrated:
        return _initial(system, shown, head, games, opp, score, after)

    k_list = int(state.k[0])
    k = int(apply_700_rule(k_list, n)) if system.rules.rule_700 else k_list
    # PD in hundredths against the opponents' list ratings, the cap per the
    # player's own rating; with the table every term is a whole number.
    pd = rules_expected(system.rules, np.full(n, rating), opp)
    terms = k * (100.0 * score - pd)
    change = float(player_sum(np.zeros(n, dtype=np.intp), terms, 1)[0]) / 100.0
    rounded = float(round_half_away(change))
    new_rating = rating + rounded
    below_floor = math.isnan(after)
    if (below_floor and new_rating >= system.floor) or (
        not below_floor and after != new_rating
    ):
        raise RuntimeError(
            f"calc {shown}: the change {rounded:+g} disagrees with the system's new "
            f"rating {after} (report this bug)"
        )
    rows = tuple(
        GameRow(gm.opponent, gm.score, float(e), float(t))
        for gm, e, t in zip(games, pd / 100.0, terms / 100.0, strict=True)
    )
    if inputs.k is not None:
        source = "given"
    elif isinstance(system, Fide):
        source = f"derived from the list of {list_date}"
    else:
        source = "derived"
    notes: list[str] = []
    if k != k_list:
        notes.append(
            f"The 700 rule: K {k_list} x {n} games > 700, so K is {k} this period."
        )
    if below_floor:
        notes.append(
            f"{new_rating:g} is below the {system.floor:g} floor: the player leaves "
            "the list and is unrated again."
        )
    return CalcResult(
        keys=(
            *("system", "rating", "list_date", "games", "expected", "points", "k"),
            *("k_list", "k_source", "change", "rounded_change", "new_rating"),
            "below_floor",
        ),
        games=rows,
        expected=tuple(float(e) for e in pd / 100.0),
        k=k,
        k_list=k_list,
        k_source=source,
        change=change,
        rounded_change=int(rounded),
        new_rating=int(new_rating),
        below_floor=below_floor,
        notes=tuple(notes),
        **head,
    )


def _initial(
    system: Fide | Classic,
    shown: str,
    head: dict[str, Any],
    games: list[GameInput],
    opp: FloatArray,
    score: FloatArray,
    after: float,
) -> CalcResult:
    """An unrated player's first rating, or why there is none."""
    n = len(games)
    ru, reason = initial_reason(system, opp, score)
    if (ru is None) != math.isnan(after) or (ru is not None and ru != after):
        raise RuntimeError(
            f"calc {shown}: the initial rating {ru} disagrees with the system's "
            f"{after} (report this bug)"
        )
    whole = None if ru is None else int(ru)
    notes = []
    if isinstance(system, Fide) and whole == INITIAL_MAX:
        uncapped = initial_rating(opp.sum(), n, score.sum(), max_rating=np.inf).item()
        if uncapped > INITIAL_MAX:
            notes.append(
                f"Ru = {uncapped:g} is limited to {INITIAL_MAX:g} (FIDE 8.2.1)."
            )
    return CalcResult(
        keys=(
            *("system", "rating", "list_date", "games", "expected", "points", "k"),
            *("change", "new_rating", "initial_rating", "initial_rating_reason"),
        ),
        games=tuple(GameRow(gm.opponent, gm.score, None, None) for gm in games),
        expected=(None,) * n,
        change=None,
        new_rating=whole,
        initial_rating=whole,
        initial_rating_reason=reason,
        notes=tuple(notes),
        **head,
    )
