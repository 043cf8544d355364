"""The command line's parser and its one-line errors, without the rest of the CLI.

Light on purpose (argparse only), so that ``ratingsim convert`` can parse and
fail in one line before anything else is imported.
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

__all__ = ["EXIT_USAGE", "CliError", "_Parser"]

#: Exit code for bad input (argparse's own).
EXIT_USAGE = 2


class CliError(Exception):
    """Bad input: reported as one line on stderr with exit code 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, raised, not printed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Raise :class:`CliError` instead of printing the usage and exiting."""
        raise CliError(f"{self.prog}: error: {message}")
