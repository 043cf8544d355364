"""Rating one tournament (a TRF-16 file) through a list-based Elo system.

The tournament is one event in one rating period (FIDE Rating Regulations,
Handbook B.02 effective 1 March 2024, sections 7-8; RULES.md sections 1-2):

* the ratings in the file are the list the event uses, the one in force on its
  start day (tag ``042``); both players of a game and K come from it;
* the event is rated on the first list after its end day (tag ``052``): the
  next monthly list for FIDE, the next quarterly list for the old rules;
* a game counts if it was played (``1 = 0``) and both players are rated;
  forfeits (``+ -``), byes (``H F U Z``) and games the file marks as not
  rated (``W D L``) never count (RULES.md section 1);
* a rated player's change is ``K * sum(score - PD)`` with PD from table 8.1.2
  after the cap (400 points, or 350 under the old rules; since 1 October 2025
  a player rated 2650 or more uses the real difference), rounded half away
  from zero (8.3);
* an unrated player's games against rated opponents are the results toward an
  initial rating (8.2): ``Ru = Ra + dp(p)`` over at least 5 such games, Ra with
  two hypothetical 1800 opponents, p with two hypothetical draws.

Everything is computed by the system itself: the new ratings come from its
``rate`` on a state built from the file, and the per-game figures from the
same pure functions the system uses (:func:`~simulator.systems.lists.state.
rules_expected`, :func:`~simulator.systems.lists.state.apply_700_rule`,
:func:`~simulator.systems.fide.initial_rating`, ...). The two are checked
against each other for every player.

What a TRF does not say is assumed, and every result lists its assumptions
(:attr:`TournamentRating.assumptions`): the games each rated player had
before the event (G, which decides K 40 under 30 games; default
:data:`GAMES_PLAYED_DEFAULT`), whether they were ever rated 2400 or 2300
(only the file's rating is known), that the event is the only one rated for
its players in the period (the 700 rule and the rounding see it alone), and
that for an unrated player it is the first event, with no earlier results.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from simulator.data.trf import BYES, FORFEITS, PLAYED, Tournament, TrfPlayer
from simulator.systems import SYSTEMS, make_system
from simulator.systems._common import (
    Games,
    day_of,
    list_day_on,
    round_half_away,
    round_half_up,
)
from simulator.systems.classic import Classic, initial_rating_international
from simulator.systems.fide import HYPOTHETICAL_OPPONENT, Fide, initial_rating
from simulator.systems.lists.state import (
    ListRules,
    ListState,
    apply_700_rule,
    rules_expected,
)
from simulator.systems.tables import dp_from_p

__all__ = [
    "GAMES_PLAYED_DEFAULT",
    "RATE_SYSTEMS",
    "TOWARD_INITIAL",
    "GameLine",
    "Performance",
    "PlayerRating",
    "TournamentRating",
    "compare_csv",
    "compare_json",
    "compare_table",
    "rate_tournament",
    "to_csv",
    "to_json",
    "to_table",
]

#: Games a rated player is assumed to have played before the event (G): not
#: in a TRF. With 30 or more, FIDE's K is 20 (10 from 2400, 40 for juniors).
GAMES_PLAYED_DEFAULT = 30
#: The systems that rate a tournament: the list-based Elo systems.
RATE_SYSTEMS = ("fide", "fide-2024", "classic")
#: The reason of an unrated player's game against a rated opponent.
TOWARD_INITIAL = "toward an initial rating"

_BYE_TEXT = {
    "H": "half-point bye",
    "F": "full-point bye",
    "U": "pairing-allocated bye",
    "Z": "absent (zero-point bye)",
}


@dataclass(frozen=True)
class GameLine:
    """One round of one player, as the rating sees it.

    Attributes
    ----------
    round : int
        The round.
    opponent : int or None
        The opponent's start number (None for a bye).
    opponent_rating : int or None
        The opponent's rating on the list (None if unrated or no opponent).
    colour : str or None
        ``"w"``, ``"b"`` or None.
    code : str
        The TRF result code.
    score : float
        The player's points from this round.
    rated : bool
        Whether the game enters the player's rating change.
    reason : str
        Why the game is not rated, or what it is for ("" for a rated game).
    difference : float or None
        Own rating minus the opponent's (both rated), before the cap.
    capped : bool
        Whether the cap changed the difference.
    expected : float or None
        PD of a rated game (table 8.1.2, after the cap).
    """

    round: int
    opponent: int | None
    opponent_rating: int | None
    colour: str | None
    code: str
    score: float
    rated: bool
    reason: str
    difference: float | None
    capped: bool
    expected: float | None


@dataclass(frozen=True)
class Performance:
    """An unrated player's results toward an initial rating (FIDE 8.2).

    Attributes
    ----------
    n_games : int
        Games against rated opponents that count.
    points : float
        Points in them.
    opponents : float
        Sum of the opponents' ratings.
    ra : float or None
        FIDE: ``(sum + 2 * 1800) / (n + 2)``; old rules: the plain average.
    p : float or None
        FIDE: ``(points + 1) / (n + 2)`` rounded to hundredths; old rules:
        ``points / n``.
    dp : int or None
        From table 8.1.1 (FIDE, and the old rules below 50 %).
    ru : float or None
        The initial rating the results give (None if they give none).
    published : bool
        Whether ``ru`` is published on the next list (at or above the floor).
    reason : str
        Why there is no rating, or "" if published.
    """

    n_games: int
    points: float
    opponents: float
    ra: float | None
    p: float | None
    dp: int | None
    ru: float | None
    published: bool
    reason: str


@dataclass(frozen=True)
class PlayerRating:
    """One player's figures.

    Attributes
    ----------
    start, name : int, str
        From the file.
    rating : int or None
        Rating on the list the event uses (None = unrated).
    birth_year : int or None
        From the file.
    junior : bool
        Junior on that list (FIDE: list year - birth year <= 18).
    games_before : int or None
        G assumed for a rated player.
    k_list : int or None
        K on the list.
    k : int or None
        K used (after the 700 rule).
    n_rated : int
        Games rated (both players rated, played).
    score : float
        Points in the rated games.
    expected : float
        Sum of PD over the rated games.
    change : float or None
        ``K * (score - expected)``, unrounded.
    rounded : int or None
        The change rounded half away from zero.
    new_rating : int or None
        The rating on the next list (None = unrated there).
    status : str
        A note: no rated games, below the floor, the initial rating, ...
    performance : Performance or None
        For an unrated player.
    points : float
        Points from every round.
    games : tuple of GameLine
        Every round.
    """

    start: int
    name: str
    rating: int | None
    birth_year: int | None
    junior: bool
    games_before: int | None
    k_list: int | None
    k: int | None
    n_rated: int
    score: float
    expected: float
    change: float | None
    rounded: int | None
    new_rating: int | None
    status: str
    performance: Performance | None
    points: float
    games: tuple[GameLine, ...]


@dataclass(frozen=True)
class TournamentRating:
    """A tournament rated by one system.

    Attributes
    ----------
    system : str
        The registry name.
    description : str
        The system's first docstring line.
    tournament : Tournament
        The parsed file.
    list_day, next_list : datetime.date
        The list the event uses and the list it is rated on.
    assumptions : tuple of str
        What the file does not say and was assumed.
    players : tuple of PlayerRating
        By start number.
    """

    system: str
    description: str
    tournament: Tournament
    list_day: dt.date
    next_list: dt.date
    assumptions: tuple[str, ...]
    players: tuple[PlayerRating, ...]

    def player(self, start: int) -> PlayerRating:
        """The figures of start number ``start``."""
        for p in self.players:
            if p.start == start:
                return p
        raise KeyError(f"No player with start number {start}.")


def _date(day: int) -> dt.date:
    return dt.date(1970, 1, 1) + dt.timedelta(days=int(day))


def _system(name: str) -> Fide | Classic:
    if name not in RATE_SYSTEMS:
        raise ValueError(
            f"Unknown system {name!r} for rating a tournament: one of "
            f"{', '.join(RATE_SYSTEMS)}."
        )
    system = make_system(name)
    assert isinstance(system, Fide | Classic)
    return system


def _performance(
    system: Fide | Classic, opp: list[float], opp_start: list[int], score: list[float]
) -> Performance:
    """An unrated player's performance by the system's own initial-rating rule."""
    n = len(opp)
    points = float(sum(score))
    total = float(sum(opp))
    floor = system.floor

    def none(reason: str, **figures: Any) -> Performance:
        values: dict[str, Any] = {"ra": None, "p": None, "dp": None, "ru": None}
        values.update(figures)
        return Performance(n, points, total, published=False, reason=reason, **values)

    if n == 0:
        return none("no games against rated opponents")
    dp: int | None
    if isinstance(system, Fide):
        ra = (total + 2 * HYPOTHETICAL_OPPONENT) / (n + 2)
        p = float(round_half_up((points + 1.0) / (n + 2), 2))
        dp = int(dp_from_p(round(p * 100)))
        if points == 0:
            return none(
                "0 points in the first event: its games leave the pool for good "
                "(FIDE 8.2.2)",
                ra=ra,
                p=p,
                dp=dp,
            )
        if n < system.min_initial_games:
            return none(
                f"{n} game(s) against rated opponents; a first rating needs "
                f"{system.min_initial_games}",
                ra=ra,
                p=p,
                dp=dp,
            )
        ru = float(initial_rating(total, n, points, min_games=system.min_initial_games))
    else:
        ra = total / n
        p = points / n
        dp = (
            None
            if points >= n / 2
            else int(dp_from_p(round(float(round_half_up(p, 2)) * 100)))
        )
        if len(set(opp_start)) < 3:
            return none(
                f"{len(set(opp_start))} rated opponent(s); an event counts only "
                "with 3 (2003 Handbook B0206)",
                ra=ra,
                p=p,
                dp=dp,
            )
        if points <= 0.5:
            return none(
                f"{points:g} point(s); an event with 0.5 or less is disregarded "
                "(2003 Handbook B0206)",
                ra=ra,
                p=p,
                dp=dp,
            )
        if n < system.min_games:
            return none(
                f"{n} game(s) against rated opponents; a first rating needs "
                f"{system.min_games}",
                ra=ra,
                p=p,
                dp=dp,
            )
        ru = float(
            initial_rating_international(total, n, points, min_games=system.min_games)
        )
    if ru < floor:
        return Performance(
            n,
            points,
            total,
            ra,
            p,
            dp,
            ru,
            False,
            f"Ru {ru:g} is below the {floor:g} floor: the player stays unrated",
        )
    return Performance(n, points, total, ra, p, dp, ru, True, "")


def _game_lines(
    p: TrfPlayer,
    by_start: Mapping[int, TrfPlayer],
    present: set[tuple[int, int]],
    rules: ListRules,
    pd_of: Mapping[tuple[int, int], float],
) -> list[GameLine]:
    """Every round of ``p``: rated or why not, with D and PD of a rated game.

    ``pd_of`` gives the PD of a pair of ratings (:func:`_expected_by_pair`).
    """
    lines = []
    for e in p.rounds:
        q = by_start.get(e.opponent) if e.opponent is not None else None
        q_rating = None if q is None else q.rating
        rated, reason, d, capped, pd = False, "", None, False, None
        if e.code in BYES:
            reason = _BYE_TEXT[e.code]
        elif e.code in FORFEITS:
            reason = "forfeit: not rated"
        elif e.code not in PLAYED:
            reason = f"not rated ({e.code}: the file marks the game unrated)"
        elif (e.round, p.start) not in present:
            reason = "left out: the pairing is malformed (--skip-bad)"
        elif q_rating is None and p.rating is None:
            reason = "both unrated: rated for neither"
        elif q_rating is None:
            reason = "opponent unrated: not rated"
        elif p.rating is None:
            reason = TOWARD_INITIAL
        else:
            rated = True
            own = float(p.rating)
            d = own - q_rating
            pd = pd_of[p.rating, q_rating]
            exempt = rules.exempt_from is not None and own >= rules.exempt_from
            capped = rules.cap is not None and abs(d) > rules.cap and not exempt
        lines.append(
            GameLine(
                e.round,
                e.opponent,
                q_rating,
                e.colour,
                e.code,
                e.points,
                rated,
                reason,
                d,
                capped,
                pd,
            )
        )
    return lines


def _expected_by_pair(
    players: Sequence[TrfPlayer], by_start: Mapping[int, TrfPlayer], rules: ListRules
) -> dict[tuple[int, int], float]:
    """PD of every (own, opponent) pair of ratings that meet in the file.

    Table 8.1.2 after its cap, by the system's own function
    (:func:`~simulator.systems.lists.state.rules_expected`), which works game by
    game: one call for every pair of rated players who meet, whether the
    game is rated or not, instead of one call per rated game.
    """
    pairs = list(
        {
            (p.rating, q.rating)
            for p in players
            if p.rating is not None
            for e in p.rounds
            if e.opponent is not None
            and (q := by_start.get(e.opponent)) is not None
            and q.rating is not None
        }
    )
    if not pairs:
        return {}
    own = np.array([float(r) for r, _ in pairs])
    opp = np.array([float(r) for _, r in pairs])
    pd = rules_expected(rules, own, opp).tolist()
    return {pair: hd / 100.0 for pair, hd in zip(pairs, pd, strict=True)}


def rate_tournament(
    tournament: Tournament,
    system: str = "fide",
    *,
    games_played_default: int = GAMES_PLAYED_DEFAULT,
    games_played: Mapping[int, int] | None = None,
) -> TournamentRating:
    """Rate ``tournament`` as one event of one rating period.

    Parameters
    ----------
    tournament : Tournament
        The parsed TRF.
    system : {"fide", "fide-2024", "classic"}
        The rules: FIDE 2024 with the 2025 amendment, without it, or the old
        rules (K 25/15/10, cap 350, quarterly lists).
    games_played_default : int
        G (games before the event) of every rated player: not in a TRF.
    games_played : mapping of int to int, optional
        G of particular players, by start number.

    Returns
    -------
    TournamentRating

    Raises
    ------
    ValueError
        An unknown system, a negative G, or a start number that is not in the
        file.
    """
    rules_system = _system(system)
    rules = rules_system.rules
    if games_played_default < 0:
        raise ValueError(f"games played must be >= 0. Got {games_played_default}.")
    overrides = dict(games_played or {})
    players = tournament.players
    index = {p.start: i for i, p in enumerate(players)}
    for start, g in overrides.items():
        if start not in index:
            raise ValueError(
                f"games played given for start number {start}, not in the file"
            )
        if g < 0:
            raise ValueError(f"games played must be >= 0. Got {g} for player {start}.")
    n_players = len(players)
    start_day = day_of(tournament.start.isoformat())
    end_day = day_of(tournament.end.isoformat())
    list_day = list_day_on(start_day, rules.months)
    next_list = rules_system.next_close(end_day)
    if end_day >= next_list - rules_system.closing_days:
        next_list = rules_system.next_close(next_list)

    rating = np.array([np.nan if p.rating is None else p.rating for p in players])
    birth = np.array(
        [np.nan if p.birth_year is None else p.birth_year for p in players]
    )
    g_before = np.array(
        [overrides.get(p.start, games_played_default) for p in players], dtype=np.intp
    )
    state: ListState = rules_system.new_state(
        n_players, day=start_day, birth_year=birth, rating=rating, n_games=g_before
    )

    played = [g for g in tournament.games if g.code in PLAYED]
    white = np.array([index[g.white] for g in played], dtype=np.intp)
    black = np.array([index[g.black] for g in played], dtype=np.intp)
    score = np.array([g.score for g in played], dtype=np.float64)
    days = np.array(
        [start_day if g.day is None else day_of(g.day.isoformat()) for g in played],
        dtype=np.float64,
    )
    games = Games(
        white,
        black,
        score,
        day=days,
        event=np.zeros(len(played), dtype=np.intp),
        event_start=np.full(len(played), float(start_day)),
    )
    after = rules_system.rate(state, games, day=next_list).rating

    # Rated games per player, for the 700 rule.
    both_rated = ~np.isnan(rating[white]) & ~np.isnan(rating[black])
    n_rated = np.bincount(
        np.concatenate([white[both_rated], black[both_rated]]), minlength=n_players
    )
    present = {(g.round, g.white) for g in played} | {
        (g.round, g.black) for g in played
    }
    by_start = {p.start: p for p in players}
    list_year = _date(list_day).year
    out: list[PlayerRating] = []
    pd_of = _expected_by_pair(players, by_start, rules)
    for i, p in enumerate(players):
        lines = _game_lines(p, by_start, present, rules, pd_of)
        toward = [g for g in lines if g.reason == TOWARD_INITIAL]
        rated_lines = [gl for gl in lines if gl.rated]
        points_rated = float(sum(gl.score for gl in rated_lines))
        expected = float(sum(gl.expected or 0.0 for gl in rated_lines))
        junior = (
            isinstance(rules_system, Fide)
            and p.birth_year is not None
            and list_year - p.birth_year <= 18
        )
        new_after = None if math.isnan(after[i]) else int(after[i])
        if p.rating is None:
            perf = _performance(
                rules_system,
                [float(g.opponent_rating or 0) for g in toward],
                [int(g.opponent or 0) for g in toward],
                [g.score for g in toward],
            )
            new = int(perf.ru) if perf.published and perf.ru is not None else None
            status = f"initial rating {new}" if new is not None else perf.reason
            if new != new_after:
                raise RuntimeError(
                    f"rate: player {p.start}'s initial rating {new} disagrees with "
                    f"the system's {new_after} (report this bug)"
                )
            out.append(
                PlayerRating(
                    start=p.start,
                    name=p.name,
                    rating=None,
                    birth_year=p.birth_year,
                    junior=junior,
                    games_before=None,
                    k_list=None,
                    k=None,
                    n_rated=0,
                    score=0.0,
                    expected=0.0,
                    change=None,
                    rounded=None,
                    new_rating=new,
                    status=status,
                    performance=perf,
                    points=p.total,
                    games=tuple(lines),
                )
            )
            continue
        k_list = int(state.k[i])
        k = int(apply_700_rule(k_list, n_rated[i])) if rules.rule_700 else k_list
        # In hundredths, as the system sums them: PD of table 8.1.2 has two
        # decimals, so the sum is exact.
        hundredths = sum(
            100.0 * gl.score - round((gl.expected or 0.0) * 100.0) for gl in rated_lines
        )
        change = k * hundredths / 100.0
        rounded = int(round_half_away(change))
        computed = p.rating + rounded
        new = computed if computed >= rules_system.floor else None
        if new != new_after:
            raise RuntimeError(
                f"rate: player {p.start}'s new rating {new} disagrees with the "
                f"system's {new_after} (report this bug)"
            )
        notes = []
        if not rated_lines:
            notes.append("no rated games")
        if k != k_list:
            notes.append(f"700 rule: K {k_list} -> {k}")
        n_capped = sum(gl.capped for gl in rated_lines)
        if n_capped:
            notes.append(f"{n_capped} difference(s) capped at {rules.cap:g}")
        if new is None:
            notes.append(
                f"{computed} is below the {rules_system.floor:g} floor: unrated on "
                "the next list"
            )
        out.append(
            PlayerRating(
                start=p.start,
                name=p.name,
                rating=p.rating,
                birth_year=p.birth_year,
                junior=junior,
                games_before=int(g_before[i]),
                k_list=k_list,
                k=k,
                n_rated=len(rated_lines),
                score=points_rated,
                expected=expected,
                change=change,
                rounded=rounded,
                new_rating=new,
                status="; ".join(notes),
                performance=None,
                points=p.total,
                games=tuple(lines),
            )
        )

    assumptions = _assumptions(
        rules_system, tournament, list_day, next_list, games_played_default, overrides
    )
    doc = (SYSTEMS[system].__doc__ or "").strip().splitlines()
    return TournamentRating(
        system=system,
        description=doc[0].replace("``", "") if doc else system,
        tournament=tournament,
        list_day=_date(list_day),
        next_list=_date(next_list),
        assumptions=tuple(assumptions),
        players=tuple(out),
    )


def _assumptions(
    system: Fide | Classic,
    tournament: Tournament,
    list_day: int,
    next_list: int,
    default: int,
    overrides: Mapping[int, int],
) -> list[str]:
    fide = isinstance(system, Fide)
    out = [
        f"The ratings in the file are the list of {_date(list_day)}, in force on the "
        f"start day {tournament.start}; the event is rated on the list of "
        f"{_date(next_list)}.",
    ]
    given = f"; given for {len(overrides)} player(s)" if overrides else ""
    k_rule = (
        "K 40 under 30 games, else 20; 10 from 2400; 40 for juniors under 2300"
        if fide
        else "K 25 under 30 games, else 15; 10 from 2400"
    )
    out.append(
        f"Games played before the event (G) are not in a TRF: {default} assumed for "
        f"every rated player (--games-played-default){given}. {k_rule}."
    )
    out.append(
        "Ratings reached before (ever 2400 / 2300) are not in a TRF: only the "
        "file's rating is known."
    )
    if fide:
        out.append(
            "Juniors by the file's birth year: junior while the list's year minus "
            "the birth year is 18 or less; no birth year: an adult."
        )
    out.append(
        "The event is the only one rated for its players in the period (the 700 "
        "rule and the rounding see it alone)."
    )
    out.append(
        "Unrated players: the event is their first, with no earlier results to pool."
    )
    below = [
        p
        for p in tournament.players
        if p.rating is not None and p.rating < system.floor
    ]
    if below:
        out.append(
            f"{len(below)} player(s) are rated below the {system.floor:g} floor in "
            "the file (ratings older than the rules); they are rated as listed."
        )
    return out


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------


def _num(x: float | None, places: int, *, sign: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.{places}f}" if sign else f"{x:.{places}f}"


def _pts(x: float) -> str:
    return f"{x:g}" if x != int(x) else f"{x:.0f}"


def _table(
    headers: list[str], rows: list[list[str]], left: Sequence[int] = (1,)
) -> list[str]:
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    out = []
    for r in [headers, *rows]:
        cells = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _heading(t: Tournament) -> str:
    n_played = sum(g.code in PLAYED for g in t.games)
    n_forfeit = sum(g.code in FORFEITS for g in t.games)
    where = ", ".join(x for x in (t.city, t.federation) if x)
    title = t.name or t.path
    return (
        f"{title}{' (' + where + ')' if where else ''}, {t.start} to {t.end}: "
        f"{len(t.players)} players, {t.n_rounds} rounds, {n_played} games played, "
        f"{n_forfeit} forfeits"
    )


def _new_text(p: PlayerRating) -> str:
    return "-" if p.new_rating is None else str(p.new_rating)


def _note(p: PlayerRating) -> str:
    if p.performance is None:
        return p.status
    perf = p.performance
    if perf.ra is None:
        return perf.reason
    ra = f"{perf.ra:.3f}".rstrip("0").rstrip(".")
    figures = f"Ra {ra}, p {perf.p:.2f}" + (
        f", dp {perf.dp:+d}" if perf.dp is not None else ""
    )
    if perf.published:
        return f"initial rating: {figures}, Ru {perf.ru:g}"
    return f"{perf.reason} ({figures})"


def _game_row(g: GameLine) -> str:
    opp = "bye" if g.opponent is None else str(g.opponent)
    opp_r = "" if g.opponent_rating is None else f" ({g.opponent_rating})"
    colour = g.colour or "-"
    text = f"    round {g.round}: {opp}{opp_r} {colour} {g.code}"
    if g.rated:
        assert g.difference is not None and g.expected is not None
        cap = " (capped)" if g.capped else ""
        text += (
            f"  D {g.difference:+.0f}{cap}, PD {g.expected:.2f}, score - PD "
            f"{g.score - g.expected:+.2f}"
        )
    else:
        text += f"  {g.reason}"
    return text


def to_table(result: TournamentRating, *, detail: bool = False) -> str:
    """The result as text: heading, assumptions, one row per player.

    With ``detail``, every round of every player follows its row.
    """
    t = result.tournament
    lines = [
        _heading(t),
        f"{result.system}: {result.description}",
        "Assumptions:",
        *(f"  - {a}" for a in result.assumptions),
        "",
    ]
    headers = [
        "#",
        "name",
        "rating",
        "born",
        "K",
        "games",
        "score",
        "expected",
        "change",
        "new",
        "note",
    ]
    rows = []
    details: dict[int, list[str]] = {}
    for p in result.players:
        if p.performance is not None:
            rows.append(
                [
                    str(p.start),
                    p.name,
                    "-",
                    str(p.birth_year or "-"),
                    "-",
                    str(p.performance.n_games),
                    _pts(p.performance.points),
                    "-",
                    "-",
                    _new_text(p),
                    _note(p),
                ]
            )
        else:
            k = "-" if p.k is None else str(p.k) + ("*" if p.junior else "")
            rows.append(
                [
                    str(p.start),
                    p.name,
                    str(p.rating),
                    str(p.birth_year or "-"),
                    k,
                    str(p.n_rated),
                    _pts(p.score),
                    _num(p.expected, 2),
                    _num(p.change, 2, sign=True),
                    _new_text(p),
                    _note(p),
                ]
            )
        details[len(rows) - 1] = [_game_row(g) for g in p.games]
    table = _table(headers, rows, left=(1, len(headers) - 1))
    lines.append(table[0])
    for i, row in enumerate(table[1:]):
        lines.append(row)
        if detail:
            lines.extend(details[i])
    lines.append("")
    lines.append(
        "K* = junior. games: rated games (unrated players: games against rated "
        "opponents). change = K x (score - expected), rounded half away from "
        "zero into new."
    )
    lines += _trailer(t)
    return "\n".join(lines)


def _trailer(t: Tournament) -> list[str]:
    out = [f"Warning: {w}" for w in t.warnings]
    if t.skipped:
        out.append(f"Skipped {len(t.skipped)} bad record(s) (--skip-bad):")
        out += [f"  {b}" for b in t.skipped]
    return out


_CSV_FIELDS = [
    "start",
    "name",
    "rating",
    "birth_year",
    "junior",
    "games_before",
    "k_list",
    "k",
    "games_rated",
    "score",
    "expected",
    "change",
    "rounded_change",
    "new_rating",
    "points",
    "initial_games",
    "initial_points",
    "initial_ra",
    "initial_p",
    "initial_dp",
    "initial_ru",
    "status",
]


def _csv_row(p: PlayerRating) -> dict[str, Any]:
    perf = p.performance
    return {
        "start": p.start,
        "name": p.name,
        "rating": p.rating,
        "birth_year": p.birth_year,
        "junior": p.junior,
        "games_before": p.games_before,
        "k_list": p.k_list,
        "k": p.k,
        "games_rated": p.n_rated,
        "score": p.score,
        "expected": round(p.expected, 6),
        "change": None if p.change is None else round(p.change, 6),
        "rounded_change": p.rounded,
        "new_rating": p.new_rating,
        "points": p.points,
        "initial_games": None if perf is None else perf.n_games,
        "initial_points": None if perf is None else perf.points,
        "initial_ra": None if perf is None or perf.ra is None else round(perf.ra, 6),
        "initial_p": None if perf is None else perf.p,
        "initial_dp": None if perf is None else perf.dp,
        "initial_ru": None if perf is None else perf.ru,
        "status": _note(p),
    }


def to_csv(result: TournamentRating, *, detail: bool = False) -> str:
    """One CSV row per player, or with ``detail`` one per player and round."""
    buf = io.StringIO()
    if detail:
        fields = ["start", "name", *GameLine.__dataclass_fields__]
        writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for p in result.players:
            for g in p.games:
                writer.writerow({"start": p.start, "name": p.name, **_fields_of(g)})
        return buf.getvalue()
    writer = csv.DictWriter(buf, fieldnames=_CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for p in result.players:
        writer.writerow(_csv_row(p))
    return buf.getvalue()


def _fields_of(record: GameLine | Performance | PlayerRating) -> dict[str, Any]:
    """A record's fields by name, in order: ``dataclasses.asdict`` one level deep.

    ``asdict`` deep-copies every value it meets, which for thousands of
    players costs seconds; the values here are numbers, strings and None.
    """
    return {f.name: getattr(record, f.name) for f in fields(record)}


def _player_dict(p: PlayerRating) -> dict[str, Any]:
    """A player's figures as plain data, as ``dataclasses.asdict`` gives them."""
    out = _fields_of(p)
    out["performance"] = None if p.performance is None else _fields_of(p.performance)
    out["games"] = [_fields_of(g) for g in p.games]
    return out


