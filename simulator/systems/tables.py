"""FIDE's tables 8.1.1 (score -> rating difference) and 8.1.2 (difference -> PD).

Source: FIDE Handbook B.02, Rating Regulations effective from 1 March 2024,
tables 8.1.1 and 8.1.2. The tables have not changed since the 2003 Handbook
(B0210), so the old-style rules use them too. Both are stored once, as integer
arrays; table 8.1.2 is also expanded into a lookup by whole difference.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DP_TABLE", "PD_UPPER_BOUNDS", "dp_from_p", "pd_hundredths"]

#: Table 8.1.2: the largest |D| for each PD of the higher-rated player, from
#: PD .50 (|D| 0-3) to PD .99 (|D| 620-735); above 735 PD is 1.00.
PD_UPPER_BOUNDS = np.array(
    [
        3, 10, 17, 25, 32, 39, 46, 53, 61, 68,
        76, 83, 91, 98, 106, 113, 121, 129, 137, 145,
        153, 162, 170, 179, 188, 197, 206, 215, 225, 235,
        245, 256, 267, 278, 290, 302, 315, 328, 344, 357,
        374, 391, 411, 432, 456, 484, 517, 559, 619, 735,
    ],
    dtype=np.int64,
)  # fmt: skip

#: Table 8.1.1: dp for p = .50, .51, ..., 1.00 (index = hundredths above .50).
DP_TABLE = np.array(
    [
        0, 7, 14, 21, 29, 36, 43, 50, 57, 65,
        72, 80, 87, 95, 102, 110, 117, 125, 133, 141,
        149, 158, 166, 175, 184, 193, 202, 211, 220, 230,
        240, 251, 262, 273, 284, 296, 309, 322, 336, 351,
        366, 383, 401, 422, 444, 470, 501, 538, 589, 677,
        800,
    ],
    dtype=np.int64,
)  # fmt: skip


#: Largest |D| the table distinguishes: from 736 on, PD is 1.00 (0 below -735).
_D_MAX = int(PD_UPPER_BOUNDS[-1]) + 1

#: PD in hundredths by whole difference D = -736 .. 736 (index ``D + 736``):
#: table 8.1.2 read once for every |D|, so a lookup replaces the search.
_PD_BY_DIFF = np.concatenate(
    [
        100 - (50 + np.searchsorted(PD_UPPER_BOUNDS, np.arange(_D_MAX, 0, -1))),
        50 + np.searchsorted(PD_UPPER_BOUNDS, np.arange(_D_MAX + 1)),
    ]
).astype(np.int64)


def pd_hundredths(difference: ArrayLike) -> NDArray[np.int64]:
    """PD in hundredths for a rating difference ``D = own - opponent`` (table 8.1.2).

    ``D`` is rounded to a whole number first (published ratings are whole);
    the higher-rated side gets the table's PD, the lower-rated side ``100 - PD``.

    >>> pd_hundredths([0, 100, -100, 400, 736, -1000]).tolist()
    [50, 64, 36, 92, 100, 0]
    """
    d = np.rint(np.asarray(difference, dtype=np.float64)).astype(np.int64)
    index = np.clip(d, -_D_MAX, _D_MAX)
    index += _D_MAX
    out: NDArray[np.int64] = np.asarray(_PD_BY_DIFF[index])
    # A non-finite D casts to the smallest int64, whose |D| the search read as
    # 0 (PD .50 on the lower side, 50): kept as it was.
    if out.size and int(d.min()) == np.iinfo(np.int64).min:
        out[d == np.iinfo(np.int64).min] = 50
    return out


def dp_from_p(p_hundredths: ArrayLike) -> NDArray[np.int64]:
    """The rating difference dp for a score fraction p in hundredths (table 8.1.1).

    For p < .50, dp(p) = -dp(1 - p).

    >>> dp_from_p([57, 50, 43, 100, 0]).tolist()
    [50, 0, -50, 800, -800]
    """
    p = np.asarray(p_hundredths, dtype=np.int64)
    if p.size and (p.min() < 0 or p.max() > 100):
        raise ValueError("p must lie in [0, 100] hundredths.")
    return np.where(p >= 50, DP_TABLE[np.abs(p - 50)], -DP_TABLE[np.abs(p - 50)])
