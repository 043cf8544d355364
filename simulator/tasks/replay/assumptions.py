"""The assumptions a replay prints: how it met each system, and what the FIDE rules did.

A game file says nothing of events, lists or how a newcomer was rated before
the file starts; the replay assumes it, and :func:`assumptions` says so in
words, with what each list system predicts for a player it has not rated
yet (:mod:`simulator.systems.lists.new_players`) and how often its floor and
first-rating rules acted (:mod:`simulator.tasks.replay.log`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from simulator.systems.classic import Classic
from simulator.systems.fide import Fide
from simulator.systems.lists.timeline import FideHistory
from simulator.tasks.replay.log import (
    BELOW_FLOOR,
    ENTERED_UNRATED,
    FIRST_RATING,
    RE_RATED,
)

__all__ = ["assumptions", "unrated_prediction_text"]


def unrated_prediction_text(system: Any) -> str:
    """What a list system predicts for a player it does not rate (in words)."""
    rule = getattr(system, "new_player_prediction", "constant")
    constant = float(getattr(system, "unrated_prediction", 1550.0))
    if rule == "constant":
        return f"as rated {constant:g} (new_player_prediction='constant')"
    if rule == "performance":
        return (
            "by its first-rating formula on the results pooled so far, as if one "
            f"game were enough, {constant:g} before any "
            "(new_player_prediction='performance')"
        )
    return (
        "as the mean rating of the list's recent newcomers (under 30 games), "
        f"{constant:g} while there are none (new_player_prediction='newcomers')"
    )


def _initial_rule(system: Any) -> str:
    if isinstance(system, Fide) and system.initial == "2024":
        return (
            "FIDE 8.2: Ra + dp over the pooled results against rated opponents "
            "plus two hypothetical 1800 draws, at least "
            f"{system.min_initial_games} games, at most 2200"
        )
    if isinstance(system, Fide | Classic):
        return (
            f"the {type(system).__name__} initial-rating formula "
            f"('{system.initial}', at least {system.min_initial_games} games, no "
            "hypothetical opponents)"
        )
    if isinstance(system, FideHistory):
        return (
            "the rule of the era in force: the 2014 formula before "
            f"{system.rules_2024_from}, FIDE 8.2 from then on"
        )
    return "its initial-rating rule"


def assumptions(
    tracks: Sequence[tuple[str, Any, bool, bool]],
    *,
    seed: str,
    start_rating: float | None,
    games_played_default: int,
    counts: Mapping[str, Mapping[str, int]],
    n_seeded: int,
) -> list[str]:
    """The replay's assumptions as sentences.

    Parameters
    ----------
    tracks : sequence of (label, system, per_game, list_based)
        The replayed systems.
    seed : {"none", "file"}
        Where new players' ratings came from.
    start_rating : float or None
        The assumed list rating of new players (None: unrated).
    games_played_default : int
        G of a seeded player.
    counts : mapping
        Per label, the list events (:mod:`simulator.tasks.replay.log`).
    n_seeded : int
        Players who entered with a rating from the file.
    """
    per_game = [t[0] for t in tracks if t[2]]
    period = [t[0] for t in tracks if not t[2]]
    listed = [t for t in tracks if t[3]]
    out = [
        "Walk-forward: every game is predicted from the ratings before it, then "
        "rated; the metrics score those predictions only.",
    ]
    if per_game:
        out.append(f"Per-game systems ({', '.join(per_game)}) update after every game.")
    if period:
        out.append(
            f"Period systems ({', '.join(period)}) predict from the ratings in force "
            "and rate each period at its close on their calendars; the open periods "
            "are rated at the end of the file."
        )
    if listed:
        names = ", ".join(t[0] for t in listed)
        out.append(
            "FIDE events: each calendar day of play is one event, starting that day."
        )
        if start_rating is None:
            entry = (
                "unrated, as FIDE has it: rated only once their rules give a first "
                "rating from games against rated opponents"
            )
        else:
            entry = (
                f"on the list at an ASSUMED {start_rating:g} with no games before "
                "(--start-rating; K of a new player: 40 under FIDE's rules, 25 under "
                "the old ones), not as FIDE's rules would have them"
            )
        if seed == "file":
            out.append(
                f"New players enter the lists ({names}) with the file's rating at "
                f"their first game and {games_played_default} games before "
                f"({n_seeded} players), or where there is none {entry}."
            )
        else:
            out.append(f"New players enter the lists ({names}) {entry}.")
        for label, system, _, _ in listed:
            c = counts.get(label, {})
            floor = getattr(system, "floor", 1400.0)
            # fide-history's floor is its era's unless a parameter sets one.
            under = "its era's floor" if floor is None else f"{float(floor):g}"
            out.append(
                f"{label}: a player it does not rate is predicted "
                f"{unrated_prediction_text(system)}; a first rating follows "
                f"{_initial_rule(system)}; a new rating under {under} leaves the "
                "list (unrated again; FIDE 7.1.4) and a later first rating by the "
                "same rule is a re-rating. In this replay: "
                f"{c.get(ENTERED_UNRATED, 0)} entered unrated, "
                f"{c.get(FIRST_RATING, 0)} first ratings, "
                f"{c.get(BELOW_FLOOR, 0)} dropped below {under}, "
                f"{c.get(RE_RATED, 0)} re-rated (events in the history)."
            )
            rated_ever = (
                c.get(FIRST_RATING, 0)
                + c.get("entered at the start rating", 0)
                + c.get("entered with a seeded rating", 0)
            )
            if rated_ever == 0:
                out.append(
                    f"WARNING: {label} rated nobody: with no list rating to start "
                    "from, FIDE's first ratings (games against rated opponents) "
                    "never come, and every prediction of it is the stand-in "
                    f"above. Seed ratings (--seed-ratings file) or assume a start "
                    "rating (--start-rating R)."
                )
    others = [t[0] for t in tracks if not t[3]]
    if others:
        source = (
            "the file's rating at their first game where there is one, else their "
            "defaults"
            if seed == "file"
            else "their defaults"
        )
        out.append(f"New players of {', '.join(others)} start at {source}.")
    return out
