"""Adversarial input: every case runs the CLI in-process on files written to a temporary
directory and must end with its expected exit code: 2 with one line naming the file and field
for bad input, 0 for the valid oddities, never 3 (an internal error). No input file may change
and a failing case may leave no file behind. The classes: outputs over inputs, size and shape
(bombs, depth, byte limits), unbounded work, magnitudes, valid oddities, constants files,
messages that name the file, durations beyond the horizon. Signals are tested at the end."""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ndbsim.cli.app import main
from ndbsim.input.profiles import CONSTANTS_ENV, reload_calibration

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = (ROOT / "scenarios" / "dbt2-600wh-7.6.6.yaml").read_text()
CONSTANTS = (ROOT / "ndbsim" / "input" / "profiles" / "calibrated.yaml").read_text()
INI = "[ndbd default]\nNoOfReplicas=2\nDataMemory=80G\n[ndbd]\n[ndbd]\n"
RI = "node_id,total_restart_secs,secs_restore_fragments,secs_exec_redo_log\n2,415,140,30\n"
MEM = "cluster: {config: {DataMemory: 80G}}\n"
SWEEP = "base: s.yaml\nfactors:\n  cluster.config.RecoveryWork: [25, 50]\n"


@dataclass
class Case:
    id: str
    args: list[str]
    files: dict[str, str | bytes] = field(default_factory=dict)
    code: int = 2
    needles: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()
    """Files a successful case may create."""


def _rnd(samples: int) -> str:
    """The head of a random-mode sweep file over s.yaml."""
    return f"base: s.yaml\nmode: random\nsamples: {samples}\n"


