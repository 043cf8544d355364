"""The rating systems and their registry: the one list of systems in the package.

Every system is a frozen dataclass of parameters with the small structural
interface :class:`RatingSystem`; tests, experiments and the CLI reach systems
only through :data:`SYSTEMS` and :func:`make_system`.

Imports: the base modules only (``simulator._jit``, ``_types``,
``_validate``). The rules know nothing of the world, the engine or the data
they are given: a system sees arrays of players and games.
"""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from numpy.typing import ArrayLike

from simulator._style import SYSTEM_STYLES, Style
from simulator._types import BoolArray
from simulator.systems._common import FloatArray, Games
from simulator.systems.classic import Classic
from simulator.systems.elo import Elo
from simulator.systems.fide import Fide, fide_2024
from simulator.systems.glicko import Glicko
from simulator.systems.glicko2 import Glicko2
from simulator.systems.lichess import Lichess
from simulator.systems.lists.timeline import FideHistory

__all__ = [
    "STYLES",
    "SYSTEMS",
    "Games",
    "GrowingSystem",
    "RatingSystem",
    "Style",
    "make_system",
    "parameters",
    "style",
]


@runtime_checkable
class RatingSystem(Protocol):
    """What the engine, the metrics and the CLI know of a rating system.

    Attributes
    ----------
    name : str
        The registry name.
    per_game : bool
        True if ratings change after every game (the engine then hands over
        each round as it is played); False for rating-period systems.

    A per-game system may also offer ``predict_and_rate(state, games, *,
    day=None, overwrite_state=False) -> (state, expected)``: :meth:`rate`,
    with each game's :meth:`expected_score` from the state before its round
    (the rounds of :func:`~simulator.systems._common.split_rounds`), bit for
    bit those of the calls round by round. The walk-forward replay uses it
    where it exists (Elo, Lichess, Glicko in per-game mode), and the calls
    round by round elsewhere.

    A system may also offer ``grow`` (:class:`GrowingSystem`); every
    built-in system does.
    """

    @property
    def name(self) -> str:
        """The registry name."""
        ...

    @property
    def per_game(self) -> bool:
        """Whether ratings change after every game."""
        ...

    def next_close(self, day: float) -> int | None:
        """The day the period containing ``day`` closes; None for per-game systems."""
        ...

    def new_state(self, n_players: int, **kwargs: Any) -> Any:
        """A fresh state; keyword arguments the system does not use are ignored.

        Common keywords: ``day`` (the start day, for list-based systems),
        ``birth_year`` (FIDE's junior rule), ``rating`` (published ratings of
        an established pool, NaN for new players), ``rd`` and ``n_games``.
        """
        ...

    def expected_score(
        self, state: Any, white: ArrayLike, black: ArrayLike
    ) -> FloatArray:
        """White's expected score by the system's own prediction."""
        ...

    def rate(
        self,
        state: Any,
        games: Games,
        *,
        day: float | None = None,
        overwrite_state: bool = False,
    ) -> Any:
        """Rate one period (or, for per-game systems, the games in order).

        ``state`` is not modified unless ``overwrite_state`` is True, which
        lets a per-game system write the new values into the old state's
        arrays (the engine, which drops the old state, saves a copy of every
        per-player array each round); period systems ignore it.
        """
        ...

    def rating(self, state: Any) -> FloatArray:
        """Published ratings, NaN for unrated players."""
        ...

    def rating_view(self, state: Any) -> FloatArray:
        """:meth:`rating` without the copy: a read-only view of the state.

        Valid until the state is next rated (a per-game system rating with
        ``overwrite_state`` writes into it). The engine reads it every round
        (the pairing's ratings of a round's players) and at every checkpoint,
        where a copy of every list would cost more than the reading.
        """
        ...

    def is_rated(self, state: Any, players: ArrayLike) -> BoolArray:
        """Whether each of ``players`` has a published rating.

        ``rating(state)[players]`` is not NaN, read without copying the whole
        list: the engine asks it for every round's players, to tell games
        between rated players from games with a new one.
        """
        ...


@runtime_checkable
class GrowingSystem(Protocol):
    """A system whose state can take more players: what the engine grows.

    ``grow(state, n_players, **kwargs)`` returns the state with players
    appended up to ``n_players``, each holding what the state's last player
    holds, who must be one who never played (a player yet to arrive). Of
    the keywords, the per-player facts the new players need, one entry per
    player of the grown state (the lists take ``birth_year``, for FIDE's
    junior rule); the others are ignored. Rating a grown state gives every
    player what rating the state made at full size from the start gives,
    bit for bit. The engine grows a period system's state as players
    arrive, so that a close costs the players arrived, not every player
    drawn for the run (docs/design.md, "Period states grow with the pool");
    a system without ``grow`` is held at full size.
    """

    def grow(self, state: Any, n_players: int, **kwargs: Any) -> Any:
        """``state`` with players appended up to ``n_players``."""
        ...


#: Registry name -> factory taking the system's parameters as keywords.
SYSTEMS: dict[str, Callable[..., RatingSystem]] = {
    "fide": Fide,
    "fide-2024": fide_2024,
    "fide-history": FideHistory,
    "classic": Classic,
    "glicko2": Glicko2,
    "lichess": Lichess,
    "glicko": Glicko,
    "elo": Elo,
}


#: Registry name -> how the system is drawn and named in figures and tables
#: (display name, colour, marker, line style); one entry per :data:`SYSTEMS`
#: entry. The table itself is in :mod:`simulator._style`, where the figures,
#: which may not import the systems, read it too.
STYLES: dict[str, Style] = SYSTEM_STYLES


def style(name: str) -> Style:
    """The style of the registered system ``name``.

    >>> style("lichess").name
    'Lichess'
    """
    if name not in SYSTEMS:
        known = ", ".join(SYSTEMS)
        raise ValueError(f"Unknown rating system {name!r}. Known: {known}.")
    return STYLES[name]


def make_system(name: str, **params: Any) -> RatingSystem:
    """Build the registered system ``name`` with ``params``.

    Raises
    ------
    ValueError
        For an unknown name, listing the known ones; for a parameter the
        system does not have, naming it, the closest known one and the rest.

    Examples
    --------
    >>> make_system("glicko2", taux=0.5)
    Traceback (most recent call last):
    ...
    ValueError: Rating system 'glicko2' has no parameter 'taux' (did you mean 'tau'?)...
    """
    try:
        factory = SYSTEMS[name]
    except KeyError:
        known = ", ".join(SYSTEMS)
        raise ValueError(f"Unknown rating system {name!r}. Known: {known}.") from None
    known_params = parameters(name)
    for key in params:
        if key not in known_params:
            close = difflib.get_close_matches(key, known_params, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ValueError(
                f"Rating system {name!r} has no parameter {key!r}{hint}. Its "
                f"parameters: {', '.join(known_params)}."
            )
    return factory(**params)


def parameters(name: str) -> list[str]:
    """The parameters of the registered system ``name``, in their order.

    The fields of its frozen dataclass that its constructor takes.
    """
    system = SYSTEMS[name]()
    return [f.name for f in dataclasses.fields(system) if f.init]  # type: ignore[arg-type]
