"""Start a scenario for one's own cluster: ``ndbsim init`` writes every scenario key with its
default and meaning (the model's own docstrings), filled from a config.ini when given; and
``ndbsim run --config-ini FILE`` without a scenario starts from the same neutral base (an idle
cluster, no burst) instead of the DBT2 benchmark of the built-in default scenario.
"""

from __future__ import annotations

import ast
import inspect
import itertools
import textwrap
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from ndbsim.input.config import params as config_params
from ndbsim.input.scenario import provenance
from ndbsim.input.scenario.model import Scenario
from ndbsim.input.units import exact_size_text, format_bytes, parse_bytes, parse_duration

COMMENT_WIDTH = 100
"""Width the key descriptions of a written scenario wrap at."""

SECTIONS = ("cluster", "host", "data", "workload", "restart", "simulation")
"""The scenario's sections, in the order ``ndbsim init`` writes them (CONTRACT §1)."""


def neutral_base(config_ini: str | Path | None) -> dict[str, Any]:
    """The scenario a config.ini alone (or ``ndbsim init`` without one) starts from: a name,
    nothing else (every value the model's default: an idle cluster, no burst before the restart)."""
    return {"name": f"cluster of {Path(config_ini).name}" if config_ini is not None else "my cluster"}


def data_size_from_datamemory(raw: dict[str, Any], version: str | None, notes: list[str]) -> bool:
    """When ``raw`` gives no ``data.size``, take DataMemory's (a full DataMemory: the longest
    restart this configuration allows), say so in ``notes`` and return True."""
    data = raw.get("data")
    if isinstance(data, dict) and data.get("size") is not None:
        return False
    memory = _datamemory(raw, version)
    if memory is None:
        return False
    raw.setdefault("data", {})
    if not isinstance(raw["data"], dict):
        return False
    raw["data"]["size"] = memory
    notes.append(
        f"data.size not given: DataMemory={memory} taken as the data size (a full DataMemory, the longest "
        "restart); give the real size with --set data.size=… (ndbinfo.memoryusage's used bytes)"
    )
    return True


def disk_data_note(raw: dict[str, Any], notes: list[str]) -> None:
    """When a config.ini names a tablespace but ``raw`` gives no ``data.disk_data_size``, say that
    the disk data in use is not in the config.ini (the files' size is only their capacity)."""
    data = raw.get("data")
    if not isinstance(data, dict) or data.get("tablespace_size") is None or data.get("disk_data_size") is not None:
        return
    files = format_bytes(data["tablespace_size"])
    notes.append(
        f"data.disk_data_size not given: the config.ini's InitialTablespace makes {files} "
        "of data files per node, but not how much of it is used; give it with --set data.disk_data_size=… "
        "(INFORMATION_SCHEMA.FILES, or ndbsim init --ndbinfo)"
    )


def host_from_thread_config(raw: dict[str, Any], notes: list[str]) -> set[str]:
    """When ``raw`` gives no ``host.cpu_cores`` and its ThreadConfig binds CPUs beyond the default
    host's hardware threads (cpubind/cpuset up to CPU 63: at least 64), take the fewest cores that
    hold them at ``host.threads_per_core``, say so in ``notes`` and return the keys set. A
    ThreadConfig naming CPU ids the host lacks is one written for a larger host: NDB binds threads to
    the ids as given (thr_config.cpp ``THRConfig::do_bind``)."""
    config = _config_section(raw)
    text = next((str(v) for k, v in config.items() if config_params.canonical_name(str(k)) == "ThreadConfig"), "")
    host = raw.get("host", {})
    if not isinstance(host, dict) or host.get("cpu_cores") is not None or not text.strip():
        return set()
    from ndbsim.input.config.thread_config import highest_cpu
    from ndbsim.input.scenario.sections import Host

    try:
        top = highest_cpu(text)
    except ValueError:  # a bad ThreadConfig is reported by the validation that follows
        return set()
    per_core = host.get("threads_per_core", Host.model_fields["threads_per_core"].default)
    if top is None or not isinstance(per_core, int) or per_core < 1:
        return set()
    default_cores = Host.model_fields["cpu_cores"].default
    if top + 1 <= default_cores * per_core:
        return set()
    cores = -(-(top + 1) // per_core)
    raw["host"] = {**host, "cpu_cores": cores}
    notes.append(
        f"host.cpu_cores not given: ThreadConfig binds CPUs up to {top}, so the host has at least {top + 1} "
        f"hardware threads; host.cpu_cores={cores} × host.threads_per_core={per_core} taken (the default "
        f"{default_cores} × {per_core} could not hold them); give the real figures with --set host.cpu_cores=… "
        "(lscpu's 'Core(s) per socket' × 'Socket(s)')"
    )
    return {"host.cpu_cores"}


def _config_section(raw: dict[str, Any]) -> dict[str, Any]:
    cluster = raw.get("cluster")
    config = cluster.get("config") if isinstance(cluster, dict) else None
    return config if isinstance(config, dict) else {}


def _datamemory(raw: dict[str, Any], version: str | None) -> str | None:
    cluster = raw.get("cluster")
    config = cluster.get("config") if isinstance(cluster, dict) else None
    if isinstance(config, dict):
        for k, v in config.items():
            if config_params.canonical_name(str(k)) == "DataMemory":
                return str(v)
    from ndbsim.input.profiles import profile_for

    try:
        default = profile_for(str(version or Scenario.model_fields["version"].default)).defaults["DataMemory"]
    except Exception:  # an unknown version is reported by the validation that follows
        return None
    return exact_size_text(parse_bytes(default))


# ---------------------------------------------------------------------------------------
# ndbsim init


@cache
def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string literal under it in the class body), one line."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or cls is BaseModel:
            continue
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for a, b in itertools.pairwise(body):
            if (
                isinstance(a, ast.AnnAssign)
                and isinstance(a.target, ast.Name)
                and isinstance(b, ast.Expr)
                and isinstance(b.value, ast.Constant)
                and isinstance(b.value.value, str)
            ):
                docs[a.target.id] = " ".join(b.value.value.split())
    return docs


