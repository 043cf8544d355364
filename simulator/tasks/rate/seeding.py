"""A tournament's players seeded from a FIDE rating list: rating, K, G, birth year.

A TRF carries each player's rating on the list the event uses, but not the
K factor, the games behind the rating, or whether the player is inactive.
FIDE's list carries them (:mod:`simulator.data.fide_list`). Each TRF player
is looked up by FIDE ID (TRF ``001`` columns 58-68) where the line has one,
else by name; a matched player takes from the list:

* the rating (0 on the list: unrated), which replaces the TRF's;
* K, used as it is on the list (before the 700 rule, FIDE B.02 8.3.3);
* the birth year and the federation;
* G, the games behind the rating: the list gives only the games of its
  period, so G is 30 (``games_played_default``) unless the list's K is 40
  for an adult, which FIDE gives under 30 games (B.02 8.3.1): then G is the
  period's games, at most 29;
* the flag: an inactive player (``i``, ``wi``) is rated as any other (the
  rating of an inactive player does not decay; docs/rules.md,
  Inactivity), and counted in the assumptions.

Players not on the list keep the TRF's values and are listed as unmatched.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from simulator.data.fide_list import (
    FideList,
    ListPlayer,
    normalise_name,
    read_fide_list,
)
from simulator.data.trf import Tournament

__all__ = ["ListSeeding", "seed_tournament"]


@dataclass(frozen=True)
class ListSeeding:
    """A tournament seeded from a FIDE list.

    Attributes
    ----------
    tournament : Tournament
        The tournament with the list's ratings, birth years and federations.
    source : str
        The list's file.
    matched : mapping of int to (ListPlayer, str)
        By start number: the list's player and how matched (``"id"`` or
        ``"name"``).
    unmatched : tuple of int
        Start numbers not on the list.
    k_values : mapping of int to int
        K on the list, by start number (rated players with a K).
    games_played : mapping of int to int
        G by start number (see the module notes).
    """

    tournament: Tournament
    source: str
    matched: Mapping[int, tuple[ListPlayer, str]]
    unmatched: tuple[int, ...]
    k_values: Mapping[int, int]
    games_played: Mapping[int, int]

    def assumptions(self) -> list[str]:
        """Lines for the rating's assumptions."""
        by_id = sum(how == "id" for _, how in self.matched.values())
        inactive = sum(p.inactive for p, _ in self.matched.values())
        out = [
            f"Seeded from the FIDE list {self.source}: {len(self.matched)} of "
            f"{len(self.matched) + len(self.unmatched)} players matched ({by_id} by "
            f"FIDE ID, {len(self.matched) - by_id} by name); their rating, K, birth "
            "year and federation are the list's, G is 30 unless the list's K is 40 "
            f"for an adult (then the list's games of its period); {inactive} "
            "matched player(s) are flagged inactive and rated as listed."
        ]
        if self.unmatched:
            shown = ", ".join(str(s) for s in self.unmatched[:20])
            more = (
                f" and {len(self.unmatched) - 20} more"
                if len(self.unmatched) > 20
                else ""
            )
            out.append(
                f"Not on the list (the TRF's values kept): start numbers {shown}{more}."
            )
        return out


def seed_tournament(
    tournament: Tournament,
    fide_list: str | Path | FideList | Iterable[ListPlayer],
    *,
    rating_type: str = "standard",
    games_played_default: int = 30,
) -> ListSeeding:
    """Seed ``tournament``'s players from a FIDE list (see the module notes).

    Parameters
    ----------
    tournament : Tournament
        The parsed TRF.
    fide_list : path, FideList or iterable of ListPlayer
        A list file (TXT or XML; streamed, only the tournament's players
        kept), or players already read.
    rating_type : {"standard", "rapid", "blitz"}
        The ratings of a combined list to use.
    games_played_default : int
        G of a matched player whose K does not say fewer than 30 games.

    Returns
    -------
    ListSeeding
    """
    source = "(given)"
    if isinstance(fide_list, FideList):
        index, source = fide_list, fide_list.source or source
    else:
        ids = {int(p.fide_id) for p in tournament.players if p.fide_id.isdigit()}
        names = {normalise_name(p.name) for p in tournament.players}
        if isinstance(fide_list, str | Path):
            source = str(fide_list)
            rows: Iterable[ListPlayer] = read_fide_list(fide_list, rating_type)
        else:
            rows = fide_list
        index = FideList(rows, ids=ids, names=names, source=source)
    matched: dict[int, tuple[ListPlayer, str]] = {}
    unmatched = []
    k_values: dict[int, int] = {}
    games: dict[int, int] = {}
    players = []
    list_year = tournament.start.year
    for p in tournament.players:
        found, how = index.match(p.fide_id or None, p.name)
        if found is None:
            unmatched.append(p.start)
            players.append(p)
            continue
        matched[p.start] = (found, how)
        players.append(
            dataclasses.replace(
                p,
                rating=found.rating,
                birth_year=found.birth_year,
                federation=found.federation or p.federation,
            )
        )
        if found.rating is not None and found.k is not None:
            k_values[p.start] = found.k
        adult = found.birth_year is None or list_year - found.birth_year > 18
        if found.k == 40 and adult:
            games[p.start] = min(found.games, 29)
        else:
            games[p.start] = games_played_default
    return ListSeeding(
        tournament=dataclasses.replace(tournament, players=tuple(players)),
        source=source,
        matched=matched,
        unmatched=tuple(unmatched),
        k_values=k_values,
        games_played=games,
    )
