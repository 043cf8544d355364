"""The calendar's lengths shared by every layer: the mean Gregorian year and month.

One definition, in the base layer, so that the world's ages and trends, the
Glicko per-game RD growth and the metrics' slopes and months agree to the bit.
"""

__all__ = ["DAYS_PER_MONTH", "DAYS_PER_YEAR"]

#: Days in a mean Gregorian year.
DAYS_PER_YEAR = 365.2425
#: Days in a mean Gregorian month, ``DAYS_PER_YEAR / 12``.
DAYS_PER_MONTH = DAYS_PER_YEAR / 12.0