def _json_body(result: TournamentRating) -> dict[str, Any]:
    """One system's result as plain data (without the tournament)."""
    return {
        "system": result.system,
        "description": result.description,
        "list_date": str(result.list_day),
        "rated_on_list": str(result.next_list),
        "assumptions": list(result.assumptions),
        "players": [_player_dict(p) for p in result.players],
    }


def _tournament_dict(t: Tournament) -> dict[str, Any]:
    return {
        "file": t.path,
        "name": t.name,
        "city": t.city,
        "federation": t.federation,
        "start": str(t.start),
        "end": str(t.end),
        "rounds": t.n_rounds,
        "players": len(t.players),
        "warnings": list(t.warnings),
        "skipped": [str(b) for b in t.skipped],
    }


def to_json(result: TournamentRating) -> str:
    """The result as one JSON object (every player with every round)."""
    body = {"tournament": _tournament_dict(result.tournament), **_json_body(result)}
    return json.dumps(body, indent=2, ensure_ascii=False)


def compare_table(results: Sequence[TournamentRating]) -> str:
    """Several systems side by side: K, change and new rating of each."""
    first = results[0]
    lines = [_heading(first.tournament)]
    for r in results:
        lines.append(
            f"{r.system}: {r.description} (list of {r.list_day}, rated on the list "
            f"of {r.next_list})"
        )
    lines.append("Assumptions (each system):")
    seen: list[str] = []
    for r in results:
        for a in r.assumptions:
            if a not in seen:
                seen.append(a)
                lines.append(f"  - {a}")
    lines.append("")
    headers = ["#", "name", "rating"]
    for r in results:
        headers += [f"{r.system} K", "change", "new"]
    rows = []
    for i, p in enumerate(first.players):
        row = [str(p.start), p.name, "-" if p.rating is None else str(p.rating)]
        for r in results:
            q = r.players[i]
            row += [
                "-" if q.k is None else str(q.k),
                "-" if q.rounded is None else f"{q.rounded:+d}",
                _new_text(q),
            ]
        rows.append(row)
    lines += _table(headers, rows)
    lines.append("")
    lines.append("change: rounded; new: '-' = unrated on the next list.")
    lines += _trailer(first.tournament)
    return "\n".join(lines)


def compare_csv(results: Sequence[TournamentRating]) -> str:
    """Several systems side by side, one CSV row per player."""
    buf = io.StringIO()
    fields = ["start", "name", "rating"]
    for r in results:
        fields += [f"{r.system}_k", f"{r.system}_change", f"{r.system}_new_rating"]
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for i, p in enumerate(results[0].players):
        row: dict[str, Any] = {"start": p.start, "name": p.name, "rating": p.rating}
        for r in results:
            q = r.players[i]
            row[f"{r.system}_k"] = q.k
            row[f"{r.system}_change"] = q.rounded
            row[f"{r.system}_new_rating"] = q.new_rating
        writer.writerow(row)
    return buf.getvalue()


def compare_json(results: Sequence[TournamentRating]) -> str:
    """Several systems: one JSON object with each system's full result."""
    systems = {r.system: _json_body(r) for r in results}
    return json.dumps(
        {"tournament": _tournament_dict(results[0].tournament), "systems": systems},
        indent=2,
        ensure_ascii=False,
    )
