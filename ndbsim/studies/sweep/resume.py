"""A sweep's finished chunks kept beside its output as it runs, so an interrupted sweep (Ctrl-C,
SIGTERM from a batch scheduler, a full disk, a lost Dask scheduler) resumes with ``--resume``
and runs only the points it had not finished.

The chunks live in a hidden directory beside the output, ``.OUTPUT.KEY.chunks``: KEY is a hash of
everything the rows depend on (the base as resolved, the factors, mode, samples, replications,
seed, shard, the constants in use and ndbsim's version), so a changed sweep never resumes from a
stale one. Each chunk is one JSON-lines file of its rows, written atomically (a file is whole or
absent). The rows of a point are all in one chunk, and the final file sorts the rows by point and
replication, so a resumed sweep's output is byte-identical to one never interrupted. Once the
output is written the directory is removed."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from ndbsim.errors import InputError
from ndbsim.output.records import SweepRow

KEY_CHARS = 12
"""Hex digits of the sweep's hash in the directory's name: 48 bits, so two different sweeps
written to one output never share a directory by chance."""


def sweep_key(definition: Any) -> str:
    """The hash of what a sweep's rows depend on: ``definition`` (JSON-able), the constants in
    use and ndbsim's version."""
    from ndbsim.input.profiles.calibrated import CALIBRATED_FILE, CONSTANTS_ENV

    constants = Path(os.environ.get(CONSTANTS_ENV) or CALIBRATED_FILE)
    h = hashlib.sha256(json.dumps(definition, sort_keys=True, default=repr).encode())
    h.update(constants.read_bytes() if constants.is_file() else b"")
    h.update(_release().encode())
    return h.hexdigest()[:KEY_CHARS]


def _release() -> str:
    """ndbsim's installed version (a new release may simulate differently)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ndbsim")
    except PackageNotFoundError:  # run from a source tree that is not installed
        return "source"


class ChunkStore:
    """The finished chunks of the sweep written to ``output``; ``open`` names their directory
    once the sweep's key is known."""

    def __init__(self, output: str | Path) -> None:
        self.output = Path(output)
        self.directory: Path | None = None
        self.points_kept = 0
        """Points whose rows the directory holds (resumed ones and those saved since)."""

    def open(self, key: str, resume: bool) -> tuple[list[SweepRow], set[int]]:
        """The rows and points already done when resuming (none otherwise: a sweep run afresh
        drops what an earlier run of it left)."""
        self.directory = self.output.parent / f".{self.output.name}.{key}.chunks"
        if not resume:
            self.discard()
        rows: list[SweepRow] = []
        for path in sorted(self.directory.glob("chunk-*.jsonl")) if self.directory.is_dir() else []:
            rows.extend(self._read(path))
        done = {r[0] for r in rows}
        self.points_kept = len(done)
        return rows, done

    def _read(self, path: Path) -> Iterator[SweepRow]:
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    yield tuple(json.loads(line))
        except (OSError, ValueError) as e:
            raise InputError(
                f"cannot read the finished chunk {str(path)!r} ({type(e).__name__}); delete "
                f"{str(self.directory)!r} and run the sweep again without --resume",
                field="--resume",
            ) from None

    def save(self, rows: Sequence[SweepRow]) -> None:
        """Keep one finished chunk's rows (its file appears whole or not at all)."""
        if not rows:
            return
        assert self.directory is not None
        first = min(r[0] for r in rows)
        text = "".join(json.dumps(list(r), default=_plain) + "\n" for r in rows)
        try:  # made with the first chunk, so a sweep that fails before any leaves nothing behind
            self.directory.mkdir(exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".chunk-", suffix=".part", dir=self.directory)
        except OSError as e:
            raise self._failed(e) from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.directory / f"chunk-{first:012d}-{len(rows)}.jsonl")
        except BaseException as e:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            if isinstance(e, OSError):  # a full disk, a quota, a read-only remount: what stays, and how on
                raise self._failed(e) from None
            raise
        self.points_kept += len({r[0] for r in rows})

    def _failed(self, e: OSError) -> InputError:
        """The one-line error of a chunk that could not be kept: why, and what stays for ``--resume``
        (a directory left empty is removed: nothing to resume from)."""
        from ndbsim.output.io import write_fix

        assert self.directory is not None
        head = f"cannot keep the sweep's finished chunk in {str(self.directory)!r}: {e.strerror or e}"
        return InputError(f"{head}; {self.kept_text(write_fix(e))}", field="--output")

    def kept_text(self, fix: str, all_done: bool = False) -> str:
        """What a failed sweep leaves for ``--resume`` and what to do (``all_done``: every point ran,
        only the output is missing); ``fix`` when nothing is kept."""
        if self.directory is not None and self.points_kept:
            rest = "which only writes the file" if all_done else "to run only the others"
            return (
                f"the {self.points_kept:,} points finished are kept in {str(self.directory)!r}: free space on that "
                f"file system and run the same command with --resume, {rest}"
            )
        if self.directory is not None:
            with contextlib.suppress(OSError):
                self.directory.rmdir()
        return f"no point was kept; {fix}"

    def discard(self) -> None:
        """Remove the chunks (the output is written, or the sweep starts afresh)."""
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)


def _plain(value: Any) -> Any:
    """A numpy scalar as the Python number it holds (a factor value drawn by numpy); else text."""
    item = getattr(value, "item", None)
    return item() if callable(item) else str(value)


def resumed(
    keep: ChunkStore | None, definition: Any, resume: bool, work: Iterator[Any], points: int
) -> tuple[list[SweepRow], Iterator[Any], int]:
    """The rows ``keep`` already holds for the sweep of ``definition`` (when resuming), the
    ``(index, values)`` of ``work`` still to run and how many they are; with ``resume`` the
    progress line saying how many of the ``points`` were already done."""
    if keep is None:
        return [], work, points
    rows, done = keep.open(sweep_key(definition), resume)
    if resume:
        print(
            f"ndbsim: resuming: {len(done):,} of {points:,} points already done (kept in {keep.directory}); "
            f"running the other {points - len(done):,}",
            file=sys.stderr,
        )
    return rows, (w for w in work if w[0] not in done), points - len(done)
