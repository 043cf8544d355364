"""A replay's tables as files: Parquet or gzipped CSV, written whole or not at all.

The history and the predictions (:mod:`~simulator.tasks.replay.log`) grow
with the games, so they are written columnar and compressed, by the name's
ending: ``.parquet`` (through pyarrow, zstd-compressed; dates stay dates and
categories stay categories) or ``.csv.gz`` (dates as ``YYYY-MM-DD``). Both go
through :func:`simulator._atomic.atomic_file`: a temporary beside the target,
renamed into place when complete. :func:`check_table_output` is the check
made before the first game is read; :func:`read_table` reads either back.
"""

from __future__ import annotations

import gzip
import io
import os
from pathlib import Path

import pandas as pd

from simulator._atomic import atomic_file, check_output

__all__ = ["TABLE_SUFFIXES", "check_table_output", "read_table", "write_table"]

#: The endings a table file may have.
TABLE_SUFFIXES = (".parquet", ".csv.gz")


def _kind(path: str | os.PathLike[str], option: str = "a table file") -> str:
    name = str(path).lower()
    for suffix in TABLE_SUFFIXES:
        if name.endswith(suffix):
            return suffix
    raise ValueError(
        f"{option} {str(path)!r}: the name must end in .parquet or .csv.gz."
    )


def check_table_output(
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    inputs: tuple[str | os.PathLike[str], ...] = (),
    option: str = "the output",
) -> Path:
    """Check ``path`` before anything is read: a known ending, and writable.

    Raises
    ------
    ValueError
        An ending other than :data:`TABLE_SUFFIXES`.
    simulator._atomic.OutputError
        As :func:`simulator._atomic.check_output`.
    """
    _kind(path, option)
    return check_output(path, force=force, inputs=inputs, option=option)


def write_table(
    frame: pd.DataFrame, path: str | os.PathLike[str], *, force: bool = False
) -> None:
    """Write ``frame`` to ``path`` (``.parquet`` or ``.csv.gz``), atomically.

    The gzip header carries no name or time, so the same table gives the same
    bytes.
    """
    kind = _kind(path)
    with atomic_file(path, force=force, binary=True) as handle:
        if kind == ".parquet":
            frame.to_parquet(handle, engine="pyarrow", compression="zstd", index=False)
        else:
            with gzip.GzipFile(
                filename="", mode="wb", fileobj=handle, mtime=0
            ) as packed:
                text = io.TextIOWrapper(packed, encoding="utf-8", newline="")
                frame.to_csv(
                    text, index=False, lineterminator="\n", date_format="%Y-%m-%d"
                )
                text.flush()
                text.detach()


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """A table written by :func:`write_table` (``date`` parsed as dates)."""
    if _kind(path) == ".parquet":
        return pd.read_parquet(path, engine="pyarrow")
    return pd.read_csv(
        path, parse_dates=["date"], keep_default_na=False, na_values=[""]
    )
