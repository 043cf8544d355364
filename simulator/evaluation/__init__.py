"""Evaluation: what the engine recorded, turned into figures with intervals.

- :mod:`~simulator.evaluation.metrics`: the recorder and the statistics
  (accuracy, prediction, calibration, convergence, drift) and their
  combination across replicates;
- :mod:`~simulator.evaluation.report`: the report's tables and figures and the
  results folder.

Imports: the base modules only. Evaluation reads arrays (ratings, true
strengths, expected scores); it knows neither the world nor the systems.
"""
