"""Results folders: a run's and a sweep's, written whole or not at all.

:func:`write_report` writes a run's results folder::

    report.md          title, tables, figures, seed, versions, how to reproduce
    summary.csv  timeseries.csv  prediction.csv  calibration.csv  convergence.csv
    paired.csv         each system's paired difference to the reference
    paired_all.csv     every two systems' paired differences (summary, prediction)
    groups.csv  comparison.csv  bands.csv   where the run recorded them
    error_vs_games.png  rmse_over_time.png  calibration.png  offset_over_time.png
    config.toml  seed.txt  versions.json
    history.parquet  predictions.parquet   where the config's ``[output]`` asks

It takes one :class:`~simulator.evaluation.results.Summary` or a mapping of
arena name to summary (an experiment with several arenas); with several arenas
the CSV tables gain a leading ``arena`` column and each figure is drawn per
arena (``error_vs_games-<arena>.png``). :func:`write_sweep_report` writes a
sweep's folder: :func:`sweep_table` (every point side by side) as
``sweep.csv`` and ``sweep.md``, and one run's folder per point.

A folder appears whole or not at all: everything is written into a hidden
temporary folder beside it, which is renamed into place at the end and removed
if anything fails or a signal arrives
(:func:`simulator._atomic.atomic_folder`). The text is
:mod:`~simulator.evaluation.markdown`'s, the figures
:mod:`~simulator.evaluation.figures`'.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from simulator._atomic import atomic_folder
from simulator._style import Style
from simulator.evaluation.figures import _draw_figures, _draw_sweep_figure
from simulator.evaluation.formatting import _arenas
from simulator.evaluation.markdown import _report_markdown
from simulator.evaluation.results import Summary
from simulator.evaluation.sweep_markdown import sweep_markdown

__all__ = [
    "OPTIONAL_TABLES",
    "SWEEP_COLUMNS",
    "SWEEP_COMPARISON_COLUMNS",
    "TABLES",
    "sweep_table",
    "write_report",
    "write_sweep_report",
]

#: The CSV tables of a results folder (attributes of :class:`Summary`).
TABLES = ("summary", "timeseries", "prediction", "calibration", "convergence")
#: The CSV tables written only where a run recorded them: the convergence of
#: groups, the cross-arena comparison, the error by band, the paired
#: differences to the reference (:attr:`Summary.paired`) and between every
#: two systems (:attr:`Summary.paired_all`).
OPTIONAL_TABLES = ("groups", "comparison", "bands", "paired", "paired_all")
#: The figures of a sweep's table: per point, arena and system.
SWEEP_COLUMNS = (
    "n50_median",
    "rmse",
    "rmse_common",
    "mae",
    "spearman",
    "spread",
    "offset",
    "drift_per_year",
    "log_loss",
    "log_loss_common",
    "log_loss_excess",
    "brier",
)
#: The figures of a cross-arena comparison's fit in a sweep's table, in rows
#: whose ``arena`` is ``"comparison"`` and ``system`` the comparison's name.
SWEEP_COMPARISON_COLUMNS = (
    "slope",
    "intercept",
    "gap",
    "correlation",
    "residual_sd",
)


def _table(arenas: Mapping[str, Summary], name: str) -> pd.DataFrame:
    frames = []
    for arena, s in arenas.items():
        df: pd.DataFrame = getattr(s, name)
        if len(arenas) > 1:
            df = df.copy()
            df.insert(0, "arena", arena)
        frames.append(df)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _write_provenance(
    folder: Path, config_text: str, seed: int, versions: Mapping[str, str]
) -> None:
    """The resolved config, the root seed and the package versions."""
    text = config_text if config_text.endswith("\n") else config_text + "\n"
    (folder / "config.toml").write_text(text, encoding="utf-8")
    (folder / "seed.txt").write_text(f"{seed}\n", encoding="utf-8")
    (folder / "versions.json").write_text(
        json.dumps(dict(versions), indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )


def write_report(
    out_dir: str | os.PathLike[str],
    summary: Summary | Mapping[str, Summary],
    *,
    config_text: str,
    seed: int,
    versions: Mapping[str, str],
    title: str,
    figures: bool = True,
    reproduce: str | None = None,
    force: bool = False,
    styles: Mapping[str, Style] | None = None,
    world: str = "",
    extra: Callable[[Path], object] | None = None,
) -> Path:
    """Write a complete results folder, or nothing.

    Parameters
    ----------
    out_dir : path
        The folder to create. It may exist only if it is empty; missing
        parent folders are created.
    summary : Summary or mapping of str to Summary
        The combined replicates, or one summary per arena.
    config_text : str
        The resolved config (TOML), saved as ``config.toml``.
    seed : int
        The root seed, saved as ``seed.txt``.
    versions : mapping of str to str
        Package versions (ratingsim, numpy, ...), saved as ``versions.json``.
    title : str
        The report's title.
    figures : bool, default True
        Draw the PNG figures.
    reproduce : str, optional
        The shell command that reproduces the run, shown in ``report.md``;
        by default ``ratingsim run config.toml --seed SEED``.
    force : bool, default False
        Replace an existing ``out_dir`` (moved aside, removed once the new
        folder is in place).
    extra : callable, optional
        Called with the temporary folder to write more files into it
        (the opt-in histories and predictions).
    styles : mapping of str to Style, optional
        Each system's style by label (display name, colour, marker, line
        style); by default the registry's for labels that are registry names.
    world : str, optional
        The "World and systems" section of ``report.md`` (Markdown).

    Returns
    -------
    pathlib.Path
        The results folder.

    Raises
    ------
    simulator._atomic.OutputError
        If ``out_dir`` exists and is not an empty folder (and not ``force``).
        Nothing is changed.
    """
    out = Path(out_dir)
    arenas = _arenas(summary)
    command = (
        reproduce
        if reproduce is not None
        else (f"ratingsim run config.toml --seed {seed}")
    )
    with atomic_folder(out, force=force) as tmp:
        written = []
        for name in (*TABLES, *OPTIONAL_TABLES):
            table = _table(arenas, name)
            if name in TABLES or not table.empty:
                table.to_csv(tmp / f"{name}.csv", index=False, lineterminator="\n")
                written.append(name)
        if figures:
            _draw_figures(tmp, arenas, styles)
        (tmp / "report.md").write_text(
            _report_markdown(
                arenas,
                title=title,
                seed=seed,
                versions=versions,
                reproduce=command,
                figures=figures,
                tables=written,
                styles=styles,
                world=world,
            ),
            encoding="utf-8",
        )
        _write_provenance(tmp, config_text, seed, versions)
        if extra is not None:
            extra(tmp)
    return out


def _slug(name: str) -> str:
    """A folder name for a sweep point."""
    return re.sub(r"[^A-Za-z0-9_.=-]+", "-", name).strip("-.") or "point"


def _slugs(names: Sequence[str]) -> list[str]:
    """Distinct folder names for sweep points: ``-2``, ``-3``, ... on repeats.

    Names that differ only in characters a folder name drops (``"a b"`` and
    ``"a/b"``) or in case would otherwise share a folder.
    """
    out: list[str] = []
    used: set[str] = set()
    for name in names:
        base = slug = _slug(name)
        i = 2
        while slug.lower() in used:
            slug = f"{base}-{i}"
            i += 1
        used.add(slug.lower())
        out.append(slug)
    return out


def sweep_table(
    points: Sequence[str],
    summaries: Sequence[Mapping[str, Summary] | None],
) -> pd.DataFrame:
    """One row per point, arena and system with the headline figures.

    Every figure comes with its interval (``_lo``/``_hi``) across replicates;
    points whose every replicate failed are left out. A point with a
    cross-arena comparison adds a row per comparison (``arena`` is
    ``"comparison"``, ``system`` its name) with the fit's slope, intercept,
    gap, correlation and residual SD (:data:`SWEEP_COMPARISON_COLUMNS`).
    """
    frames = []
    for name, arenas in zip(points, summaries, strict=True):
        if arenas is None:
            continue
        for arena, s in arenas.items():
            cols = ["system"]
            for c in SWEEP_COLUMNS:
                cols += [x for x in (c, f"{c}_lo", f"{c}_hi") if x in s.summary]
            frame = s.summary[cols].copy()
            frame.insert(0, "arena", arena)
            frame.insert(0, "point", name)
            frames.append(frame)
            if not s.comparison.empty:
                fits = s.comparison[s.comparison["kind"] == "fit"]
                keep = [
                    x
                    for c in SWEEP_COMPARISON_COLUMNS
                    for x in (c, f"{c}_lo", f"{c}_hi")
                    if x in fits
                ]
                frame = fits[keep].copy()
                frame.insert(0, "system", fits["comparison"].astype(str))
                frame.insert(0, "arena", "comparison")
                frame.insert(0, "point", name)
                frames.append(frame)
    if not frames:
        return pd.DataFrame(columns=["point", "arena", "system", *SWEEP_COLUMNS])
    return pd.concat(frames, ignore_index=True)


def write_sweep_report(
    out_dir: str | os.PathLike[str],
    points: Sequence[str],
    summaries: Sequence[Mapping[str, Summary] | None],
    failures: Sequence[Mapping[str, object]],
    *,
    config_text: str,
    point_configs: Sequence[str],
    seed: int,
    versions: Mapping[str, str],
    title: str,
    figures: bool = True,
    reproduce: str | None = None,
    force: bool = False,
    styles: Mapping[str, Style] | None = None,
    point_styles: Sequence[Mapping[str, Style] | None] | None = None,
    point_worlds: Sequence[str] | None = None,
    point_extras: Sequence[Callable[[Path], object] | None] | None = None,
    paired: pd.DataFrame | None = None,
) -> Path:
    """Write a sweep's results folder, or nothing.

    The folder holds ``sweep.md`` and ``sweep.csv`` (every point side by side,
    with intervals, and the fit of each cross-arena comparison), the
    ``sweep`` figure (PNG and SVG: each headline figure against the points),
    ``failures.csv`` when tasks failed, the sweep's config, and one complete
    results folder per point (see :func:`write_report`) under ``points/``.
    ``styles`` draws and names the systems in the sweep's table and figure;
    ``point_styles`` and ``point_worlds`` (one per point) are the points'
    ``styles`` and ``world`` (by default ``styles`` and none); ``point_extras``
    (one per point, optional) as :func:`write_report`'s ``extra``. ``paired``
    (:func:`~simulator.evaluation.paired.paired_points`) goes into
    ``sweep_paired.csv`` and a section of ``sweep.md``.
    """
    out = Path(out_dir)
    command = reproduce or f"ratingsim run config.toml --seed {seed}"
    with atomic_folder(out, force=force) as tmp:
        table = sweep_table(points, summaries)
        table.to_csv(tmp / "sweep.csv", index=False, lineterminator="\n")
        if paired is not None:
            paired.to_csv(tmp / "sweep_paired.csv", index=False, lineterminator="\n")
        if failures:
            pd.DataFrame(list(failures)).to_csv(
                tmp / "failures.csv", index=False, lineterminator="\n"
            )
        drawn = figures and _draw_sweep_figure(tmp, table, styles)
        (tmp / "sweep.md").write_text(
            sweep_markdown(
                table,
                failures,
                title=title,
                n_points=len(points),
                seed=seed,
                reproduce=command,
                styles=styles,
                figure=drawn,
                paired=paired,
            ),
            encoding="utf-8",
        )
        _write_provenance(tmp, config_text, seed, versions)
        n = len(points)
        all_styles = point_styles if point_styles is not None else [styles] * n
        worlds = point_worlds if point_worlds is not None else [""] * n
        extras = point_extras if point_extras is not None else [None] * n
        for name, slug, arenas, point_text, point_style, world, extra in zip(
            points,
            _slugs(points),
            summaries,
            point_configs,
            all_styles,
            worlds,
            extras,
            strict=True,
        ):
            if arenas is None:
                continue
            write_report(
                tmp / "points" / slug,
                arenas,
                config_text=point_text,
                seed=seed,
                versions=versions,
                title=f"{title}: {name}",
                figures=figures,
                reproduce=command,
                styles=point_style,
                world=world,
                extra=extra,
            )
    return out
