"""The notebook API: rate a DataFrame of games, simulate a world, tune, plot.

One module for a notebook (``from simulator import api``):

- :func:`rate`: a pandas DataFrame of games between named players (columns
  ``white``, ``black``, ``result``, ``date``) through any labelled systems, in
  a walk-forward replay (:func:`simulator.tasks.replay.replay`): every game
  predicted from the ratings before it, then rated. Returns a :class:`Rated`
  whose ``ratings``, ``history``, ``predictions`` and ``metrics`` are
  DataFrames.
- :func:`simulate`: a run of a config (:class:`~simulator.config.RunConfig`,
  a TOML file or TOML text) on the synthetic world; its result's ``summary``
  holds the tables and, when asked, ``history`` and ``predictions`` the
  per-player and per-game tables (:mod:`simulator.evaluation.histories`).
- :func:`tune`: a system's parameters fitted with :mod:`scipy.optimize`,
  either on a walk-forward replay of a DataFrame of games (a prediction
  metric: log loss, Brier score) or on a synthetic world (any figure of the
  run's summary: RMSE against the true strengths, log loss, N50 ...).
- :func:`elo_world`: games whose best Elo K is known (the check of
  :func:`tune`).
- The plot functions of :mod:`simulator.evaluation.plots`, each drawing on a
  matplotlib ``Axes`` and returning it: :func:`plot_history`,
  :func:`plot_error_vs_games`, :func:`plot_calibration`,
  :func:`plot_offset`, :func:`plot_over_time`.

Systems are labelled, so that variants of one system sit side by side: a
mapping ``{"elo k16": make_system("elo", k_factor=16), "elo k32":
"elo:k_factor=32", "glicko2": "glicko2"}`` (values: built systems, registry
names or ``NAME:KEY=VALUE`` texts; :mod:`simulator.tasks.replay.labels`).

Layer: ``api``, beside the CLI at the top of the package (it uses the tasks,
the config, the data readers' pieces and the evaluation's tables). The
package's ``__init__`` is the base layer and cannot import it; import it as
``from simulator import api``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from simulator.config import (
    RunConfig,
    SystemSpec,
    default_config,
    load_config,
    parse_config,
)
from simulator.data.records import BATCH_SIZE
from simulator.evaluation.plots import (
    plot_calibration,
    plot_error_vs_games,
    plot_history,
    plot_offset,
    plot_over_time,
)
from simulator.evaluation.protocol import Window
from simulator.systems import RatingSystem, make_system
from simulator.systems.elo import logistic_expectation
from simulator.tasks.frames import GAME_COLUMNS, prepare
from simulator.tasks.replay import ReplayResult, labelled_systems, replay
from simulator.tasks.replay.labels import SystemsSpec
from simulator.tasks.run import RunResult, SweepResult, run, run_sweep

__all__ = [
    "GAME_COLUMNS",
    "HIGHER_IS_BETTER",
    "Rated",
    "RunResult",
    "SweepResult",
    "Tuned",
    "elo_world",
    "plot_calibration",
    "plot_error_vs_games",
    "plot_history",
    "plot_offset",
    "plot_over_time",
    "rate",
    "simulate",
    "tune",
]

#: Figures of a summary where higher is better (:func:`tune` maximises them).
HIGHER_IS_BETTER = frozenset({"spearman", "spearman_common", "accuracy"})


# --------------------------------------------------------------------------
# rate
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Rated:
    """Games rated by labelled systems (:func:`rate`).

    Attributes
    ----------
    systems : tuple of str
        The labels, in order.
    ratings : pandas.DataFrame
        One row per player: ``player`` (name), ``games``, ``last_date``, then
        each system's final published rating (NaN: unrated).
    history : pandas.DataFrame or None
        Every rating change: ``system``, ``player``, ``player_id``, ``date``,
        ``rating`` and the systems' other state (``n_games``, ``rd`` ...;
        :mod:`simulator.tasks.replay.log`); None if not asked for.
    predictions : pandas.DataFrame or None
        One row per game and system: ``game``, ``date``, ``white``, ``black``,
        ``result``, ``pairs``, ``system``, ``expected`` (White's expected
        score before the game), ``p_win``, ``p_draw``, ``p_loss``; None if not
        asked for.
    metrics : pandas.DataFrame
        The walk-forward prediction figures over every game, one row per
        system and the coin flip: ``system``, ``n_games``, ``log_loss``,
        ``brier``.
    replay : ReplayResult
        Everything the replay measured (calibration, the protocol's test
        window where one was given, the assumptions it made).
    """

    systems: tuple[str, ...]
    ratings: pd.DataFrame
    history: pd.DataFrame | None
    predictions: pd.DataFrame | None
    metrics: pd.DataFrame
    replay: ReplayResult

    @property
    def calibration(self) -> pd.DataFrame:
        """Expected against observed score by bin, per system (every game)."""
        return self.replay.calibration

    def __repr__(self) -> str:
        r = self.replay
        span = f"{r.first_date}..{r.last_date}" if r.first_date else "no dates"
        loss = self.metrics.set_index("system")["log_loss"]
        figures = ", ".join(
            f"{s} {float(loss[s]):.4f}" for s in self.systems if s in loss.index
        )
        return (
            f"Rated({', '.join(self.systems)}; {r.n_games:,} games, "
            f"{r.n_players:,} players, {span}; log loss {figures})"
        )


def rate(
    games: pd.DataFrame,
    systems: SystemsSpec,
    *,
    history: bool = True,
    predictions: bool = True,
    start_rating: float | None = None,
    seed_from_games: bool = False,
    window: Window | None = None,
    batch_size: int = BATCH_SIZE,
) -> Rated:
    """Rate a DataFrame of games between named players through labelled systems.

    Parameters
    ----------
    games : pandas.DataFrame
        One game a row: ``white`` and ``black`` (names), ``result`` (White's
        score: 1, 0.5, 0 or ``"1-0"``, ``"1/2-1/2"``, ``"0-1"``), ``date``
        (dates, date-times or ISO texts); optionally ``white_rating`` and
        ``black_rating``. Rated in date order (stably: games of one date keep
        their order).
    systems : mapping or sequence
        Label -> system (a built system, a registry name or a
        ``NAME:KEY=VALUE`` text), or a sequence of names and systems
        (labelled by name).
    history, predictions : bool, default True
        Keep every rating change / every game's predictions.
    start_rating : float, optional
        A new player's assumed list rating under the list systems (FIDE,
        classic); by default unrated until the rules give a first rating.
    seed_from_games : bool, default False
        Start each player at the ``white_rating``/``black_rating`` of their
        first game, where there is one.
    window : Window, optional
        A warm-up / test split scored by the evaluation protocol
        (``result.replay.protocol``).
    batch_size : int
        Games handed to the replay at a time.

    Returns
    -------
    Rated

    Raises
    ------
    ValueError
        A missing column, a bad result or date (naming the row), a player
        paired with themself, no games, or duplicate labels.

    Examples
    --------
    >>> games = pd.DataFrame({
    ...     "white": ["Ann", "Bob", "Ann"], "black": ["Bob", "Cy", "Cy"],
    ...     "result": ["1-0", "1/2-1/2", 0], "date": ["2024-01-01"] * 3})
    >>> systems = {"elo k16": "elo:k_factor=16", "elo k32": "elo:k_factor=32"}
    >>> rated = rate(games, systems)
    >>> rated.ratings[["player", "elo k16", "elo k32"]].round(1)
      player  elo k16  elo k32
    0    Ann   1499.8   1499.2
    1    Bob   1492.2   1484.7
    2     Cy   1508.0   1516.0
    """
    prepared = prepare(games, batch_size)
    result = replay(
        iter(prepared.batches),
        systems,
        players=prepared.players,
        seed="file" if seed_from_games else "none",
        start_rating=start_rating,
        history=history,
        predictions=predictions,
        window=window,
    )
    return Rated(
        result.systems,
        result.ratings,
        result.history,
        result.predictions,
        result.prediction,
        result,
    )


# --------------------------------------------------------------------------
# simulate
# --------------------------------------------------------------------------


def _config(config: RunConfig | str | Path | None) -> RunConfig:
    """A config from itself, a TOML file, or TOML text (a string with '=')."""
    if config is None:
        return default_config()
    if isinstance(config, RunConfig):
        return config
    if isinstance(config, str) and ("=" in config or "\n" in config):
        return parse_config(config, source="config text")
    return load_config(config)


def simulate(
    config: RunConfig | str | Path | None = None,
    *,
    seed: int | None = None,
    replicates: int | None = None,
    jobs: int = 1,
    histories: bool | None = None,
    predictions: bool | None = None,
    progress: bool = False,
) -> RunResult | SweepResult:
    """Run a config on the synthetic world and return its results.

    Parameters
    ----------
    config : RunConfig, path or str, optional
        The experiment: a config, a TOML file, or TOML text; by default the
        built-in comparison (minutes: pass a small one in a notebook).
    seed : int, optional
        Root seed; by default the config's, else a fresh one (in the result).
    replicates : int, optional
        By default the config's.
    jobs : int, default 1
        Local processes.
    histories, predictions : bool, optional
        Override the config's ``[output]``: keep every player's rating
        history beside their true strength, every game's predictions.
    progress : bool, default False
        A progress bar on standard error.

    Returns
    -------
    RunResult or SweepResult
        A single run's ``summary`` (arena -> tables), ``history`` and
        ``predictions``; a sweep's points.
    """
    cfg = _config(config)
    output = dataclasses.replace(
        cfg.output,
        **{
            k: v
            for k, v in (("histories", histories), ("predictions", predictions))
            if v is not None
        },
    )
    cfg = dataclasses.replace(cfg, output=output)
    if cfg.variant or cfg.grid:
        return run_sweep(
            cfg, seed=seed, replicates=replicates, jobs=jobs, progress=progress
        )
    return run(cfg, seed=seed, replicates=replicates, jobs=jobs, progress=progress)


# --------------------------------------------------------------------------
# tune
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Tuned:
    """The result of :func:`tune`.

    Attributes
    ----------
    params : dict of str to float
        The best parameters found.
    value : float
        The metric there.
    system : RatingSystem
        The system built with them.
    metric : str
        The metric's name.
    trials : pandas.DataFrame
        Every evaluation in order: one column per parameter, then ``metric``.
    optimizer : object
        scipy's own result.
    """

    params: dict[str, float]
    value: float
    system: RatingSystem
    metric: str
    trials: pd.DataFrame
    optimizer: Any

    def __repr__(self) -> str:
        best = ", ".join(f"{k}={v:.4g}" for k, v in self.params.items())
        return (
            f"Tuned({best}; {self.metric} {self.value:.6g}; "
            f"{len(self.trials)} evaluations)"
        )


def _base(system: str | RatingSystem) -> tuple[str, dict[str, Any]]:
    """The registry name and the fixed parameters of ``system``."""
    if isinstance(system, str):
        built = labelled_systems([system])[0][1]
        name = built.name
    else:
        built, name = system, system.name
    fixed = {
        f.name: getattr(built, f.name)
        for f in dataclasses.fields(built)  # type: ignore[arg-type]
        if f.init
    }
    return name, fixed


def _check_params(
    params: Mapping[str, tuple[float, float]], fixed: Mapping[str, Any], name: str
) -> dict[str, tuple[float, float]]:
    if not params:
        raise ValueError("The 'params' parameter of tune needs at least one bound.")
    out = {}
    for key, bounds in params.items():
        if key not in fixed:
            raise ValueError(
                f"System {name!r} has no parameter {key!r}. Known: "
                f"{', '.join(sorted(fixed))}."
            )
        try:
            low, high = (float(b) for b in bounds)
        except (TypeError, ValueError):
            raise ValueError(
                f"The bounds of {key!r} must be (low, high). Got {bounds!r}."
            ) from None
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise ValueError(
                f"The bounds of {key!r} must be finite with low < high. Got {bounds!r}."
            )
        out[key] = (low, high)
    return out


def _replay_objective(
    games: pd.DataFrame, name: str, metric: str, window: Window | None
) -> Callable[[dict[str, Any]], float]:
    """The metric of a walk-forward replay of ``games`` under given parameters."""
    prepared = prepare(games)

    def value(values: dict[str, Any]) -> float:
        system = make_system(name, **values)
        result = replay(
            iter(prepared.batches),
            {"tuned": system},
            players=prepared.players,
            window=window,
        )
        if window is None:
            table = result.prediction
            if metric not in table.columns:
                raise ValueError(
                    f"The replay's metric must be one of log_loss, brier. Got "
                    f"{metric!r}."
                )
            return float(table.loc[table["system"] == "tuned", metric].iloc[0])
        assert result.protocol is not None
        m = result.protocol.metrics
        row = m[(m["system"] == "tuned") & (m["pairs"] == "all")]
        row = row[row["figure"] == metric]
        if row.empty:
            known = ", ".join(sorted(set(m["figure"])))
            raise ValueError(f"The protocol's metric must be one of {known}.")
        return float(row["value"].iloc[0])

    return value


def _world_objective(
    config: RunConfig,
    name: str,
    metric: str,
    seed: int,
    replicates: int | None,
    jobs: int,
) -> Callable[[dict[str, Any]], float]:
    """The metric of a run of ``config``'s first arena with the tuned system.

    The tuned system joins the arena's pairing system (or rates alone where
    the arena pairs by true strength), so the games are the same at every
    evaluation (one seed: common random numbers) and only the ratings differ.
    """
    arena = config.arena[0]
    keep = tuple(s for s in arena.systems if s.label == arena.pairing_rating)
    pairing = keep[0].label if keep else "true"

    def value(values: dict[str, Any]) -> float:
        spec = SystemSpec(name, "tuned", tuple(sorted(values.items())))
        new_arena = dataclasses.replace(
            arena,
            systems=(*keep, spec),
            pairing_rating=pairing,
            reference=keep[0].label if keep else "tuned",
        )
        cfg = dataclasses.replace(
            config, arena=(new_arena,), comparison=(), variant=(), grid=()
        )
        result = run(cfg, seed=seed, replicates=replicates, jobs=jobs, progress=False)
        table = result.summary[arena.name].summary
        if metric not in table.columns:
            known = [c for c in table.columns if not c.endswith(("_lo", "_hi"))]
            raise ValueError(
                f"The run's metric must be a column of its summary "
                f"({', '.join(known)}). Got {metric!r}."
            )
        return float(table.loc[table["system"] == "tuned", metric].iloc[0])

    return value


def tune(
    system: str | RatingSystem,
    games: pd.DataFrame | RunConfig | str | Path,
    params: Mapping[str, tuple[float, float]],
    metric: str | Callable[[dict[str, float]], float] = "log_loss",
    *,
    method: str | None = None,
    xatol: float | None = None,
    maxiter: int | None = None,
    window: Window | None = None,
    seed: int = 0,
    replicates: int | None = None,
    jobs: int = 1,
) -> Tuned:
    """Fit a system's parameters within bounds with :mod:`scipy.optimize`.

    Parameters
    ----------
    system : str or RatingSystem
        The system to tune: a registry name (or ``NAME:KEY=VALUE`` text) or a
        built system; the parameters not tuned keep its values.
    games : DataFrame, RunConfig, path or str
        A DataFrame of games (as :func:`rate` reads): the metric of a
        walk-forward replay; or a config (a TOML file or text): the metric of
        a run on that synthetic world, the tuned system rating the first
        arena's games beside its pairing system, with one seed throughout.
    params : mapping of str to (low, high)
        The parameters to tune and their bounds.
    metric : str or callable, default "log_loss"
        Replay: ``"log_loss"`` or ``"brier"`` over every game (with
        ``window``: a figure of the protocol over the test games). Synthetic
        world: a column of the summary (``"rmse"``, ``"log_loss"``,
        ``"n50_median"`` ...); those of :data:`HIGHER_IS_BETTER` are
        maximised, the rest minimised. A callable takes the parameters and
        returns the value to minimise (``games`` is then ignored).
    method : str, optional
        One parameter: ``"bounded"`` (:func:`scipy.optimize.minimize_scalar`,
        the default); several: a method of :func:`scipy.optimize.minimize`
        that takes bounds (default ``"Nelder-Mead"``: the metrics are not
        smooth enough for gradients; ``"L-BFGS-B"`` and ``"Powell"`` work).
    xatol : float, optional
        Tolerance on the parameters (default 1e-3 of the widest range).
    maxiter : int, optional
        Most iterations (default 100 for one parameter, 200 per parameter for
        several).
    window : Window, optional
        Replay only: score the protocol's test games.
    seed, replicates, jobs
        Synthetic world only: the run's seed, replicates and processes.

    Returns
    -------
    Tuned

    Examples
    --------
    >>> games = elo_world(n_players=40, n_rounds=300, k_factor=24, seed=1)
    >>> tuned = tune("elo", games, {"k_factor": (4, 80)})
    >>> 18 < tuned.params["k_factor"] < 30
    True
    """
    from scipy import optimize

    name, fixed = _base(system)
    bounds = _check_params(params, fixed, name)
    keys = list(bounds)
    if callable(metric):
        evaluate: Callable[[dict[str, Any]], float] = metric
        metric_name = getattr(metric, "__name__", "metric")
        sign = 1.0
    else:
        metric_name = metric
        sign = -1.0 if metric in HIGHER_IS_BETTER else 1.0
        if isinstance(games, pd.DataFrame):
            evaluate = _replay_objective(games, name, metric, window)
        else:
            evaluate = _world_objective(
                _config(games), name, metric, seed, replicates, jobs
            )
    trials: list[dict[str, float]] = []

    def objective(x: ArrayLike) -> float:
        point = np.atleast_1d(np.asarray(x, dtype=np.float64))
        values = {
            k: float(np.clip(v, *bounds[k])) for k, v in zip(keys, point, strict=True)
        }
        value = float(evaluate({**fixed, **values}))
        trials.append({**values, metric_name: value})
        return sign * value

    widest = max(high - low for low, high in bounds.values())
    tol = xatol if xatol is not None else 1e-3 * widest
    if len(keys) == 1 and method in (None, "bounded"):
        found = optimize.minimize_scalar(
            objective,
            bounds=bounds[keys[0]],
            method="bounded",
            options={"xatol": tol, "maxiter": maxiter or 100},
        )
    else:
        start = [
            float(np.clip(fixed[k], *bounds[k]))
            if isinstance(fixed[k], int | float) and fixed[k] is not None
            else 0.5 * sum(bounds[k])
            for k in keys
        ]
        options: dict[str, Any] = {"maxiter": maxiter or 200 * len(keys)}
        if (method or "Nelder-Mead") == "Nelder-Mead":
            options.update(xatol=tol, fatol=1e-9)
        found = optimize.minimize(
            objective,
            start,
            method=method or "Nelder-Mead",
            bounds=[bounds[k] for k in keys],
            options=options,
        )
    table = pd.DataFrame(trials)
    # The best evaluation seen: the optimiser's answer, or a point it tried
    # on the way that did better (a noisy metric can leave it elsewhere).
    scores = sign * table[metric_name].to_numpy(dtype=np.float64)
    at = int(np.nanargmin(scores))
    chosen = {k: float(table[k].iloc[at]) for k in keys}
    value = float(table[metric_name].iloc[at])
    return Tuned(
        chosen,
        value,
        make_system(name, **{**fixed, **chosen}),
        metric_name,
        table,
        found,
    )


# --------------------------------------------------------------------------
# A world with a known best K
# --------------------------------------------------------------------------


def elo_world(
    n_players: int = 60,
    n_rounds: int = 400,
    k_factor: float = 24.0,
    *,
    initial_rating: float = 1500.0,
    start: str = "2024-01-01",
    seed: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """Games of a world whose true ratings move by Elo's rule with ``k_factor``.

    Every player starts at ``initial_rating``. Each day is one round: the
    players are paired at random, White's result is a win with the
    probability ``E = 1 / (1 + 10^(-D/400))`` of the true difference ``D``
    (no draws), and the true ratings then move by ``k_factor * (score - E)``.

    Why ``k_factor`` is the best K for plain Elo (``initial_rating`` the same)
    on these games: with that K, Elo's ratings *are* the true ratings, game
    after game, so its predictions are the true probabilities; the log loss
    and the Brier score are proper scoring rules, minimised in expectation by
    the true probabilities (each game's excess over them is a Kullback-Leibler
    divergence, >= 0). Any other K predicts differently on some games and
    loses in expectation; on a finite sample the minimum sits near
    ``k_factor``, closer the more games.

    Parameters
    ----------
    n_players : int, default 60
        Players (an odd one sits out each round).
    n_rounds : int, default 400
        Rounds, one a day from ``start``.
    k_factor : float, default 24
        The K of the true ratings' moves.
    initial_rating : float, default 1500
        Everyone's true rating on the first day (Elo's default start).
    start : str, default "2024-01-01"
        The first day.
    seed : int or Generator, optional
        The randomness.

    Returns
    -------
    pandas.DataFrame
        ``white``, ``black`` (names ``p000``, ``p001`` ...), ``result``,
        ``date``, and ``true_white``/``true_black``: the true ratings before
        the game.
    """
    rng = np.random.default_rng(seed)
    if n_players < 2 or n_rounds < 1:
        raise ValueError(
            f"elo_world needs n_players >= 2 and n_rounds >= 1. Got "
            f"{n_players!r} and {n_rounds!r}."
        )
    true = np.full(n_players, float(initial_rating))
    parts: list[tuple[Any, ...]] = []
    for day in range(n_rounds):
        order = rng.permutation(n_players)
        white, black = order[0 : n_players - 1 : 2], order[1:n_players:2]
        expected = logistic_expectation(true[white] - true[black])
        score = (rng.random(white.size) < expected).astype(np.float64)
        parts.append((white, black, score, day, true[white], true[black]))
        change = k_factor * (score - expected)
        true[white] += change
        true[black] -= change
    width = len(str(n_players - 1))
    names = np.array([f"p{i:0{width}d}" for i in range(n_players)])
    first = pd.Timestamp(start)
    return pd.DataFrame(
        {
            "white": names[np.concatenate([p[0] for p in parts])],
            "black": names[np.concatenate([p[1] for p in parts])],
            "result": np.concatenate([p[2] for p in parts]),
            "date": np.concatenate(
                [np.full(p[0].size, first + pd.Timedelta(days=p[3])) for p in parts]
            ),
            "true_white": np.concatenate([p[4] for p in parts]),
            "true_black": np.concatenate([p[5] for p in parts]),
        }
    )
