"""The command line's parser, its one-line errors and the option types it needs first.

Light on purpose (argparse only), so that ``ratingsim convert`` can parse and
fail in one line before anything else is imported.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from typing import Any, NoReturn

__all__ = [
    "EXIT_USAGE",
    "CliError",
    "HelpFormatter",
    "_Parser",
    "_count_positive",
    "_seed",
]

#: Exit code for bad input (argparse's own).
EXIT_USAGE = 2


class CliError(Exception):
    """Bad input: reported as one line on stderr with exit code 2."""


class HelpFormatter(argparse.HelpFormatter):
    """Help wrapped to the terminal: prose reflowed, indented lines kept as written.

    argparse's default formatter reflows a description into one paragraph
    (losing the line breaks of an examples list), and its raw formatter keeps
    every line however long. Here a run of unindented lines is a paragraph,
    reflowed to the width (``COLUMNS``), and an indented line (an example
    command) is kept as written, so help reads at 80 columns.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        paragraph: list[str] = []

        def flush() -> None:
            if paragraph:
                words = " ".join(paragraph)
                out.extend(
                    textwrap.wrap(
                        words,
                        width,
                        initial_indent=indent,
                        subsequent_indent=indent,
                        break_on_hyphens=False,
                    )
                )
                paragraph.clear()

        for line in text.strip("\n").splitlines():
            if not line.strip():
                flush()
                out.append("")
            elif re.match(r"\s", line):
                flush()
                out.append(indent + line)
            else:
                paragraph.append(line.strip())
        flush()
        return "\n".join(out)


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, raised, not printed."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """Raise :class:`CliError` instead of printing the usage and exiting."""
        raise CliError(f"{self.prog}: error: {message}")


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"the seed {text!r} must be a whole number"
        ) from None
    if not 0 <= value < 2**128:
        raise argparse.ArgumentTypeError(f"the seed {text!r} must lie in [0, 2**128)")
    return value


def _count_positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} must be a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} must be at least 1")
    return value
