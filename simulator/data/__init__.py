"""Readers of real game data: game records (CSV, PGN) and FIDE tournament reports.

- :mod:`~simulator.data.records`: what the streaming game-record readers share
  (batches of games, line-numbered errors) and :func:`~simulator.data.records.
  read_games`, which picks the reader by the file's extension;
- :mod:`~simulator.data.csv_records`: the CSV reader;
- :mod:`~simulator.data.pgn_records`: the PGN reader (a fast scanner, python-chess
  for the rest);
- :mod:`~simulator.data.trf`: the TRF-16 tournament report.

Imports: the base modules and :mod:`simulator.systems` (a batch of games is a
:class:`~simulator.systems._common.Games`). Nothing here rates a game.
"""
