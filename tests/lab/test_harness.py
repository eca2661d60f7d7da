"""queuetune.lab.harness: what the runner and an experiment hand each other."""

from __future__ import annotations

import contextlib

from queuetune.lab.harness import Counters, Measured, Server, Session


def test_counters_since_an_earlier_reading_are_the_differences():
    before = Counters(answered=10, rejected=2, server_time_us_sum=5_000)
    now = Counters(answered=25, rejected=3, server_time_us_sum=12_500)
    assert now.since(before) == Counters(15, 1, 7_500)
    assert now.since(now) == Counters(0, 0, 0)


def test_a_target_the_user_started_has_nothing_the_runner_can_see():
    server = Server("http://127.0.0.1:8080")
    assert (server.pids, server.counters, server.alive, server.probe) == (None,) * 4
    assert server.cores == () and server.handle is None


def test_measured_runs_own_their_tables_and_checks():
    first = Measured(row={"run": 1}, window=(0.0, 1.0), refused_seen=0, connection_errors=0)
    second = Measured(row={"run": 2}, window=(0.0, 1.0), refused_seen=0, connection_errors=0)
    first.failed_checks.append("x")
    assert first.tables == {} and second.failed_checks == []


def test_a_session_steps_through_the_runners_progress():
    steps = []

    @contextlib.contextmanager
    def step(label):
        steps.append(("enter", label))
        yield
        steps.append(("exit", label))

    session = Session(plan=None, options=None, writer=None, step=step)
    with session.progress("warm-up"):
        steps.append(("inside", "warm-up"))
    assert steps == [("enter", "warm-up"), ("inside", "warm-up"), ("exit", "warm-up")]
    with Session(plan=None, options=None, writer=None).progress("no bar"):
        pass  # without a progress bar, a step does nothing
