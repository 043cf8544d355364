"""The synthetic world: players, how their games turn out, who meets whom.

- :mod:`~simulator.world.population_config`: the parameters of the player
  pool;
- :mod:`~simulator.world.population`: players, their ages, activity,
  arrivals and departures;
- :mod:`~simulator.world.strengths`: their true strengths over time (the age
  curve and the random walk);
- :mod:`~simulator.world.live`: the players of a run as the engine reads
  them day by day (who is in the pool, strengths moved when read);
- :mod:`~simulator.world.outcomes`: the truth's expected-score curve and its
  draws;
- :mod:`~simulator.world.pairing`: Swiss events, round robins, the online pool
  and random pairing;
- :mod:`~simulator.world.entrants`, :mod:`~simulator.world.exits`,
  :mod:`~simulator.world.development`, :mod:`~simulator.world.federations`:
  the realistic world's keys (issue 17), off by default;
- :mod:`~simulator.world.events`: which events a week's entrants form;
- :mod:`~simulator.world.calibration`: the pool beside published figures
  (``ratingsim world``).

Imports: the base modules (``simulator._jit``, ``_types``, ``_validate``)
only. The world knows nothing of rating systems: pairing by rating takes the
ratings as an array.
"""
