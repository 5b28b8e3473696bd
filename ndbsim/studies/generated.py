"""The command line of a packaged data file the code generates (``--write``, ``--check`` or print):
the accuracy band's cases and the constants' covariance are too slow to compute beside every run,
so their modules write them into ``ndbsim/input/data/`` and check that the file is current."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ndbsim.studies.calibration.cases import DEFAULT_DIR


def generated_file_main(
    prog: str, description: str, path: Path, text_of: Callable[[str], str], argv: list[str] | None = None
) -> int:
    """Print ``text_of(cases directory)``, write it to ``path`` (``--write``), or exit 1 when
    ``path`` differs from it (``--check``); what was done goes to stderr."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--write", action="store_true", help=f"write {path.name} from the cases")
    parser.add_argument("--check", action="store_true", help="exit 1 when the packaged file is stale")
    parser.add_argument("--cases", default=str(DEFAULT_DIR), help="the calibration cases (default: calibration/)")
    args = parser.parse_args(argv)
    text = text_of(args.cases)
    if args.write:
        from ndbsim.output.io import atomic_write_text

        atomic_write_text(path, text)
        print(f"wrote {path}", file=sys.stderr)
        return 0
    if args.check:
        stale = (path.read_text(encoding="utf-8") if path.exists() else "") != text
        print(f"{path.name} is {'stale: run with --write' if stale else 'up to date'}", file=sys.stderr)
        return 1 if stale else 0
    sys.stdout.write(text)
    return 0
