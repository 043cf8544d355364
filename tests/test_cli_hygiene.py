"""CLI hygiene: a first run says it compiles; every help text reads at 80 columns."""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing
import os
import pty
import subprocess
import sys
from pathlib import Path

import numba
import pytest

import simulator.cli.commands
from simulator._jit import on_first_compile
from simulator.cli import build_parser, main
from simulator.cli.commands import COMPILING

REPO = Path(__file__).resolve().parent.parent
#: A calculation whose kernels are few (a cold cache compiles them in seconds).
CALC = ["calc", "glicko2", "--rating", "1500", "--rd", "200", "--game", "1400/30:1"]


def _ratingsim(args: list[str], cache: Path) -> tuple[int, str, str]:
    """Run ``python -m simulator ARGS`` with stderr on a terminal (a pty).

    Returns the exit code, stdout and what the terminal showed on stderr.
    """
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    master, terminal = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "simulator", *args],
            cwd=REPO,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=terminal,
            text=True,
            timeout=900,
            check=False,
        )
    finally:
        os.close(terminal)
    shown = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the terminal's last writer is gone
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return done.returncode, done.stdout, shown.decode()


def test_first_run_says_it_compiles_and_the_second_does_not(tmp_path: Path) -> None:
    """With an empty numba cache the line appears once; with the cache filled, not."""
    code, out, err = _ratingsim(CALC, tmp_path)
    assert code == 0, err
    assert err.count(COMPILING) == 1, err
    assert "New rating" in out  # the result itself is unchanged
    assert COMPILING not in out
    assert list(tmp_path.rglob("*.nbi")), "numba cached nothing"
    code, warm_out, warm_err = _ratingsim(CALC, tmp_path)
    assert code == 0, warm_err
    assert COMPILING not in warm_err
    assert warm_out == out


def test_no_line_when_stderr_is_no_terminal(tmp_path: Path) -> None:
    """Piped or logged, a cold run's stderr stays empty (nobody is waiting there)."""
    done = subprocess.run(
        [sys.executable, "-m", "simulator", *CALC],
        cwd=REPO,
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert list(tmp_path.rglob("*.nbi")), "nothing was compiled"


def _fresh(value: float) -> float:
    """A function numba has never compiled (no cache): compiling it is an event."""
    return numba.njit(cache=False)(lambda x: x + 1.0)(value)  # type: ignore[no-any-return]


def test_the_notice_is_called_once_across_forked_processes(tmp_path: Path) -> None:
    """Compiles in the parent and in two forked workers call the callback once."""
    log = tmp_path / "calls"

    def note() -> None:
        with open(log, "a") as handle:
            handle.write("compiling\n")

    fork = multiprocessing.get_context("fork")
    with on_first_compile(note):
        workers = [fork.Process(target=_fresh, args=(1.0,)) for _ in range(2)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        assert all(w.exitcode == 0 for w in workers)
        _fresh(2.0)
    assert log.read_text() == "compiling\n"
    _fresh(3.0)  # outside the block: no listener
    assert log.read_text() == "compiling\n"


def test_the_python_api_prints_nothing_while_compiling(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Compiling outside the CLI says nothing (the notice is the CLI's)."""
    assert _fresh(1.0) == 2.0
    assert capsys.readouterr().err == ""


def test_quiet_installs_no_notice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``run --quiet`` never asks for the notice; ``run`` and ``calc`` do.

    (At a terminal: :func:`simulator.cli.commands._interactive` is made true.)
    """
    asked: list[str] = []

    @contextlib.contextmanager
    def spy(callback: object) -> object:
        asked.append("notice")
        yield

    monkeypatch.setattr(simulator.cli.commands, "on_first_compile", spy)
    monkeypatch.setattr(simulator.cli.commands, "_interactive", lambda: True)
    config = tmp_path / "tiny.toml"
    config.write_text(
        "years = 0.1\nreplicates = 1\n[population]\nn_players = 30\n"
        '[[arena]]\nsystems = ["elo"]\n'
    )
    out = tmp_path / "out"
    run = ["run", str(config), "--out", str(out), "--jobs", "1", "--no-figures"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*run, "--quiet"]) == 0
    assert asked == []
    with contextlib.redirect_stdout(io.StringIO()):
        assert main([*run, "--force"]) == 0
        assert main(CALC) == 0
    assert asked == ["notice", "notice"]


def _commands() -> list[list[str]]:
    """Every subcommand, and every system of ``calc``, read from the parser."""

    def below(parser: argparse.ArgumentParser, prefix: list[str]) -> list[list[str]]:
        out = [prefix]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out += below(sub, [*prefix, name])
        return out

    return below(build_parser(), [])


@pytest.mark.parametrize("command", _commands(), ids=" ".join)
def test_help_fits_80_columns(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ratingsim ... --help`` has no line over 80 characters at COLUMNS=80."""
    monkeypatch.setenv("COLUMNS", "80")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main([*command, "--help"]) == 0
    lines = buffer.getvalue().splitlines()
    assert len(lines) > 3
    long = [line for line in lines if len(line) > 80]
    assert long == [], "\n".join(long)


def test_help_wraps_prose_and_keeps_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The formatter reflows a paragraph and keeps indented example lines."""
    example = "  ratingsim calc fide" + " --game 1:1" * 9
    text = "word " * 30 + "\n\nexamples:\n" + example + "\n"
    parser = argparse.ArgumentParser(
        prog="x",
        description=text,
        formatter_class=simulator.cli._parser.HelpFormatter,
    )
    monkeypatch.setenv("COLUMNS", "40")
    shown = parser.format_help().splitlines()
    prose = [line for line in shown if line.startswith("word")]
    assert len(prose) > 3 and all(len(line) <= 40 for line in prose)
    assert example in shown


def test_compiled_loops_build_no_c_wrapper_and_stay_callable_from_python() -> None:
    """Every loop is compiled without the C wrapper, and Python can call it."""
    from simulator._jit import jit

    def add_one(x: float) -> float:
        return x + 1.0

    compiled = jit(add_one)
    assert compiled(1.5) == 2.5
    options = compiled.targetoptions  # type: ignore[attr-defined]
    assert options.get("no_cfunc_wrapper") is True
    assert options.get("nogil") is True
    assert options.get("error_model") == "numpy"