def _yaml_value(key: str, value: Any) -> str:
    """A value as the scenario file writes it: sizes, rates and durations with their units."""
    leaf = key.rsplit(".", 1)[-1]
    if value is None:
        return "null"
    if isinstance(value, float) and leaf in (
        "size",
        "row_size",
        "disk_data_size",
        "tablespace_size",
        "undo_log_size",
        "bytes_per_change",
    ):
        return exact_size_text(value)
    if isinstance(value, float) and leaf in ("disk_read", "disk_write", "memory_touch_rate"):
        return exact_rate_text(value)
    if isinstance(value, float) and leaf == "disk_latency":
        return exact_latency_text(value)
    if leaf == "network":
        return f"{value * 8 / 1e9:g}Gbit/s"
    if leaf in ("downtime", "duration", "horizon"):
        from ndbsim.input.units import format_secs

        if value and value % 86400 == 0:
            return f"{value / 86400:.0f}d"
        return format_secs(value) if value else "0s"
    if isinstance(value, float) and value.is_integer():
        return f"{value:.0f}"
    return yaml.safe_dump(value, default_flow_style=True).strip().removesuffix("\n...").strip()


def exact_rate_text(n: float) -> str:
    """A byte rate with its unit that reads back to the same float: binary where a suffix divides
    it (``1G/s``), else in powers of ten (seed 003's 2.7 GByte/s: ``2.7e9/s``)."""
    text = exact_size_text(n)
    if not text.isdigit():
        return f"{text}/s"
    mantissa, exponent = f"{n:e}".split("e")
    short = f"{float(mantissa):g}e{int(exponent)}"
    return f"{short}/s" if float(short) == n else f"{text}/s"


def exact_latency_text(secs: float) -> str:
    """A disk access time in milliseconds (``0.1ms``) when that reads back to the same float,
    else in seconds."""
    text = f"{secs * 1000:g}ms"
    return text if parse_duration(text) == secs else f"{secs:g}s"


def _comment(text: str, indent: str) -> list[str]:
    return [f"{indent}# {line}" for line in textwrap.wrap(text, COMMENT_WIDTH - len(indent))]


OPTIONAL_EXAMPLES = {
    "data.rows": "300M",
    "workload.during_restart": "{updates_per_s: 0, inserts_per_s: 0}",
    "workload.before_restart": "{duration: 20m, inserts_per_s: 100000}",
    "restart.nodes": "[2]",
    "simulation.lcp_phase": "0.5",
}
"""Keys whose default is "not given": ``ndbsim init`` writes them commented out, with an example."""


def init_text(
    raw: dict[str, Any],
    config_ini: str | None,
    notes: list[str],
    derived: frozenset[str] = frozenset(),
    sources: dict[str, str] | None = None,
    ndbinfo: str | None = None,
    origins: dict[str, str] | None = None,
    not_simulated: dict[str, dict[str, Any]] | None = None,
) -> str:
    """The commented scenario ``ndbsim init`` writes: every key with its meaning and default,
    the values ``raw`` gives (from the config.ini) in place of the defaults; ``derived`` keys
    (data.size from DataMemory) are marked for the user to replace. ``sources``: dotted key -> where
    its value came from (an ndbinfo export's table, ``ndbinfo``), written beside it. ``origins``
    (the load's, ``input.scenario.provenance``) and ``not_simulated`` (the parameters ndbsim does not
    model, by where they were set): written at the end as the provenance section a run reads back."""
    s = Scenario.model_validate(raw)
    given_by = f" --ndbinfo {ndbinfo}" if ndbinfo else (f" --config-ini {config_ini}" if config_ini else "")
    lines = [
        f"# An ndbsim scenario: every key, its meaning and its default (ndbsim init{given_by}).",
        "# Values marked 'from config.ini' or 'ndbinfo.…' were read from there; replace the others with your "
        "cluster's.",
        "# The provenance section at the end tells every run where each value came from.",
        "# Check it: ndbsim validate THIS.yaml   Run it: ndbsim run THIS.yaml",
    ]
    sources = sources or {}
    for n in notes:
        lines.extend(_comment(f"note: {n}", ""))
    lines.append(f"name: {yaml.safe_dump(s.name, default_style=None).strip().removesuffix('...').strip()}")
    lines.extend(_comment(field_docs(Scenario)["version"], ""))
    written = {"version": f'"{s.version}"'}
    lines.append(f"version: {written['version']}" + (f"   # {sources['version']}" if "version" in sources else ""))
    for section in SECTIONS:
        model = getattr(s, section)
        lines.append("")
        lines.extend(_comment(field_docs(Scenario)[section], ""))
        lines.append(f"{section}:")
        lines.extend(_section_lines(section, model, raw, derived, sources, written))
    if origins is not None:
        lines.extend(_provenance_lines(written, origins, not_simulated or {}))
    return "\n".join(lines) + "\n"