def _bomb(width: int, levels: int, where: str = "expect") -> str:
    """A "billion laughs" document: ``width ** levels`` values from ``levels`` short lines."""
    lines = [f"{where}:", f"  l0: &l0 [{', '.join(['lol'] * width)}]"]
    lines += [f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return "\n".join(lines) + f"\nname: *l{levels - 1}\n"


def _flow_bomb(width: int, levels: int) -> str:
    parts = [f"&a0 [{', '.join(['x'] * width)}]"]
    parts += [f"&a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return "[" + ", ".join(parts) + "]"


def _deep(depth: int, kind: str = "list") -> str:
    if kind == "list":
        return "expect: {x: " + "[" * depth + "]" * depth + "}\n"
    if kind == "map":
        return "expect: " + "{a: " * depth + "1" + "}" * depth + "\n"
    return "expect:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(depth)) + "  " * (depth + 1) + "v: 1\n"


def _s(extra: str) -> dict[str, str]:
    """A scenario file s.yaml with ``extra`` YAML of its own (no base scenario)."""
    return {"s.yaml": extra}


CASES: list[Case] = []


def add(*cases: Case) -> None:
    CASES.extend(cases)


# 1. Outputs over inputs ---------------------------------------------------------------------
BASE = {"s.yaml": SCENARIO, "c.ini": INI, "k.yaml": CONSTANTS, "ri.csv": RI, "sw.yaml": SWEEP}
add(
    Case("out-is-scenario", ["run", "s.yaml", "-o", "s.yaml"], BASE, needles=("--output", "s.yaml", "input")),
    Case("out-is-scenario-abs", ["run", "s.yaml", "-o", "{d}/s.yaml"], BASE, needles=("--output", "input")),
    Case("out-is-scenario-dotslash", ["run", "./s.yaml", "-o", "s.yaml"], BASE, needles=("--output",)),
    Case("out-is-config-ini", ["run", "s.yaml", "--config-ini", "c.ini", "-o", "c.ini"], BASE, needles=("c.ini",)),
    Case("out-is-constants", ["run", "s.yaml", "--constants", "k.yaml", "-o", "k.yaml"], BASE, needles=("k.yaml",)),
    Case("out-is-json-scenario", ["run", "j.json", "-o", "j.json"], {"j.json": '{"name": "x"}'}, needles=("j.json",)),
    Case("advise-out-is-scenario", ["advise", "s.yaml", "-o", "s.yaml"], BASE, needles=("--output", "input")),
    Case("advise-out-is-constants", ["advise", "s.yaml", "--constants", "k.yaml", "-o", "k.yaml"], BASE),
    Case("advise-chart-is-output", ["advise", "s.yaml", "--chart", "a.svg", "-o", "a.svg"], BASE, needles=("a.svg",)),
    Case("init-out-is-config-ini", ["init", "--config-ini", "c.ini", "-o", "c.ini"], BASE, needles=("c.ini", "input")),
    Case("out-is-symlink", ["run", "s.yaml", "-o", "link.yaml"], {**BASE, "link.yaml": "->s.yaml"}, needles=("link",)),
    Case("out-is-hardlink", ["run", "s.yaml", "-o", "hard.yaml"], {**BASE, "hard.yaml": "=>s.yaml"}, needles=("hard",)),
    Case("gantt-is-scenario", ["run", "s.png", "--gantt", "s.png"], {"s.png": "name: x\n"}, needles=("--gantt",)),
    Case("gantt-is-output", ["run", "s.yaml", "-o", "x.txt", "--gantt", "g.png"], {**BASE, "g.png": "->x.txt"}),
    Case("out-dir-slash", ["run", "s.yaml", "-o", "newdir/"], BASE, needles=("-o", "newdir/", "separator")),
    Case("out-dir-slash-long", ["run", "s.yaml", "--output", "newdir/"], BASE, needles=("--output", "separator")),
    Case("out-dir-slash-eq", ["run", "s.yaml", "--output=newdir/"], BASE, needles=("separator",)),
    Case("gantt-dir-slash", ["run", "s.yaml", "--gantt", "charts/"], BASE, needles=("--gantt", "separator")),
    Case("sweep-out-dir-slash", ["sweep", "sw.yaml", "-o", "res/"], BASE, needles=("separator",)),
    Case("sweep-out-is-sweep", ["sweep", "sw.csv", "-o", "sw.csv"], {**BASE, "sw.csv": SWEEP}, needles=("sweep",)),
    Case(
        "sweep-out-is-base",
        ["sweep", "sw.yaml", "-o", "b.csv"],
        {**BASE, "b.csv": SCENARIO, "sw.yaml": "base: b.csv\nfactors: {data.rows: [1000]}\n"},
        needles=("base scenario",),
    ),
    Case(
        "sweep-file-output-is-itself",
        ["sweep", "own.csv"],
        {**BASE, "own.csv": SWEEP + "output: own.csv\n"},
        needles=("own.csv", "output"),
    ),
    Case(
        "sweep-file-output-slash",
        ["sweep", "sw2.yaml"],
        {**BASE, "sw2.yaml": SWEEP + "output: res/\n"},
        needles=("sw2.yaml", "output", "separator"),
    ),
    Case(
        "calibrate-out-is-scenario",
        [
            "calibrate",
            "--restart-info",
            "ri.csv",
            "--scenario",
            "s.yaml",
            "--fit",
            "constants",
            "-o",
            "s.yaml",
            "--cases",
            "cal",
        ],
        BASE,
        needles=("--output", "s.yaml"),
    ),
    Case(
        "calibrate-out-is-csv",
        ["calibrate", "--restart-info", "ri.csv", "--scenario", "s.yaml", "--output", "ri.csv", "--cases", "cal"],
        BASE,
        needles=("--output", "ri.csv"),
    ),
    Case(
        "calibrate-out-is-symlinked-csv",
        ["calibrate", "--restart-info", "ri.csv", "--scenario", "s.yaml", "--output", "l.csv", "--cases", "cal"],
        {**BASE, "l.csv": "->ri.csv"},
        needles=("--output", "l.csv"),
    ),
)

# 2. Size and shape ---------------------------------------------------------------------------
for w, lv in ((9, 9), (10, 7), (20, 5), (100, 4), (3, 20), (2, 40)):
    add(
        Case(f"bomb-validate-{w}x{lv}", ["validate", "s.yaml"], _s(_bomb(w, lv)), needles=("s.yaml", "aliases")),
        Case(f"bomb-run-{w}x{lv}", ["run", "s.yaml"], _s(_bomb(w, lv, "x")), needles=("s.yaml", "aliases")),
    )
add(
    Case("bomb-in-set", ["run", "--set", "name=" + _flow_bomb(10, 6)], needles=("--set", "aliases")),
    Case(
        "bomb-in-set-expect", ["validate", "s.yaml", "--set", "expect=" + _flow_bomb(30, 4)], BASE, needles=("--set",)
    ),
    Case("bomb-in-sweep", ["sweep", "b.yaml"], {**BASE, "b.yaml": _bomb(10, 7, "name")}, needles=("b.yaml",)),
    Case(
        "bomb-in-constants", ["run", "--constants", "b.yaml"], {"b.yaml": _bomb(10, 7, "shared")}, needles=("b.yaml",)
    ),
    Case("bomb-in-base", ["sweep", "sw.yaml"], {**BASE, "s.yaml": _bomb(10, 7)}, needles=("s.yaml", "aliases")),
    Case("selfref-expect", ["validate", "s.yaml"], _s("expect: &e\n  a: *e\n"), needles=("s.yaml", "cycle")),
    Case("selfref-list", ["validate", "s.yaml"], _s("expect: &e [1, *e]\n"), needles=("cycle",)),
    Case("selfref-run", ["run", "s.yaml"], _s("expect: &e {a: [*e]}\n"), needles=("cycle",)),
    Case("selfref-sweep", ["sweep", "r.yaml"], {**BASE, "r.yaml": "base: s.yaml\nfactors: &f {a: *f}\n"}),
    Case(
        "selfref-constants", ["run", "--constants", "r.yaml"], {"r.yaml": "shared: &s {x: *s}\n"}, needles=("r.yaml",)
    ),
    Case("validate-dev-zero", ["validate", "/dev/zero"], needles=("/dev/zero", "KiB")),
    Case("run-dev-zero", ["run", "/dev/zero"], needles=("/dev/zero",)),
    Case("ini-dev-zero", ["run", "s.yaml", "--config-ini", "/dev/zero"], BASE, needles=("/dev/zero",)),
    Case("constants-dev-zero", ["run", "--constants", "/dev/zero"], needles=("/dev/zero",)),
    Case("sweep-dev-zero", ["sweep", "/dev/zero"], needles=("/dev/zero",)),
    Case("big-scenario", ["validate", "s.yaml"], _s("name: x\n" + ("#" * 80 + "\n") * 4000), needles=("KiB",)),
    Case(
        "big-scenario-keys", ["validate", "s.yaml"], _s("".join(f"k{i}: {i}\n" for i in range(40000))), needles=("KiB",)
    ),
    Case("big-sweep", ["sweep", "w.yaml"], {"w.yaml": "factors: {data.rows: [" + "1, " * 100000 + "1]}\n"}),
    Case("big-constants", ["run", "--constants", "w.yaml"], {"w.yaml": "shared: {}\n" + "#\n" * 200000}),
    Case("big-ini", ["run", "s.yaml", "--config-ini", "b.ini"], {**BASE, "b.ini": "#\n" * 600000}, needles=("b.ini",)),
    Case(
        "big-csv",
        ["calibrate", "--restart-info", "b.csv", "--scenario", "s.yaml", "--cases", "cal", "-o", "o.yaml"],
        {**BASE, "b.csv": RI + "2,415,140,30\n" * 100000},
        needles=("b.csv", "KiB"),
    ),
    Case(
        "long-ini-line", ["run", "s.yaml", "--config-ini", "l.ini"], {**BASE, "l.ini": INI + "#x\n" + "a" * 5000 + "\n"}
    ),
    Case(
        "long-threadconfig-ini",
        ["run", "s.yaml", "--config-ini", "t.ini"],
        {**BASE, "t.ini": INI + "ThreadConfig=" + "ldm," * 400 + "ldm\n"},
        needles=("t.ini", "line"),
    ),
    Case(
        "long-threadconfig-set",
        ["run", "s.yaml", "--set", "cluster.config.ThreadConfig=" + "ldm," * 2000 + "ldm"],
        BASE,
        needles=("ThreadConfig", "1,023"),
    ),
    Case(
        "long-threadconfig-file",
        ["validate", "t.yaml"],
        {"t.yaml": "cluster:\n  config:\n    ThreadConfig: '" + "main," * 20000 + "'\n"},
        needles=("ThreadConfig",),
    ),
    Case(
        "long-size-text", ["validate", "s.yaml", "--set", "data.size=" + "9" * 5000 + "G"], BASE, needles=("data.size",)
    ),
    Case(
        "long-duration-text",
        ["validate", "s.yaml", "--set", "restart.downtime=" + "1" * 3000 + "x"],
        BASE,
        needles=("restart.downtime",),
    ),
    Case("long-rate-text", ["validate", "s.yaml", "--set", "workload.updates_per_s=" + " " * 3000 + "/s" + "1"], BASE),
    Case(
        "long-bytes-digits",
        ["validate", "s.yaml", "--set", "host.disk_read=" + "1" * 200 + "x"],
        BASE,
        needles=("host.disk_read",),
    ),
)
for depth in (70, 200, 1000, 5000):
    for kind in ("list", "map", "block"):
        if kind == "block" and depth > 200:
            continue
        add(Case(f"deep-{kind}-{depth}", ["validate", "s.yaml"], _s(_deep(depth, kind)), needles=("s.yaml", "levels")))
add(
    Case("deep-set", ["validate", "s.yaml", "--set", "expect=" + "[" * 3000 + "]" * 3000], BASE, needles=("--set",)),
    Case("deep-sweep", ["sweep", "d.yaml"], {"d.yaml": _deep(3000)}, needles=("d.yaml", "levels")),
    Case("deep-constants", ["run", "--constants", "d.yaml"], {"d.yaml": _deep(3000, "map")}, needles=("d.yaml",)),
    Case(
        "deep-via-aliases",
        ["validate", "s.yaml"],
        _s(
            "".join(f"a{i}: &a{i} [{'*a' + str(i - 1) if i else 1}]\n" for i in range(70)).replace(
                "a0: &a0 [*a-1]", "a0: &a0 [1]"
            )
        ),
        needles=("s.yaml",),
    ),
)

# 3. Unbounded work --------------------------------------------------------------------------
add(
    Case(
        "sweep-replications-1e12",
        ["sweep", "r.yaml"],
        {**BASE, "r.yaml": SWEEP + "replications: 1000000000000\n"},
        needles=("r.yaml", "replications", "runs"),
    ),
    Case(
        "sweep-replications-3M",
        ["sweep", "r.yaml"],
        {**BASE, "r.yaml": SWEEP + "replications: 3000000\n"},
        needles=("r.yaml", "runs"),
    ),
    Case(
        "sweep-replications-huge",
        ["sweep", "r.yaml"],
        {**BASE, "r.yaml": SWEEP + "replications: " + "9" * 400 + "\n"},
        needles=("r.yaml",),
    ),
    Case(
        "sweep-points-x-reps",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(100000) + "replications: 100\nfactors: {data.rows: {low: 1000, high: 2000}}\n",
        },
        needles=("runs",),
    ),
    Case(
        "sweep-samples-huge",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(1000000000) + "factors: {data.rows: {low: 1000, high: 2000}}\n",
        },
        needles=("samples",),
    ),
    Case(
        "sweep-grid-huge",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": "base: s.yaml\nfactors:\n  data.rows: "
            + str(list(range(2001)))
            + "\n  cluster.config.RecoveryWork: "
            + str(list(range(25, 1025)))
            + "\n",
        },
        needles=("points",),
    ),
    Case("run-n-too-many", ["run", "s.yaml", "-n", "1000000000"], BASE, needles=("--replications",)),
    Case("run-n-zero", ["run", "s.yaml", "-n", "0"], BASE, needles=("--replications",)),
    Case("run-n-negative", ["run", "s.yaml", "-n", "-5"], BASE),
    Case("run-n-huge", ["run", "s.yaml", "-n", "9" * 400], BASE),
    Case(
        "scenario-replications-huge",
        ["validate", "s.yaml", "--set", "simulation.replications=" + "9" * 400],
        BASE,
        needles=("simulation.replications",),
    ),
)

