"""queuetune.fleet_sizing: a fleet's pool per instance against one database."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from queuetune.fleet_sizing import RESOURCES, size_fleet
from queuetune.sizing import size


@settings(max_examples=12, deadline=None, derandomize=True)
@given(instances=st.integers(1, 4), max_connections=st.integers(4, 40),
       reserved=st.integers(0, 3), processors=st.integers(1, 4),
       db_processors=st.integers(1, 4), cpu_ms=st.integers(5, 50),
       wait_ms=st.integers(10, 200), db_ms=st.integers(2, 20),
       load=st.floats(0.1, 0.9), contention=st.sampled_from([0.0, 0.05]))
def test_never_more_connections_in_total_than_the_limit(
        instances, max_connections, reserved, processors, db_processors, cpu_ms, wait_ms,
        db_ms, load, contention):
    s_c, s_w, s_db = cpu_ms / 1000, wait_ms / 1000, db_ms / 1000
    rate = load * min(instances * processors / s_c, db_processors / s_db)
    r = size_fleet(processors=processors, cpu_time=s_c, wait_time=s_w, db_time=s_db,
                   db_processors=db_processors, arrival_rate=rate, instances=instances,
                   db_max_connections=max_connections, db_reserved_connections=reserved,
                   db_contention=contention, read_timeout=2)
    assert r.total_connections == r.instances * r.connections
    assert 1 <= r.total_connections <= max_connections - reserved
    assert r.threads >= r.connections and r.capacity >= r.threads
    assert r.limiting_resource in RESOURCES
    assert all(row["within_limit"] == (row["total_connections"] <= max_connections - reserved)
               for row in r.pools)


def test_a_one_processor_database_limits_the_fleet():
    r = size_fleet(processors=8, cpu_time=0.01, wait_time=0.05, db_time=0.02,
                   db_processors=1, arrival_rate=40, instances=2, read_timeout=2)
    assert r.limiting_resource == "database processors"
    # the utilization law gives 0.8; the fixed point (others by their mean) reads 0.85
    assert r.database_utilization == pytest.approx(40 * 0.02, rel=0.15)
    # past the knee, a larger pool only moves the waiting from the pool into the database
    rows = {row["connections"]: row for row in r.pools}
    small, large = rows[r.connections], rows[max(rows)]
    assert large["connection_wait"] < small["connection_wait"]
    assert large["database_time"] > small["database_time"]
    assert large["response_time"] > 0.9 * small["response_time"]


def test_a_tight_connection_limit_caps_the_pool_and_limits_the_fleet():
    r = size_fleet(processors=8, cpu_time=0.005, wait_time=0.2, db_time=0.001,
                   db_processors=16, arrival_rate=50, instances=2, db_max_connections=8,
                   read_timeout=2)
    assert r.connection_limit == 5 and r.connections == 2 and r.total_connections == 4
    assert r.single_server["connections"] > 2
    assert r.limiting_resource == "connection limit"
    assert any("at most 2 per instance" in w for w in r.warnings)


def test_few_instance_processors_limit_the_fleet():
    r = size_fleet(processors=2, cpu_time=0.1, wait_time=0.01, db_time=0.001,
                   db_processors=8, arrival_rate=30, instances=2, read_timeout=2)
    assert r.limiting_resource == "instance processors"


def test_one_instance_and_a_database_that_never_queues_is_the_single_server_sizing():
    r = size_fleet(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01,
                   arrival_rate=100, instances=1, db_max_connections=1000)
    one = size(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=100)
    assert (r.connections, r.threads, r.capacity) == (one.connections, one.threads,
                                                       one.capacity)
    assert r.response_time == pytest.approx(one.response_time, rel=1e-9)


def test_instances_are_found_from_the_processors_per_instance():
    r = size_fleet(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01,
                   db_processors=4, arrival_rate=300)
    assert r.instances == 3
    assert size(processors=8, cpu_time=0.04, wait_time=0.2,
                arrival_rate=300 / 2).processors_needed > 8


def test_with_contention_the_pool_gives_the_best_response_time():
    r = size_fleet(processors=8, cpu_time=0.01, wait_time=0.01, db_time=0.01,
                   db_processors=2, arrival_rate=100, instances=2, db_contention=0.1,
                   read_timeout=2)
    within = [row for row in r.pools if row["within_limit"]
              and row["connections"] <= r.single_server["connections"]]
    carry = min(1.5 * 100, 0.95 * max(row["ceiling"] for row in within))
    enough = [row for row in within if row["ceiling"] >= carry]
    assert r.response_time <= min(row["response_time"] for row in enough) * (1 + 1e-9)
    # a pool past the knee is worse at the peak: contention makes the database slower
    assert r.pools[-1]["response_time"] > 10 * r.response_time


@pytest.mark.parametrize("kwargs, message", [
    ({"db_max_connections": 2}, "db_max_connections must be an integer in [4, 100000]"),
    ({"instances": 200}, "db_max_connections must leave at least one connection"),
    ({"db_contention": -1}, "db_contention must be a number in [0, 10]"),
    ({"db_time": 0}, "db_time must be"),
    ({"db_processors": 0}, "db_processors must be an integer in [1, 4096]"),
])
def test_bad_input_names_the_parameter(kwargs, message):
    args = dict(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01, db_processors=4,
                arrival_rate=300, instances=3)
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        size_fleet(**{**args, **kwargs})


def test_with_contention_a_pool_below_the_single_server_one_is_faster():
    r = size_fleet(processors=8, cpu_time=0.005, wait_time=0.005, db_time=0.01,
                   db_processors=1, arrival_rate=85, instances=2, db_contention=0.02,
                   read_timeout=2)
    rows = {row["connections"]: row for row in r.pools}
    single = r.single_server["connections"]
    assert r.connections < single
    assert r.response_time < rows[single]["response_time"]
    assert r.response_time < rows[1]["response_time"]


def test_a_fleet_that_cannot_carry_the_peak_says_so():
    r = size_fleet(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01,
                   db_processors=16, arrival_rate=1280, instances=64)
    assert r.connections == 1 and r.total_connections == 64
    assert r.limiting_resource == "connection limit"
    assert any(w.startswith("the fleet cannot carry the peak") for w in r.warnings)
    ok = size_fleet(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01,
                    db_processors=4, arrival_rate=300, instances=3)
    assert not any(w.startswith("the fleet cannot carry the peak") for w in ok.warnings)
    assert ("the fleet saturates at 1.27× the peak, short of the headroom of 1.5×: the "
            "database processors limit it") in ok.warnings


@pytest.mark.parametrize("instances", [None, 3])
def test_closed_clients_size_the_fleet_like_their_throughput_as_a_rate(instances):
    """K clients thinking Z peak at K/(Z + S); the fleet sized for them keeps the limit and
    finds the same instances as that rate does (both from the single-server criterion)."""
    args = dict(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01, db_processors=4,
                instances=instances)
    closed = size_fleet(clients=600, think_time=1.8, **args)
    assert closed.peak == pytest.approx(600 / (1.8 + 0.24), rel=1e-12)
    rate = size_fleet(arrival_rate=closed.peak, **args)
    assert closed.instances == rate.instances == 3  # exact: a count
    assert closed.inputs["clients"] == 600 and closed.inputs["arrival_rate"] is None
    assert 1 <= closed.total_connections <= closed.connection_limit
    assert closed.limiting_resource in RESOURCES
    # closed clients slow down as the fleet does: the throughput never passes the peak
    assert 0 < closed.throughput <= closed.peak * (1 + 1e-9)
    assert closed.response_time == pytest.approx(rate.response_time, rel=0.1)


def test_closed_clients_fewer_than_the_instances_still_get_a_fleet():
    r = size_fleet(processors=2, cpu_time=0.01, wait_time=0.02, db_time=0.01,
                   db_processors=2, clients=2, think_time=0.5, instances=4)
    assert r.single_server["connections"] >= 1 and r.connections >= 1
    assert r.total_connections == 4 * r.connections <= r.connection_limit
    assert r.throughput == pytest.approx(2 / (0.5 + r.response_time), rel=1e-6)


def test_the_json_answer_holds_the_fleet_and_its_limit():
    r = size_fleet(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01,
                   db_processors=4, arrival_rate=300).as_dict()
    for key in ("instances", "connections", "total_connections", "database_utilization",
                "limiting_resource", "connection_limit"):
        assert key in r
    assert r["total_connections"] <= r["connection_limit"] == 97
