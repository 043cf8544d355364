"""Evaluation: what the engine recorded, turned into figures with intervals.

- :mod:`~simulator.evaluation.recorder`: the recorder the engine feeds, one per
  replicate and arena, with what it measures set by
  :mod:`~simulator.evaluation.settings`;
- the statistics it reads: :mod:`~simulator.evaluation.accuracy` (against the
  truth, by band, drift), :mod:`~simulator.evaluation.ranks` (Spearman),
  :mod:`~simulator.evaluation.prediction` (log loss, calibration) and
  :mod:`~simulator.evaluation.convergence` (newcomers, Kaplan-Meier, the curve);
- :mod:`~simulator.evaluation.results`: a replicate's tables and their
  combination across replicates; :mod:`~simulator.evaluation.comparison`: two
  systems' ratings of the same players compared;
- :mod:`~simulator.evaluation.report`: the report's tables and figures and the
  results folder.

Imports: the base modules only. Evaluation reads arrays (ratings, true
strengths, expected scores); it knows neither the world nor the systems.
"""
