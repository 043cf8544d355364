"""A fuzz suite: generated CLI arguments, configs and game/TRF files.

Whatever the input, ``ratingsim`` exits 0 or 2, prints no traceback, writes
its output whole or not at all (no file on exit 2, no temporary ever), and
finishes in bounded time and memory. Any other exception (a bug) fails the test with
hypothesis's smallest example.

The number of examples is a profile: ``RATINGSIM_FUZZ`` unset (CI) runs a
short one (:data:`SHORT` per test, a few seconds), ``RATINGSIM_FUZZ=long``
:data:`LONG` per test (over 10,000 cases in all), and a number runs that many
per test.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import resource
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import simulator
import simulator.tasks.run
from simulator.cli import main
from simulator.config import ConfigError, load_config, parse_config

SHORT = 30
LONG = 2_100


def _examples() -> int:
    value = os.environ.get("RATINGSIM_FUZZ", "").strip()
    if value == "":
        return SHORT
    if value == "long":
        return LONG
    return int(value)


FUZZ = settings(
    max_examples=_examples(),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("RATINGSIM_FUZZ", "") == "",  # CI: the same cases
)
ROOT = Path(simulator.__file__).resolve().parent.parent
TRF = (ROOT / "tests" / "data" / "swiss-madrid-2018.trf").read_bytes()
#: Longest a case may take (a 1 MB generated file is read in well under this).
MAX_SECONDS = 30.0
#: Most memory the test process may reach (ru_maxrss, kilobytes on Linux).
MAX_RSS_KB = 3 * 1024 * 1024
#: Characters that broke readers before: superscripts, other digits, form
#: feed, NEL, the line and paragraph separators, NUL, BOM, CR.
ODD = "²³¹٣\f\x85\u2028\u2029\x00\ufeff\r\x1c\x0b\t\"',;[]/=½-"


class _Ran(Exception):
    """Raised instead of a simulation: the run was accepted."""


@contextlib.contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="ratingsim-fuzz-") as name:
        yield Path(name)


def _call(argv: list[str]) -> tuple[int, str]:
    """``main(argv)``: the exit code and standard error (0 or 2, no traceback)."""
    out, err = io.StringIO(), io.StringIO()
    start = time.monotonic()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    text = err.getvalue()
    assert time.monotonic() - start < MAX_SECONDS, argv
    # The process's peak: a case that blew the memory up shows here.
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < MAX_RSS_KB, argv
    assert code in (0, 2), (code, text)
    assert "Traceback" not in text, text
    if code == 2:
        last = text.splitlines()[-1]
        assert last.startswith("ratingsim") and len(last) < 2_000, text
    return code, text


# --------------------------------------------------------------------------
# files: valid, mutated, truncated, compressed and corrupt

names = st.text(alphabet=st.sampled_from("abcxyz ÄÖ-" + ODD), min_size=0, max_size=8)
scores = st.sampled_from(["1", "0", "0.5", "1/2", "½", "=", "2", "", "x", "1-0"])
dates = st.one_of(
    st.dates().map(lambda d: d.isoformat()),
    st.sampled_from(["2020-13-45", "", "2020.01.02", "9999-12-31", "0001-01-01"]),
)


@st.composite
def csv_files(draw: st.DrawFn) -> bytes:
    rows = draw(
        st.lists(st.tuples(names, names, scores, dates), min_size=0, max_size=30)
    )
    rows.sort(key=lambda r: r[3])
    header = draw(
        st.sampled_from(
            ["white,black,score,date", "white,black,score,date,white_elo,black_elo"]
        )
    )
    lines = [header] + [",".join(r) for r in rows]
    return ("\n".join(lines) + "\n").encode()


@st.composite
def pgn_files(draw: st.DrawFn) -> bytes:
    games = draw(
        st.lists(st.tuples(names, names, scores, dates), min_size=0, max_size=20)
    )
    results = {"1": "1-0", "0": "0-1", "0.5": "1/2-1/2"}
    text = ""
    for white, black, score, day in sorted(games, key=lambda g: g[3]):
        result = results.get(score, score)
        text += (
            f'[White "{white}"]\n[Black "{black}"]\n[Result "{result}"]\n'
            f'[Date "{day.replace("-", ".")}"]\n[WhiteElo "{draw(names)}"]\n'
            f"\n1. e4 e5 {result}\n\n"
        )
    return text.encode()


@st.composite
def mutated(draw: st.DrawFn, base: bytes) -> bytes:
    """``base`` with line ends changed, bytes changed, inserted, cut."""
    data = base
    ending = draw(st.sampled_from([b"\n", b"\r\n", b"\r"]))
    data = data.replace(b"\n", ending)
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "odd", "long"]))
        at = draw(st.integers(0, max(len(data) - 1, 0)))
        if kind == "flip" and data:
            data = (
                data[:at]
                + bytes([data[at] ^ draw(st.integers(1, 255))])
                + data[at + 1 :]
            )
        elif kind == "insert":
            data = data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
        elif kind == "delete":
            data = data[:at] + data[at + draw(st.integers(1, 40)) :]
        elif kind == "odd":
            data = data[:at] + draw(st.sampled_from(ODD)).encode() + data[at:]
        else:  # a long run without a line end
            size = draw(st.sampled_from([200, 140_000, 1_100_000]))
            data = data[:at] + b"y" * size + data[at:]
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    return data


@st.composite
def compressed(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` gzip-compressed, then maybe truncated or corrupted."""
    packed = gzip.compress(data)
    kind = draw(st.sampled_from(["whole", "cut", "flip"]))
    if kind == "cut":
        packed = packed[: draw(st.integers(0, len(packed)))]
    elif kind == "flip":
        at = draw(st.integers(0, len(packed) - 1))
        packed = packed[:at] + bytes([packed[at] ^ 0x5A]) + packed[at + 1 :]
    return packed


