"""Array type aliases shared by the whole package (shapes go in docstrings).

And :func:`read_only_view`, for arrays lent without a copy.
"""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

__all__ = ["BoolArray", "FloatArray", "IntArray", "read_only_view"]

#: Ratings, strengths, scores: always float64.
FloatArray = NDArray[np.float64]
#: Player and game indices: always intp.
IntArray = NDArray[np.intp]
#: Masks.
BoolArray = NDArray[np.bool_]

_Array = TypeVar("_Array", bound="np.ndarray[Any, Any]")


def read_only_view(array: _Array) -> _Array:
    """A view of ``array`` that cannot be written through (``array`` unchanged).

    Also one type for numba: a compiled function given read-only arrays by
    one caller and writeable ones by another is compiled twice.
    """
    view = array.view()
    view.flags.writeable = False
    return view
