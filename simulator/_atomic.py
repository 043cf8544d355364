"""Every file and folder the project writes, written whole or not at all.

One path for every writer (a run's results folder, ``replay --ratings-out``):

- :func:`check_output` is the fail-fast check, made before any game is
  simulated or read: the location is not an input of the command, it is free
  (absent, or an empty folder) unless ``force``, its name fits the file
  system, and its folder can be created and written (a trial file is made and
  removed; a nearly full file system is refused).
- :func:`atomic_file` and :func:`atomic_folder` write into a hidden temporary
  beside the target (the same file system, so the rename is atomic), fsync it,
  and rename it into place; on any failure the temporary is removed and the
  target is as it was. While they write, SIGTERM and SIGHUP raise
  :class:`Interrupted` (as SIGINT raises ``KeyboardInterrupt``), so that a
  ``kill`` or a closed terminal also removes the temporary; the previous
  handlers are restored at the end. The rename and the cleanup run with
  those signals blocked, so that a signal cannot cut them in half.

:func:`claim` holds a target for a command's whole run, so that the second
of two commands writing the same target fails at once, not after its run.

Without ``force`` an existing target is never replaced: a file is linked
into place (``link`` fails if the name exists, so the loser of two concurrent
writers gets an error, not the winner's file replaced), a folder renamed over
an empty folder only. With ``force`` the old target is replaced in one rename
(a file) or moved aside and removed after the new folder is in place.

Imports: nothing of ``simulator`` (a base module).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import shutil
import signal
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

__all__ = [
    "Interrupted",
    "OutputError",
    "atomic_file",
    "atomic_folder",
    "check_output",
    "claim",
]

#: Free space below which an output location is refused before the run: a
#: results folder with figures takes about a megabyte.
MIN_FREE_BYTES = 4 * 1024 * 1024
#: The signals that remove a temporary (SIGINT already raises KeyboardInterrupt).
_SIGNALS = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s
)


class OutputError(ValueError):
    """An output location that cannot or may not be written; nothing was run."""


class Interrupted(BaseException):
    """SIGTERM or SIGHUP arrived while a file or folder was being written.

    A :class:`BaseException`, as ``KeyboardInterrupt``, so that ``except
    Exception`` does not swallow it.

    Attributes
    ----------
    signum : int
        The signal.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(f"signal {signal.Signals(signum).name}")
        self.signum = signum


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` name one file (also through links)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def _name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (OSError, ValueError, AttributeError):  # pragma: no cover - not POSIX
        return 255


def check_output(
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    inputs: Iterable[str | os.PathLike[str]] = (),
    folder: bool = False,
    option: str = "the output",
) -> Path:
    """Check that ``path`` can be written, before anything is run or read.

    Parameters
    ----------
    path : str or path-like
        The file or folder to be written.
    force : bool
        Allow replacing an existing target (``--force``).
    inputs : iterable of path-like
        The command's input files: the target may be none of them, even with
        ``force``.
    folder : bool
        The target is a folder (an existing empty folder counts as free).
    option : str
        How the messages name the target (e.g. ``"--out"``).

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    OutputError
        Naming the target and what is wrong.
    """
    out = Path(path)
    where = f"{option} {str(out)!r}"
    try:
        return _check(out, where, force, tuple(inputs), folder)
    except OSError as exc:  # a name too long for the system, a loop of links
        raise OutputError(f"{where}: {exc.strerror or exc}") from None


def _check(
    out: Path,
    where: str,
    force: bool,
    inputs: tuple[str | os.PathLike[str], ...],
    folder: bool,
) -> Path:
    for source in inputs:
        if _same(out, Path(source)):
            raise OutputError(f"{where} is an input of this command; choose another")
    if not out.name or out.name in (".", ".."):
        raise OutputError(f"{where} does not name a file or folder")
    if out.is_symlink() or out.exists():
        is_folder = out.is_dir() and not out.is_symlink()
        free = False
        if folder and is_folder:
            with os.scandir(out) as entries:
                free = next(entries, None) is None
        if not free:
            if not force:
                what = "is a folder that is not empty" if is_folder else "exists"
                raise OutputError(f"{where} {what}; pass --force to replace it")
            if folder != is_folder:
                kind = "a folder" if is_folder else "a file"
                raise OutputError(f"{where} is {kind}; choose another name")
    parent = out.parent
    existing = parent
    while not existing.exists():
        if existing.is_symlink():
            raise OutputError(f"{where}: {str(existing)!r} is a broken link")
        existing = existing.parent
    if not existing.is_dir():
        raise OutputError(f"{where}: {str(existing)!r} is a file, not a folder")
    if len(os.fsencode(out.name)) > _name_max(existing):
        raise OutputError(
            f"{where}: the name is longer than the file system allows "
            f"({_name_max(existing)} bytes)"
        )
    try:
        probe = existing / f".ratingsim-probe-{os.getpid()}-{secrets.token_hex(4)}"
        probe.touch(exist_ok=False)
        probe.unlink()
    except OSError as exc:
        raise OutputError(
            f"{where}: cannot write in {str(existing)!r} ({exc.strerror})"
        ) from None
    try:
        stats = os.statvfs(existing)
        free_bytes = stats.f_bavail * stats.f_frsize
    except (OSError, AttributeError):  # pragma: no cover - not POSIX
        free_bytes = MIN_FREE_BYTES
    if free_bytes < MIN_FREE_BYTES:
        raise OutputError(
            f"{where}: the file system of {str(existing)!r} is full "
            f"({free_bytes:,} bytes free)"
        )
    return out


@contextlib.contextmanager
def _signals_raise() -> Iterator[None]:
    """SIGTERM and SIGHUP raise :class:`Interrupted` inside the block.

    Only in the main thread (where Python runs signal handlers); elsewhere
    the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise Interrupted(signum)

    previous = {s: signal.signal(s, handler) for s in _SIGNALS}
    try:
        yield
    finally:
        with _blocked():
            for s, old in previous.items():
                signal.signal(s, old)


@contextlib.contextmanager
def _blocked() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP held back (delivered at the end)."""
    held = {signal.SIGINT, *_SIGNALS}
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _temporary(out: Path) -> Path:
    # A prefix of the name only: the temporary's name must fit where the
    # target's does.
    return out.parent / f".{out.name[:64]}.tmp-{os.getpid()}-{secrets.token_hex(4)}"


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - a folder that cannot be opened
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - file systems without folder fsync
        pass
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink()


def _lost(out: Path, exc: OSError) -> OutputError:
    return OutputError(
        f"{str(out)!r} appeared while this command ran (another writer?); "
        f"nothing was replaced ({exc.strerror})"
    )


@contextlib.contextmanager
def atomic_file(
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    binary: bool = False,
    encoding: str = "utf-8",
    newline: str | None = None,
) -> Iterator[IO[Any]]:
    """Open a temporary beside ``path``; on success it becomes ``path``.

    Parameters
    ----------
    path : str or path-like
        The file to write (checked with :func:`check_output` beforehand).
    force : bool
        Replace an existing ``path``; without it an existing ``path`` (also
        one made meanwhile by another writer) is an :class:`OutputError`.
    binary, encoding, newline
        How the temporary is opened (text in UTF-8 by default).

    Yields
    ------
    file object
        The open temporary.
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temporary(out)
    try:
        with _signals_raise():
            mode = "xb" if binary else "x"
            with (
                open(tmp, mode)
                if binary
                else open(tmp, mode, encoding=encoding, newline=newline)
            ) as handle:
                yield handle
                handle.flush()
                os.fsync(handle.fileno())
            with _blocked():
                _commit_file(tmp, out, force)
    except BaseException:
        with _blocked():
            _remove(tmp)
        raise
    _fsync_folder(out.parent)


def _commit_file(tmp: Path, out: Path, force: bool) -> None:
    if force:
        os.replace(tmp, out)
        return
    try:
        os.link(tmp, out)
    except FileExistsError as exc:
        raise _lost(out, exc) from None
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
            raise
        # No hard links here (some network and FAT file systems): check and
        # rename, with a small window for a concurrent writer.
        if out.exists() or out.is_symlink():
            raise _lost(out, exc) from None
        os.replace(tmp, out)
        return
    tmp.unlink()


@contextlib.contextmanager
def atomic_folder(
    path: str | os.PathLike[str], *, force: bool = False
) -> Iterator[Path]:
    """A temporary folder beside ``path``, renamed to ``path`` on success.

    Parameters
    ----------
    path : str or path-like
        The folder to write: absent or empty, or anything with ``force``.
    force : bool
        Replace an existing ``path`` (moved aside, removed after the rename).

    Yields
    ------
    pathlib.Path
        The temporary folder, to be filled.
    """
    out = Path(path)
    check_output(out, force=force, folder=True, option="the results folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = _temporary(out)
    old: Path | None = None
    try:
        with _signals_raise():
            tmp.mkdir()
            yield tmp
            for root, _, files in os.walk(tmp):
                for name in files:
                    fd = os.open(os.path.join(root, name), os.O_RDONLY)
                    try:
                        os.fsync(fd)
                    finally:
                        os.close(fd)
            with _blocked():
                old = _commit_folder(tmp, out, force)
    except BaseException:
        with _blocked():
            _remove(tmp)
        raise
    _fsync_folder(out.parent)
    if old is not None:
        _remove(old)


def _commit_folder(tmp: Path, out: Path, force: bool) -> Path | None:
    """Rename ``tmp`` to ``out``; the old ``out`` moved aside with ``force``."""
    old = None
    if force and (out.is_symlink() or out.exists()):
        old = out.parent / f".{out.name[:64]}.old-{os.getpid()}-{secrets.token_hex(4)}"
        os.rename(out, old)
    try:
        os.rename(tmp, out)  # over an empty folder only
    except OSError as exc:
        if old is not None:
            os.rename(old, out)
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR, errno.EISDIR):
            raise _lost(out, exc) from None
        raise
    return old


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another user's process
        return True
    return True


@contextlib.contextmanager
def claim(path: str | os.PathLike[str]) -> Iterator[None]:
    """Hold ``path`` for this process while it runs (a lock file beside it).

    Two commands with the same output would both pass :func:`check_output`
    and the second would find the first's output only at the end, after its
    whole run. The lock ``.NAME.lock`` (made with ``O_EXCL``, holding the
    process id) makes the second fail at once; a lock whose process is gone
    is taken over.

    Raises
    ------
    OutputError
        Another live process holds ``path``.
    """
    out = Path(path)
    made = [p for p in (out.parent, *out.parent.parents) if not p.exists()]
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = out.parent / f".{out.name[:64]}.lock"
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                holder = int(lock.read_text(encoding="ascii").strip() or "0")
            except (OSError, ValueError):
                holder = 0
            if holder and holder != os.getpid() and _alive(holder):
                raise OutputError(
                    f"{str(out)!r} is being written by another process "
                    f"(pid {holder}); wait for it or choose another"
                ) from None
            with contextlib.suppress(OSError):
                lock.unlink()  # left by a process that is gone
            continue
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(f"{os.getpid()}\n")
        break
    else:  # pragma: no cover - a third process took the stale lock meanwhile
        raise OutputError(f"{str(out)!r} is being written by another process")
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            lock.unlink()
        for folder in made:  # the folders made for the lock, if still empty
            with contextlib.suppress(OSError):
                folder.rmdir()
