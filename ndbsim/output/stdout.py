"""Standard output as an ordinary output: a closed, full, broken or narrow-encoding standard
output ends a command with one line, never an internal error, like a bad ``--output`` path.

``guarded()`` puts a ``GuardedStdout`` in front of ``sys.stdout`` while a command runs. It turns
what the stream raises into ``StdoutError`` (an ``InputError``: exit 2, one line naming standard
output and the fix) or, when the reader has gone (``ndbsim run | head -1``), ``StdoutGone``, on
which the command ends quietly with ``PIPE_EXIT`` as other Unix tools do."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import sys
from collections.abc import Iterator
from typing import Any

from ndbsim.errors import InputError

PIPE_EXIT = 128 + getattr(signal, "SIGPIPE", 13)
"""Exit code when the reader of standard output has gone: 141, 128 + SIGPIPE, what a shell shows
for ``cat``, ``yes`` and other tools SIGPIPE stops, so ``set -o pipefail`` scripts see the same."""

FIELD = "standard output"
"""The name an error gives the stream, as ``--output`` names a file."""


class StdoutError(InputError):
    """Standard output cannot take the command's output: closed, full, or a narrow encoding."""


class StdoutGone(Exception):
    """The reader of standard output has gone (EPIPE): end quietly, as Unix tools do."""


class GuardedStdout(io.TextIOBase):
    """``sys.stdout`` whose failures are ``StdoutError`` or ``StdoutGone``. It has no ``buffer``,
    so click writes to it rather than to a stream of its own around the bytes beneath."""

    def __init__(self, inner: Any) -> None:
        super().__init__()
        self.inner = inner

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return str(getattr(self.inner, "encoding", None) or "utf-8")

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.inner, "errors", None)

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return bool(self.inner is not None and self.inner.isatty())

    def fileno(self) -> int:
        if self.inner is None:
            raise io.UnsupportedOperation("standard output is closed")
        return int(self.inner.fileno())

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        if self.inner is None:
            raise StdoutError("it is closed (>&-); give --output FILE, or redirect it, e.g. > /dev/null", field=FIELD)
        _check_encoding(text, self.encoding, self.errors)
        with _translated(self.inner):
            return int(self.inner.write(text))

    def flush(self) -> None:
        if self.inner is not None:
            with _translated(self.inner):
                self.inner.flush()


def _check_encoding(text: str, encoding: str, errors: str | None) -> None:
    """Refuse, before anything is written, text the stream's encoding cannot show."""
    if errors not in (None, "strict"):
        return
    try:
        text.encode(encoding)
    except UnicodeEncodeError as e:
        bad = e.object[e.start : e.end]
        raise StdoutError(
            f"its encoding {encoding} cannot show {bad!a}; set PYTHONIOENCODING=utf-8 (or a UTF-8 locale), "
            "or give --output FILE",
            field=FIELD,
        ) from None
    except LookupError:
        return


@contextlib.contextmanager
def _translated(stream: Any) -> Iterator[None]:
    try:
        yield
    except OSError as e:
        _quiet(stream)
        if e.errno == errno.EPIPE:
            raise StdoutGone from None
        why = e.strerror or str(e)
        raise StdoutError(
            f"cannot write to it ({why}); give --output FILE, or redirect it elsewhere", field=FIELD
        ) from None


def _quiet(stream: Any) -> None:
    """Point the stream's file descriptor at /dev/null, so what is still buffered cannot fail
    again when Python flushes at exit (it would print "Exception ignored" and exit 120)."""
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        fd = stream.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)


def hold_closed_descriptors() -> None:
    """Keep file descriptors 1 and 2 taken when the command was started with them closed
    (``>&-``, ``2>&-``): otherwise the next file opened would get the number, and anything
    written to "standard output" would land in that file. Python leaves ``sys.stdout`` None."""
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        if stream is not None:
            continue
        try:
            os.fstat(fd)
        except OSError:
            with contextlib.suppress(OSError):
                null = os.open(os.devnull, os.O_WRONLY)
                if null != fd:
                    os.dup2(null, fd)
                    os.close(null)


@contextlib.contextmanager
def guarded() -> Iterator[GuardedStdout]:
    """``sys.stdout`` guarded while the block runs; the stream before it put back afterwards."""
    hold_closed_descriptors()
    previous = sys.stdout
    guard = GuardedStdout(previous)
    sys.stdout = guard
    try:
        yield guard
    finally:
        if sys.stdout is guard:
            sys.stdout = previous


def say(text: str) -> None:
    """One line to standard error, where a lost terminal (SIGHUP, EIO) or a closed stderr must
    not turn the line into a second error."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        print(text, file=sys.stderr, flush=True)
