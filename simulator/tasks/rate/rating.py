"""Rating one tournament (a TRF-16 file) through a list-based Elo system.

The tournament is one event in one rating period (FIDE Rating Regulations,
Handbook B.02 effective 1 March 2024, sections 7-8; docs/rules.md, sections 1 and 2):

* the ratings in the file are the list the event uses, the one in force on its
  start day (tag ``042``); both players of a game and K come from it;
* the event is rated on the first list after its end day (tag ``052``): the
  next monthly list for FIDE, the next quarterly list for the old rules;
* a game counts if it was played (``1 = 0``) and both players are rated;
  forfeits (``+ -``), byes (``H F U Z``) and games the file marks as not
  rated (``W D L``) never count (docs/rules.md, section 1);
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

import datetime as dt
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
from simulator.tasks.rate.seeding import ListSeeding

__all__ = [
    "GAMES_PLAYED_DEFAULT",
    "RATE_SYSTEMS",
    "TOWARD_INITIAL",
    "GameLine",
    "Performance",
    "PlayerRating",
    "TournamentRating",
    "rate_tournament",
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
    # Why the results give no rating, checked in this order: (refused, reason).
    refusals: list[tuple[bool, str]]
    if isinstance(system, Fide):
        ra = (total + 2 * HYPOTHETICAL_OPPONENT) / (n + 2)
        p = float(round_half_up((points + 1.0) / (n + 2), 2))
        dp = int(dp_from_p(round(p * 100)))
        min_games = system.min_initial_games
        refusals = [
            (
                points == 0,
                "0 points in the first event: its games leave the pool for good "
                "(FIDE 8.2.2)",
            )
        ]
    else:
        ra = total / n
        p = points / n
        dp = (
            None
            if points >= n / 2
            else int(dp_from_p(round(float(round_half_up(p, 2)) * 100)))
        )
        min_games = system.min_games
        n_opponents = len(set(opp_start))
        refusals = [
            (
                n_opponents < 3,
                f"{n_opponents} rated opponent(s); an event counts only "
                "with 3 (2003 Handbook B0206)",
            ),
            (
                points <= 0.5,
                f"{points:g} point(s); an event with 0.5 or less is disregarded "
                "(2003 Handbook B0206)",
            ),
        ]
    refusals.append(
        (
            n < min_games,
            f"{n} game(s) against rated opponents; a first rating needs {min_games}",
        )
    )
    for refused, reason in refusals:
        if refused:
            return none(reason, ra=ra, p=p, dp=dp)
    rule = initial_rating if isinstance(system, Fide) else initial_rating_international
    ru = float(rule(total, n, points, min_games=min_games))
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
    seeding: ListSeeding | None = None,
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
    seeding : ListSeeding, optional
        The players seeded from a FIDE list (:func:`~simulator.tasks.rate.
        seeding.seed_tournament`): its seeded copy of the tournament is
        rated, with the list's K and G (``games_played`` still wins for G).

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
    if seeding is not None:
        tournament = seeding.tournament
    overrides = {} if seeding is None else dict(seeding.games_played)
    overrides.update(games_played or {})
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
    if seeding is not None and seeding.k_values:
        # K as the list gives it, for the players it rates.
        list_k = state.list_k.copy()
        for start, k in seeding.k_values.items():
            if not math.isnan(rating[index[start]]):
                list_k[-1, index[start]] = k
        state = state._replace(list_k=list_k)

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
    if seeding is not None:
        assumptions += seeding.assumptions()
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
