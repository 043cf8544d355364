"""The evaluation protocol of a replay: a warm-up, a test window, scores with intervals.

Systems that start from nothing need games before their predictions mean
anything, and a draw model (:mod:`~simulator.evaluation.draws`) needs games to
be fitted on. The protocol splits the games of a replay in date order:

* the **warm-up**: the games before the test window. Every system rates them
  (walk-forward), and each system's draw parameter ``nu`` is fitted on its
  own warm-up predictions; they are not scored.
* the **test window**: from a date on (``test_from``), or the last share of
  the games (``test_share``, by game count in replay order). Every system
  predicts each test game before rating it, as in the warm-up; the scores
  below are over these games only.

:class:`Window` is the split.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass

import numpy as np

from simulator._types import BoolArray, FloatArray
from simulator._validate import check_interval

__all__ = ["DEFAULT_TEST_SHARE", "Window"]

#: The test window's share of the games when none is given.
DEFAULT_TEST_SHARE = 0.5

_EPOCH = dt.date(1970, 1, 1)


@dataclass(frozen=True)
class Window:
    """The test window of a replay (module docstring).

    Parameters
    ----------
    test_from : datetime.date, optional
        The first day of the test window: games on or after it are tested.
    test_share : float, optional
        The share of the games (the last ones) in the test window, in
        ``(0, 1]``. Used when ``test_from`` is not given (default
        :data:`DEFAULT_TEST_SHARE`); giving both is an error.
    """

    test_from: dt.date | None = None
    test_share: float | None = None

    def __post_init__(self) -> None:
        if self.test_from is not None and self.test_share is not None:
            raise ValueError(
                "Window takes 'test_from' or 'test_share', not both. Got "
                f"test_from={self.test_from} and test_share={self.test_share}."
            )
        if self.test_from is not None and not isinstance(self.test_from, dt.date):
            raise ValueError(
                f"The 'test_from' parameter of Window must be a date. Got "
                f"{self.test_from!r} instead."
            )
        if self.test_share is not None:
            check_interval(
                "Window", "test_share", self.test_share, 0.0, 1.0, closed="right"
            )

    @property
    def share(self) -> float:
        """The test share in force when no date is given."""
        return DEFAULT_TEST_SHARE if self.test_share is None else self.test_share

    def test_mask(self, day: FloatArray) -> BoolArray:
        """Which games, dated ``day`` (days since 1970-01-01, in order), are tested.

        Examples
        --------
        >>> Window(test_share=0.25).test_mask(np.arange(8.0)).tolist()
        [False, False, False, False, False, False, True, True]
        >>> Window(dt.date(1970, 1, 3)).test_mask(np.arange(4.0)).tolist()
        [False, False, True, True]
        """
        day = np.asarray(day, dtype=np.float64)
        if self.test_from is not None:
            first = float((self.test_from - _EPOCH).days)
            return np.asarray(day >= first)
        n = day.size
        cut = n - math.ceil(n * self.share - 1e-9)
        return np.arange(n) >= cut

    def describe(self) -> str:
        """The split in words, for the printed assumptions."""
        if self.test_from is not None:
            return f"the games from {self.test_from.isoformat()} on"
        return f"the last {self.share:.0%} of the games (by replay order)"