# 4. Magnitudes ------------------------------------------------------------------------------
FIELDS = [
    "data.size",
    "data.rows",
    "data.row_size",
    "data.disk_data_size",
    "data.tables",
    "data.ordered_indexes",
    "host.disk_read",
    "host.disk_write",
    "host.network",
    "host.cpu_cores",
    "host.core_speed",
    "workload.updates_per_s",
    "workload.bytes_per_change",
    "restart.downtime",
    "simulation.horizon",
    "cluster.data_nodes",
    "cluster.config.DataMemory",
    "cluster.config.RecoveryWork",
    "cluster.config.NoOfFragmentLogFiles",
]
for f in FIELDS:
    add(
        Case(f"digits400-{f}", ["validate", "s.yaml", "--set", f"{f}={'9' * 400}"], BASE, needles=(f,)),
        Case(f"digits5000-{f}", ["run", "s.yaml", "--set", f"{f}={'9' * 5000}"], BASE, needles=("--set",)),
        Case(f"neg400-{f}", ["validate", "s.yaml", "--set", f"{f}=-{'9' * 400}"], BASE, needles=(f,)),
    )
for f in ("data.size", "data.rows", "workload.updates_per_s", "host.network", "restart.downtime"):
    add(Case(f"float-huge-{f}", ["validate", "s.yaml", "--set", f"{f}=1.0e+300"], BASE, needles=(f,)))
add(
    Case("rows-tiny", ["validate", "s.yaml", "--set", "data.rows=1.0e-300"], BASE, needles=("data.rows", "one row")),
    Case("rows-half", ["run", "s.yaml", "--set", "data.rows=0.5"], BASE, needles=("data.rows",)),
    Case("rows-tiny-file", ["run", "s.yaml"], _s("data:\n  rows: 1.0e-300\n"), needles=("s.yaml", "data.rows")),
    Case(
        "digits5000-file",
        ["validate", "s.yaml"],
        _s("data:\n  size: " + "9" * 5000 + "\n"),
        needles=("s.yaml", "digits"),
    ),
    Case(
        "digits400-file", ["run", "s.yaml"], _s("data:\n  rows: " + "9" * 400 + "\n"), needles=("s.yaml", "data.rows")
    ),
    Case(
        "range-2e70",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(3) + "factors: {data.rows: {low: 1, high: 1180591620717411303424}}\n",
        },
        needles=("r.yaml", "high"),
    ),
    Case(
        "range-max-float",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(3) + "factors: {workload.updates_per_s: {low: -1.7e+308, high: 1.7e+308}}\n",
        },
        needles=("r.yaml", "low"),
    ),
    Case(
        "range-int64-edge",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(3) + "factors: {data.rows: {low: 9223372036854775806, high: 9223372036854775807}}\n",
        },
        code=0,
    ),
    Case(
        "range-inf",
        ["sweep", "r.yaml"],
        {**BASE, "r.yaml": _rnd(3) + "factors: {data.rows: {low: 1, high: .inf}}\n"},
        needles=("r.yaml",),
    ),
    Case(
        "range-log-huge",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(3) + "factors: {data.rows: {low: 1, high: 1.0e+300, log: true}}\n",
        },
        needles=("r.yaml",),
    ),
    Case(
        "empty-mapping-parquet",
        ["sweep", "r.yaml", "-w", "1", "-o", "e.parquet"],
        {**BASE, "r.yaml": "base: s.yaml\nfactors: {data.rows: [{}]}\n"},
        code=0,
        outputs=("e.parquet",),
    ),
)

