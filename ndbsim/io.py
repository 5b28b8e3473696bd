"""Atomic output: write to a temporary file beside the target, then rename over it, so an
interrupted run never leaves a partial file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from ndbsim.errors import InputError


def atomic_write(path: str | Path, writer: Callable[[str], None]) -> None:
    """Call ``writer(tmp_path)`` and move the finished file to ``path``."""
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.exists():
        raise InputError(f"directory {str(parent)!r} does not exist; create it or choose another output path")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=parent)
    os.close(fd)
    try:
        writer(tmp)
        # mkstemp makes the file private (0600); give it the mode a plain open() would
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def atomic_write_text(path: str | Path, text: str) -> None:
    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    atomic_write(path, write)
