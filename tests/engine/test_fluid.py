"""The fluid allocator on its own: max-min fair shares, caps, fixed loads, cancel, batches."""

from __future__ import annotations

import pytest
import simpy

from ndbsim.engine.fluid.system import FluidSystem


def system(**capacities: float) -> tuple[simpy.Environment, FluidSystem]:
    env = simpy.Environment()
    fs = FluidSystem(env)
    for name, cap in capacities.items():
        fs.add_resource(name, cap)
    return env, fs


def finish_times(env, flows) -> list[float]:
    ends = {}

    def watch(i, f):
        yield f.done
        ends[i] = env.now

    for i, f in enumerate(flows):
        env.process(watch(i, f))
    env.run()
    return [ends[i] for i in range(len(flows))]


def test_two_flows_share_a_disk_equally_then_the_survivor_speeds_up():
    env, fs = system(disk=100.0)
    a = fs.transfer(100.0, {"disk": 1.0})
    b = fs.transfer(300.0, {"disk": 1.0})
    assert a.rate == pytest.approx(50.0) and b.rate == pytest.approx(50.0)
    # a ends at 2 s; b has 200 left and then gets all 100/s: ends at 4 s
    assert finish_times(env, [a, b]) == pytest.approx([2.0, 4.0])


def test_a_capped_flow_leaves_the_rest_to_the_other():
    env, fs = system(cpu=10.0)
    slow = fs.transfer(10.0, {"cpu": 1.0}, cap=2.0)
    fast = fs.transfer(80.0, {"cpu": 1.0})
    assert slow.rate == pytest.approx(2.0) and fast.rate == pytest.approx(8.0)
    # slow ends at 5 s; fast has done 40, then gets all 10/s for the other 40: ends at 9 s
    assert finish_times(env, [slow, fast]) == pytest.approx([5.0, 9.0])


def test_max_min_across_two_resources():
    # x uses cpu and disk, y only disk: disk (cap 6) is the bottleneck shared 3/3;
    # z uses only cpu and gets what x leaves of the cpu (10 - 3)
    _, fs = system(cpu=10.0, disk=6.0)
    x = fs.transfer(1e6, {"cpu": 1.0, "disk": 1.0})
    y = fs.transfer(1e6, {"disk": 1.0})
    z = fs.transfer(1e6, {"cpu": 1.0})
    assert (x.rate, y.rate, z.rate) == pytest.approx((3.0, 3.0, 7.0))


def test_fixed_load_and_cancel_change_the_shares_at_once():
    _, fs = system(net=100.0)
    a = fs.transfer(1e6, {"net": 1.0})
    fs.set_fixed_loads({"net": 60.0})
    assert a.rate == pytest.approx(40.0)
    b = fs.transfer(1e6, {"net": 1.0})
    assert a.rate == pytest.approx(20.0) and b.rate == pytest.approx(20.0)
    fs.cancel(b)
    assert b.done.triggered and a.rate == pytest.approx(40.0)
    assert fs.spare("net") == pytest.approx(40.0)


def three_flows(batched: bool) -> tuple[list[float], list[float], int]:
    """(finish times, starting rates, reallocations made at t=0)."""
    env, fs = system(d1=1.0, d2=1.0, c=4.0)
    done_at_zero = []
    flush = fs.flush

    def counting_flush() -> None:
        if not fs._held:  # a flush inside a batch only marks the batch for one at its end
            done_at_zero.append(env.now == 0.0)
        flush()

    fs.flush = counting_flush  # type: ignore[method-assign]

    def start() -> list:
        return [
            fs.transfer(3.0, {"d1": 1.0, "c": 1.0}),
            fs.transfer(5.0, {"d2": 1.0, "c": 1.0}),
            fs.transfer(8.0, {"c": 2.0}),
        ]

    if batched:
        with fs.batch:
            flows = start()
    else:
        flows = start()
    rates = [f.rate for f in flows]
    return finish_times(env, flows), rates, sum(done_at_zero)


def test_a_batch_reallocates_once_with_the_same_outcome():
    t_plain, r_plain, n_plain = three_flows(batched=False)
    t_batch, r_batch, n_batch = three_flows(batched=True)
    assert t_batch == pytest.approx(t_plain) and r_batch == pytest.approx(r_plain)
    assert n_plain == 3 and n_batch == 1


def test_zero_work_finishes_at_once_and_no_flow_runs_forever():
    env, fs = system(disk=1.0)
    f = fs.transfer(0.0, {"disk": 1.0})
    assert f.done.triggered
    g = fs.transfer(5.0, {"disk": 0.0})  # needs nothing: unbounded, ends now
    assert finish_times(env, [g]) == pytest.approx([0.0])


def test_an_alarm_rings_while_its_flow_runs_and_costs_nothing_once_it_has_finished():
    env, fs = system(disk=1.0)
    f = fs.transfer(10.0, {"disk": 1.0})  # ends at 10
    rang = []
    fs.alarm(4.0, lambda: (rang.append(env.now), fs.set_cap(f, 0.5)), [f])  # slows it down at 4
    assert finish_times(env, [f]) == pytest.approx([4.0 + 6.0 / 0.5])
    assert rang == pytest.approx([4.0])

    events = []
    for with_alarm in (False, True):
        env, fs = system(disk=1.0)
        g = fs.transfer(3.0, {"disk": 1.0})  # ends at 3, before the alarm
        if with_alarm:
            fs.alarm(4.0, lambda: rang.append("late"), [g])
        assert finish_times(env, [g]) == pytest.approx([3.0])
        events.append(next(env._eid))
    assert "late" not in rang
    assert events[0] == events[1]  # the alarm whose flow finished first simulated no event


def test_a_change_reallocates_only_the_flows_linked_to_it():
    env, fs = system(d1=1.0, d2=1.0)
    a = fs.transfer(10.0, {"d1": 1.0})
    env.run(until=2.0)
    b = fs.transfer(10.0, {"d2": 1.0})  # another disk: a's share and bookkeeping stay as they were
    assert a.since == 0.0 and a.remaining == 10.0 and a.rate == 1.0
    c = fs.transfer(4.0, {"d1": 1.0})  # a's disk: a is brought up to now and shares it
    assert a.since == 2.0 and a.remaining == pytest.approx(8.0) and a.rate == pytest.approx(0.5)
    # a: 8 left at 0.5/s while c runs (4 at 0.5/s: 8 s), then 4 at 1/s; b alone throughout
    assert finish_times(env, [a, b, c]) == pytest.approx([14.0, 12.0, 10.0])


def test_cancelling_the_flow_that_linked_two_groups_frees_both():
    _env, fs = system(cpu=4.0, disk=2.0)
    x = fs.transfer(1e6, {"cpu": 1.0, "disk": 1.0})
    y = fs.transfer(1e6, {"cpu": 1.0})
    z = fs.transfer(1e6, {"disk": 1.0})
    assert (x.rate, y.rate, z.rate) == pytest.approx((1.0, 3.0, 1.0))
    fs.cancel(x)
    assert (y.rate, z.rate) == pytest.approx((4.0, 2.0))
