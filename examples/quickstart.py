# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

"""The notebook API in a few cells (``python examples/quickstart.py [FOLDER]``)."""

# %% [markdown]
# # ratingsim quickstart: the notebook API
#
# A notebook in jupytext's "percent" format: open it in Jupyter with
# jupytext, or run it as a script (`python examples/quickstart.py [FOLDER]`),
# which draws the figures into FOLDER (a temporary folder by default) with a
# non-interactive backend. Everything goes through one module,
# `simulator.api`:
#
# 1. rate a small DataFrame of games with two labelled Elo systems and
#    Glicko-2, and look at the ratings and their histories;
# 2. tune Elo's K on a world whose best K is known;
# 3. run a tiny simulation with histories, and draw the figures.

# %%
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no window: a script, CI, a headless server

import pandas as pd

from simulator import api
from simulator.systems import make_system

out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp())
out.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## 1. Rate a DataFrame of games
#
# One game a row: the players' names, White's result (1, 0.5, 0 or "1-0",
# "1/2-1/2", "0-1") and the date. Each system has a label, so two K values
# of plain Elo sit side by side.

# %%
games = pd.DataFrame(
    {
        "white": ["Ann", "Bob", "Cy", "Ann", "Dee", "Bob", "Cy", "Dee", "Ann", "Bob"],
        "black": ["Bob", "Cy", "Dee", "Cy", "Ann", "Dee", "Ann", "Bob", "Dee", "Ann"],
        "result": ["1-0", "1/2-1/2", "0-1", "1-0", 0, 1, "0-1", 0.5, "1-0", "0-1"],
        "date": pd.date_range("2024-01-06", periods=10, freq="7D"),
    }
)
systems = {
    "Elo K16": make_system("elo", k_factor=16),
    "Elo K40": "elo:k_factor=40",
    "Glicko-2": "glicko2",
}
rated = api.rate(games, systems)
print(rated)
print(rated.ratings.round(1).to_string(index=False))

# %% [markdown]
# The history has a row per rating change (per game for Elo, per rating
# period for Glicko-2), the predictions a row per game and system.

# %%
print(rated.history[["system", "player", "date", "rating"]].head(8).to_string())
print(rated.metrics.round(4).to_string(index=False))
ax = api.plot_history(rated.history, players=["Ann", "Bob"])
ax.set_title("Ann and Bob under three systems")
ax.figure.savefig(out / "history_rated.png", dpi=100)

# %% [markdown]
# ## 2. Tune K
#
# `elo_world` makes games whose true ratings move by Elo's rule with a
# chosen K: plain Elo with that K predicts every game with its true
# probability, so that K minimises the expected log loss. `tune` fits K by
# a bounded scalar search (scipy's `minimize_scalar`) on a walk-forward
# replay of the games and finds it up to the sample's noise (closer with
# more games: `tests/test_api.py` checks 15 % on 80,000 games).

# %%
world = api.elo_world(n_players=60, n_rounds=300, k_factor=24, seed=7)
tuned = api.tune("elo", world, {"k_factor": (2, 100)}, "log_loss")
print(tuned)
print(tuned.trials.sort_values("k_factor").round(4).to_string(index=False))

# %% [markdown]
# ## 3. A tiny simulation
#
# A config is TOML (or a `RunConfig`). `histories=True` keeps every player's
# rating history beside their true strength; the tables of the summary are
# those of a results folder.

# %%
config = """
title = "quickstart"
years = 1.5
replicates = 2

[population]
n_players = 250

[[arena]]
name = "otb"
systems = ["fide", "glicko2", {system = "elo", label = "elo k40", k_factor = 40}]
"""
result = api.simulate(config, seed=1, histories=True)
print(result)
summary = result.summary["otb"]
print(summary.summary[["system", "rmse", "log_loss"]].round(3).to_string(index=False))

first = result.history[result.history["replicate"] == 0]
player = int(first.groupby("player")["rating"].size().idxmax())
one = first[first["player"] == player]
print(one[["system", "date", "rating", "true_strength", "n_games"]].head().to_string())

# %% [markdown]
# ## 4. Figures
#
# Each plot function draws on a matplotlib Axes and returns it.

# %%
figures = {
    "history_simulated": api.plot_history(one, players=[player]),
    # Few newcomers in a tiny world: draw the curve while 5 of them remain.
    "error_vs_games": api.plot_error_vs_games(summary.convergence, min_players=5),
    "calibration": api.plot_calibration(summary.calibration),
    "offset": api.plot_offset(summary.timeseries),
}
truth = one[one["system"] == "fide"].sort_values("date")
ax = figures["history_simulated"]
ax.plot(truth["date"], truth["true_strength"], color="black", label="true strength")
ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
ax.set_title(f"Player {player}: ratings and true strength")
for name, ax in figures.items():
    ax.figure.savefig(out / f"{name}.png", dpi=100)
print("figures in", out, sorted(p.name for p in out.glob("*.png")))
