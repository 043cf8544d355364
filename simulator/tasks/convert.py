"""``ratingsim convert``: a Lichess rating as a FIDE rating and back, with its causes.

Reads the conversion table the package ships (``conversion.json`` beside this
module), which :mod:`simulator.tasks.conversion_table` makes from the
conversion experiment (``experiments/conversion.toml``); nothing is simulated
at query time, and this module imports neither numpy nor pandas, so that the
command answers at once.

The table holds, for each pair of pools (FIDE and each Lichess speed) and
each direction, on a grid of ratings: the expected rating in the other pool
(the mean over the experiment's replicates, with an interval), the gap
(online minus FIDE) and its decomposition into causes: each cause's part is
how much the gap shrinks when that cause is switched off, on top of the
causes before it (a sequential decomposition, so the parts and what remains
when every cause is off add up to the gap exactly; the order is the
experiment's). Between grid points every number is interpolated linearly.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "Conversion",
    "ConversionTable",
    "Part",
    "TableError",
    "convert",
    "format_conversion",
    "load_table",
]

#: The format of the table this module reads.
TABLE_FORMAT = 1


class TableError(ValueError):
    """The conversion table is missing, malformed or does not cover a query."""


@dataclass(frozen=True)
class Part:
    """One number of a conversion with its interval."""

    name: str
    label: str
    estimate: float
    lo: float
    hi: float


@dataclass(frozen=True)
class Conversion:
    """A rating in one pool converted to another, with the gap's causes.

    Attributes
    ----------
    source, target : str
        The pools, e.g. ``"lichess-blitz"`` and ``"fide"``.
    rating : float
        The rating converted.
    expected : Part
        The expected rating in ``target`` of a player rated ``rating`` in
        ``source``, over the experiment's replicates, with its interval.
    gap : Part
        Online minus FIDE for such a player.
    parts : tuple of Part
        The gap's causes in the experiment's order, then ``remaining`` (what is
        left with every cause off). They add up to ``gap.estimate``.
    confidence : float
        The intervals' level.
    source_note : str
        Where the table comes from and the command that remakes it.
    """

    source: str
    target: str
    rating: float
    expected: Part
    gap: Part
    parts: tuple[Part, ...]
    confidence: float
    source_note: str

    def as_dict(self) -> dict[str, Any]:
        """The conversion as plain data, for ``--json``."""
        return {
            "source": self.source,
            "target": self.target,
            "rating": self.rating,
            "expected": asdict(self.expected),
            "gap": asdict(self.gap),
            "parts": [asdict(p) for p in self.parts],
            "confidence": self.confidence,
            "table": self.source_note,
        }


@dataclass(frozen=True)
class ConversionTable:
    """The shipped table: its provenance and, per direction, the grid's numbers."""

    meta: dict[str, Any]
    causes: tuple[tuple[str, str], ...]
    directions: dict[str, dict[str, Any]]
    #: Per pool, the base world's cross-sectional fit of FIDE on its rating:
    #: field -> ``[mean, lo, hi]`` (``conversion_table.FIT_FIELDS``).
    fits: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    @property
    def pools(self) -> list[str]:
        """Every pool the table converts from or to, FIDE first."""
        names = {n for key in self.directions for n in key.split(">")}
        return sorted(names, key=lambda n: (n != "fide", n))

    def note(self) -> str:
        """One line: the experiment, its replicates and seed, and how to remake it."""
        m = self.meta
        return (
            f"{m.get('experiment', '?')}, {m.get('replicates', '?')} replicates, "
            f"seed {m.get('seed', '?')}, ratingsim {m.get('version', '?')}; "
            f"remake with: {m.get('command', '?')}"
        )


def _default_path() -> Path:
    return Path(str(resources.files("simulator.tasks").joinpath("conversion.json")))


def load_table(path: str | Path | None = None) -> ConversionTable:
    """Read a conversion table (the shipped one by default).

    Raises
    ------
    TableError
        If the file is missing, not JSON, of another format, or lacks a field.
    """
    where = Path(path) if path is not None else _default_path()
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TableError(f"{where}: no conversion table there") from None
    except (OSError, UnicodeError, json.JSONDecodeError) as exc:
        raise TableError(f"{where}: not a conversion table ({exc})") from None
    try:
        if data["format"] != TABLE_FORMAT:
            raise TableError(
                f"{where}: format {data['format']!r}, this ratingsim reads "
                f"{TABLE_FORMAT}"
            )
        causes = tuple((str(c["name"]), str(c["label"])) for c in data["causes"])
        directions = dict(data["directions"])
        for key, d in directions.items():
            n = len(d["rating"])
            for field in ("expected", "gap", "remaining"):
                if len(d[field]) != n:
                    raise TableError(f"{where}: {key}.{field} is not one per rating")
            for name, _ in causes:
                if len(d["parts"][name]) != n:
                    raise TableError(
                        f"{where}: {key}.parts.{name} is not one per rating"
                    )
        fits = {
            str(pool): {str(k): [float(x) for x in v] for k, v in fit.items()}
            for pool, fit in dict(data.get("fits", {})).items()
        }
        return ConversionTable(dict(data["meta"]), causes, directions, fits)
    except (KeyError, TypeError, AttributeError) as exc:
        raise TableError(f"{where}: not a conversion table (missing {exc})") from None


