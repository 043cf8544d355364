"""Readers of real game data: game records (CSV, PGN) and FIDE tournament reports.

- :mod:`~simulator.data.records`: streaming CSV and PGN readers that yield
  batches of games with line-numbered errors;
- :mod:`~simulator.data.trf`: the TRF-16 tournament report.

Imports: the base modules and :mod:`simulator.systems` (a batch of games is a
:class:`~simulator.systems._common.Games`). Nothing here rates a game.
"""
