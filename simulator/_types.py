"""Array type aliases shared by the whole package (shapes go in docstrings)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["BoolArray", "FloatArray", "IntArray"]

#: Ratings, strengths, scores: always float64.
FloatArray = NDArray[np.float64]
#: Player and game indices: always intp.
IntArray = NDArray[np.intp]
#: Masks.
BoolArray = NDArray[np.bool_]
