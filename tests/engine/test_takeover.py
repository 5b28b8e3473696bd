"""The DIH master's take-over of a node group (DbdihMain.cpp, Dbdih::execUPDATE_TOREQ): one starting
node copies in a node group at a time; a refused node asks again every 5 s (Dbdih::execUPDATE_TOREF),
with no queue, so the first retry after the owner's copy ends wins."""

import simpy

from ndbsim.engine.restart.takeover import UPDATE_TO_RETRY_SECS, NodeGroupTakeOver


def _copy(env, lock, node, ask_at, secs, log):
    yield env.timeout(ask_at)
    waited, first = yield from lock.acquire(node)
    log[node] = (env.now, waited, first)
    yield env.timeout(secs)
    lock.release(node)


def _run(*copies):
    env = simpy.Environment()
    lock = NodeGroupTakeOver(env)
    log: dict[int, tuple[float, float, int | None]] = {}
    for node, ask_at, secs in copies:
        env.process(_copy(env, lock, node, ask_at, secs, log))
    env.run()
    return log


def test_the_retry_after_the_owners_copy_ends_gets_the_take_over():
    # node 2 is refused at 2 s, asks again at 7, 12, ...; node 1's copy ends at 100 s: granted at 102 s
    log = _run((1, 0.0, 100.0), (2, 2.0, 50.0))
    assert log[1] == (0.0, 0.0, None)
    assert log[2] == (102.0, 100.0, 1)
    assert UPDATE_TO_RETRY_SECS == 5.0


def test_with_no_queue_the_earliest_retry_wins_and_the_others_wait_for_the_next_release():
    # nodes 2 and 3 are refused at 1 s and 4 s: after node 1 ends at 100 s, node 2 retries at 101 s,
    # before node 3 at 104 s; node 3 then waits for node 2's copy (ends 111 s): its retry at 114 s
    log = _run((1, 0.0, 100.0), (2, 1.0, 10.0), (3, 4.0, 20.0))
    assert log[2] == (101.0, 100.0, 1)
    assert log[3] == (114.0, 110.0, 1)


def test_node_groups_are_independent_and_a_free_group_grants_at_once():
    env = simpy.Environment()
    a, b = NodeGroupTakeOver(env), NodeGroupTakeOver(env)
    log: dict[int, tuple[float, float, int | None]] = {}
    env.process(_copy(env, a, 1, 0.0, 100.0, log))
    env.process(_copy(env, b, 4, 1.0, 100.0, log))
    env.run()
    assert log[4] == (1.0, 0.0, None)
    # a release by a node that does not hold it changes nothing
    a.release(7)
    assert a.owner is None
