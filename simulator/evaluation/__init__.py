"""Evaluation: what the engine recorded, turned into figures with intervals.

- :mod:`~simulator.evaluation.metrics`: the recorder and the statistics
  (accuracy, prediction, calibration, convergence, drift) and their
  combination across replicates;
- :mod:`~simulator.evaluation.formatting`: the tables as text (cells with
  intervals, the terminal tables);
- :mod:`~simulator.evaluation.markdown`: the text of ``report.md`` and
  ``sweep.md``;
- :mod:`~simulator.evaluation.figures`: the PNG figures;
- :mod:`~simulator.evaluation.report`: the results folders of a run and of a
  sweep, written whole or not at all.

Imports: the base modules only. Evaluation reads arrays (ratings, true
strengths, expected scores); it knows neither the world nor the systems.
"""