add(
    Case(
        "seed-huge-file",
        ["run", "s.yaml"],
        _s(MEM + "simulation: {seed: " + "9" * 5000 + "}\n"),
        needles=("s.yaml", "digits"),
    ),
    Case("seed-negative", ["validate", "s.yaml", "--set", "simulation.seed=-1"], BASE, needles=("simulation.seed",)),
    Case("seed-option-negative", ["run", "s.yaml", "--seed", "-3"], BASE, needles=("--seed",)),
    Case(
        "seed-400-digits",
        ["run", "s.yaml"],
        _s(MEM + "simulation: {seed: " + "9" * 400 + "}\n"),
        needles=("s.yaml", "simulation.seed", "400-digit"),
    ),
    Case("seed-2^63", ["validate", "s.yaml", "--set", f"simulation.seed={2**63}"], BASE, needles=("simulation.seed",)),
    Case("seed-option-2^63", ["run", "s.yaml", "--seed", str(2**63)], BASE, needles=("--seed", "2^63-1")),
    Case("seed-sweep-option-2^64", ["sweep", "sw.yaml", "--seed", str(2**64)], BASE, needles=("--seed",)),
    Case(
        "seed-sweep-file-2^64",
        ["sweep", "r.yaml"],
        {**BASE, "r.yaml": SWEEP + f"seed: {2**64}\n"},
        needles=("r.yaml", "seed"),
    ),
    Case("seed-advise-2^63", ["advise", "s.yaml", "--seed", str(2**63)], BASE, needles=("--seed",)),
    Case("seed-2^63-1-valid", ["validate", "s.yaml", "--set", f"simulation.seed={2**63 - 1}"], BASE, code=0),
)

# 5. Valid oddities --------------------------------------------------------------------------
add(
    Case(
        "bom-config-ini",
        ["validate", "s.yaml", "--config-ini", "b.ini"],
        {**BASE, "b.ini": b"\xef\xbb\xbf" + INI.encode()},
        code=0,
    ),
    Case("bom-scenario", ["validate", "b.yaml"], {"b.yaml": b"\xef\xbb\xbf" + SCENARIO.encode()}, code=0),
    Case(
        "crlf-config-ini",
        ["validate", "s.yaml", "--config-ini", "b.ini"],
        {**BASE, "b.ini": INI.replace("\n", "\r\n")},
        code=0,
    ),
    Case("crlf-scenario", ["validate", "s.yaml"], {"s.yaml": SCENARIO.replace("\n", "\r\n")}, code=0),
    Case(
        "merge-key",
        ["validate", "m.yaml"],
        {"m.yaml": MEM + "expect: {d: &d {cpu_cores: 8}}\nhost:\n  <<: *d\n  threads_per_core: 2\n"},
        code=0,
    ),
    Case(
        "merge-key-override",
        ["run", "m.yaml"],
        {"m.yaml": MEM + "expect: {d: &d {cpu_cores: 8}}\nhost:\n  <<: *d\n  cpu_cores: 16\n"},
        code=0,
    ),
    Case(
        "merge-key-list",
        ["validate", "m.yaml"],
        {"m.yaml": MEM + "expect: {a: &a {cpu_cores: 8}, b: &b {threads_per_core: 1}}\nhost:\n  <<: [*a, *b]\n"},
        code=0,
    ),
    Case(
        "merge-key-sweep",
        ["sweep", "m.yaml", "-w", "1"],
        {**BASE, "m.yaml": "base: s.yaml\nname: &n x\nfactors:\n  <<: {data.rows: [1000000]}\n"},
        code=0,
    ),
    Case("duplicate-key-kept", ["validate", "m.yaml"], {"m.yaml": "name: a\nname: b\n"}, needles=("m.yaml", "twice")),
    Case(
        "duplicate-key-after-merge",
        ["validate", "m.yaml"],
        {"m.yaml": "expect: {d: &d {cpu_cores: 8}}\nhost: {<<: *d, cpu_cores: 1, cpu_cores: 2}\n"},
        needles=("twice",),
    ),
    Case(
        "datamemory-lowercase-ini-wins",
        ["validate", "l.yaml", "--config-ini", "c.ini"],
        {**BASE, "l.yaml": SCENARIO.replace("DataMemory", "datamemory")},
        code=0,
    ),
    Case(
        "log-quoted-false",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(2) + "factors: {data.rows: {low: 1000, high: 2000, log: 'false'}}\n",
        },
        needles=("r.yaml", "log", "'false'"),
    ),
    Case(
        "log-quoted-true",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(2) + "factors: {data.rows: {low: 1000, high: 2000, log: 'true'}}\n",
        },
        needles=("log",),
    ),
    Case(
        "log-number",
        ["sweep", "r.yaml"],
        {
            **BASE,
            "r.yaml": _rnd(2) + "factors: {data.rows: {low: 1000, high: 2000, log: 1}}\n",
        },
        needles=("log",),
    ),
    Case(
        "log-false",
        ["sweep", "r.yaml", "-w", "1"],
        {
            **BASE,
            "r.yaml": _rnd(2) + "factors: {data.rows: {low: 1000000, high: 2000000, log: false}}\n",
        },
        code=0,
    ),
)

# 6. Constants files -------------------------------------------------------------------------
BAD_CONSTANTS = [
    ("nan", "suma_handover_gcps: .nan", "finite"),
    ("inf", "index_entry_secs: .inf", "finite"),
    ("neg-inf", "copy_row_secs: -.inf", "finite"),
    ("negative", "restore_row_secs: -1.0", "range"),
    ("zero", "redo_byte_secs: 0", "range"),
    ("unknown", "restore_row_sec: 1.0e-6", "did you mean"),
    ("unknown-far", "warp_speed: 9", "unknown constant"),
    ("word", "restore_row_secs: fast", "not a number"),
    ("list", "restore_row_secs: [1]", "not a number"),
    ("mapping", "restore_row_secs: {a: 1}", "not a number"),
    ("bool", "restore_row_secs: true", "not a number"),
    ("huge-int", "restore_row_secs: " + "9" * 400, "finite"),
    ("hyperthread-negative", "hyperthread_gain: -0.1", "range"),
]
for name, line, needle in BAD_CONSTANTS:
    text = f"shared:\n  constants:\n    {line}\n"
    add(
        Case(f"constants-{name}-run", ["run", "--constants", "k.yaml"], {"k.yaml": text}, needles=("k.yaml", needle)),
        Case(f"constants-{name}-check", ["check", "--constants", "k.yaml"], {"k.yaml": text}, needles=("k.yaml",)),
    )
add(
    Case(
        "constants-hyperthread-zero",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "shared:\n  constants:\n    hyperthread_gain: 0\n"},
        code=0,
    ),
    Case(
        "constants-profile-bad",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "profiles:\n  '7.6':\n    constants:\n      copy_row_secs: -1\n"},
        needles=("profiles.7.6.constants.copy_row_secs",),
    ),
    Case(
        "constants-profiles-list",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "profiles: [1, 2]\n"},
        needles=("k.yaml",),
    ),
    Case(
        "constants-shared-list",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "shared: [1, 2]\n"},
        needles=("k.yaml", "shared"),
    ),
    Case(
        "constants-constants-list",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "shared:\n  constants: [1]\n"},
        needles=("k.yaml",),
    ),
    Case("constants-not-mapping", ["run", "--constants", "k.yaml"], {"k.yaml": "- 1\n- 2\n"}, needles=("k.yaml",)),
    Case(
        "constants-malformed",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "shared: [\n"},
        needles=("k.yaml", "malformed"),
    ),
    Case("constants-binary", ["run", "--constants", "k.yaml"], {"k.yaml": b"\x00\x01\xff"}, needles=("k.yaml",)),
    Case("constants-packaged-copy", ["run", "--constants", "k.yaml"], {"k.yaml": CONSTANTS}, code=0),
)

