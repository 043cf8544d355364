"""Opening a game-record input: a file, plain or compressed, or standard input.

A record file is read as a binary stream and decompressed on the fly, a
chunk at a time, so that a monthly Lichess dump (``.pgn.zst``, tens of
gigabytes decompressed) is never held in memory or written to disk:

=============  ======================================  ==========================
name ends in   compression                             magic bytes (sniffed)
=============  ======================================  ==========================
``.gz``        gzip (:mod:`gzip`)                      ``1f 8b``
``.bz2``       bzip2 (:mod:`bz2`)                      ``BZh``
``.zst``       Zstandard (the ``zstandard`` package)   ``28 b5 2f fd``
otherwise      none
=============  ======================================  ==========================

before which the name ends in ``.csv`` or ``.pgn``, the record format.
Standard input (``-``) has no name: its compression is sniffed from its first
bytes (the magic numbers above, RFC 1952 section 2.3.1 for gzip, RFC 8878
section 3.1.1 for Zstandard) and its format is given (``input_format``) or
sniffed from its first byte that is not white space: ``[`` begins a PGN tag
pair (PGN standard, section 8.1), anything else is read as CSV.

A compressed stream that is cut short or damaged raises
:class:`CompressedDataError` (``what`` is ``"truncated"`` or ``"corrupt"``)
from ``read``, whatever the compression: the readers turn it into one
line naming the file (:mod:`simulator.data.records`). Zstandard's own
streaming reader returns a cut stream's data without complaint, so frames
are followed here with one decompression object each, and a frame still
open at the end of the input is reported as truncated. Damage inside a
Zstandard frame is found for certain only where the frame carries its
checksum (the ``zstd`` command writes one by default, RFC 8878 section
3.1.1); without it, a damaged frame may decompress to wrong text, which the
readers then report as a bad record if it is not well formed.
"""

from __future__ import annotations

import bz2
import gzip
import sys
import zlib
from pathlib import Path
from typing import IO, Protocol, cast

__all__ = [
    "COMPRESSIONS",
    "FORMATS",
    "CompressedDataError",
    "Readable",
    "input_kind",
    "open_input",
    "sniff_format",
]

#: The record formats, by the extension before any compression's.
FORMATS = (".csv", ".pgn")
#: The compressions, by extension.
COMPRESSIONS = {".gz": "gzip", ".bz2": "bzip2", ".zst": "zstd"}
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bzip2", b"\x28\xb5\x2f\xfd": "zstd"}
#: Compressed bytes read at a time (a Zstandard chunk may expand a hundredfold).
_COMPRESSED_CHUNK = 64 * 1024


class Readable(Protocol):
    """A binary stream: ``read(size)``, at most ``size`` bytes, b"" at the end."""

    def read(self, size: int = ..., /) -> bytes:
        """At most ``size`` bytes (all with -1); b"" at the end."""


class CompressedDataError(Exception):
    """A compressed input that ends early (``truncated``) or is damaged (``corrupt``).

    Attributes
    ----------
    what : str
        ``"truncated"`` or ``"corrupt"``.
    detail : str
        The decompressor's message.
    """

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(f"the compressed data is {what} ({detail[:80]})")
        self.what = what
        self.detail = detail


def input_kind(path: str, input_format: str | None = None) -> tuple[str | None, str]:
    """The record format and the compression of ``path`` by its name.

    Parameters
    ----------
    path : str
        A file name, or ``"-"`` for standard input.
    input_format : {"csv", "pgn"}, optional
        The format, whatever the name says; for standard input, None means
        sniffed when read (:func:`sniff_format`).

    Returns
    -------
    (str or None, str)
        ``".csv"``, ``".pgn"`` or None (standard input, to be sniffed); and
        ``"gzip"``, ``"bzip2"``, ``"zstd"``, ``"none"`` or ``"sniff"``.

    Raises
    ------
    ValueError
        A name that does not end in a format's extension (and no
        ``input_format``), or an unknown ``input_format``.

    >>> input_kind("lichess_db_standard_rated_2024-01.pgn.zst")
    ('.pgn', 'zstd')
    >>> input_kind("-")
    (None, 'sniff')
    """
    given = None
    if input_format is not None:
        given = "." + input_format.lower().lstrip(".")
        if given not in FORMATS:
            raise ValueError(f"input format must be csv or pgn. Got {input_format!r}.")
    if path == "-":
        return given, "sniff"
    suffixes = [s.lower() for s in Path(path).suffixes]
    compression = "none"
    if suffixes and suffixes[-1] in COMPRESSIONS:
        compression = COMPRESSIONS[suffixes.pop()]
    kind = suffixes[-1] if suffixes else ""
    if given is not None:
        return given, compression
    if kind not in FORMATS:
        raise ValueError(
            "unknown file type: the name must end in .csv or .pgn (optionally "
            ".gz, .bz2 or .zst), or give the format"
        )
    return kind, compression


