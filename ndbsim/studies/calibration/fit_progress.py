"""Progress of a fit: a tqdm counter of simulated fit steps on a terminal, nothing on a pipe."""

from __future__ import annotations

from typing import Any


class Steps:
    """Counts a fit's steps (one simulation of its cases each); draws a bar on stderr when ``on``."""

    def __init__(self, on: bool, what: str) -> None:
        self.count = 0
        self._bar: Any = None
        if on:
            from tqdm import tqdm

            self._bar = tqdm(desc=f"ndbsim: {what}", unit=" step", leave=False, dynamic_ncols=True)

    def step(self) -> None:
        self.count += 1
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
