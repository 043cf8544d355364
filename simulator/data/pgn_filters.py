"""Which games of a PGN file to replay, by the headers Lichess writes.

A Lichess database dump holds every game of a month in one file: bullet and
correspondence, rated and casual, and (in the variant dumps) Chess960 and
the rest. :class:`GameFilter` keeps some of them, by their tags, before a
game is read further; :class:`Skipped` counts the games left out, by reason,
for the report. Nothing is left out silently.

Tags (as Lichess exports them, lichess.org/api "Export games", and its
database at database.lichess.org):

* ``TimeControl``: ``"base+increment"`` in seconds, or ``"-"`` without a
  clock. The speed is Lichess's own class of the estimated duration
  ``base + 40 * increment`` (scalachess ``Clock.Config.estimateTotalSeconds``),
  with the bounds of scalachess ``core/src/main/scala/Speed.scala``
  (lichess-org/scalachess): ultrabullet under 30 s, bullet under 180 s,
  blitz under 480 s, rapid under 1500 s, classical under 21600 s, and
  correspondence from 21600 s or without a clock (``"-"``).
* ``Event``: ``"Rated Blitz game"``, ``"Casual Rapid game"``, ``"Rated
  Bullet tournament https://..."``: a game is rated when the event starts
  with "Rated" (casual otherwise).
* ``Variant``: absent or ``"Standard"`` for standard chess; ``"Chess960"``,
  ``"Crazyhouse"``, ``"From Position"``... otherwise. **By default only
  standard games are kept**: a rating of standard chess mixed with
  variants measures neither, and Lichess rates every variant separately.
  ``"From Position"`` (standard rules from a set-up position) is not
  standard here.
* ``WhiteElo``/``BlackElo``: with a minimum rating, both players must have a
  known rating at or above it.
* ``UTCDate`` (else ``Date``): the date range is inclusive at both ends.

A game without a tag a filter needs (no ``TimeControl`` with a speed
filter, no ``Event`` with a rated/casual filter) is left out under that
filter, with its own reason. A tag the filter cannot read (a date that is
not ``YYYY.MM.DD``) leaves the game to the reader, which reports it as a
bad record.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "SPEEDS",
    "VARIANT_ALL",
    "GameFilter",
    "Skipped",
    "speed_of",
]

#: Lichess's speed classes, and the upper bound (exclusive) of each one's
#: estimated duration in seconds (scalachess Speed.scala).
SPEEDS: dict[str, float] = {
    "ultrabullet": 30,
    "bullet": 180,
    "blitz": 480,
    "rapid": 1500,
    "classical": 21600,
    "correspondence": float("inf"),
}
#: ``GameFilter.variants`` value that keeps every variant.
VARIANT_ALL = "all"
_STANDARD = frozenset({"", "standard"})
_TIME_CONTROL = re.compile(r"(\d+)\+(\d+)")
_DATE = re.compile(r"\d{4}\.\d\d\.\d\d")


def speed_of(time_control: str) -> str | None:
    """Lichess's speed class of a ``TimeControl`` tag; None if unreadable.

    >>> speed_of("180+2"), speed_of("60+0"), speed_of("15+0"), speed_of("-")
    ('blitz', 'bullet', 'ultrabullet', 'correspondence')
    >>> speed_of("1500+0"), speed_of("900+10"), speed_of("?") is None
    ('classical', 'rapid', True)
    """
    text = time_control.strip()
    if text == "-":
        return "correspondence"
    m = _TIME_CONTROL.fullmatch(text)
    if m is None:
        return None
    seconds = int(m[1]) + 40 * int(m[2])
    for name, below in SPEEDS.items():
        if seconds < below:
            return name
    return "correspondence"  # pragma: no cover - the last bound is infinite


def _pgn_date(day: dt.date | None) -> str | None:
    return None if day is None else f"{day.year:04d}.{day.month:02d}.{day.day:02d}"


@dataclass(frozen=True)
class GameFilter:
    """Which games to keep, by their PGN tags (see the module notes).

    Parameters
    ----------
    speeds : frozenset of str, optional
        Keep these speed classes (:data:`SPEEDS`); None keeps every game.
    rated : {"rated", "casual"}, optional
        Keep rated or casual games only; None keeps both.
    variants : frozenset of str
        Keep these variants (case-insensitive; ``"standard"`` also matches a
        game without the tag); ``{"all"}`` keeps every game. Default
        standard only.
    min_rating : float, optional
        Both ``WhiteElo`` and ``BlackElo`` known and at least this.
    date_from, date_to : datetime.date, optional
        The game's ``UTCDate`` (or ``Date``) within this range, inclusive.

    Examples
    --------
    >>> f = GameFilter(speeds=frozenset({"blitz"}), rated="rated")
    >>> f.reason({"TimeControl": "180+0", "Event": "Rated Blitz game"}) is None
    True
    >>> f.reason({"TimeControl": "60+0", "Event": "Rated Bullet game"})
    'speed bullet'
    """

    speeds: frozenset[str] | None = None
    rated: Literal["rated", "casual"] | None = None
    variants: frozenset[str] = frozenset({"standard"})
    min_rating: float | None = None
    date_from: dt.date | None = None
    date_to: dt.date | None = None

    def __post_init__(self) -> None:
        if self.speeds is not None:
            unknown = sorted(set(self.speeds) - set(SPEEDS))
            if unknown or not self.speeds:
                raise ValueError(
                    f"speeds must be among {', '.join(SPEEDS)}. Got "
                    f"{sorted(self.speeds)!r}."
                )
        if self.rated not in (None, "rated", "casual"):
            raise ValueError(f"rated must be 'rated' or 'casual'. Got {self.rated!r}.")
        if not self.variants:
            raise ValueError("variants must name at least one variant (or 'all').")
        object.__setattr__(
            self, "variants", frozenset(v.strip().lower() for v in self.variants)
        )
        if self.min_rating is not None and not self.min_rating >= 0:
            raise ValueError(f"min_rating must be >= 0. Got {self.min_rating!r}.")
        if (
            self.date_from is not None
            and self.date_to is not None
            and self.date_from > self.date_to
        ):
            raise ValueError(
                f"date_from {self.date_from} is after date_to {self.date_to}."
            )

    @property
    def keeps_all(self) -> bool:
        """Whether the filter keeps every game (then nothing is checked)."""
        return (
            self.speeds is None
            and self.rated is None
            and VARIANT_ALL in self.variants
            and self.min_rating is None
            and self.date_from is None
            and self.date_to is None
        )

    def reason(self, tags: dict[str, str]) -> str | None:
        """Why the game with ``tags`` is left out, or None to keep it."""
        if VARIANT_ALL not in self.variants:
            variant = tags.get("Variant", "").strip().lower()
            if variant in _STANDARD:
                variant = "standard"
            if variant not in self.variants:
                return f"variant {variant}"
        if self.speeds is not None:
            text = tags.get("TimeControl")
            if text is None:
                return "no TimeControl"
            speed = speed_of(text)
            if speed is None:
                return "TimeControl not readable"
            if speed not in self.speeds:
                return f"speed {speed}"
        if self.rated is not None:
            event = tags.get("Event")
            if event is None:
                return "no Event"
            rated = event.lstrip().lower().startswith("rated")
            if rated != (self.rated == "rated"):
                return "casual" if self.rated == "rated" else "rated"
        if self.min_rating is not None:
            for tag in ("WhiteElo", "BlackElo"):
                try:
                    value = float(tags.get(tag, "?"))
                except ValueError:
                    value = float("nan")
                if not value >= self.min_rating:
                    return f"rating below {self.min_rating:g} or unknown"
        if self.date_from is not None or self.date_to is not None:
            day = tags.get("UTCDate", "")
            if not _DATE.fullmatch(day):
                day = tags.get("Date", "")
            if _DATE.fullmatch(day):
                low, high = _pgn_date(self.date_from), _pgn_date(self.date_to)
                if low is not None and day < low:
                    return "before the date range"
                if high is not None and day > high:
                    return "after the date range"
        return None

    def describe(self) -> str:
        """One line: what the filter keeps."""
        parts = []
        if VARIANT_ALL not in self.variants:
            parts.append("variant " + "/".join(sorted(self.variants)))
        if self.speeds is not None:
            parts.append("speed " + "/".join(s for s in SPEEDS if s in self.speeds))
        if self.rated is not None:
            parts.append(f"{self.rated} games")
        if self.min_rating is not None:
            parts.append(f"both rated {self.min_rating:g} or more")
        if self.date_from is not None or self.date_to is not None:
            parts.append(f"dates {self.date_from or '...'} to {self.date_to or '...'}")
        return "; ".join(parts) if parts else "every game"


class Skipped:
    """Games a :class:`GameFilter` left out, counted by reason.

    >>> s = Skipped()
    >>> s.add("speed bullet"); s.add("speed bullet"); s.add("casual")
    >>> s.count, s.report()
    (3, ['Filtered out 3 game(s): 2 speed bullet, 1 casual'])
    """

    def __init__(self) -> None:
        self.by_reason: dict[str, int] = {}

    def add(self, reason: str) -> None:
        """Count one game left out for ``reason``."""
        self.by_reason[reason] = self.by_reason.get(reason, 0) + 1

    @property
    def count(self) -> int:
        """Games left out."""
        return sum(self.by_reason.values())

    def report(self) -> list[str]:
        """Lines for the user (none if nothing was left out)."""
        if not self.by_reason:
            return []
        parts = sorted(self.by_reason.items(), key=lambda kv: (-kv[1], kv[0]))
        shown = ", ".join(f"{n} {reason}" for reason, n in parts)
        return [f"Filtered out {self.count} game(s): {shown}"]
