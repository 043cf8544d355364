"""Per-player arrays that grow as players come (the replay's own buffers)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["Room"]


class Room:
    """Per-player arrays that grow as players come, with room kept to grow into.

    New players enter in every segment of a file that keeps naming new ones;
    concatenating each array at each entry costs the whole pool every time.
    :meth:`extend` instead writes the new players after the old ones in a
    buffer with room to spare (twice what it holds when made) and returns
    the view of what it holds: entering costs what the new players cost.
    An array it did not return itself (a system's new state) is copied into
    a new buffer first. The values are those of ``np.concatenate``.
    """

    def __init__(self) -> None:
        self._held: dict[str, tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]] = {}

    def extend(
        self, key: str, old: np.ndarray[Any, Any], new: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any]:
        """``old`` and ``new`` end to end along their last (the players') axis."""
        if old.shape[:-1] != new.shape[:-1]:
            raise ValueError(
                f"Cannot join {key!r} arrays of shapes {old.shape} and {new.shape} "
                "along the players' axis."
            )
        n, k = old.shape[-1], new.shape[-1]
        dtype = np.result_type(old, new)
        held = self._held.get(key)
        if (
            held is not None
            and held[0] is old
            and held[1].shape[-1] >= n + k
            and held[1].dtype == dtype
        ):
            buffer = held[1]
        else:
            size = max(2 * (n + k), 64)
            buffer = np.empty((*old.shape[:-1], size), dtype=dtype)
            buffer[..., :n] = old
        buffer[..., n : n + k] = new
        view = buffer[..., : n + k]
        self._held[key] = (view, buffer)
        return view

    def holds(self, key: str, array: np.ndarray[Any, Any]) -> bool:
        """Whether ``array`` is the view :meth:`extend` returned last for ``key``."""
        held = self._held.get(key)
        return held is not None and held[0] is array
