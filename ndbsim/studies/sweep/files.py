"""A sweep's files: the sweep file read into ``sweep()``'s arguments, and its rows written out."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ndbsim.errors import InputError, did_you_mean

if TYPE_CHECKING:
    import pandas as pd

SWEEP_KEYS = ("name", "base", "set", "factors", "mode", "samples", "replications", "seed", "output")
"""The keys a sweep file may have (the format in the package docstring, ``ndbsim.studies.sweep``); others are errors."""


def load_sweep(path: str | Path) -> dict[str, Any]:
    """Read a sweep file into ``sweep()`` keyword arguments (plus ``output``), checking it."""
    from ndbsim.input.scenario import read_yaml
    from ndbsim.output.io import check_separator

    src = str(path)
    raw = read_yaml(path)
    if not isinstance(raw, dict):
        raise InputError("a sweep file must be a YAML mapping with base, factors, mode, ...", source=src)
    for key in raw:
        if key not in SWEEP_KEYS:
            raise InputError(
                f"unknown key{did_you_mean(str(key), SWEEP_KEYS)}; a sweep file has {', '.join(SWEEP_KEYS)}",
                field=str(key),
                source=src,
            )
    here = Path(path).resolve().parent
    base = raw.get("base")
    if isinstance(base, str):
        base = here / base
    elif base is not None and not isinstance(base, dict):
        raise InputError(
            f"{base!r} is not a scenario; give a scenario file path or an inline mapping", field="base", source=src
        )
    sets = raw.get("set") or {}
    if not isinstance(sets, dict):
        raise InputError(f"{sets!r} is not a mapping; write e.g. set: {{data.rows: null}}", field="set", source=src)
    out = raw.get("output")
    if out is not None and not isinstance(out, str):
        raise InputError(f"{out!r} is not a file name; write e.g. output: results.csv", field="output", source=src)
    check_separator(out or "", "output", src)
    kwargs = {
        "base": base,
        "factors": raw.get("factors"),
        "mode": raw.get("mode", "grid"),
        "samples": raw.get("samples"),
        "replications": raw.get("replications", 1),
        "seed": raw.get("seed", 1),
        "output": here / out if out else None,
        "source": src,
        "overrides": [f"{k}={_yaml_scalar(v)}" for k, v in sets.items()],
    }
    if kwargs["factors"] is None:
        raise InputError("no factors; add e.g. factors: {data.size: [10GB, 60GB]}", field="factors", source=src)
    return kwargs


def _yaml_scalar(value: Any) -> str:
    """A value as ``--set`` text (YAML flow style), so file and command-line overrides meet."""
    import yaml

    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("...").strip()


def write_frame(df: pd.DataFrame, path: str | Path) -> None:
    """Write a sweep's rows to ``.csv`` or ``.parquet`` atomically (never a partial file)."""
    from ndbsim.output.io import atomic_write

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet", ".pq"):
        raise InputError(f"{str(p)!r} has no known suffix; write .csv or .parquet", field="--output")
    if suffix == ".csv":
        atomic_write(p, lambda tmp: df.to_csv(tmp, index=False))
        return
    from ndbsim.extras import require

    require("pyarrow", "--output")
    out = df.copy()
    for c in out.columns:  # mixed factor values (e.g. 10GB and 1e9) cannot be one Arrow type
        if out[c].dtype == object and (len({type(v) for v in out[c]}) > 1 or any(isinstance(v, dict) for v in out[c])):
            out[c] = out[c].astype(str)
    atomic_write(p, lambda tmp: out.to_parquet(tmp, index=False, engine="pyarrow"))
