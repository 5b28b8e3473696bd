"""Text that fits the terminal: every text printer (run and ``--why``, compare, advise, solve,
params, check, eta, validate, the warnings and notes on stderr) passes its lines through ``fit``.
JSON, CSV and the scenario YAML ``init`` writes are never wrapped: they are read by programs.

A line wider than the terminal is broken at spaces; its continuation lines are indented two
spaces deeper than the line itself, so a table's row and a why's figures stay under their own
line. A word wider than the room left (a long path) is broken inside, the only way to fit it."""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from typing import TextIO

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


def fit_line(line: str, width: int) -> list[str]:
    """One line as lines no wider than ``width``: itself if it fits, else broken at spaces with
    its continuation lines indented ``CONTINUATION`` deeper (at most half the width)."""
    if len(line) <= width:
        return [line]
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