class _Prefixed:
    """A stream with some bytes already read put back in front."""

    def __init__(self, head: bytes, rest: Readable) -> None:
        self.head = head
        self.rest = rest

    def read(self, size: int = -1, /) -> bytes:
        if self.head:
            if size < 0 or size >= len(self.head):
                out, self.head = self.head, b""
                return out
            out, self.head = self.head[:size], self.head[size:]
            return out
        return self.rest.read(size)


class _Checked:
    """A decompressing stream whose errors are :class:`CompressedDataError`."""

    def __init__(self, raw: Readable) -> None:
        self.raw = raw

    def read(self, size: int = -1, /) -> bytes:
        try:
            return self.raw.read(size)
        except EOFError as exc:
            raise CompressedDataError("truncated", str(exc)) from None
        except (zlib.error, gzip.BadGzipFile) as exc:
            raise CompressedDataError("corrupt", str(exc)) from None
        except OSError as exc:
            # bz2 reports damaged data as an OSError without an errno; a real
            # read error (a disk, a pipe) has one and stays what it is.
            if exc.errno is None:
                raise CompressedDataError("corrupt", str(exc)) from None
            raise


class _Zstd:
    """A Zstandard stream of one or more frames, decompressed a chunk at a time."""

    def __init__(self, raw: Readable) -> None:
        import zstandard

        self.raw = raw
        self.error = zstandard.ZstdError
        self.make = zstandard.ZstdDecompressor().decompressobj
        self.frame = self.make()
        self.in_frame = False  # the current frame has had input
        self.out = b""

    def read(self, size: int = -1, /) -> bytes:
        while not self.out:
            data = self.raw.read(_COMPRESSED_CHUNK)
            if not data:
                if self.in_frame:
                    raise CompressedDataError(
                        "truncated", "the input ended inside a Zstandard frame"
                    )
                return b""
            parts = []
            while data:
                try:
                    parts.append(self.frame.decompress(data))
                except self.error as exc:
                    raise CompressedDataError("corrupt", str(exc)) from None
                self.in_frame = not self.frame.eof
                if self.frame.eof:
                    data = self.frame.unused_data
                    self.frame = self.make()
                else:
                    data = b""
            self.out = b"".join(parts)
        if size < 0 or size >= len(self.out):
            out, self.out = self.out, b""
            return out
        out, self.out = self.out[:size], self.out[size:]
        return out


def _decompressed(raw: Readable, compression: str) -> Readable:
    if compression == "gzip":
        return _Checked(gzip.GzipFile(fileobj=cast(IO[bytes], raw), mode="rb"))
    if compression == "bzip2":
        return _Checked(bz2.BZ2File(cast(IO[bytes], raw), mode="rb"))
    if compression == "zstd":
        return _Zstd(raw)
    return raw


def open_input(
    path: str, compression: str, stdin: IO[bytes] | None = None
) -> tuple[Readable, IO[bytes] | None]:
    """A binary stream of the decompressed contents of ``path`` (``-``: stdin).

    Parameters
    ----------
    path : str
        A file name or ``"-"``.
    compression : str
        As :func:`input_kind` gives it (``"sniff"``: from the magic bytes).
    stdin : binary stream, optional
        Standard input (default ``sys.stdin.buffer``).

    Returns
    -------
    (Readable, file or None)
        The decompressed stream, and the file opened (to close), if any.
    """
    if path == "-":
        raw: Readable = stdin if stdin is not None else sys.stdin.buffer
        opened = None
    else:
        opened = open(path, "rb")  # noqa: SIM115 - closed by the caller
        raw = opened
    if compression == "sniff":
        head = b""
        while len(head) < 4:
            more = raw.read(4 - len(head))
            if not more:
                break
            head += more
        compression = next(
            (name for magic, name in _MAGIC.items() if head.startswith(magic)), "none"
        )
        raw = _Prefixed(head, raw)
    return _decompressed(raw, compression), opened


def sniff_format(stream: Readable) -> tuple[str, Readable]:
    """The record format of a decompressed stream, and the stream to read.

    ``".pgn"`` if the first byte that is not ASCII white space (after a
    UTF-8 byte-order mark) is ``[``, else ``".csv"``. The bytes read to tell
    are put back.
    """
    head = b""
    while True:
        more = stream.read(4096)
        head += more
        body = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
        stripped = body.lstrip()
        if stripped or not more or len(head) > 1024 * 1024:
            break
    kind = ".pgn" if stripped[:1] == b"[" else ".csv"
    return kind, _Prefixed(head, stream)
