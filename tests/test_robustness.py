"""Every case of issue 21, rerun as written.

Each gives a one-line error with exit 2 or a correct result, and leaves no
partial file or folder.

The fault tests send SIGINT, SIGTERM and SIGHUP to a ``ratingsim`` process
while it writes (a subprocess whose ``to_csv`` pauses after writing, so that
the signal lands inside the write), and check that the previous file or
folder is byte-identical and nothing half-written is left.
"""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import simulator
import simulator.tasks.run
from simulator.cli import main
from simulator.systems.glicko2 import Glicko2

ROOT = Path(simulator.__file__).resolve().parent.parent
TRF = ROOT / "tests" / "data" / "swiss-madrid-2018.trf"
GAMES = (
    "white,black,score,date\na,b,1,2020-01-01\nb,c,0.5,2020-01-02\nc,a,0,2020-01-03\n"
)
TINY = """
title = "tiny"
years = 0.1
replicates = 1

[population]
n_players = 60

[[arena]]
name = "otb"
systems = ["elo"]
"""


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``argv``; it must exit 2 with one line on stderr; return the line."""
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and ": None" not in err
    lines = err.splitlines()
    if argv[0] == "run" and len(lines) > 1:  # the run's start, its progress
        assert lines[0].startswith("ratingsim run: "), err
    else:
        assert len(lines) == 1, err
    assert lines[-1].startswith("ratingsim"), err
    return lines[-1]


def _write(path: Path, text: str | bytes) -> Path:
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _no_run(*args: object, **kwargs: object) -> None:
    raise AssertionError("the run started")


# --------------------------------------------------------------------------
# 1. replay --ratings-out: never the input, never in place


def test_replay_refuses_to_overwrite_its_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = _write(tmp_path / "g.csv", GAMES)
    err = _error(["replay", str(games), "--ratings-out", str(games)], capsys)
    assert "is an input" in err
    assert games.read_text(encoding="utf-8") == GAMES


def test_replay_needs_force_to_replace_ratings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = _write(tmp_path / "g.csv", GAMES)
    out = _write(tmp_path / "r.csv", "old\n")
    argv = ["replay", str(games), "--ratings-out", str(out), "--quiet"]
    assert "--force" in _error(argv, capsys)
    assert out.read_text(encoding="utf-8") == "old\n"
    assert main([*argv, "--force"]) == 0
    assert out.read_text(encoding="utf-8").startswith("player,games,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.csv", "r.csv"]


# --------------------------------------------------------------------------
# 1 and 2. signals while writing (subprocess)

#: Runs ``ratingsim ARGS`` with a to_csv that writes, touches MARKER and waits.
_PAUSED = r"""
import sys, time
from pathlib import Path
import pandas as pd
marker, argv = Path(sys.argv[1]), sys.argv[2:]
real = pd.DataFrame.to_csv
def paused(self, *args, **kwargs):
    out = real(self, *args, **kwargs)
    marker.write_text("writing")
    time.sleep(60)
    return out
