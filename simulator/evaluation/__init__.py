"""Evaluation: what the engine recorded, turned into figures with intervals.

- :mod:`~simulator.evaluation.recorder`: the recorder the engine feeds, one per
  replicate and arena, with what it measures set by
  :mod:`~simulator.evaluation.settings`;
- the statistics it reads: :mod:`~simulator.evaluation.accuracy` (against the
  truth, by band, drift), :mod:`~simulator.evaluation.ranks` (Spearman),
  :mod:`~simulator.evaluation.prediction` (log loss, calibration) and
  :mod:`~simulator.evaluation.convergence` (newcomers, Kaplan-Meier, the curve),
  whose state :mod:`~simulator.evaluation.following` keeps up to date for the
  newcomers whose error can change only;
- :mod:`~simulator.evaluation.results`: a replicate's tables and their
  combination across replicates, with :mod:`~simulator.evaluation.paired`'s
  differences of each system to a reference, paired over replicates;
  :mod:`~simulator.evaluation.comparison`: two systems' ratings of the same
  players compared;
- :mod:`~simulator.evaluation.formatting`: the tables as text (cells with
  intervals, the terminal tables);
- :mod:`~simulator.evaluation.markdown`: the text of ``report.md`` and
  ``sweep.md``, with :mod:`~simulator.evaluation.paired_tables`' comparison
  tables (differences to the reference, own and common support, flatness);
- :mod:`~simulator.evaluation.figures`: the PNG figures;
- :mod:`~simulator.evaluation.report`: the results folders of a run and of a
  sweep, written whole or not at all.

Imports: the base modules only. Evaluation reads arrays (ratings, true
strengths, expected scores); it knows neither the world nor the systems.
"""