NEVER_FINISHES = SCENARIO.replace(
    "during_restart: {updates_per_s: 0, inserts_per_s: 0}",
    "during_restart: {updates_per_s: 50000000, inserts_per_s: 0}",
)
add(
    Case(
        "calibrate-copy-never-converges",
        ["calibrate", "--restart-info", "ri.csv", "--scenario", "nc.yaml", "--cases", "cal", "-o", "o.yaml"],
        {**BASE, "nc.yaml": NEVER_FINISHES},
        needles=("user-ri", "never finishes"),
    ),
)

# 8. Messages that name the file --------------------------------------------------------------
add(
    Case(
        "sweep-output-missing-dir",
        ["sweep", "o.yaml"],
        {**BASE, "o.yaml": SWEEP + "output: nodir/x.csv\n"},
        needles=("o.yaml", "output", "nodir"),
    ),
    Case(
        "sweep-output-bad-suffix",
        ["sweep", "o.yaml"],
        {**BASE, "o.yaml": SWEEP + "output: x.xlsx\n"},
        needles=("o.yaml", "output", "suffix"),
    ),
    Case(
        "sweep-output-not-text",
        ["sweep", "o.yaml"],
        {**BASE, "o.yaml": SWEEP + "output: [1]\n"},
        needles=("o.yaml", "output"),
    ),
    *(
        Case(
            f"calibrate-bad-scenario-names-it-{fit}",
            ["calibrate", "--restart-info", "ri.csv", "--scenario", "bad.yaml", "--fit", fit, "-o", "fit.yaml"],
            {**BASE, "bad.yaml": SCENARIO.replace("  size: ", "  size: -1 #", 1)},
            needles=("bad.yaml: data.size", "too small"),
        )
        for fit in ("host", "constants")
    ),
    Case("params-empty-version", ["params", "--version", ""], needles=("--version", "''", "ndb-8.4.3")),
    Case("params-empty-diff", ["params", "--diff", ""], needles=("--diff", "''")),
)

# 9. Durations beyond the horizon -------------------------------------------------------------
add(
    Case("downtime-1e20", ["run", "s.yaml", "--set", "restart.downtime=1.0e+20"], BASE, needles=("restart.downtime",)),
    Case(
        "downtime-beyond-horizon",
        ["validate", "s.yaml", "--set", "restart.downtime=8d".replace("8d", "200h")],
        BASE,
        needles=("restart.downtime", "horizon"),
    ),
    Case(
        "downtime-equals-horizon",
        ["validate", "s.yaml", "--set", "restart.downtime=1h", "--set", "simulation.horizon=1h"],
        BASE,
        needles=("horizon",),
    ),
    Case(
        "burst-beyond-a-year",
        ["validate", "s.yaml", "--set", "workload.before_restart.duration=9000h"],
        BASE,
        needles=("workload.before_restart.duration", "year"),
    ),
    Case(
        "horizon-1e20",
        ["validate", "s.yaml", "--set", "simulation.horizon=1.0e+20"],
        BASE,
        needles=("simulation.horizon",),
    ),
    Case(
        "horizon-hours-text",
        ["validate", "s.yaml", "--set", "simulation.horizon=100000000h"],
        BASE,
        needles=("simulation.horizon",),
    ),
    Case(
        "downtime-two-years",
        ["validate", "s.yaml", "--set", "restart.downtime=17520h"],
        BASE,
        needles=("restart.downtime", "year"),
    ),
    Case("downtime-within", ["validate", "s.yaml", "--set", "restart.downtime=1h"], BASE, code=0),
)


# 11. Every value read as written (YAML 1.2), or refused with one line --------------------------
add(
    Case(
        "yaml11-sexagesimal-downtime",
        ["run", "s.yaml"],
        _s(MEM + "restart: {downtime: 1:30}\n"),
        needles=("s.yaml", "restart.downtime", "'1:30'", "1m30s"),
    ),
    Case(
        "yaml11-sexagesimal-set",
        ["run", "s.yaml", "--set", "restart.downtime=1:30"],
        BASE,
        needles=("restart.downtime", "1m30s"),
    ),
    Case(
        "yaml11-sexagesimal-horizon",
        ["validate", "s.yaml"],
        _s(MEM + "simulation: {horizon: 2:00:00}\n"),
        needles=("simulation.horizon",),
    ),
    Case(
        "yaml11-underscore-rows", ["run", "s.yaml"], _s(MEM + "data: {rows: 1_000}\n"), needles=("data.rows", "'1_000'")
    ),
    Case(
        "yaml11-yes-is-text",
        ["sweep", "r.yaml"],
        {**BASE, "r.yaml": _rnd(2) + "factors: {data.rows: {low: 1000, high: 2000, log: yes}}\n"},
        needles=("r.yaml", "log", "'yes'"),
    ),
    Case("yaml12-octal-explicit", ["validate", "s.yaml"], _s(MEM + "data: {tables: 0o10}\n"), code=0),
    Case(
        "yaml11-int-tag-sexagesimal",
        ["validate", "s.yaml"],
        _s(MEM + "data: {tables: !!int 1:30}\n"),
        needles=("s.yaml", "!!int"),
    ),
)


CAL = ["calibrate", "--restart-info", "r.csv", "--scenario", "s.yaml", "--cases", "cal", "-o", "o.yaml"]
add(
    Case(
        "ini-no-data-nodes",
        ["run", "--config-ini", "n.ini"],
        {"n.ini": "[ndbd default]\nDataMemory=80G\n"},
        needles=("n.ini", "no [ndbd] section"),
    ),
    Case(
        "ini-no-data-nodes-validate",
        ["validate", "s.yaml", "--config-ini", "n.ini"],
        {**BASE, "n.ini": "[mgm]\nHostName=x\n[mysqld]\n"},
        needles=("n.ini", "[ndbd]"),
    ),
    Case(
        "ini-no-data-nodes-init",
        ["init", "--config-ini", "n.ini", "-o", "i.yaml"],
        {"n.ini": "# empty\n"},
        needles=("n.ini", "[ndbd]"),
    ),
    Case(
        "ri-phases-beyond-total",
        CAL,
        {
            **BASE,
            "r.csv": "node_id,total_restart_secs,secs_restore_fragments,secs_exec_redo_log,"
            "secs_index_rebuild\n2,50,300,160,100\n",
        },
        needles=("r.csv", "line 2 (node 2)", "560 s", "50 s", "total_restart_secs"),
    ),
    Case(
        "ri-local-recovery-contradicts",
        CAL,
        {
            **BASE,
            "r.csv": "node_id,total_restart_secs,secs_for_local_recovery,secs_restore_fragments,"
            "secs_undo_disk_data,secs_exec_redo_log,secs_index_rebuild\n2,415,20,140,0,30,80\n",
        },
        needles=("r.csv", "line 2 (node 2)", "secs_for_local_recovery"),
    ),
    Case("ri-upper-case-header", CAL, {**BASE, "r.csv": RI.upper()}, code=0, outputs=("o.yaml", "cal/user-r.yaml")),
    Case(
        "ri-comment-before-header",
        CAL,
        {**BASE, "r.csv": "# exported from prod\n" + RI},
        code=0,
        outputs=("o.yaml", "cal/user-r.yaml"),
    ),
    Case("ri-comment-not-a-header", CAL, {**BASE, "r.csv": "# node_id,total\n2,415\n"}, needles=("r.csv", "node_id")),
)


