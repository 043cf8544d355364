"""What a user runs, as library functions: the CLI only parses for them and prints.

- :mod:`~simulator.tasks.run`: replicates and sweeps, locally or on Dask, and
  an experiment into its results folder;
- :mod:`~simulator.tasks.calc`: one player's rating change (the calculator;
  its rules in ``calc_list`` and ``calc_glicko``, its inputs and result in
  ``calc_types``);
- :mod:`~simulator.tasks.rate`: rate a FIDE tournament report (the rating in
  ``rate.rating``, its table, CSV and JSON in ``rate.output``);
- :mod:`~simulator.tasks.replay`: walk-forward replay of game records (the
  replay in ``replay.walk``, its text and JSON in ``replay.summary``).
- :mod:`~simulator.tasks.frames`: a DataFrame of named games as the replay's
  batches (for the notebook API, :mod:`simulator.api`).

Imports: every layer below (base, systems, world, data, evaluation, config,
engine), never :mod:`simulator.cli`.
"""
