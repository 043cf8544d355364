"""The outputs of a rated tournament: a text table, CSV and JSON, one system or several.

One system's result (:class:`~simulator.tasks.rate.rating.TournamentRating`)
is shown by :func:`to_table` (a row per player, with ``detail`` every round
too), :func:`to_csv` and :func:`to_json`; several systems' results of the same
tournament side by side by :func:`compare_table`, :func:`compare_csv` and
:func:`compare_json`. Nothing here computes a rating: every figure is the
result's.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from simulator.data.trf import FORFEITS, PLAYED, Tournament
from simulator.tasks.rate.rating import (
    GameLine,
    Performance,
    PlayerRating,
    TournamentRating,
)

__all__ = [
    "compare_csv",
    "compare_json",
    "compare_table",
    "to_csv",
    "to_json",
    "to_table",
]


def _num(x: float | None, places: int, *, sign: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.{places}f}" if sign else f"{x:.{places}f}"


def _pts(x: float) -> str:
    return f"{x:g}" if x != int(x) else f"{x:.0f}"


def _table(
    headers: list[str], rows: list[list[str]], left: Sequence[int] = (1,)
) -> list[str]:
    widths = [max(len(r[i]) for r in [headers, *rows]) for i in range(len(headers))]
    out = []
    for r in [headers, *rows]:
        cells = [
            c.ljust(w) if i in left else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def _heading(t: Tournament) -> str:
    n_played = sum(g.code in PLAYED for g in t.games)
    n_forfeit = sum(g.code in FORFEITS for g in t.games)
    where = ", ".join(x for x in (t.city, t.federation) if x)
    title = t.name or t.path
    return (
        f"{title}{' (' + where + ')' if where else ''}, {t.start} to {t.end}: "
        f"{len(t.players)} players, {t.n_rounds} rounds, {n_played} games played, "
        f"{n_forfeit} forfeits"
    )


def _new_text(p: PlayerRating) -> str:
    return "-" if p.new_rating is None else str(p.new_rating)


def _note(p: PlayerRating) -> str:
    if p.performance is None:
        return p.status
    perf = p.performance
    if perf.ra is None:
        return perf.reason
    ra = f"{perf.ra:.3f}".rstrip("0").rstrip(".")
    figures = f"Ra {ra}, p {perf.p:.2f}" + (
        f", dp {perf.dp:+d}" if perf.dp is not None else ""
    )
    if perf.published:
        return f"initial rating: {figures}, Ru {perf.ru:g}"
    return f"{perf.reason} ({figures})"


def _game_row(g: GameLine) -> str:
    opp = "bye" if g.opponent is None else str(g.opponent)
    opp_r = "" if g.opponent_rating is None else f" ({g.opponent_rating})"
    colour = g.colour or "-"
    text = f"    round {g.round}: {opp}{opp_r} {colour} {g.code}"
    if g.rated:
        assert g.difference is not None and g.expected is not None
        cap = " (capped)" if g.capped else ""
        text += (
            f"  D {g.difference:+.0f}{cap}, PD {g.expected:.2f}, score - PD "
            f"{g.score - g.expected:+.2f}"
        )
    else:
        text += f"  {g.reason}"
    return text


def to_table(result: TournamentRating, *, detail: bool = False) -> str:
    """The result as text: heading, assumptions, one row per player.

    With ``detail``, every round of every player follows its row.
    """
    t = result.tournament
    lines = [
        _heading(t),
        f"{result.system}: {result.description}",
        "Assumptions:",
        *(f"  - {a}" for a in result.assumptions),
        "",
    ]
    headers = [
        "#",
        "name",
        "rating",
        "born",
        "K",
        "games",
        "score",
        "expected",
        "change",
        "new",
        "note",
    ]
    rows = []
    details: dict[int, list[str]] = {}
    for p in result.players:
        if p.performance is not None:
            rows.append(
                [
                    str(p.start),
                    p.name,
                    "-",
                    str(p.birth_year or "-"),
                    "-",
                    str(p.performance.n_games),
                    _pts(p.performance.points),
                    "-",
                    "-",
                    _new_text(p),
                    _note(p),
                ]
            )
        else:
            k = "-" if p.k is None else str(p.k) + ("*" if p.junior else "")
            rows.append(
                [
                    str(p.start),
                    p.name,
                    str(p.rating),
                    str(p.birth_year or "-"),
                    k,
                    str(p.n_rated),
                    _pts(p.score),
                    _num(p.expected, 2),
                    _num(p.change, 2, sign=True),
                    _new_text(p),
                    _note(p),
                ]
            )
        details[len(rows) - 1] = [_game_row(g) for g in p.games]
    table = _table(headers, rows, left=(1, len(headers) - 1))
    lines.append(table[0])
    for i, row in enumerate(table[1:]):
        lines.append(row)
        if detail:
            lines.extend(details[i])
    lines.append("")
    lines.append(
        "K* = junior. games: rated games (unrated players: games against rated "
        "opponents). change = K x (score - expected), rounded half away from "
        "zero into new."
    )
    lines += _trailer(t)
    return "\n".join(lines)


def _trailer(t: Tournament) -> list[str]:
    out = [f"Warning: {w}" for w in t.warnings]
    if t.skipped:
        out.append(f"Skipped {len(t.skipped)} bad record(s) (--skip-bad):")
        out += [f"  {b}" for b in t.skipped]
    return out


_CSV_FIELDS = [
    "start",
    "name",
    "rating",
    "birth_year",
    "junior",
    "games_before",
    "k_list",
    "k",
    "games_rated",
    "score",
    "expected",
    "change",
    "rounded_change",
    "new_rating",
    "points",
    "initial_games",
    "initial_points",
    "initial_ra",
    "initial_p",
    "initial_dp",
    "initial_ru",
    "status",
]


def _csv_row(p: PlayerRating) -> dict[str, Any]:
    perf = p.performance
    return {
        "start": p.start,
        "name": p.name,
        "rating": p.rating,
        "birth_year": p.birth_year,
        "junior": p.junior,
        "games_before": p.games_before,
        "k_list": p.k_list,
        "k": p.k,
        "games_rated": p.n_rated,
        "score": p.score,
        "expected": round(p.expected, 6),
        "change": None if p.change is None else round(p.change, 6),
        "rounded_change": p.rounded,
        "new_rating": p.new_rating,
        "points": p.points,
        "initial_games": None if perf is None else perf.n_games,
        "initial_points": None if perf is None else perf.points,
        "initial_ra": None if perf is None or perf.ra is None else round(perf.ra, 6),
        "initial_p": None if perf is None else perf.p,
        "initial_dp": None if perf is None else perf.dp,
        "initial_ru": None if perf is None else perf.ru,
        "status": _note(p),
    }


def to_csv(result: TournamentRating, *, detail: bool = False) -> str:
    """One CSV row per player, or with ``detail`` one per player and round."""
    buf = io.StringIO()
    if detail:
        fields = ["start", "name", *GameLine.__dataclass_fields__]
        writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for p in result.players:
            for g in p.games:
                writer.writerow({"start": p.start, "name": p.name, **_fields_of(g)})
        return buf.getvalue()
    writer = csv.DictWriter(buf, fieldnames=_CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    for p in result.players:
        writer.writerow(_csv_row(p))
    return buf.getvalue()


def _fields_of(record: GameLine | Performance | PlayerRating) -> dict[str, Any]:
    """A record's fields by name, in order: ``dataclasses.asdict`` one level deep.

    ``asdict`` deep-copies every value it meets, which for thousands of
    players costs seconds; the values here are numbers, strings and None.
    """
    return {f.name: getattr(record, f.name) for f in fields(record)}


def _player_dict(p: PlayerRating) -> dict[str, Any]:
    """A player's figures as plain data, as ``dataclasses.asdict`` gives them."""
    out = _fields_of(p)
    out["performance"] = None if p.performance is None else _fields_of(p.performance)
    out["games"] = [_fields_of(g) for g in p.games]
    return out


