"""The engine's records: the status strings results carry, the facts in the order a restart
learns them, and every restart_info column recorded by every restart type's table of steps."""

import json

import pytest

import ndbsim
from ndbsim.engine.records import NodeFacts, Status
from ndbsim.input.restart_info import PHASES


def test_statuses_serialise_as_their_strings():
    assert json.dumps([Status.OK, Status.REDO_OVERLOAD]) == '["ok", "redo-overload"]'
    assert f"{Status.NON_CONVERGING}" == "non-converging"
    assert Status.STUCK == "stuck"


def test_facts_keep_only_what_the_restart_learnt_in_its_order():
    f = NodeFacts(lcp_count_at_crash=3)
    f.local_lcp_secs = 2.0
    f.copied_rows = 10.0
    assert list(f.as_dict().items()) == [("lcp_count_at_crash", 3), ("copied_rows", 10.0), ("local_lcp_secs", 2.0)]


@pytest.mark.parametrize(
    ("sets", "in_column_order"),
    [
        (["restart.type=node"], True),
        (["restart.type=initial", "cluster.config.TwoPassInitialNodeRestartCopy=false"], True),
        (["restart.type=system"], True),
        (["restart.type=rolling"], True),
        # the first copy pass runs before the offline index rebuild, the second after it
        (["restart.type=initial", "cluster.config.TwoPassInitialNodeRestartCopy=true"], False),
    ],
)
def test_every_restart_type_records_every_column(root, sets, in_column_order):
    r = ndbsim.simulate(root / "scenarios/dbt2-600wh-7.6.6.yaml", overrides=sets, replications=1)
    assert r.status == "ok"
    for node in r.first.nodes:
        seen = list(dict.fromkeys(p for p, _, _ in node.spans))
        assert sorted(seen, key=PHASES.index) == list(PHASES)
        assert (seen == list(PHASES)) is in_column_order
