"""Walk-forward replay of game records through rating systems, and its summary.

- :mod:`~simulator.tasks.replay.walk`: the replay (:func:`replay`): every game
  predicted from the ratings before it, then rated, each system on its own
  calendar;
- :mod:`~simulator.tasks.replay.labels`: labelled systems (two Elo K values
  side by side);
- :mod:`~simulator.tasks.replay.start`: where new players start
  (:class:`StartList`, the file's ratings, or nothing);
- :mod:`~simulator.tasks.replay.log`: rating histories and per-game
  predictions as DataFrames, with FIDE's events;
- :mod:`~simulator.tasks.replay.output`: those tables as Parquet or CSV.gz;
- :mod:`~simulator.tasks.replay.assumptions`: what the replay assumed, in words;
- :mod:`~simulator.tasks.replay.summary`: what it measured as text
  (:func:`to_table`) and as plain data for JSON (:func:`to_json_dict`).

The public names are re-exported here (``from simulator.tasks import replay``).
"""

from simulator.tasks.replay.labels import labelled_systems, parse_system
from simulator.tasks.replay.output import read_table, write_table
from simulator.tasks.replay.start import StartList
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
    "StartList",
    "labelled_systems",
    "parse_system",
    "read_table",
    "replay",
    "to_json_dict",
    "to_table",
    "write_table",
]
