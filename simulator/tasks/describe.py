"""A run's config in words, and each of its systems' style, for the report.

:func:`describe_world` is the "World and systems" section of ``report.md``:
the resolved config (players, years, burn-in, arenas, the expected-score
curve, the seeding) in sentences, every population key, and every system's
parameters, all of them, defaults included. :func:`run_styles` gives each
system of a run its :class:`~simulator._style.Style` (the registry's, or the
variant palette's), so the report's figures and tables name and draw it as
every other report does.
"""

from __future__ import annotations

import dataclasses
import tomllib
from typing import Any

import tomli_w

from simulator._style import Style, assign_styles
from simulator.config import ArenaConfig, RunConfig, SystemSpec, dump_config
from simulator.systems import STYLES

__all__ = ["complete_config", "describe_world", "run_styles", "system_parameters"]


def system_parameters(spec: SystemSpec) -> dict[str, Any]:
    """Every parameter of a configured system, defaults included, in order."""
    system = spec.build()
    return {
        f.name: getattr(system, f.name)
        for f in dataclasses.fields(system)  # type: ignore[arg-type]
        if f.init
    }


def _swapped(config: RunConfig) -> set[tuple[int, int]]:
    """The systems (arena, index) a sweep's override replaces or changes the kind of.

    Their parameters stay as given: another system's defaults would not fit.
    """
    keys = [k for v in config.variant for k, _ in v.set]
    keys += [a.key for a in config.grid]
    out = set()
    for i, arena in enumerate(config.arena):
        for j in range(len(arena.systems)):
            own = (f"arena.{i}", f"arena.{i}.systems", f"arena.{i}.systems.{j}")
            if any(k in own or k == f"{own[2]}.system" or k == "arena" for k in keys):
                out.add((i, j))
    return out


def complete_config(config: RunConfig) -> str:
    """The resolved config as TOML with every system's every parameter.

    :func:`~simulator.config.dump_config` names every key of the run (None
    as ``"none"``) but only the parameters a system's table sets; here each
    system also gets its defaults, so the saved ``config.toml`` says
    everything the run used, and loading it reruns the same numbers. A
    system whose kind a sweep's override changes keeps its table as given.
    """
    data = tomllib.loads(dump_config(config))
    swapped = _swapped(config)
    for i, arena in enumerate(config.arena):
        for j, spec in enumerate(arena.systems):
            if (i, j) in swapped:
                continue
            # In the system's own order, so that saving a loaded config
            # gives the same text.
            table = {"system": spec.system, "label": spec.label}
            for key, value in system_parameters(spec).items():
                table[key] = "none" if value is None else _toml(value)
            data["arena"][i]["systems"][j] = table
    return tomli_w.dumps(data)


def _toml(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def run_styles(config: RunConfig) -> dict[str, Style]:
    """Label -> style for every system of every arena of ``config``.

    A system run with its registry defaults keeps the registry's style;
    a second configuration of the same system gets the variant palette.
    """
    return assign_styles(
        (spec.label, spec.system, not spec.params)
        for arena in config.arena
        for spec in arena.systems
    )


def _value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, tuple):
        return ", ".join(_value(v) for v in value)
    return str(value)


def _table(rows: list[tuple[str, str]], header: tuple[str, str]) -> list[str]:
    out = [f"| {header[0]} | {header[1]} |", "| --- | --- |"]
    out += [f"| `{k}` | {v.replace('|', '/')} |" for k, v in rows]
    return out


def _seeding(arena: ArenaConfig) -> str:
    s = arena.seeding
    if s.source == "flat":
        return (
            f"the initial pool starts flat at {s.flat_rating:g} as new players "
            f"({s.n_games} games, RD {s.rd:g})"
        )
    return (
        f"the initial pool starts from true strength plus noise of SD "
        f"{s.rating_sd:g} points, as established players ({s.n_games} games, "
        f"RD {s.rd:g})"
    )