@st.composite
def game_files(draw: st.DrawFn) -> tuple[str, bytes]:
    kind = draw(st.sampled_from(["csv", "pgn"]))
    base = draw(csv_files() if kind == "csv" else pgn_files())
    data = draw(mutated(base)) if draw(st.booleans()) else base
    if draw(st.booleans()):
        return f"games.{kind}.gz", draw(compressed(data))
    return f"games.{kind}", data


@FUZZ
@given(game_files(), st.booleans(), st.booleans())
def test_replay_any_file(file: tuple[str, bytes], skip: bool, sort: bool) -> None:
    """replay: 0 with a complete --ratings-out, or 2 with none; no temporary."""
    name, data = file
    with _folder() as folder:
        path = folder / name
        path.write_bytes(data)
        out = folder / "ratings.csv"
        argv = ["replay", str(path), "--quiet", "--ratings-out", str(out)]
        argv += ["--skip-bad"] * skip + ["--sort"] * sort
        code, _ = _call(argv)
        if code == 0:
            assert out.read_text(encoding="utf-8").startswith("player,games,")
        else:
            assert not out.exists()
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            {name, *(["ratings.csv"] if code == 0 else [])}
        )
        assert path.read_bytes() == data  # the input untouched


@st.composite
def trf_files(draw: st.DrawFn) -> bytes:
    lines = TRF.split(b"\n")
    for _ in range(draw(st.integers(0, 4))):
        i = draw(st.integers(0, len(lines) - 1))
        line = lines[i].decode("utf-8", "replace")
        kind = draw(st.sampled_from(["odd", "cut", "drop", "copy", "long", "digits"]))
        at = draw(st.integers(0, len(line)))
        if kind == "odd":
            line = line[:at] + draw(st.sampled_from(ODD)) + line[at + 1 :]
        elif kind == "cut":
            line = line[:at]
        elif kind == "drop":
            line = ""
        elif kind == "copy":
            line = lines[draw(st.integers(0, len(lines) - 1))].decode(
                "utf-8", "replace"
            )
        elif kind == "long":
            line = line + "    1 w 1" * draw(st.sampled_from([10, 2_000]))
        else:
            line = (
                line[:at]
                + draw(st.sampled_from(["9999", "0000", "-1", "1e9"]))
                + line[at + 4 :]
            )
        lines[i] = line.encode(draw(st.sampled_from(["utf-8", "latin-1"])), "replace")
    data = b"\n".join(lines)
    return data.replace(b"\n", draw(st.sampled_from([b"\n", b"\r\n", b"\r"])))