# 12. Node lists, horizons, windows and "-" ---------------------------------------------------
add(
    Case(
        "nodes-empty",
        ["run", "s.yaml"],
        _s(MEM + "restart: {type: node, nodes: []}\n"),
        needles=("s.yaml", "restart.nodes", "[]"),
    ),
    Case(
        "nodes-empty-rolling",
        ["run", "s.yaml"],
        _s(MEM + "restart: {type: rolling, nodes: []}\n"),
        needles=("restart.nodes",),
    ),
    Case("nodes-empty-set", ["run", "s.yaml", "--set", "restart.nodes=[]"], BASE, needles=("restart.nodes",)),
    Case(
        "nodes-empty-system",
        ["run", "s.yaml"],
        _s(MEM + "restart: {type: system, nodes: []}\n"),
        needles=("restart.nodes", "[]"),
    ),
    Case("nodes-all-of-system", ["validate", "s.yaml"], _s(MEM + "restart: {type: system, nodes: [2, 1]}\n"), code=0),
    Case(
        "horizon-zero",
        ["run", "s.yaml"],
        _s(MEM + "simulation: {horizon: 0}\n"),
        needles=("s.yaml: simulation.horizon",),
    ),
    Case(
        "horizon-zero-set",
        ["validate", "s.yaml", "--set", "simulation.horizon=0"],
        BASE,
        needles=("simulation.horizon",),
    ),
    Case("horizon-before-downtime-default", ["validate", "s.yaml"], _s(MEM + "simulation: {horizon: 1ms}\n"), code=0),
    Case("window-negative", ["solve", "lcp-speed", "--window", "-5m"], needles=("--window", "'-5m'")),
    Case("window-clock", ["solve", "data-size", "--window", "1:30"], needles=("--window", "1m30s")),
    Case("window-word", ["solve", "data-size", "--window", "soon"], needles=("--window", "'soon'")),
    Case("gantt-dash", ["run", "s.yaml", "--gantt", "-"], BASE, needles=("--gantt", "'-'")),
    Case("chart-dash", ["advise", "s.yaml", "--chart", "-"], BASE, needles=("--chart", "'-'")),
    Case("calibrate-out-dash", ["calibrate", "--cases", "cal", "--output", "-"], BASE, needles=("--output", "'-'")),
    Case(
        "sweep-set-text-stays-text",
        ["sweep", "t.yaml", "-w", "1"],
        {**BASE, "t.yaml": SWEEP + "set: {restart.downtime: '1e3'}\n"},
        needles=("restart.downtime", "'1e3'"),
    ),
)


# 13. What the audit of every input path turned up ------------------------------------------
add(
    Case(
        "ini-param-twice",
        ["run", "s.yaml", "--config-ini", "d.ini"],
        {**BASE, "d.ini": "[ndbd default]\nNoOfReplicas=2\nDataMemory=80G\nDataMemory=90G\n[ndbd]\n[ndbd]\n"},
        needles=("d.ini", "DataMemory", "twice"),
    ),
    Case(
        "ini-param-twice-node",
        ["run", "s.yaml", "--config-ini", "d.ini"],
        {**BASE, "d.ini": INI + "NoOfReplicas=2\nnoofreplicas=2\n"},
        needles=("d.ini", "NoOfReplicas", "twice"),
    ),
    Case(
        "ri-column-twice",
        CAL,
        {**BASE, "r.csv": "node_id,total_restart_secs,total_restart_secs\n2,415,30\n"},
        needles=("r.csv", "total_restart_secs", "twice"),
    ),
    Case(
        "constants-exponent-without-dot",
        ["run", "--constants", "k.yaml"],
        {"k.yaml": "shared:\n  constants:\n    restore_row_secs: 1e-6\n"},
        code=0,
    ),
    Case(
        "sweep-factor-leading-zero",
        ["sweep", "z.yaml", "-w", "1", "-o", "z.csv"],
        {**BASE, "z.yaml": "base: s.yaml\nfactors: {data.tables: [010]}\n"},
        code=0,
        outputs=("z.csv",),
    ),
    Case("set-key-named-in-error", ["run", "--set", "data.size=1e400"], needles=("--set data.size", "1e400")),
)


def _ids() -> list[str]:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    return ids


def _write(tmp: Path, files: dict[str, str | bytes]) -> None:
    shutil.copytree(ROOT / "calibration", tmp / "cal")  # a copy: calibrate writes its imported case there
    (tmp / "scenarios").symlink_to(ROOT / "scenarios")
    for name, content in files.items():
        p = tmp / name
        if isinstance(content, str) and content.startswith("->"):
            p.symlink_to(content[2:])
        elif isinstance(content, str) and content.startswith("=>"):
            os.link(tmp / content[2:], p)
        elif isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)