pd.DataFrame.to_csv = paused
from simulator.cli import main
sys.exit(main(argv))
"""


def _signal_while_writing(tmp_path: Path, argv: list[str], signum: int) -> int:
    marker = tmp_path / "marker"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", _PAUSED, str(marker), *argv],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while not marker.exists():
            assert proc.poll() is None, proc.communicate()[1]
            assert time.monotonic() < deadline, "the write never started"
            time.sleep(0.05)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # pragma: no cover - only if the test failed
            proc.kill()
    assert "Traceback" not in err, err
    marker.unlink()
    return proc.returncode


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_ratings_out_keeps_the_old_file(
    tmp_path: Path, signum: int
) -> None:
    """The previous --ratings-out byte-identical, no temporary, exit 128 + signal."""
    games = _write(tmp_path / "g.csv", GAMES)
    old = bytes(range(256)) * 10
    out = _write(tmp_path / "r.csv", old)
    argv = ["replay", str(games), "--ratings-out", str(out), "--force", "--quiet"]
    assert _signal_while_writing(tmp_path, argv, signum) == 128 + signum
    assert out.read_bytes() == old
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.csv", "r.csv"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_during_a_runs_write_leaves_nothing(
    tmp_path: Path, signum: int
) -> None:
    """SIGTERM or SIGHUP while run writes its folder: no folder, no temporary."""
    config = _write(tmp_path / "tiny.toml", TINY)
    out = tmp_path / "out"
    argv = ["run", str(config), "--out", str(out), "--seed", "3", "--jobs", "1"]
    argv += ["--quiet", "--no-figures"]
    assert _signal_while_writing(tmp_path, argv, signum) == 128 + signum
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.toml"]


# --------------------------------------------------------------------------
# 3. output problems are found before the run


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("file/results", "is a file, not a folder"),
        ("x" * 300, "too long|longer than"),
        ("existing", "not empty"),
        ("link", "not empty|exists"),
        ("tiny.toml", "is an input|exists"),
    ],
)
def test_run_checks_its_folder_before_the_first_game(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    out: str,
    message: str,
) -> None:
    monkeypatch.setattr(simulator.tasks.run, "run_sweep", _no_run)
    monkeypatch.chdir(tmp_path)
    config = _write(tmp_path / "tiny.toml", TINY)
    _write(tmp_path / "file", "a file")
    (tmp_path / "existing").mkdir()
    _write(tmp_path / "existing" / "keep.txt", "mine")
    (tmp_path / "link").symlink_to(tmp_path / "existing")
    before = sorted(p.name for p in tmp_path.iterdir())
    err = _error(["run", str(config), "--out", out], capsys)
    assert any(m in err for m in message.split("|")), err
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_run_refuses_a_full_file_system_before_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Full:
        f_bavail = 0
        f_frsize = 4096

    monkeypatch.setattr(simulator.tasks.run, "run_sweep", _no_run)
    monkeypatch.setattr(os, "statvfs", lambda _: Full())
    config = _write(tmp_path / "tiny.toml", TINY)
    assert "is full" in _error(
        ["run", str(config), "--out", str(tmp_path / "o")], capsys
    )


def test_run_force_replaces_a_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(tmp_path / "tiny.toml", TINY)
    out = tmp_path / "out"
    out.mkdir()
    _write(out / "old.txt", "old")
    argv = ["run", str(config), "--out", str(out), "--seed", "2", "--quiet"]
    assert main([*argv, "--no-figures", "--jobs", "1", "--force"]) == 0
    assert (out / "report.md").is_file() and not (out / "old.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "tiny.toml"]


# --------------------------------------------------------------------------
# 4. readers, decoders, decompressors: one line, exit 2


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    packed = gzip.compress(GAMES.encode())
    corrupt = bytearray(packed)
    corrupt[20] ^= 0xFF
    corrupt[25] ^= 0xFF
    long_field = "white,black,score,date\n" + "a" * 140_000 + ",b,1,2020-01-01\n"
    return {
        "truncated": _write(tmp_path / "t.csv.gz", packed[:40]),
        "corrupt": _write(tmp_path / "c.csv.gz", bytes(corrupt)),
        "garbage": _write(tmp_path / "x.csv.gz", b"\x1f\x8b" + b"\x00" * 50),
        "long": _write(tmp_path / "long.csv", long_field),
        "not utf-8": _write(tmp_path / "bad.toml", b'title = "\xff\xfe"\n'),
        "deep": _write(tmp_path / "deep.toml", "x = " + "[" * 3000 + "]" * 3000),
    }


@pytest.mark.parametrize("skip", [[], ["--skip-bad"]])
@pytest.mark.parametrize("name", ["truncated", "corrupt", "garbage"])
def test_broken_compression_is_one_line(
    files: dict[str, Path],
    capsys: pytest.CaptureFixture[str],
    name: str,
    skip: list[str],
) -> None:
    err = _error(["replay", str(files[name]), "--quiet", *skip], capsys)
    assert str(files[name]) in err and "line" in err


def test_an_overlong_csv_field_is_a_bad_record(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error(["replay", str(files["long"]), "--quiet"], capsys)
    assert "line 2" in err and "longer than" in err
    # Skipped, it leaves no game: an error that says so (not NaN metrics).
    err = _error(["replay", str(files["long"]), "--quiet", "--skip-bad"], capsys)
    assert "No games to replay" in err and "1 bad record(s) skipped" in err


@pytest.mark.parametrize("ending", ["\r", "\r\n", "\n"])
@pytest.mark.parametrize("kind", ["csv", "pgn"])
def test_line_ends_of_every_kind_read_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], ending: str, kind: str
) -> None:
    """CR-only, CR LF and LF files give the same ratings."""
    if kind == "csv":
        text = GAMES
    else:
        text = "".join(
            f'[White "{w}"]\n[Black "{b}"]\n[Result "{r}"]\n[Date "2020.01.0{d}"]\n'
            f"\n1. e4 {r}\n\n"
            for w, b, r, d in (("a", "b", "1-0", 1), ("b", "c", "1/2-1/2", 2))
        )
    outputs = []
    for end in ("\n", ending):
        path = _write(tmp_path / f"g.{kind}", text.replace("\n", end).encode())
        assert main(["replay", str(path), "--quiet", "--format", "json"]) == 0
        outputs.append(capsys.readouterr().out)
    assert f'"n_games": {3 if kind == "csv" else 2},' in outputs[0]
    assert outputs[1] == outputs[0]


def test_a_cr_only_line_past_the_limit_is_short(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 2 MB line (no LF, the CRs inside a quoted field): a short message."""
    path = _write(tmp_path / "big.pgn", b'[White "' + b"x" * 2_000_000 + b'"]\n')
    err = _error(["replay", str(path), "--quiet"], capsys)
    assert len(err) < 400 and "longer than" in err


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["run", "{not utf-8}"], "not UTF-8"),
        (["run", "{deep}"], "nested too deep"),
        (["run", "/dev/zero"], "larger than"),
        (["rate", "/dev/zero"], "larger than"),
        (["run", "--replicates", "100001"], "'replicates'"),
        (
            ["calc", "fide", "--rating", "1500", "--k", "1e20", "--game", "1400:1"],
            "1e20",
        ),
        (["calc", "glicko2", "--rd", "1e300", "--game", "1500/1e300:1"], "1e300"),
        (["calc", "glicko2", "--rd", "300", "--game", "1500/1e300:1"], "1e300"),
        (["calc", "glicko2", "--volatility", "1e300", "--game", "1500:1"], "1e300"),
        (["calc", "glicko2", "--volatility", "50", "--game", "1500:1"], "volatility"),
        (["run", "--dask", "notanaddress"], "Dask scheduler"),
    ],
)
def test_input_errors_are_one_line(
    files: dict[str, Path],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    needle: str,
    tmp_path: Path,
) -> None:
    monkeypatch.chdir(tmp_path)
    argv = [files[a[1:-1]].name if a.startswith("{") else a for a in argv]
    assert needle in _error(argv, capsys)
    assert not (tmp_path / "results").exists()