@FUZZ
@given(trf_files(), st.booleans(), st.sampled_from(["table", "csv", "json"]))
def test_rate_any_trf(data: bytes, skip: bool, form: str) -> None:
    """rate: 0 or a one-line 2, whatever the TRF."""
    with _folder() as folder:
        path = folder / "t.trf"
        path.write_bytes(data)
        argv = ["rate", str(path), "--format", form] + ["--skip-bad"] * skip
        _call(argv)
        _call([*argv[:4], "--compare"] if not skip else [*argv, "--detail"])


# --------------------------------------------------------------------------
# configs

numbers = st.one_of(
    st.integers(-(10**20), 10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 1, -1, 1e-300, 1e300, 0.5, 2**63, 100_001]),
)
leaves = st.one_of(numbers, st.booleans(), st.text(max_size=6), st.just("none"))
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=3),
    ),
    max_leaves=8,
)
KEYS = {
    "": ["title", "seed", "replicates", "years", "start_date", "checkpoint_days",
         "cohort_ages"],
    "population": ["n_players", "arrival_rate", "strength_weights", "strength_means",
                   "strength_sds", "departure_rate", "probe_levels", "age_edges",
                   "max_games_per_year", "activity_sd"],
    "metrics": ["curve_bin_width", "curve_max_games", "calibration_bins",
                "thresholds", "steady_fraction", "curve_max_error"],
}  # fmt: skip
SYSTEM_KEYS = ["tau", "epsilon", "initial_rd", "initial_rating", "k_factor", "period"]


@st.composite
def configs(draw: st.DrawFn) -> dict[str, object]:
    data: dict[str, object] = {}
    for table, keys in KEYS.items():
        chosen = draw(st.lists(st.sampled_from(keys), max_size=3, unique=True))
        target: dict[str, object] = data if table == "" else {}
        for key in chosen:
            target[key] = draw(values)
        if table and target:
            data[table] = target
    if draw(st.booleans()):
        system: dict[str, object] = {
            "system": draw(st.sampled_from(["glicko2", "lichess", "elo", "fide", "x"]))
        }
        for key in draw(st.lists(st.sampled_from(SYSTEM_KEYS), max_size=2)):
            system[key] = draw(values)
        data["arena"] = [{"name": "a", "systems": [system]}]
    if draw(st.booleans()):
        key = draw(
            st.sampled_from(
                ["population.n_players", "arena.0.name", "arena.²", "years", "x.y"]
            )
        )
        data["variant"] = [{"name": "v", "set": {key: draw(values)}}]
    return data


@FUZZ
@given(configs())
def test_any_config_is_valid_or_one_config_error(data: dict[str, object]) -> None:
    """parse_config: a RunConfig or a one-line ConfigError, nothing else."""
    try:
        text = tomli_w.dumps(data)
    except (TypeError, ValueError):  # pragma: no cover - not representable in TOML
        return
    try:
        parse_config(text)
    except ConfigError as exc:
        assert "\n" not in str(exc).strip() or "TOML" in str(exc)


@FUZZ
@given(st.binary(max_size=200), st.booleans())
def test_any_config_file_bytes(data: bytes, prefix: bool) -> None:
    """load_config on arbitrary bytes: a RunConfig or a ConfigError."""
    with _folder() as folder:
        path = folder / "c.toml"
        path.write_bytes((b"years = 1\n" if prefix else b"") + data)
        with contextlib.suppress(ConfigError):
            load_config(path)


