"""The rating-list machinery shared by the FIDE rules and the old-style rules.

Both rate in periods that end with a published list: every game of an event
uses the list in force on the event's start day, the period change is
``K * sum(score - PD)`` rounded half away from zero, unrated players pool
results against rated opponents until an initial rating is published, and a
rating below the floor is removed from the list. What differs between the two
(K factors, cap, expectation, initial-rating formula, 700 rule) is supplied by
the system through :class:`ListRules`; the rules themselves live in
``fide.py`` and ``classic.py`` where docs/rules.md names them.

Modules:

- :mod:`~simulator.systems.lists.state`: the rules, the pool, the kept lists,
  and K, expected scores and the 700 rule per player;
- :mod:`~simulator.systems.lists.period`: rating a period on the lists in force
  and publishing the next list;
- :mod:`~simulator.systems.lists._by_table`: the fast path of a period, by
  table 8.1.2 in compiled loops;
- :mod:`~simulator.systems.lists._pool`: unrated players' pool rows and the
  per-event rules (first events);
- :mod:`~simulator.systems.lists.new_players`: what a list predicts for a
  player it has not rated yet;
- :mod:`~simulator.systems.lists.system`: :class:`ListSystem`, the systems'
  shared methods.
"""

from simulator.systems.lists.period import rate_list_period
from simulator.systems.lists.state import (
    InitialRule,
    KRule,
    ListRules,
    ListState,
    Pool,
    PoolFilter,
    apply_700_rule,
    expected_hundredths,
    new_list_state,
    period_k,
    rules_expected,
)
from simulator.systems.lists.system import ListSystem

__all__ = [
    "InitialRule",
    "KRule",
    "ListRules",
    "ListState",
    "ListSystem",
    "Pool",
    "PoolFilter",
    "apply_700_rule",
    "expected_hundredths",
    "new_list_state",
    "period_k",
    "rate_list_period",
    "rules_expected",
]
