"""The command line's help texts: each command's examples, shared option help, the version."""

from __future__ import annotations

SET_HELP = (
    "Override a scenario key, repeatable: -s data.size=1TB -s data.rows=1.2B -s restart.downtime=1d12h "
    "(keys: ndbsim init writes them all)."
)
"""``--set`` of run, validate, init and sweep."""

CONFIG_INI_HELP = (
    "Read a cluster's config.ini: [ndbd default] parameters, one data node per [ndbd] (NodeId, "
    "NodeGroup). Without a scenario, starts from an idle cluster with data.size = DataMemory."
)
"""``--config-ini`` of run, validate, init, advise, solve and sweep."""

DEBUG_HELP = "On an error, print Python's traceback instead of one line (before or after the command)."
"""``--debug``, which ``main`` takes from anywhere on the command line."""

STUDY_REPLICATIONS = 10
"""The least replications advise and solve run per variant unless -n says otherwise, as their
help states it: ``studies.advise.study.ADVISE_REPLICATIONS`` (a test holds the two equal; the help
does not import the studies, so that ``ndbsim -h`` loads none of the simulation's libraries)."""

RELEASE_HELP = (
    "The NDB release the cluster runs, as NDB prints it (ndb-8.4.3) or bare (8.4.3): a config.ini names none, "
    "so --config-ini with no scenario needs it."
)
"""``--version`` of run, validate, init, advise, solve, sweep and report (params has its own)."""

NDBINFO_HELP = (
    "An ndbinfo export of the running cluster: the output of `ndbsim ndbinfo-sql` run with mysql --batch "
    "against an SQL node."
)
"""``--ndbinfo`` of init."""


def _examples(*lines: str) -> str:
    """An epilog click prints as written (``\\b`` stops it rewrapping the lines)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


EXAMPLES = {
    "run": _examples(
        "ndbsim run                                          # built-in default (seed 003, DBT2 on 7.6.6)",
        "ndbsim run scenarios/dbt2-600wh-7.5.10.yaml -n 200  # p5/p50/p95 over the LCP cycle",
        "ndbsim run --config-ini config.ini --version 8.0.35 --set data.size=200G --set data.rows=1.2B",
        "ndbsim run my.yaml -f json -o result.json --gantt restart.png",
        "ndbsim run my.yaml --why                            # each phase's bottleneck and quantity",
        "exit 4 (result still printed): redo-overload, non-converging or stuck",
    ),
    "validate": _examples(
        "ndbsim validate my.yaml",
        "ndbsim validate my.yaml --config-ini config.ini --set version=8.0.36",
    ),
    "init": _examples(
        "ndbsim init --config-ini /var/lib/mysql-cluster/config.ini --version 8.0.35 -o my.yaml",
        "ndbsim ndbinfo-sql > ndbinfo.sql; mysql --batch -h SQLNODE < ndbinfo.sql > export.tsv",
        "ndbsim init --ndbinfo export.tsv -o my.yaml   # from the running cluster",
        "ndbsim init --set version=8.0.36 -o my.yaml   # no config.ini: every default",
        "ndbsim validate my.yaml && ndbsim run my.yaml",
    ),
    "report": _examples(
        "ndbsim report scenarios/rolling-4-nodes-8.0.yaml -o report.html",
        "ndbsim report my.yaml --config-ini config.ini -o report.html --no-advise",
        "exit 4 (report still written): redo-overload, non-converging or stuck",
    ),
    "params": _examples(
        "ndbsim params",
        "ndbsim params --version 8.0.36",
        "ndbsim params --config-ini config.ini --version 8.0.35   # the thread layout NDB starts with",
    ),
    "ndbinfo_sql": _examples(
        "ndbsim ndbinfo-sql > ndbinfo.sql",
        "mysql --batch -h SQLNODE -u USER -p < ndbinfo.sql > export.tsv",
        "ndbsim init --ndbinfo export.tsv -o my.yaml",
    ),
    "check": _examples(
        "ndbsim check", "ndbsim check --cross   # leave-one-out", "ndbsim check --constants ndbsim-constants.yaml"
    ),
    "calibrate": _examples(
        "ndbsim calibrate --restart-info restart_info.csv --scenario my.yaml   # fits my.yaml's host",
        "ndbsim check --cases ndbsim-cases        # your own restarts, within tolerance?",
        "ndbsim calibrate                          # shared constants into ./ndbsim-constants.yaml",
        "ndbsim run my.yaml --constants ndbsim-constants.yaml",
        "ndbsim calibrate --replace-packaged       # refit the constants every run uses",
    ),
    "advise": _examples(
        "ndbsim advise my.yaml                               # every lever, ranked",
        "ndbsim advise --config-ini config.ini --version 8.0.35 --set data.size=200G --set data.rows=1.2B",
        "ndbsim advise my.yaml -l BuildIndexThreads -l MaxDiskWriteSpeedOtherNodeRestart -n 50",
        "ndbsim advise my.yaml -f json -o advice.json --chart advise.png",
        "exit 4 (ranking still printed): the restart as given would not finish",
    ),
    "solve": _examples(
        "ndbsim solve redo-log my.yaml                       # the least NoOfFragmentLogFiles",
        "ndbsim solve lcp-speed my.yaml --window 10m --quantile 0.95",
        "ndbsim solve data-size --config-ini config.ini --version 8.0.35 --window 30m",
        "ndbsim solve update-rate my.yaml -f json -o answer.json",
        "ndbsim solve plan rolling.yaml --window 20m            # the safest plan the replicas allow that fits",
    ),
    "eta": _examples(
        "ndbsim ndbinfo-sql --snapshot > snapshot.sql   # the short script: time, nodes, restart_info",
        "mysql --defaults-file=~/.my.cnf --batch < snapshot.sql > now.tsv",
        "ndbsim eta my.yaml --ndbinfo now.tsv              # who is done, restarting, waiting; the ends",
        "ndbsim eta my.yaml --ndbinfo now.tsv -f json      # per node: status, phase, elapsed, end, p5/p95",
        "ndbsim eta my.yaml --watch 30s -- --defaults-file=~/.my.cnf -h sql1   # until done: exit 0, overrun: 4",
        "ndbsim eta my.yaml --watch 30s --prometheus-textfile /var/lib/node_exporter/ndbsim.prom -- "
        "--defaults-file=~/.my.cnf",
        "ndbsim eta my.yaml --replay --speed 30 --prometheus-textfile /var/lib/node_exporter/ndbsim.prom   # dry run",
    ),
    "compare": _examples(
        "ndbsim compare my.yaml --set cluster.config.RecoveryWork=25   # my.yaml against itself changed",
        "ndbsim compare old.yaml new.yaml -n 20 -f csv -o compare.csv",
        "ndbsim compare my.yaml --config-ini a.ini --config-ini b.ini   # two config.ini, the same data",
    ),
    "sweep": _examples(
        "ndbsim sweep scenarios/sweeps/data-size-recovery-work.yaml -o out.csv --workers 2",
        "ndbsim sweep scenarios/sweeps/update-rate-random.yaml --shard 1/4 -o part1.csv",
        "ndbsim sweep scenarios/sweeps/data-size-recovery-work.yaml --config-ini config.ini -o mine.csv",
        "ndbsim sweep scenarios/sweeps/update-rate-random.yaml --scheduler tcp://HOST:8786  # ndbsim[cluster]",
    ),
}
"""Each command's examples, shown after its options in ``ndbsim COMMAND -h``."""


def package_version() -> str:
    """The installed ndbsim's version (``ndbsim --version``)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ndbsim")
    except PackageNotFoundError:
        return "unknown (not installed; pip install -e .)"
