"""queuetune.lab.monitor: the share of a core that a process group and each core used over an
interval, interpolated between readings (here readings the test makes up, no thread)."""

from __future__ import annotations

import math
import os

import pytest

from queuetune.lab import monitor


class Clock:
    """Readings on demand: the wall-clock time and each PID's and core's cumulative seconds."""

    def __init__(self, monkeypatch):
        self.now = 100.0
        self.seconds: dict[int, float] = {}
        self.cores = [0.0, 0.0]
        self.steal = [0.0, 0.0]
        monkeypatch.setattr(monitor.time, "time", lambda: self.now)
        monkeypatch.setattr(monitor, "_process_seconds",
                            lambda pids: sum(self.seconds.get(p, 0.0) for p in pids))
        monkeypatch.setattr(monitor, "_core_seconds",
                            lambda: (list(self.cores), list(self.steal)))


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch)


def test_share_is_the_seconds_used_over_the_interval_interpolated(clock):
    pids = [11, 12]
    cpu = monitor.CpuMonitor({"server": lambda: pids})
    cpu._sample()  # t = 100: nothing used yet
    clock.now, clock.seconds = 102.0, {11: 1.0, 12: 0.5}
    clock.cores = [1.5, 2.0]
    cpu._sample()  # t = 102: 1.5 s used in 2 s
    clock.now, clock.seconds = 104.0, {11: 1.5, 12: 0.5}
    clock.cores, clock.steal = [2.0, 4.0], [0.0, 0.5]
    cpu._sample()  # t = 104: 0.5 s more
    assert cpu.share("server", 100.0, 102.0) == pytest.approx(0.75)
    assert cpu.share("server", 101.0, 103.0) == pytest.approx((1.75 - 0.75) / 2)
    assert cpu.share("server", 100.0, 104.0) == pytest.approx(0.5)
    assert cpu.core_share(1, 100.0, 104.0) == pytest.approx(1.0)
    assert cpu.core_share(0, 102.0, 104.0) == pytest.approx(0.25)
    assert cpu.core_share(1, 102.0, 104.0, steal=True) == pytest.approx(0.25)
    assert cpu.cores_share((0, 1), 102.0, 104.0) == pytest.approx((0.25 + 1.0) / 2)


def test_a_process_that_ended_keeps_its_last_reading(clock):
    pids = [21, 22]
    cpu = monitor.CpuMonitor({"generator": lambda: pids})
    clock.seconds = {21: 2.0, 22: 1.0}
    cpu._sample()
    clock.now = 101.0
    del clock.seconds[22]  # the process is gone: psutil reads nothing
    cpu._sample()
    pids.remove(22)  # and its PID is no longer listed
    clock.now = 102.0
    cpu._sample()
    assert cpu.values["generator"] == [3.0, 3.0, 3.0]


def test_share_is_nan_without_an_interval_or_two_readings(clock):
    cpu = monitor.CpuMonitor({"server": list})
    cpu._sample()
    assert math.isnan(cpu.share("server", 100.0, 101.0))  # one reading
    clock.now = 101.0
    cpu._sample()
    assert math.isnan(cpu.share("server", 101.0, 101.0))
    assert math.isnan(cpu.core_share(0, 101.0, 100.0))
    assert cpu.share("server", 100.0, 101.0) == 0.0


def test_the_monitor_samples_at_entry_and_exit():
    """The real readings of this process: cumulative, so they never fall."""
    with monitor.CpuMonitor({"me": lambda: [os.getpid()]}, interval_s=0.05) as cpu:
        sum(i * i for i in range(200_000))
    assert len(cpu.times) >= 2 and cpu.times == sorted(cpu.times)
    assert cpu.values["me"] == sorted(cpu.values["me"]) and cpu.values["me"][-1] > 0
    assert len(cpu.cores[0]) == len(cpu.cores[-1]) >= 1
    assert not cpu._thread.is_alive()


def test_a_reading_between_the_clock_and_the_values_of_a_sample_is_answered(clock):
    # the sampling thread appends the time first: a reader in between sees one time more
    cpu = monitor.CpuMonitor({"server": list})
    cpu._sample()
    clock.now = 102.0
    cpu._sample()
    cpu.times.append(104.0)  # the next sample's time, its readings not yet appended
    assert cpu.share("server", 100.0, 102.0) == pytest.approx(0.0)
    assert cpu.core_share(0, 100.0, 102.0) == pytest.approx(0.0)


def test_raw_samples_are_every_reading_of_the_window_long(clock):
    clock.seconds = {11: 1.0}
    m = monitor.CpuMonitor({"server": lambda: [11]})
    for now, used, core in ((100.0, 1.0, 5.0), (100.25, 1.2, 5.3), (100.5, 1.5, 5.5),
                            (101.0, 2.0, 6.0)):
        clock.now, clock.seconds[11], clock.cores[1] = now, used, core
        m.sample()
    rows = monitor.run_samples(m, 100.0, 100.5, cores=(1,))
    # three readings in [100, 100.5], three series each (the server, core 1, its steal)
    assert len(rows) == 9
    assert [r["t_s"] for r in rows if r["series"] == "server"] == pytest.approx(
        [0.0, 0.25, 0.5], abs=1e-9)  # rounded to 0.1 ms, from exactly representable times
    assert [r["seconds"] for r in rows if r["series"] == "core1"] == pytest.approx(
        [5.0, 5.3, 5.5], abs=1e-9)
    assert {r["series"] for r in rows} == {"server", "core1", "steal1"}


def test_the_processor_time_per_answer_is_the_share_over_the_throughput():
    # 0.73 of a core for 20 s over 1,000 answers: 14.6 ms each (D = U / X)
    assert monitor.per_answer_ms(0.73, 20.0, 1000) == pytest.approx(14.6, rel=1e-12)
    assert monitor.per_answer_ms(0.73, 20.0, 0) is None
    assert monitor.per_answer_ms(float("nan"), 20.0, 10) is None
    rows = [{"start_s": "1.0", "outcome": "ok", "server_cpu_us": "14000"},
            {"start_s": "6.0", "outcome": "ok", "server_cpu_us": "1000"},
            {"start_s": "2.0", "outcome": "ok", "server_cpu_us": ""}]
    assert monitor.thread_cpu_ms(rows, 0.0, 5.0) == pytest.approx(14.0, rel=1e-12)
    assert monitor.thread_cpu_ms(rows, 7.0, 9.0) is None
