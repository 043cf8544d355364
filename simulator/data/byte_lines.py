"""The lines of a binary stream, and whole plain PGN games read at the byte level.

:class:`ByteLines` is the line source of the readers (:mod:`~simulator.data.
records`): it reads the decompressed stream a megabyte at a time into one
buffer and hands out its lines, decoded, one at a time (``readline``), exactly
as :func:`~simulator.data.records._text_lines` does (the line ends LF, CR LF
and CR; the BOM of the first line dropped; a line that is not UTF-8 or
longer than :data:`~simulator.data.records.MAX_LINE_BYTES` a bad record at
its number).

It also reads whole games of the commonest PGN shape straight from the buffer
(:meth:`ByteLines.plain_games`), without splitting them into lines: a
monthly Lichess dump is about 90 million games of about 20 lines each, and a
line at a time in Python is several times slower than a regular expression
over the bytes. The shape is a strict subset of what the line scanner of
:mod:`~simulator.data.pgn_records` (``_scan_game``) reads as python-chess
does::

    (LF-only blank lines)
    [Tag "value"]LF     one or more, each taken by the scanner's _FAST_TAG
    LF                  one blank line
    movetext LF         one line: first byte a digit or '*', no ';' or CR,
                        every '{' closed on the line
    LF                  one blank line

with every byte valid UTF-8, no tag repeated, and the whole game shorter
than the line limit. Anything else is left where it is, for the line reader:
the reader (:func:`~simulator.data.pgn_records.pgn_batches`) reads that game
line by line and comes back here for the next, so the results are those of
the line reader on every file (tests/data/test_pgn_scanner.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from simulator.data.compressed import CompressedDataError, Readable
from simulator.data.records import (
    MAX_LINE_BYTES,
    BadRecord,
    BadRecords,
    FormatError,
    not_utf8,
    raise_or_skip,
)

__all__ = ["ByteLines"]

#: Bytes read at a time.
_CHUNK = 1024 * 1024
#: The buffer is refilled when fewer bytes than this are left unread: a
#: plain game is far shorter (a long Lichess game with clocks is ~10 kB).
_LOW = 256 * 1024
#: Most tags of a plain game (the line scanner holds 256 lines).
_MAX_TAGS = 200

#: The first byte of a plain game's movetext: a move number or a result.
_MOVE_START = frozenset(b"0123456789*")
#: A tag line of a plain game: the line scanner's _FAST_TAG (pgn_records),
#: LF-ended.
_TAG = re.compile(
    r'^\[([A-Za-z0-9][A-Za-z0-9_+#=:-]*) "([^"\\\r\n\x00]*)"\]\n', re.MULTILINE
)
_LINE_END = re.compile(rb"[\r\n]")


class ByteLines:
    """Lines of a binary stream, decoded; and plain PGN games in bulk.

    Parameters
    ----------
    raw : Readable
        The (decompressed) stream.
    path : str
        The file's name, for errors.
    skip_bad : bool
        Skip (count in ``bad``) a line that is not UTF-8 or is too long,
        instead of raising :class:`~simulator.data.records.FormatError`.
    bad : BadRecords
        Where skipped lines are counted.

    Attributes
    ----------
    number : int
        Lines handed out so far (by either method).
    """

    def __init__(
        self, raw: Readable, path: str, skip_bad: bool, bad: BadRecords
    ) -> None:
        self.raw = raw
        self.path = path
        self.skip_bad = skip_bad
        self.bad = bad
        self.buf = b""
        self.pos = 0
        self.eof = False
        self.has_cr = False
        self.number = 0

    def _fill(self) -> bool:
        """Read a chunk into the buffer; False at the end of the stream."""
        if self.eof:
            return False
        try:
            chunk = self.raw.read(_CHUNK)
        except CompressedDataError as exc:
            raise FormatError(BadRecord(self.path, self.number + 1, str(exc))) from None
        if not chunk:
            self.eof = True
            return False
        self.has_cr = self.has_cr or b"\r" in chunk
        self.buf = self.buf[self.pos :] + chunk
        self.pos = 0
        return True

    def _overlong(self) -> None:
        raise_or_skip(
            BadRecord(
                self.path,
                self.number + 1,
                f"a line longer than {MAX_LINE_BYTES:,} bytes (lines end in "
                "LF, CR LF or CR)",
            ),
            self.skip_bad,
            self.bad.add,
        )

    def _raw_line(self) -> bytes | None:
        """The next line without its end (b"" for a skipped one), None at the end."""
        too_long = False  # in a line past the limit: its rest is dropped
        while True:
            buf, pos = self.buf, self.pos
            if self.has_cr:
                m = _LINE_END.search(buf, pos)
                i = -1 if m is None else m.start()
            else:
                i = buf.find(b"\n", pos)
            if i >= 0 and (buf[i] != 13 or i + 1 < len(buf) or self.eof):
                end = i + 2 if buf[i : i + 2] == b"\r\n" else i + 1
                line = buf[pos:i]
                self.pos = end
                lone_cr = self.eof and end == i + 1 == len(buf) and buf[i] == 13
                if lone_cr and not line and not too_long:
                    return None  # a lone CR as the last byte is no line
                break
            if i < 0 and self.eof:
                line = buf[pos:]
                self.pos = len(buf)
                if not line and not too_long:
                    return None
                break
            if i < 0:  # no line end yet
                if not too_long and len(buf) - pos > MAX_LINE_BYTES:
                    self._overlong()
                    too_long = True
                if too_long:
                    self.buf, self.pos = b"", 0
            self._fill()  # more of the line, or the LF after a final CR
        if too_long or len(line) > MAX_LINE_BYTES:
            if not too_long:
                self._overlong()
            line = b""
        self.number += 1
        return line

    def readline(self) -> str:
        """The next line, decoded, ending in LF; "" at the end of the stream."""
        line = self._raw_line()
        if line is None:
            return ""
        try:
            return line.decode("utf-8-sig" if self.number == 1 else "utf-8") + "\n"
        except UnicodeDecodeError as exc:
            record = not_utf8(self.path, self.number, exc)
            if not self.skip_bad:
                self.number -= 1  # raised: not handed out
            raise_or_skip(record, self.skip_bad, self.bad.add)
            return "\n"

    def at_end(self) -> bool:
        """Whether every byte of the stream has been handed out."""
        return self.eof and self.pos >= len(self.buf)

    def plain_games(self) -> Iterator[tuple[int, dict[str, str]]]:
        """The plain games from the read position on (see the module notes).

        Yields
        ------
        (int, dict)
            The game's first line (counted from the read position: 1 if no
            blank line precedes it) and its tags. :attr:`number` already
            counts the game's lines when it is yielded. Stops at the first
            game of another shape, which is left unread.
        """
        tags = _TAG.findall
        while True:
            while len(self.buf) - self.pos < _LOW and self._fill():
                pass
            buf, pos = self.buf, self.pos
            if self.number == 0 and buf[:1] != b"[":
                return  # the first line: a BOM, or anything odd, line by line
            start = pos
            while buf[start : start + 1] == b"\n":
                start += 1
            # The tags end at the first blank line, the movetext at the next
            # line end, and a blank line must follow: found with bytes.find,
            # which runs at memory speed, then checked.
            blank = buf.find(b"\n\n", start)
            end = buf.find(b"\n", blank + 2) if blank >= 0 else -1
            if end < 0 or buf[end + 1 : end + 2] != b"\n" or buf[start] != 91:
                return  # 91: "["
            if end + 2 - start > MAX_LINE_BYTES or buf[blank + 2] not in _MOVE_START:
                return
            if (
                buf.find(b";", blank + 2, end) >= 0
                or buf.find(b"\r", start, end) >= 0
                or buf.rfind(b"{", blank + 2, end) > buf.rfind(b"}", blank + 2, end)
            ):
                return
            movetext = buf[blank + 2 : end]
            if not movetext.isascii() and not _utf8(movetext):
                return
            try:
                text = buf[start : blank + 1].decode("utf-8")
            except UnicodeDecodeError:
                return
            pairs = tags(text)
            # A match is a whole line (from a line's start to its LF): as
            # many matches as lines means every line is a tag line.
            if len(pairs) != text.count("\n"):
                return
            found = dict(pairs)
            if len(found) != len(pairs) or len(pairs) > _MAX_TAGS:
                return  # a repeated tag: the line reader's
            self.pos = end + 2
            n_lead = start - pos
            self.number += n_lead + len(pairs) + 3
            yield n_lead + 1, found


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True
