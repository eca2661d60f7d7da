"""simulate_fleet against the fleet's exact chain, and its refusals."""

from __future__ import annotations

import pytest

from queuetune import thread_pool
from queuetune.simulation import FLEET_METRICS, simulate_fleet

RUN = {"horizon": 400.0, "warmup": 40.0, "replications": 3, "seed": 11}


@pytest.mark.parametrize("workload", [{"arrival_rate": 24.0},
                                      {"clients": 8, "think_time": 0.25}])
def test_simulated_fleet_agrees_with_exact_chain(workload):
    """Two instances of two processors, pools of two, a database of one processor with
    contention: every metric of the exact chain lies within three half-widths of the
    simulation's 95 % interval (a fixed seed)."""
    point = {**workload, "instances": 2, "capacity": 4, "threads": 3, "processors": 2,
             "connections": 2, "cpu_time": 0.05, "wait_time": 0.08, "db_time": 0.02,
             "db_processors": 1, "db_contention": 0.3}
    exact = thread_pool(**point, method="exact")
    sim = simulate_fleet(**point, **RUN)
    assert sim.metrics == FLEET_METRICS
    for metric in FLEET_METRICS:
        value = float(getattr(exact, metric))
        slack = 3 * sim.half_width(metric) + 1e-9 * max(1.0, abs(value))
        assert abs(sim.estimate[metric] - value) <= slack, (metric, value, sim.estimate[metric])


def test_database_without_processor_limit_reports_no_utilization():
    sim = simulate_fleet(arrival_rate=5.0, capacity=5, cpu_time=0.01, wait_time=0.01,
                         db_time=0.05, instances=2, horizon=100.0, warmup=10.0,
                         replications=2)
    assert sim.estimate["database_utilization"] == 0.0
    assert sim.estimate["database_requests"] > 0


@pytest.mark.parametrize("kwargs, message", [
    ({"instances": 0}, "instances"),
    ({"db_processors": 0}, "db_processors"),
    ({"db_time": -0.1}, "db_time"),
    ({"db_contention": 0.2}, "db_contention must be 0 when db_time is 0"),
    ({"db_contention": -1.0, "db_time": 0.1}, "db_contention"),
    ({"cpu_time": 0.0, "wait_time": 0.0}, "must not all be 0"),
])
def test_bad_arguments_are_refused(kwargs, message):
    point = {"arrival_rate": 5.0, "capacity": 4, "cpu_time": 0.01, "wait_time": 0.02}
    with pytest.raises(ValueError, match=message):
        simulate_fleet(**{**point, **kwargs})


def test_batch_population_is_refused():
    with pytest.raises(ValueError, match="think_time must be > 0"):
        simulate_fleet(clients=3, think_time=0.0, capacity=3, cpu_time=0.01, wait_time=0.02,
                       instances=2)


def test_long_runs_are_refused_before_they_start():
    with pytest.raises(ValueError, match="MAX_SECONDS"):
        simulate_fleet(arrival_rate=1e5, capacity=4, cpu_time=0.01, wait_time=0.02,
                       instances=2)