def test_a_variant_key_with_a_superscript_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _write(
        tmp_path / "v.toml", '[[variant]]\nname = "a"\nset = {"arena.²" = 1}\n'
    )
    assert "'²'" in _error(["run", str(config)], capsys)


def test_no_numba_cache_folder_breaks_nothing() -> None:
    """Every locator of numba's cache refused: --help and calc still work."""
    code = (
        "import numba.core.caching as c; c.CacheImpl._locator_classes = []\n"
        "import sys; from simulator.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for argv in (["--help"], ["calc", "elo", "--rating", "1500", "--game", "1400:1"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr


def test_a_closed_pipe_is_no_traceback() -> None:
    """``ratingsim systems | head -1``: no BrokenPipeError."""
    code = "import sys; from simulator.cli import main; sys.exit(main(sys.argv[1:]))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "calc", "fide", "--rating", "1500", "--k", "20"]
        + ["--game", "1400:1"] * 3000,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err, err


# --------------------------------------------------------------------------
# 5. values that validation took and every replicate then failed on


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("[population]\nn_players = 1000000000000\n", "n_players"),
        ("[population]\narrival_rate = 1e9\n", "arrival_rate"),
        ("[population]\nstrength_weights = [1e308, 1e308]\n", "strength_weights"),
        ("[metrics]\ncurve_bin_width = 1e-9\n", "curve_bin_width"),
        ('[[arena]]\nsystems = [{system = "glicko2", epsilon = 1e-300}]\n', "epsilon"),
        ('[[arena]]\nsystems = [{system = "lichess", epsilon = 1e-300}]\n', "epsilon"),
        ("cohort_ages = [nan, 30]\n", "cohort_ages"),
        ("years = inf\n", "years"),
        (
            '[[variant]]\nname = "a"\nset = {"population.n_players" = 1e12}\n',
            "n_players",
        ),
    ],
)
def test_impossible_configs_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, needle: str
) -> None:
    config = _write(tmp_path / "c.toml", text)
    assert needle in _error(["run", str(config), "--out", str(tmp_path / "o")], capsys)
    assert not (tmp_path / "o").exists()


