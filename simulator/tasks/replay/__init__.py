"""Walk-forward replay of game records through rating systems, and its summary.

- :mod:`~simulator.tasks.replay.walk`: the replay (:func:`replay`): every game
  predicted from the ratings before it, then rated, each system on its own
  calendar;
- :mod:`~simulator.tasks.replay.summary`: what it measured as text
  (:func:`to_table`) and as plain data for JSON (:func:`to_json_dict`).

Both are re-exported here (``from simulator.tasks import replay``).
"""

from simulator.tasks.replay.summary import to_json_dict, to_table
from simulator.tasks.replay.walk import (
    FILE,
    GAMES_PLAYED_DEFAULT,
    START_RATING,
    ReplayResult,
    replay,
)

__all__ = [
    "FILE",
    "GAMES_PLAYED_DEFAULT",
    "START_RATING",
    "ReplayResult",
    "replay",
    "to_json_dict",
    "to_table",
]
