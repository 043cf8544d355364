"""What a user runs, as library functions: the CLI only parses for them and prints.

- :mod:`~simulator.tasks.run`: replicates and sweeps, locally or on Dask, and
  an experiment into its results folder;
- :mod:`~simulator.tasks.calc`: one player's rating change (the calculator;
  its rules in ``calc_list`` and ``calc_glicko``, its inputs and result in
  ``calc_types``);
- :mod:`~simulator.tasks.rate`: rate a FIDE tournament report;
- :mod:`~simulator.tasks.replay`: walk-forward replay of game records.

Imports: every layer below (base, systems, world, data, evaluation, config,
engine), never :mod:`simulator.cli`.
"""
