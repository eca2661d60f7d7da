"""The processor-sharing CPU on hand-computed schedules."""

from __future__ import annotations

import pytest

from queuetune.simulation import _Events, _ProcessorSharingCPU


def _finish_times(jobs, speed=lambda: 1.0, until=100.0, changes=()):
    """Run jobs given as (arrival, work); return their completion times in job order."""
    events = _Events()
    cpu = _ProcessorSharingCPU(events, speed)
    finished = {}

    def job(index, arrival, work):
        yield arrival
        cpu.serve(work)
        yield None
        finished[index] = events.now

    def change(at, action):
        yield at
        action()
        cpu.speed_changed()

    for index, (arrival, work) in enumerate(jobs):
        events.start(job(index, arrival, work))
    for at, action in changes:
        events.start(change(at, action))
    events.run(until=until)
    return [finished.get(i) for i in range(len(jobs))]


def test_single_job_takes_its_work():
    assert _finish_times([(1.0, 2.5)]) == [pytest.approx(3.5)]


def test_two_jobs_share_equally():
    # both at rate 1/2 until t = 2 (job 0 done), then job 1 alone finishes its last unit
    assert _finish_times([(0.0, 1.0), (0.0, 2.0)]) == [pytest.approx(2.0), pytest.approx(3.0)]


def test_late_arrival_slows_the_first():
    # job 0 alone until 1 (1 of 3 done), shared until job 1 is done at 3, then alone to 4
    assert _finish_times([(0.0, 3.0), (1.0, 1.0)]) == [pytest.approx(4.0), pytest.approx(3.0)]


def test_speed_change_mid_service():
    state = {"speed": 1.0}

    def halve():
        state["speed"] = 0.5

    # 1 unit done by t = 1, the remaining 1 unit at speed 0.5 takes 2 more
    times = _finish_times([(0.0, 2.0)], speed=lambda: state["speed"], changes=[(1.0, halve)])
    assert times == [pytest.approx(3.0)]


def test_unfinished_job_stays_unfinished():
    assert _finish_times([(0.0, 5.0)], until=4.0) == [None]