def test_glicko2_api_refuses_an_rd_of_1e300() -> None:
    with pytest.raises(ValueError, match="'rd'"):
        Glicko2().new_state(2, rd=[1e300, np.nan])
    with pytest.raises(ValueError, match="initial_rd"):
        Glicko2(initial_rd=1e300)


# --------------------------------------------------------------------------
# 5 and 6. TRF


def _trf(tmp_path: Path, name: str, edit: object, extra: str = "") -> Path:
    lines = TRF.read_text(encoding="utf-8").split("\n")
    i = next(k for k, line in enumerate(lines) if line.startswith("001"))
    lines[i] = edit(lines[i])  # type: ignore[operator]
    return _write(tmp_path / name, "\n".join(lines) + extra)


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        (lambda s: s[:48] + "²" + s[49:], "rating '²"),
        (lambda s: s[:4] + "   ³" + s[8:], "start number"),
        (lambda s: s[:69] + "2018/13/45" + s[79:], "birth date '2018/13/45'"),
        (lambda s: s + "    1 w 1" * 15_000, "rounds: a line holds at most"),
    ],
)
def test_bad_trf_numbers_name_the_line_and_are_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: object, needle: str
) -> None:
    path = _trf(tmp_path, "t.trf", edit)
    start = time.monotonic()
    err = _error(["rate", str(path)], capsys)
    assert f"{path}, line 14: " in err and needle in err, err
    assert main(["rate", str(path), "--skip-bad"]) == 0
    assert "skipped" in capsys.readouterr().err
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("char", ["\f", "\x85", "\u2028", "\x1c", "\v"])
def test_odd_characters_in_a_name_keep_the_line_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], char: str
) -> None:
    """Only LF, CR LF and CR end a TRF line: a later bad line keeps its number."""
    good = TRF.read_text(encoding="utf-8").split("\n")
    n = len(good) + 1
    path = _trf(tmp_path, "t.trf", lambda s: s[:20] + char + s[21:], "\nxyz bad\n")
    assert f"line {n}:" in _error(["rate", str(path)], capsys)


def test_the_second_of_two_runs_into_one_folder_fails_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another live run holds --out: exit 2 before the first game, its lock kept."""
    monkeypatch.setattr(simulator.tasks.run, "run_sweep", _no_run)
    config = _write(tmp_path / "tiny.toml", TINY)
    other = subprocess.Popen(["sleep", "30"])
    try:
        lock = _write(tmp_path / ".out.lock", f"{other.pid}\n")
        argv = ["run", str(config), "--out", str(tmp_path / "out")]
        assert "another process" in _error(argv, capsys)
        assert lock.read_text(encoding="utf-8") == f"{other.pid}\n"
    finally:
        other.kill()
        other.wait()
