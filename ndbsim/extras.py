"""Optional dependencies: what a single run does not need is an extra (pyproject.toml), and
using it without the extra is one line naming the command that installs it."""

from __future__ import annotations

import importlib

from ndbsim.errors import InputError

EXTRAS = {
    "scipy": ("calibrate", "the least-squares fit of ndbsim calibrate and ndbsim eta"),
    "pyarrow": ("parquet", "Parquet output (--output FILE.parquet)"),
    "dask.distributed": ("cluster", "a Dask scheduler (--scheduler)"),
    "prometheus_client": ("prometheus", "the Prometheus textfile of ndbsim eta (--prometheus-textfile)"),
}
"""Optional module → (its extra in pyproject.toml, what needs it)."""


def require(module: str, field: str | None = None) -> None:
    """Import ``module`` or raise a one-line error naming the extra that installs it."""
    extra, what = EXTRAS[module]
    try:
        importlib.import_module(module)
    except ImportError:
        raise InputError(
            f"{what} needs {module.split('.')[0]}, which is not installed; pip install 'ndbsim[{extra}]' "
            f"(from a clone: pip install -e '.[{extra}]')",
            field=field,
        ) from None