# --------------------------------------------------------------------------
# CLI argument lists

tokens = st.one_of(
    st.sampled_from(
        ["1500", "0", "-1", "1e20", "1e300", "nan", "inf", "-inf", "", "x", "20",
         "1400:1", "1500/1e300:1", "1400/30:=", "1:0.5:w", "none", "2024-01-01",
         "10=5", "fide,elo", "--help-not", "--", "-1e6:1", "0x10", "½", "²"]
    ),
    st.text(max_size=6),
)  # fmt: skip
CALC_OPTIONS = [
    "--rating", "--k", "--game", "--rd", "--volatility", "--tau", "--games-played",
    "--birth-year", "--date", "--cap", "--c", "--idle-days", "--speed", "--colour",
    "--unrated", "--json", "--ever-2400", "--expectation", "--initial", "--rules",
]  # fmt: skip
SYSTEM_NAMES = [
    "fide",
    "fide-2024",
    "classic",
    "glicko2",
    "lichess",
    "glicko",
    "elo",
    "x",
]
RUN_OPTIONS = ["--seed", "--replicates", "--jobs", "--out", "--force", "--no-figures"]
REPLAY_OPTIONS = [
    "--systems", "--format", "--top", "--seed-ratings", "--start-rating",
    "--games-played-default", "--bins", "--sort", "--skip-bad", "--force",
]  # fmt: skip


@st.composite
def arguments(draw: st.DrawFn) -> list[str]:
    command = draw(st.sampled_from(["calc", "run", "replay", "rate", "systems", "x"]))
    argv = [command]
    if command == "calc":
        argv.append(draw(st.sampled_from(SYSTEM_NAMES)))
        options = CALC_OPTIONS
    elif command == "run":
        options = RUN_OPTIONS
    elif command in ("replay", "rate"):
        argv.append("{games}" if command == "replay" else "{trf}")
        options = REPLAY_OPTIONS
    else:
        options = ["--json"]
    for _ in range(draw(st.integers(0, 8))):
        argv.append(draw(st.sampled_from(options)))
        if draw(st.booleans()):
            argv.append(draw(tokens))
    return argv


@FUZZ
@given(arguments())
def test_any_argument_list(argv: list[str]) -> None:
    """Any argument list: 0 or a one-line 2; a run is accepted or refused."""
    with _folder() as folder:
        games = folder / "g.csv"
        games.write_text(
            "white,black,score,date\na,b,1,2020-01-01\nb,a,0,2020-01-02\n",
            encoding="utf-8",
        )
        trf = folder / "t.trf"
        trf.write_bytes(TRF)
        argv = [
            a.replace("{games}", str(games)).replace("{trf}", str(trf)) for a in argv
        ]
        # --out and --ratings-out land in the temporary folder.
        argv = [str(folder / a) if a.startswith("out") else a for a in argv]

        def accepted(*args: object, **kwargs: object) -> None:
            raise _Ran

        cwd = os.getcwd()
        os.chdir(folder)
        try:
            # _Ran: the run was accepted (the simulation is not fuzzed here).
            with (
                mock.patch.object(simulator.tasks.run, "run_sweep", accepted),
                contextlib.suppress(_Ran),
            ):
                _call(argv)
        finally:
            os.chdir(cwd)
        assert games.exists() and trf.read_bytes() == TRF
        left = {p.name for p in folder.iterdir()} - {"g.csv", "t.trf"}
        assert not any(n.startswith(".") for n in left), left


@pytest.mark.parametrize("command", ["calc", "run", "replay", "rate", "systems"])
def test_help_of_every_command(command: str) -> None:
    """--help exits 0 for every command."""
    assert _call([command, "--help"])[0] == 0
