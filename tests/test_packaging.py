"""The package ships its data files: every file beside the code is package data.

A wheel holds the modules and only the data files ``pyproject.toml`` names
under ``[tool.setuptools.package-data]``; a file missing there works from a
source checkout (an editable install) and fails from a wheel (until 2026-12
the conversion table, ``tasks/conversion.json``, was missing).
"""

from __future__ import annotations

import fnmatch
import tomllib
from pathlib import Path

import simulator

PACKAGE = Path(simulator.__file__).parent
PYPROJECT = PACKAGE.parent / "pyproject.toml"

#: Files that are not package data: code, caches and numba's compiled loops.
NOT_DATA = ("*.py", "*.pyc", "*.nbi", "*.nbc")


def test_every_data_file_of_the_package_is_package_data() -> None:
    patterns = tomllib.loads(PYPROJECT.read_text())["tool"]["setuptools"][
        "package-data"
    ]["simulator"]
    data = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and not any(fnmatch.fnmatch(path.name, p) for p in NOT_DATA)
    ]
    assert "tasks/conversion.json" in data
    assert "tasks/compile_plan.json" in data
    # As setuptools reads them: globs from the package's folder ("*" stops
    # at "/", which fnmatch would not).
    shipped = {
        path.relative_to(PACKAGE).as_posix()
        for pattern in patterns
        for path in PACKAGE.glob(pattern)
    }
    unshipped = sorted(set(data) - shipped)
    assert not unshipped, f"add to [tool.setuptools.package-data]: {unshipped}"