def _section_lines(
    section: str,
    model: BaseModel,
    raw: dict[str, Any],
    derived: frozenset[str],
    sources: dict[str, str],
    written: dict[str, str],
) -> list[str]:
    """A section's lines; ``written`` gets each key written with a value, and the value's text."""
    out: list[str] = []
    docs = field_docs(type(model))
    given = raw.get(section)
    if not isinstance(given, dict):
        given = {}
    for name in type(model).model_fields:
        key = f"{section}.{name}"
        value = getattr(model, name)
        out.extend(_comment(docs.get(name, ""), "  "))
        if key == "cluster.config":
            config = given.get("config") or {}
            if not config:
                out.append("  config: {}   # e.g. DataMemory: 64G; ndbsim params lists every parameter")
                continue
            out.append("  config:")
            for k, v in config.items():
                written[f"cluster.config.{k}"] = _config_value(v)
                out.append(f"    {k}: {_config_value(v)}   # {sources.get(f'cluster.config.{k}', 'from config.ini')}")
            continue
        if key in OPTIONAL_EXAMPLES and value is None:
            out.append(f"  # {name}: {OPTIONAL_EXAMPLES[key]}")
            continue
        if isinstance(value, BaseModel):
            text = yaml.safe_dump(value.model_dump(mode="json"), default_flow_style=True).strip()
        else:
            text = _yaml_value(key, value)
        written[key] = text
        from_ini = section == "cluster" or (section == "data" and name in ("tablespace_size", "undo_log_size"))
        mark = "   # from config.ini" if from_ini and name in given else ""
        if key in sources:
            mark = f"   # {sources[key]}"
        if key in derived:
            mark = "   # DataMemory's: replace with your data's size"
        out.append(f"  {name}: {text}{mark}")
    return out


PROVENANCE_HEAD = (
    "Where each value above came from, read by every run of this file: under each "
    "origin, the keys it gave with the value written then. A key still holding that value counts as from "
    "there (ndbsim default: listed as defaulted); change the value above and it is yours. 'not simulated': "
    "what your config.ini or ndbinfo export sets that ndbsim does not model; every run warns about each. "
    "Delete the section and every value counts as yours."
)
"""The comment over the provenance section ``ndbsim init`` writes."""


def _provenance_lines(
    written: dict[str, str], origins: dict[str, str], not_simulated: dict[str, dict[str, Any]]
) -> list[str]:
    """The provenance section: each written key whose origin is one a run reads back, under
    that origin, with the value's text as written above; the parameters ndbsim does not model."""
    groups: dict[str, list[str]] = {}
    for key, text in written.items():
        origin = _recorded_origin(key, origins)
        if origin is not None:
            groups.setdefault(origin, []).append(f"    {key}: {text}")
    lines = ["", *_comment(PROVENANCE_HEAD, ""), f"{provenance.SECTION}:"]
    for origin in provenance.MARKED:
        if origin in groups:
            lines += [f"  {origin}:", *groups[origin]]
    if any(not_simulated.values()):
        lines.append(f"  {provenance.NOT_SIMULATED}:")
        for where, params in not_simulated.items():
            if params:
                lines.append(f"    {_flow(where)}:")
                lines += [f"      {_flow(label)}: {_flow(value)}" for label, value in params.items()]
    return lines


def _recorded_origin(key: str, origins: dict[str, str]) -> str | None:
    """The origin the provenance section records for ``key``; None for a value the user gave."""
    if key in origins:
        return origins[key] if origins[key] in provenance.MARKED else None
    parts = key.split(".")
    if any(origins.get(".".join(parts[:i])) in provenance.OVERRIDES for i in range(1, len(parts))):
        return None
    return provenance.NDBSIM_DEFAULT


def _flow(value: Any) -> str:
    """A key or value as one line of YAML (quoted where YAML needs it)."""
    return yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("...").strip()


def _config_value(v: Any) -> str:
    """A config.ini value as the scenario writes it: an empty string quoted, the rest as given."""
    if isinstance(v, str) and not v.strip():
        return '""'
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
