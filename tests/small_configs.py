"""Small configs several test files run (imported by name; tests/ is on the path)."""

#: A small two-arena experiment: OTB rated by FIDE rules, online by Lichess.
TWO_ARENAS = """
title = "small"
years = 1
replicates = 2

[population]
n_players = 100

[[arena]]
name = "otb"
systems = ["fide", "glicko2"]

[[arena]]
name = "online"
systems = ["lichess"]
outcomes = "online"

[arena.schedule]
kind = "online"
participation = 0.5
activity_scale = 2.0
rounds_per_day = 2
"""