def _state(tmp: Path) -> dict[str, str]:
    return {
        str(p.relative_to(tmp)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in tmp.rglob("*")
        if p.is_file() and not p.is_relative_to(tmp / "scenarios")
    }


@pytest.fixture(autouse=True)
def _packaged_constants():
    """A valid --constants sets $NDBSIM_CONSTANTS in this process: put the packaged ones back."""
    yield
    os.environ.pop(CONSTANTS_ENV, None)
    reload_calibration()


@pytest.mark.parametrize("case", CASES, ids=_ids())
def test_adversarial(case: Case, tmp_path, monkeypatch, capsys):
    _write(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    before = _state(tmp_path)
    args = [a.replace("{d}", str(tmp_path)) for a in case.args]
    start = time.monotonic()
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out, err = capsys.readouterr()
    code = exc.value.code or 0
    assert code != 3, err
    assert code == case.code, err[-2000:]
    assert time.monotonic() - start < 20, "bounded input must fail fast"
    after = _state(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before, "an input file changed"
    assert set(after) - set(before) <= set(case.outputs), sorted(set(after) - set(before))
    if code == 2:
        assert out == ""
        assert err.count("\n") == 1 and err.startswith("ndbsim: error: "), err[:500]
        assert len(err) < 600, err
        for needle in case.needles:
            assert needle in err, err


def test_corpus_size():
    assert len(CASES) >= 150


# 7. Signals ---------------------------------------------------------------------------------


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc and ps")
@pytest.mark.parametrize("sig,code,word", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_signal_stops_sweep_workers(sig, code, word, tmp_path):
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "sw.yaml").write_text(SWEEP + "replications: 5000\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-m", "ndbsim", "sweep", "sw.yaml", "-w", "2", "-o", "out.csv"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    workers: list[int] = []
    deadline = time.monotonic() + 30
    while len(workers) < 2 and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
        workers = _children(p.pid)
    time.sleep(1.0)
    assert p.poll() is None, p.communicate()
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode == code, err
    assert err.strip().splitlines()[-1] == f"ndbsim: {word}", err
    assert "Traceback" not in err
    time.sleep(0.5)
    assert workers and not [w for w in workers if _alive(w)]
    left = sorted(x.name for x in tmp_path.iterdir() if not x.name.startswith(".out.csv."))
    assert left == ["s.yaml", "sw.yaml"]  # no output; only the finished chunks, kept for --resume
    for kept in tmp_path.glob(".out.csv.*.chunks"):
        assert all(c.name.startswith("chunk-") and c.suffix == ".jsonl" for c in kept.iterdir())


def _wait_for_workers(p: subprocess.Popen, count: int) -> list[int]:
    """The main process's worker processes once ``count`` of them run (bounded: 60 s)."""
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while len(workers) < count and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
        workers = _children(p.pid)
    return workers


def _none_left(pids: list[int], within: float = 5.0) -> list[int]:
    """The pids of ``pids`` still alive after ``within`` seconds (polled, so it returns early)."""
    deadline = time.monotonic() + within
    left = [w for w in pids if _alive(w)]
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = [w for w in left if _alive(w)]
    return left


PARENT_DEATH_COMMANDS = {
    "sweep": ["sweep", "sw.yaml", "-w", "2", "-o", "out.csv"],
    "advise": ["advise", "s.yaml", "-w", "2", "-n", "400", "-o", "a.txt"],
}


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc and ps")
@pytest.mark.parametrize("command", sorted(PARENT_DEATH_COMMANDS))
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGKILL], ids=["SIGHUP", "SIGKILL"])
def test_parent_death_leaves_no_worker(sig, command, tmp_path):
    """The main process killed by SIGHUP (handled as SIGTERM is) or SIGKILL (not handled at all):
    its workers are gone within a few seconds and no output file is left. The command runs in a
    session and process group of its own (as ``setsid`` starts it), removed whatever happens."""
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "sw.yaml").write_text(SWEEP + "replications: 5000\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-m", "ndbsim", *PARENT_DEATH_COMMANDS[command]],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        workers = _wait_for_workers(p, 2)
        assert p.poll() is None and len(workers) == 2, p.communicate(timeout=30)
        p.send_signal(sig)
        _, err = p.communicate(timeout=30)
        if sig == signal.SIGHUP:
            assert p.returncode == 128 + signal.SIGHUP, err
            assert err.strip().splitlines()[-1] == "ndbsim: hung up", err
            assert "Traceback" not in err
        else:
            assert p.returncode == -signal.SIGKILL
        assert not _none_left(workers), "a worker outlived its parent"
        assert sorted(x.name for x in tmp_path.iterdir()) == ["s.yaml", "sw.yaml"]
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)
        p.kill()
        p.wait(timeout=10)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc and ps")
def test_worker_polls_for_its_parent_without_the_kernel(tmp_path):
    """Where the kernel cannot watch the parent (not Linux), a worker's polling thread ends it:
    a child started as a pool worker is, with the kernel's watch left out, killed with SIGKILL."""
    script = (
        "import os, sys, time\n"
        "import multiprocessing as mp\n"
        "from ndbsim.studies.stop import watch_parent\n"
        "def work():\n"
        "    watch_parent(kernel=False)\n"
        "    time.sleep(120)\n"
        "p = mp.get_context('fork').Process(target=work)\n"
        "p.start()\n"
        "print(p.pid, flush=True)\n"
        "time.sleep(120)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-c", script], env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert p.stdout is not None
        child = int(p.stdout.readline())
        assert _alive(child)
        p.kill()
        p.wait(timeout=10)
        assert not _none_left([child]), "the child outlived its parent"
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGKILL)


# 10. A standard output that cannot take the output -------------------------------------------

STDOUT_CASES = {
    "full": ("{cmd} run > /dev/full", 2, "No space left on device"),
    "closed": ("{cmd} run >&-", 2, "closed"),
    "ascii": ("PYTHONIOENCODING=ascii {cmd} run u.yaml", 2, "encoding ascii cannot show '\\xdc'"),
    "closed-sweep": ("{cmd} sweep sw.yaml -w 1 >&-", 2, "closed"),
    "closed-validate": ("{cmd} validate u.yaml >&-", 2, "closed"),
    "closed-with-output-file": ("{cmd} run -o x.txt >&-", 0, ""),
}


