"""Standard output as an ordinary output: a closed, full, broken or narrow-encoding standard
output ends a command with one line, never an internal error, like a bad ``--output`` path.

``guarded()`` puts a ``GuardedStdout`` in front of ``sys.stdout`` while a command runs. It turns
what the stream raises into ``StdoutError`` (an ``InputError``: exit 2, one line naming standard
output and the fix) or, when the reader has gone (``ndbsim run | head -1``), ``StdoutGone``, on
which the command ends quietly with ``PIPE_EXIT`` as other Unix tools do.

Text that fits the terminal: every text printer (run and ``--why``, compare, advise, solve,
params, check, eta, validate, the warnings and notes on stderr) passes its lines through ``fit``.
JSON, CSV and the scenario YAML ``init`` writes are never wrapped: programs read them. A line
wider than the terminal breaks at spaces, its continuation lines two spaces deeper."""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import shutil
import signal
import sys
import textwrap
from collections.abc import Iterator
from typing import Any, TextIO

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


DEFAULT_WIDTH = 100
"""The width text is fitted to when standard output is not a terminal and COLUMNS is not set (a
pipe, a file, a CI log): wide enough for a phase table of six nodes, narrow enough to read."""

MIN_WIDTH = 40
"""The narrowest width text is fitted to: a smaller COLUMNS (or terminal) is taken as this, since
a phase name alone is 44 characters and narrower text would be all continuation lines."""

CONTINUATION = "  "
"""What a continuation line adds to the indentation of the line it continues."""


def terminal_width(stream: TextIO | None = None) -> int:
    """The width to fit text to: ``COLUMNS`` when set to a number (as shells export it, and as a
    user sets it for one command), else the terminal's when ``stream`` (default standard output)
    is one, else ``DEFAULT_WIDTH``; never below ``MIN_WIDTH``."""
    env = os.environ.get("COLUMNS", "").strip()
    if env.isdigit() and int(env) > 0:
        return max(MIN_WIDTH, int(env))
    s = stream if stream is not None else sys.stdout
    try:
        tty = bool(s is not None and s.isatty())
    except (ValueError, OSError):
        tty = False
    if tty:
        return max(MIN_WIDTH, shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns)
    return DEFAULT_WIDTH


COMMAND = re.compile(r"(^|[\s(])ndbsim [a-z-]+ (\S+\.(ya?ml|ini|csv|tsv|json)\b|-)")
"""Where a printed line holds a command to run: ``ndbsim`` and a command, then a file or an option
(``ndbsim run my.yaml …``, ``ndbsim run -n 3 …``), not prose that names one ("ndbsim run warns")."""


def fit_line(line: str, width: int) -> list[str]:
    """One line as lines no wider than ``width``: itself if it fits, else broken at spaces with
    its continuation lines indented ``CONTINUATION`` deeper (at most half the width). A line that
    holds an ``ndbsim`` command breaks with a shell's line continuation (`` \\``) at each break,
    so that the command copied from ``ndbsim`` to its end runs as printed."""
    if len(line) <= width:
        return [line]
    if COMMAND.search(line) and width > 2:
        lines = _wrapped(line, width - 2)
        return [f"{x} \\" for x in lines[:-1]] + lines[-1:]
    return _wrapped(line, width)


def _wrapped(line: str, width: int) -> list[str]:
    indent = line[: len(line) - len(line.lstrip(" "))]
    deeper = (indent + CONTINUATION)[: width // 2]
    return textwrap.wrap(
        line.strip(" "),
        width=width,
        initial_indent=indent[: width // 2],
        subsequent_indent=deeper,
        break_long_words=True,
        break_on_hyphens=False,
        drop_whitespace=True,
    ) or [line[:width]]


def fit(text: str, width: int | None = None, stream: TextIO | None = None) -> str:
    """``text`` with every line no wider than ``width`` (default: ``terminal_width(stream)``)."""
    w = width if width is not None else terminal_width(stream)
    return "\n".join(out for line in text.split("\n") for out in fit_line(line, w))