def _json_body(result: TournamentRating) -> dict[str, Any]:
    """One system's result as plain data (without the tournament)."""
    return {
        "system": result.system,
        "description": result.description,
        "list_date": str(result.list_day),
        "rated_on_list": str(result.next_list),
        "assumptions": list(result.assumptions),
        "players": [_player_dict(p) for p in result.players],
    }


def _tournament_dict(t: Tournament) -> dict[str, Any]:
    return {
        "file": t.path,
        "name": t.name,
        "city": t.city,
        "federation": t.federation,
        "start": str(t.start),
        "end": str(t.end),
        "rounds": t.n_rounds,
        "players": len(t.players),
        "warnings": list(t.warnings),
        "skipped": [str(b) for b in t.skipped],
    }


def to_json(result: TournamentRating) -> str:
    """The result as one JSON object (every player with every round)."""
    body = {"tournament": _tournament_dict(result.tournament), **_json_body(result)}
    return json.dumps(body, indent=2, ensure_ascii=False)


def compare_table(results: Sequence[TournamentRating]) -> str:
    """Several systems side by side: K, change and new rating of each."""
    first = results[0]
    lines = [_heading(first.tournament)]
    for r in results:
        lines.append(
            f"{r.system}: {r.description} (list of {r.list_day}, rated on the list "
            f"of {r.next_list})"
        )
    lines.append("Assumptions (each system):")
    seen: list[str] = []
    for r in results:
        for a in r.assumptions:
            if a not in seen:
                seen.append(a)
                lines.append(f"  - {a}")
    lines.append("")
    headers = ["#", "name", "rating"]
    for r in results:
        headers += [f"{r.system} K", "change", "new"]
    rows = []
    for i, p in enumerate(first.players):
        row = [str(p.start), p.name, "-" if p.rating is None else str(p.rating)]
        for r in results:
            q = r.players[i]
            row += [
                "-" if q.k is None else str(q.k),
                "-" if q.rounded is None else f"{q.rounded:+d}",
                _new_text(q),
            ]
        rows.append(row)
    lines += _table(headers, rows)
    lines.append("")
    lines.append("change: rounded; new: '-' = unrated on the next list.")
    lines += _trailer(first.tournament)
    return "\n".join(lines)


def compare_csv(results: Sequence[TournamentRating]) -> str:
    """Several systems side by side, one CSV row per player."""
    buf = io.StringIO()
    fields = ["start", "name", "rating"]
    for r in results:
        fields += [f"{r.system}_k", f"{r.system}_change", f"{r.system}_new_rating"]
    writer = csv.DictWriter(buf, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    for i, p in enumerate(results[0].players):
        row: dict[str, Any] = {"start": p.start, "name": p.name, "rating": p.rating}
        for r in results:
            q = r.players[i]
            row[f"{r.system}_k"] = q.k
            row[f"{r.system}_change"] = q.rounded
            row[f"{r.system}_new_rating"] = q.new_rating
        writer.writerow(row)
    return buf.getvalue()


def compare_json(results: Sequence[TournamentRating]) -> str:
    """Several systems: one JSON object with each system's full result."""
    systems = {r.system: _json_body(r) for r in results}
    return json.dumps(
        {"tournament": _tournament_dict(results[0].tournament), "systems": systems},
        indent=2,
        ensure_ascii=False,
    )