def convert(
    source: str,
    rating: float,
    target: str | None = None,
    *,
    table: ConversionTable | None = None,
) -> Conversion:
    """Convert ``rating`` in pool ``source`` to pool ``target``.

    Parameters
    ----------
    source : str
        ``"fide"`` or a Lichess pool such as ``"lichess-blitz"``.
    rating : float
        The rating to convert, within the range the table covers.
    target : str, optional
        Defaults to ``"fide"`` from a Lichess pool and to ``"lichess-blitz"``
        from FIDE.
    table : ConversionTable, optional
        Defaults to the shipped table.

    Raises
    ------
    TableError
        For an unknown pool or direction, or a rating outside the table's range.
    """
    t = table if table is not None else load_table()
    pools = t.pools
    if source not in pools:
        raise TableError(f"unknown pool {source!r}; known: {', '.join(pools)}")
    if target is None:
        target = "fide" if source != "fide" else "lichess-blitz"
    if target not in pools:
        raise TableError(f"unknown pool {target!r}; known: {', '.join(pools)}")
    key = f"{source}>{target}"
    if key not in t.directions:
        known = ", ".join(k.replace(">", " to ") for k in t.directions)
        raise TableError(
            f"the table does not convert {source} to {target}; it has {known}"
        )
    if not isinstance(rating, int | float) or not math.isfinite(rating):
        raise TableError(f"the rating must be a finite number, got {rating!r}")
    d = t.directions[key]
    grid = [float(r) for r in d["rating"]]
    if not grid or not grid[0] <= rating <= grid[-1]:
        span = f"{grid[0]:.0f} to {grid[-1]:.0f}" if grid else "nothing"
        raise TableError(
            f"{rating:g} is outside what the table covers for {source} "
            f"({span}: where the experiment had enough players)"
        )

    def at(name: str, label: str, rows: list[list[float]]) -> Part:
        est, lo, hi = _interpolate(grid, rows, rating)
        return Part(name, label, est, lo, hi)

    parts = tuple(at(name, label, d["parts"][name]) for name, label in t.causes)
    remaining = at("remaining", "what remains with every cause off", d["remaining"])
    return Conversion(
        source=source,
        target=target,
        rating=float(rating),
        expected=at("expected", f"expected {target} rating", d["expected"]),
        gap=at("gap", "online minus FIDE", d["gap"]),
        parts=(*parts, remaining),
        confidence=float(t.meta.get("confidence", math.nan)),
        source_note=t.note(),
    )


def _interpolate(
    grid: list[float], rows: list[list[float]], x: float
) -> tuple[float, float, float]:
    """``(estimate, lo, hi)`` at ``x``, linear between the grid's neighbours."""
    for i in range(len(grid) - 1):
        if grid[i] <= x <= grid[i + 1]:
            w = (x - grid[i]) / (grid[i + 1] - grid[i])
            a, b = rows[i], rows[i + 1]
            return (
                a[0] + w * (b[0] - a[0]),
                a[1] + w * (b[1] - a[1]),
                a[2] + w * (b[2] - a[2]),
            )
    a = rows[0]
    return a[0], a[1], a[2]


def _signed(x: float) -> str:
    return f"{x:+.0f}".replace("-", "\u2212")


def format_conversion(c: Conversion) -> str:
    """The conversion as the command prints it: the answer, the gap, its causes."""
    level = f"{100 * c.confidence:.0f}%"
    e, g = c.expected, c.gap
    lines = [
        f"{c.source} {c.rating:.0f} -> {c.target} {e.estimate:.0f} "
        f"({level} interval {e.lo:.0f} to {e.hi:.0f})",
        f"gap, online minus FIDE: {_signed(g.estimate)} "
        f"[{_signed(g.lo)}, {_signed(g.hi)}], made of:",
    ]
    width = max(len(p.label) for p in c.parts)
    for p in c.parts:
        lines.append(
            f"  {p.label.ljust(width)}  {_signed(p.estimate):>5} "
            f"[{_signed(p.lo)}, {_signed(p.hi)}]"
        )
    lines.append(f"table: {c.source_note}")
    return "\n".join(lines)
