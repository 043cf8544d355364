"""Tests of the one atomic-write path (simulator/_atomic.py).

A target is written whole or not at all: a failure inside the block, an
injected OSError (a full disk) while the data is made durable, SIGTERM and
SIGHUP all leave the old target byte-identical and no temporary beside it.
"""

from __future__ import annotations

import errno
import os
import signal
import subprocess
from pathlib import Path

import pytest

from simulator import _atomic
from simulator._atomic import (
    Interrupted,
    OutputError,
    atomic_file,
    atomic_folder,
    check_output,
    claim,
)

OLD = b"player,games\nold,1\n"


def _names(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.fixture
def target(tmp_path: Path) -> Path:
    path = tmp_path / "ratings.csv"
    path.write_bytes(OLD)
    return path


def test_a_new_file_appears_whole(tmp_path: Path) -> None:
    """The text written is the file, and nothing else is left in the folder."""
    out = tmp_path / "sub" / "new.csv"
    with atomic_file(out) as handle:
        handle.write("a,b\n1,2\n")
        assert not out.exists()  # nothing at the target before the end
    assert out.read_text(encoding="utf-8") == "a,b\n1,2\n"
    assert _names(out.parent) == ["new.csv"]


def test_an_existing_file_needs_force(target: Path) -> None:
    """Without force an existing file is an error and stays; with force, replaced."""
    with pytest.raises(OutputError, match="pass --force"):
        check_output(target)
    with pytest.raises(OutputError, match="appeared while"), atomic_file(target) as h:
        h.write("new\n")
    assert target.read_bytes() == OLD
    with atomic_file(target, force=True) as handle:
        handle.write("new\n")
    assert target.read_bytes() == b"new\n"
    assert _names(target.parent) == ["ratings.csv"]


def test_an_input_is_never_an_output(target: Path, tmp_path: Path) -> None:
    """The target may not be an input, also through a link, also with force."""
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    for path in (target, link, tmp_path / "." / "ratings.csv"):
        with pytest.raises(OutputError, match="is an input"):
            check_output(path, force=True, inputs=[target])


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("file/x.csv", "is a file, not a folder"),
        ("a" * 300 + ".csv", "longer than|too long"),
        ("", "does not name"),
    ],
)
def test_a_location_that_cannot_be_written_is_refused(
    tmp_path: Path, where: str, message: str
) -> None:
    """A file in the way, a name too long, no name: OutputError, nothing made."""
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match=message):
        check_output(tmp_path / where if where else Path(""))
    assert _names(tmp_path) == ["file"]


def test_a_full_file_system_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Less than MIN_FREE_BYTES free: refused before anything runs."""

    class Full:
        f_bavail = 1
        f_frsize = 4096

    monkeypatch.setattr(os, "statvfs", lambda _: Full())
    with pytest.raises(OutputError, match="is full"):
        check_output(tmp_path / "out.csv")


def test_a_failure_inside_leaves_the_old_file(target: Path) -> None:
    """An exception while writing: the old file byte-identical, no temporary."""
    with pytest.raises(RuntimeError), atomic_file(target, force=True) as handle:
        handle.write("half")
        raise RuntimeError("boom")
    assert target.read_bytes() == OLD
    assert _names(target.parent) == ["ratings.csv"]


def test_a_full_disk_leaves_the_old_file(
    target: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An injected ENOSPC while the data is made durable: old file kept, no temp."""

    def no_space(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_atomic.os, "fsync", no_space)
    with (
        pytest.raises(OSError, match="No space"),
        atomic_file(target, force=True) as handle,
    ):
        handle.write("new\n" * 1000)
    assert target.read_bytes() == OLD
    assert _names(target.parent) == ["ratings.csv"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_writing_leaves_the_old_file(target: Path, signum: int) -> None:
    """SIGTERM or SIGHUP inside the block: Interrupted, old file kept, handlers back."""
    before = signal.getsignal(signum)
    with pytest.raises(Interrupted) as info, atomic_file(target, force=True) as handle:
        handle.write("half")
        os.kill(os.getpid(), signum)
        handle.write("never")  # pragma: no cover - the signal raised
    assert info.value.signum == signum
    assert target.read_bytes() == OLD
    assert _names(target.parent) == ["ratings.csv"]
    assert signal.getsignal(signum) == before


def test_a_folder_appears_whole_and_force_replaces_it(tmp_path: Path) -> None:
    """A folder: written whole; an existing one replaced with force only."""
    out = tmp_path / "results"
    with atomic_folder(out) as tmp:
        (tmp / "a.csv").write_text("1\n")
    assert _names(out) == ["a.csv"]
    with pytest.raises(OutputError, match="not empty"), atomic_folder(out) as tmp:
        pass  # pragma: no cover - refused before
    with atomic_folder(out, force=True) as tmp:
        (tmp / "b.csv").write_text("2\n")
    assert _names(out) == ["b.csv"]
    assert _names(tmp_path) == ["results"]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_writing_a_folder_leaves_nothing(
    tmp_path: Path, signum: int
) -> None:
    """A signal while the folder is written: the old folder as it was, no temporary."""
    out = tmp_path / "results"
    out.mkdir()
    (out / "old.csv").write_bytes(OLD)
    with (
        pytest.raises((Interrupted, KeyboardInterrupt)),
        atomic_folder(out, force=True) as tmp,
    ):
        (tmp / "part.csv").write_text("half")
        os.kill(os.getpid(), signum)
    assert _names(tmp_path) == ["results"]
    assert _names(out) == ["old.csv"] and (out / "old.csv").read_bytes() == OLD


def test_the_loser_of_two_writers_gets_an_error(tmp_path: Path) -> None:
    """A folder filled by another writer meanwhile is not replaced."""
    out = tmp_path / "results"
    with pytest.raises(OutputError, match="appeared while"), atomic_folder(out) as tmp:
        (tmp / "mine.csv").write_text("1\n")
        out.mkdir()
        (out / "theirs.csv").write_text("2\n")
    assert _names(out) == ["theirs.csv"]
    assert _names(tmp_path) == ["results"]


def test_a_claimed_target_refuses_a_second_writer(tmp_path: Path) -> None:
    """A live holder's lock refuses another; a dead holder's lock is taken over."""
    out = tmp_path / "results"
    lock = tmp_path / ".results.lock"
    other = subprocess.Popen(["sleep", "30"])
    try:
        lock.write_text(f"{other.pid}\n")
        with pytest.raises(OutputError, match=f"pid {other.pid}"), claim(out):
            pass  # pragma: no cover - refused
        assert lock.read_text() == f"{other.pid}\n"
    finally:
        other.kill()
        other.wait()
    with claim(out):  # the holder is gone: taken over
        assert lock.read_text() == f"{os.getpid()}\n"
    assert _names(tmp_path) == []


def test_a_claim_leaves_no_folder_it_made(tmp_path: Path) -> None:
    """The folders made for the lock go when the claim ends with nothing in them."""
    with claim(tmp_path / "a" / "b" / "results"):
        assert (tmp_path / "a" / "b").is_dir()
    assert _names(tmp_path) == []
