"""Atomic output: write to a temporary file beside the target, then rename over it, so an
interrupted or failed run never leaves a partial file. Output paths are checked before any
work is done (``check_output_path``), so bad ones fail at once with exit 2."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ndbsim.errors import InputError

STDOUT_NAME = "-"
"""An output path that means standard output, as for cat, tar -f and curl -o: ``-o -`` writes
there. A file of that name is ``./-``."""


FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
"""Write failures that more room fixes: a full file system, a used-up disk quota, a file larger
than the file system or the process's limit allows."""


class WriteError(InputError):
    """A file that could not be written, for a reason of the file system (full, over quota,
    read-only): one line naming the file, the reason and the fix; ``reason`` alone for a caller
    that says more (what a sweep keeps for ``--resume``)."""

    def __init__(self, shown: str, e: OSError, option: str, fix: str | None = None) -> None:
        self.path = shown
        self.reason = e.strerror or str(e)
        self.full = e.errno in FULL_ERRNOS
        if fix is None:
            fix = write_fix(e)
        super().__init__(f"cannot write {shown!r}: {self.reason}; nothing was written there; {fix}", field=option)


def write_fix(e: OSError) -> str:
    """What to do about a failed write, by its errno."""
    if e.errno in FULL_ERRNOS:
        return "free space on that file system (or raise the quota), or choose another output path"
    if e.errno == errno.EROFS:
        return "the file system is mounted read-only; choose an output path on a writable one"
    return "choose another output path"


def stdout_if_dash(path: str | Path | None) -> str | Path | None:
    """None (standard output) for ``-``, else ``path``: what ``--output`` means for text outputs."""
    return None if path is not None and str(path) == STDOUT_NAME else path


def check_output_path(path: str | Path | None, option: str = "--output") -> Path | None:
    """Refuse, before any work, an output path that cannot be written. Returns the file to
    write: a symlink's target, as a shell redirection would write through it. ``-`` reaches here
    only for an output that must be a file (a chart, the constants): refused."""
    if path is None:
        return None
    shown = str(path)
    if shown == STDOUT_NAME:
        raise InputError(
            "'-' means standard output, but this writes a file (a chart or the constants); name the file, "
            "or ./- for a file called -",
            field=option,
        )
    if not shown.strip():
        raise InputError("'' is not a file name; give one", field=option)
    try:
        return _checked(Path(path), shown, option)
    except OSError as e:  # e.g. a name too long for the file system
        raise InputError(f"cannot write {shown!r}: {e.strerror or e}; {write_fix(e)}", field=option) from None


def _checked(path: Path, shown: str, option: str) -> Path:
    real = Path(os.path.realpath(path))
    if real.is_dir():
        raise InputError(f"{shown!r} is a directory; give a file name", field=option)
    if real.exists() and not real.is_file():
        raise InputError(
            f"{shown!r} exists and is not a regular file (a device, pipe or socket); choose another output path",
            field=option,
        )
    parent = real.parent
    if not parent.is_dir():
        raise InputError(
            f"cannot write {shown!r}: directory {str(path.parent)!r} does not exist; create it or "
            "choose another output path",
            field=option,
        )
    try:  # what the real write will do: a temporary file beside the target
        fd, probe = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".part", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise InputError(f"cannot write {shown!r}: {e.strerror or e}; {write_fix(e)}", field=option) from None
    return real


def atomic_write(path: str | Path, writer: Callable[[str], None], option: str = "--output") -> None:
    """Call ``writer(tmp_path)`` and move the finished file to ``path``."""
    target = check_output_path(path, option)
    assert target is not None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
        os.close(fd)
    except OSError as e:
        raise WriteError(str(path), e, option) from None
    try:
        writer(tmp)
        # mkstemp makes the file private (0600); give it the mode a plain open() would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException as e:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(e, OSError):
            raise WriteError(str(path), e, option) from None
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str, option: str = "--output") -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    atomic_write(path, write, option)


def _same_file(a: Path, b: Path) -> bool:
    """Whether two paths name one file: equal once symlinks are resolved, or (both existing)
    the same inode, which also catches hard links and bind mounts."""
    if Path(os.path.realpath(a)) == Path(os.path.realpath(b)):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_not_inputs(outputs: dict[str, str | Path | None], inputs: dict[str, str | Path | None]) -> None:
    """Refuse, before any work, an output path that is one of the command's inputs (symlinks
    followed) or another of its outputs: the write would replace the user's file.
    ``outputs`` and ``inputs`` map an option name (``--output``, ``scenario``) to its path."""
    named_outputs = [(o, Path(p)) for o, p in outputs.items() if p is not None]
    for option, out in named_outputs:
        for role, src in inputs.items():
            if src is not None and not isinstance(src, dict) and _same_file(out, Path(src)):
                raise InputError(
                    f"{str(out)!r} is the {role} file {str(src)!r}, an input: writing it would replace it; "
                    "choose another output path",
                    field=option,
                )
    for i, (option, out) in enumerate(named_outputs):
        for other, path in named_outputs[i + 1 :]:
            if _same_file(out, path):
                raise InputError(f"{str(out)!r} is also {other}'s file; give each output its own path", field=option)


OUTPUT_OPTIONS = ("--output", "-o", "--gantt")
"""Command-line options that name a file ndbsim writes."""


def check_output_args(args: list[str]) -> None:
    """Refuse an output option whose value ends in a path separator (``-o newdir/``): it names
    a directory, and the option's Path type would drop the separator and write a file there."""
    seps = tuple(s for s in (os.sep, os.altsep) if s)
    for i, arg in enumerate(args):
        option, eq, value = arg.partition("=")
        if option not in OUTPUT_OPTIONS:
            continue
        if not eq:
            if i + 1 >= len(args):
                continue
            value = args[i + 1]
        if value.endswith(seps):
            raise InputError(f"{value!r} ends in a separator, so it names a directory; give a file name", field=option)


def check_separator(value: str, field: str, source: str | None = None) -> None:
    """``check_output_args`` for an output path written in a file (a sweep's ``output:``)."""
    if value.endswith(tuple(s for s in (os.sep, os.altsep) if s)):
        raise InputError(
            f"{value!r} ends in a separator, so it names a directory; give a file name", field=field, source=source
        )