def _schedule(arena: ArenaConfig) -> str:
    s = arena.schedule
    if s.kind == "swiss":
        what = (
            f"Swiss events of {'/'.join(str(r) for r in s.rounds)} rounds (about "
            f"{s.field_size} entrants; {s.round_robin_share:.0%} of entries in "
            f"round robins of {s.round_robin_size}), {s.rounds_per_day} round(s) a day"
        )
    elif s.kind == "online":
        what = (
            f"online rating-window pairing (window {s.window:g} points), "
            f"{s.rounds_per_day} rounds a day"
        )
    else:
        what = "random pairing each day"
    who = f"{s.participation:.0%} of the population plays here"
    if s.participation_midpoint is not None:
        who += (
            f", less likely below {s.participation_midpoint:g} (logistic, width "
            f"{s.participation_width:g})"
        )
    return f"{what}; {who}; activity x{s.activity_scale:g}"


def describe_world(config: RunConfig) -> str:
    """The world and every system of ``config``, as Markdown (no heading).

    Parameters
    ----------
    config : RunConfig
        The resolved config of the run (one point of a sweep).

    Returns
    -------
    str
        Sentences for the world, a table of every population key, then per
        arena its systems and each system's every parameter.
    """
    p = config.population
    measured = config.years - config.burn_in_years
    burn = (
        f"the first {config.burn_in_years:g} years are a burn-in and the last "
        f"{measured:g} are measured"
        if config.burn_in_years > 0
        else "no burn-in: every year is measured"
    )
    lines = [
        f"{p.n_players} players at the start, simulated for {config.years:g} years "
        f"from {config.start_date} ({burn}), checkpoints every "
        f"{config.checkpoint_days} days, {config.replicates} replicates. "
        f"Newcomers arrive at {p.arrival_rate:g} of the pool a year and enter "
        f"{-p.newcomer_offset:g} points below their true strength"
        f"{' (entering low)' if p.newcomer_offset < 0 else ''}; players leave at "
        f"{p.departure_rate:g} a year. The cohort whose drift is measured is "
        f"the adults aged {config.cohort_ages[0]:g} to {config.cohort_ages[-1]:g}."
        + (
            f" Probes of fixed true strength {_value(p.probe_levels)} "
            f"({p.probes_per_level} per level) arrive after "
            f"{p.probe_arrival_years:g} years."
            if p.probe_levels
            else ""
        ),
        "",
    ]
    for arena in config.arena:
        names = ", ".join(
            f"{STYLES[s.system].name if s.label == s.system else s.label}"
            for s in arena.systems
        )
        lines += [
            f"Arena **{arena.name}**: {arena.outcomes} outcomes on the "
            f"**{arena.curve}** expected-score curve; {_schedule(arena)}; "
            f"{_seeding(arena)}; paired by "
            f"{arena.pairing_rating or 'true strength'}; reference "
            f"{arena.reference or arena.systems[0].label}. Systems: {names}.",
            "",
        ]
    lines += ["Population (every key):", ""]
    lines += _table(_flat_fields(p), ("key", "value"))
    lines.append("")
    lines += [
        "Every parameter of every system (defaults included; * where the config "
        "sets it), one table per rule set and one column per system:",
        "",
    ]
    for arena in config.arena:
        for registry in dict.fromkeys(s.system for s in arena.systems):
            specs = [s for s in arena.systems if s.system == registry]
            values = [system_parameters(s) for s in specs]
            header = ["parameter", *(f"{s.label}" for s in specs)]
            rows = [
                [
                    f"`{key}`",
                    *(
                        _value(v[key]) + ("*" if key in dict(s.params) else "")
                        for s, v in zip(specs, values, strict=True)
                    ),
                ]
                for key in values[0]
            ]
            lines += [
                f"{STYLES[registry].name} (`{registry}`, arena {arena.name}):",
                "",
                "| " + " | ".join(h.replace("|", "/") for h in header) + " |",
                "| " + " | ".join(["---"] * len(header)) + " |",
                *("| " + " | ".join(r) + " |" for r in rows),
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def _flat_fields(obj: Any, prefix: str = "") -> list[tuple[str, str]]:
    """``(dotted key, value)`` of a dataclass, nested tables spelled out.

    The population's sub-tables (``entrants``, ``exits``, ...) are rows of
    their own keys, as the config writes them (``entrants.arrival``).
    """
    rows: list[tuple[str, str]] = []
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            rows += _flat_fields(value, f"{prefix}{f.name}.")
        else:
            rows.append((f"{prefix}{f.name}", _value(value)))
    return rows
