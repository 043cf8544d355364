"""Rating one tournament (a TRF-16 file) by a list-based Elo system, and its outputs.

- :mod:`~simulator.tasks.rate.rating`: the rating (:func:`rate_tournament`)
  and the records it gives, with what the file does not say and was assumed;
- :mod:`~simulator.tasks.rate.seeding`: the players seeded from a FIDE
  rating list (:func:`seed_tournament`): rating, K, G, birth year;
- :mod:`~simulator.tasks.rate.output`: the result as a text table, CSV or
  JSON, of one system or several side by side.

Both are re-exported here (``from simulator.tasks import rate``).
"""

from simulator.tasks.rate.output import (
    compare_csv,
    compare_json,
    compare_table,
    to_csv,
    to_json,
    to_table,
)
from simulator.tasks.rate.rating import (
    GAMES_PLAYED_DEFAULT,
    RATE_SYSTEMS,
    TOWARD_INITIAL,
    GameLine,
    Performance,
    PlayerRating,
    TournamentRating,
    rate_tournament,
)
from simulator.tasks.rate.seeding import ListSeeding, seed_tournament

__all__ = [
    "GAMES_PLAYED_DEFAULT",
    "RATE_SYSTEMS",
    "TOWARD_INITIAL",
    "GameLine",
    "ListSeeding",
    "Performance",
    "PlayerRating",
    "TournamentRating",
    "compare_csv",
    "compare_json",
    "compare_table",
    "rate_tournament",
    "seed_tournament",
    "to_csv",
    "to_json",
    "to_table",
]