@pytest.mark.parametrize("name", sorted(STDOUT_CASES))
def test_broken_stdout_is_an_ordinary_error(name, tmp_path):
    """A full, closed or narrow-encoding standard output: one line on stderr naming it, exit 2
    (never 3), and no file left behind; a command whose output goes to a file does not need it."""
    shell, code, needle = STDOUT_CASES[name]
    (tmp_path / "u.yaml").write_text("name: Überlauf\n" + MEM, encoding="utf-8")
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "sw.yaml").write_text(SWEEP)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = shell.format(cmd=f"'{sys.executable}' -m ndbsim")
    p = subprocess.run(["sh", "-c", cmd], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == code, p.stderr
    if code:
        errors = [ln for ln in p.stderr.splitlines() if not ln.startswith("ndbsim: warning: ")]
        assert len(errors) == 1 and errors[0].startswith("ndbsim: error: standard output: "), p.stderr
        assert needle in errors[0], p.stderr
    expected = {"u.yaml", "s.yaml", "sw.yaml"} | ({"x.txt"} if code == 0 else set())
    assert {x.name for x in tmp_path.iterdir()} == expected


@pytest.mark.parametrize("command", [["run", "-f", "json"], ["sweep", "sw.yaml", "-w", "1"]])
def test_reader_gone_ends_quietly(command, tmp_path):
    """``ndbsim run | head -1`` with the reader gone before the output is written: no message, and
    exit 141 (128 + SIGPIPE), what a shell reports for any tool SIGPIPE stops."""
    (tmp_path / "s.yaml").write_text(SCENARIO)
    (tmp_path / "sw.yaml").write_text(SWEEP)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen(
        [sys.executable, "-m", "ndbsim", *command],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert p.stdout is not None
    p.stdout.close()  # before ndbsim has written anything: it takes a second to start
    _, err = p.communicate(timeout=120)
    assert p.returncode == 141, err
    assert all(ln.startswith(b"ndbsim: warning: ") for ln in err.splitlines()), err  # no error, no traceback


def _simulated(args: list[str], tmp_path: Path, files: dict[str, str], capsys) -> dict:
    import json

    _write(tmp_path, files)
    os.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out, err = capsys.readouterr()
    assert (exc.value.code or 0) == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "text,tables",
    [("010", 10), ("0010", 10), ("0o10", 8), ("0x10", 16), ("1e1", 10), ("'010'", 10)],
)
def test_numbers_read_as_yaml_1_2(text, tables, tmp_path, monkeypatch, capsys):
    """``data.tables: 010`` is ten tables, as YAML 1.2 and the user read it (YAML 1.1: eight)."""
    monkeypatch.chdir(tmp_path)
    out = _simulated(["run", "s.yaml", "-f", "json"], tmp_path, _s(MEM + f"data: {{tables: {text}}}\n"), capsys)
    assert out["simulated"]["data"]["tables"] == tables


def test_numbers_in_set_read_as_yaml_1_2(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    out = _simulated(["run", "s.yaml", "-f", "json", "--set", "data.tables=010"], tmp_path, BASE, capsys)
    assert out["simulated"]["data"]["tables"] == 10


def test_yes_and_dates_stay_text(tmp_path, monkeypatch, capsys):
    """YAML 1.1 would make ``name: no`` False and ``2024-01-01`` a date; the user wrote text."""
    monkeypatch.chdir(tmp_path)
    assert _simulated(["run", "s.yaml", "-f", "json"], tmp_path, _s(MEM + "name: no\n"), capsys)["name"] == "no"


def test_two_rows_for_one_node_say_how_they_were_used(tmp_path, monkeypatch, capsys):
    """restart_info keeps one row per node: given two (exports over time), the imported case says
    that each is an observation of its own restart, on stderr and in the case file."""
    import yaml

    monkeypatch.chdir(tmp_path)
    files = {**BASE, "r.csv": RI + "2,300,100,20\n"}
    _write(tmp_path, files)
    with pytest.raises(SystemExit) as exc:
        main(CAL)
        raise SystemExit(0)
    _, err = capsys.readouterr()
    assert exc.value.code in (0, None), err
    note = "node 2 (lines 2, 3): several rows of one node, each used as an observation of its own restart"
    assert note in err
    assert note in yaml.safe_load((tmp_path / "cal" / "user-r.yaml").read_text())["source"]["note"]


@pytest.mark.parametrize(
    "args",
    [
        ["run", "s.yaml", "-o", "-"],
        ["run", "s.yaml", "--output=-", "-f", "json"],
        ["init", "-o", "-"],
        ["solve", "redo-log", "s.yaml", "-n", "1", "-o", "-"],
        ["sweep", "o.yaml", "-w", "1", "-o", "-"],
    ],
    ids=["run", "run-json", "init", "solve", "sweep-over-file-output"],
)
def test_dash_is_standard_output(args, tmp_path, monkeypatch, capsys):
    """``-o -`` writes to standard output, as for most Unix tools; no file named ``-`` appears
    (a sweep's ``-o -`` wins over its file's ``output:``)."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**BASE, "o.yaml": SWEEP + "output: x.csv\n"})
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out, err = capsys.readouterr()
    assert (exc.value.code or 0) == 0, err
    assert len(out) > 100
    assert not (tmp_path / "-").exists() and not (tmp_path / "x.csv").exists()


def _cli(args: list[str], capsys) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exc:
        main(args)
        raise SystemExit(0)
    out, err = capsys.readouterr()
    code = exc.value.code or 0
    assert code != 3, err
    return int(code), out, err


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_a_key_set_twice_says_which_in_every_format(fmt, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, BASE)
    args = ["run", "s.yaml", "-f", fmt, "--set", "data.rows=1M", "--set", "data.rows=2M"]
    args += ["--config-ini", "c.ini", "--set", "cluster.config.DataMemory=90G"]
    code, out, err = _cli(args, capsys)
    assert code == 0, err
    out += err  # the table's warnings go to standard error
    assert "data.rows is set 2 times by --set (1M, 2M); the last, 2M, is used" in out
    assert "cluster.config.DataMemory is in the config.ini and set by --set; --set's 90G is used" in out


def test_an_option_given_twice_says_which(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, BASE)
    code, out, err = _cli(["run", "s.yaml", "--seed", "1", "--seed=2", "-f", "json"], capsys)
    assert code == 0 and '"seed": 2' in out
    assert "ndbsim: warning: --seed is given 2 times (1, 2); the last, 2, is used" in err


def test_a_factor_also_set_says_which(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**BASE, "f.yaml": SWEEP + "set: {cluster.config.RecoveryWork: 60}\n"})
    code, _, err = _cli(["sweep", "f.yaml", "-w", "1"], capsys)
    assert code == 0, err
    assert "cluster.config.RecoveryWork is a factor and also set by set: or --set (60)" in err
    assert "each point's factor value is used" in err


def test_a_sweep_factor_with_a_leading_zero_is_decimal(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**BASE, "z.yaml": "base: s.yaml\nfactors: {data.tables: [010]}\n"})
    code, out, err = _cli(["sweep", "z.yaml", "-w", "1"], capsys)
    assert code == 0, err
    assert out.splitlines()[1].split(",")[3] == "10"


def test_sweep_options_over_the_file_say_which(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, {**BASE, "f.yaml": SWEEP + "seed: 7\noutput: f.csv\n"})
    code, _, err = _cli(["sweep", "f.yaml", "-w", "1", "--seed", "9", "-o", "g.csv"], capsys)
    assert code == 0, err
    assert "--seed 9 is used, not the sweep file's seed: 7" in err
    assert "--output g.csv is used, not the sweep file's output: f.csv" in err
    assert (tmp_path / "g.csv").exists() and not (tmp_path / "f.csv").exists()


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_some_nodes_of_a_system_restart_say_they_are_not_used(fmt, tmp_path, monkeypatch, capsys):
    """``--set restart.type=system`` over a scenario naming node 2: every node restarts, and every
    format says restart.nodes was not used (JSON's simulated nodes are all of them)."""
    monkeypatch.chdir(tmp_path)
    _write(tmp_path, BASE)
    code, out, err = _cli(["run", "s.yaml", "-f", fmt, "--set", "restart.type=system"], capsys)
    assert code == 0, err
    if fmt == "table":
        out = err  # the table's warnings go to standard error
    assert "restart.nodes [2] is not used: a system restart restarts all 2 data nodes" in out
    if fmt == "json":
        import json

        assert json.loads(out)["simulated"]["restart"]["nodes"] == [1, 2]
