"""Every public function refuses bad input with a ValueError that names the parameter."""

from __future__ import annotations

import math

import numpy as np
import pytest

from queuetune import Station, mm1bk, mva, thread_pool
from queuetune._validation import as_choice, as_integer, as_nonnegative, as_positive
from queuetune.models.thread_pool_server import EXACT_MAX_STATES

MM1BK = {"clients": 10, "capacity": 50, "service_time": 0.14, "think_time": 4.0}
POOL = {
    "clients": 10,
    "capacity": 50,
    "threads": 5,
    "cpu_time": 0.02,
    "wait_time": 0.1,
    "think_time": 4.0,
    "thread_overhead": 0.0,
    "pool_overhead": 0.0,
}

NOT_INTEGERS = [-1, 0, 0.5, 2.5, math.nan, math.inf, -math.inf, "3", True, None, 1 + 2j, [],
                [3, 0], [[1, 2], [3]]]
NOT_POSITIVE = [-1.0, 0, 0.0, math.nan, math.inf, -math.inf, "0.1", False, None, [], [0.1, -2]]
NOT_NONNEGATIVE = [-1.0, -1e-300, math.nan, math.inf, "0.1", True, None, [], [0.1, math.nan]]


def _check(call, name):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert name in message, message
    assert "must" in message, message
    return message


@pytest.mark.parametrize("name", ["clients", "capacity"])
@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_mm1bk_integer_arguments(name, bad):
    _check(lambda: mm1bk(**{**MM1BK, name: bad}), name)


@pytest.mark.parametrize("name", ["service_time", "think_time"])
@pytest.mark.parametrize("bad", NOT_POSITIVE, ids=repr)
def test_mm1bk_positive_arguments(name, bad):
    _check(lambda: mm1bk(**{**MM1BK, name: bad}), name)


def test_capacity_message_states_the_range():
    message = _check(lambda: mm1bk(**{**MM1BK, "capacity": 0.5}), "capacity")
    assert message == "capacity must be an integer >= 1, got 0.5"
    message = _check(lambda: mm1bk(**{**MM1BK, "capacity": 0}), "capacity")
    assert message == "capacity must be an integer >= 1, got 0"


def test_array_messages_name_the_first_bad_value():
    message = _check(lambda: mm1bk(clients=[10, 20, -3, 0], capacity=50, service_time=0.14,
                                   think_time=4.0), "clients")
    assert message.endswith("got -3")


def test_integer_valued_floats_are_accepted():
    assert mm1bk(clients=10.0, capacity=50.0, service_time=0.14,
                 think_time=4.0).throughput == mm1bk(clients=10, capacity=50, service_time=0.14,
                                                     think_time=4.0).throughput


def test_mm1bk_shapes_must_broadcast():
    _check(lambda: mm1bk(clients=[1, 2], capacity=[1, 2, 3], service_time=0.14, think_time=4.0),
           "broadcast")


@pytest.mark.parametrize("name", ["service_time", "think_time"])
@pytest.mark.parametrize("bad", [1e-101, 1e101, 5e-324, 1e300])
def test_mm1bk_times_out_of_range(name, bad):
    message = _check(lambda: mm1bk(**{**MM1BK, name: bad}), name)
    assert message == f"{name} must be a number in [1e-100, 1e+100], got {bad!r}"


def test_huge_integers_are_refused():
    _check(lambda: mm1bk(clients=10**20, capacity=5, service_time=0.14, think_time=4.0), "clients")


@pytest.mark.parametrize("name", ["clients", "capacity", "threads"])
@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_thread_pool_integer_arguments(name, bad):
    if name == "threads" and bad is None:  # no thread limit (virtual threads)
        assert thread_pool(**{**POOL, name: bad}).threads is None
        return
    _check(lambda: thread_pool(**{**POOL, name: bad}), name)


@pytest.mark.parametrize("name", ["cpu_time", "wait_time", "thread_overhead", "pool_overhead"])
@pytest.mark.parametrize("bad", NOT_NONNEGATIVE, ids=repr)
def test_thread_pool_nonnegative_arguments(name, bad):
    _check(lambda: thread_pool(**{**POOL, name: bad}), name)


@pytest.mark.parametrize("bad", NOT_POSITIVE, ids=repr)
def test_thread_pool_think_time(bad):
    if bad == 0 and not isinstance(bad, bool):
        # a batch population: accepted with capacity >= clients, refused below it
        assert thread_pool(**{**POOL, "think_time": bad}).p0 == 0
        _check(lambda: thread_pool(**{**POOL, "think_time": bad, "capacity": 9}), "think_time")
        return
    _check(lambda: thread_pool(**{**POOL, "think_time": bad}), "think_time")


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_thread_pool_cpu_and_wait_not_both_zero(method):
    message = _check(
        lambda: thread_pool(**{**POOL, "cpu_time": 0.0, "wait_time": 0.0}, method=method),
        "cpu_time",
    )
    assert "wait_time" in message


@pytest.mark.parametrize("bad", ["EXACT", "mva", "", None, 1])
def test_thread_pool_unknown_method(bad):
    message = _check(lambda: thread_pool(**POOL, method=bad), "method")
    assert "'exact'" in message and "'fes'" in message


@pytest.mark.parametrize("name", ["cpu_time", "wait_time", "think_time"])
def test_thread_pool_times_out_of_range(name):
    _check(lambda: thread_pool(**{**POOL, name: 1e-200}), name)


def test_thread_pool_overhead_out_of_range():
    _check(lambda: thread_pool(**{**POOL, "thread_overhead": 1e300}), "thread_overhead")


def test_thread_pool_exact_refuses_a_chain_too_large_for_memory():
    big = {**POOL, "clients": 10**5, "capacity": 10**5, "threads": 1000}
    message = _check(lambda: thread_pool(**big, method="exact"), "capacity")
    assert "too large" in message and "method='fes'" in message
    assert str(EXACT_MAX_STATES) in message
    # the approximation solves it
    assert thread_pool(**big, method="fes").throughput > 0


def test_thread_pool_fes_refuses_huge_overhead_inner_networks():
    big = {**POOL, "clients": 10**6, "capacity": 10**6, "threads": 10**6,
           "thread_overhead": 0.01}
    _check(lambda: thread_pool(**big, method="fes"), "threads")


def test_thread_pool_shapes_must_broadcast():
    _check(lambda: thread_pool(**{**POOL, "clients": [1, 2], "threads": [1, 2, 3]}),
           "broadcast")


@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_mva_population(bad):
    _check(lambda: mva(bad, [0.1], think_time=1.0), "population")


def test_mva_population_must_be_one_integer():
    _check(lambda: mva([3, 4], [0.1]), "population")


@pytest.mark.parametrize("bad", NOT_NONNEGATIVE, ids=repr)
def test_mva_think_time(bad):
    _check(lambda: mva(5, [0.1], think_time=bad), "think_time")


@pytest.mark.parametrize("bad", NOT_POSITIVE, ids=repr)
def test_mva_station_demand(bad):
    _check(lambda: mva(5, [bad], think_time=1.0), "demand")
    _check(lambda: Station.queue(bad), "demand")
    _check(lambda: Station.delay(bad), "demand")
    _check(lambda: Station.load_dependent(bad, [1.0, 2.0]), "demand")


@pytest.mark.parametrize("bad", [[1.0, 0.0], [math.nan], [-1.0], [math.inf], [], [[1.0]]],
                         ids=repr)
def test_mva_rates(bad):
    _check(lambda: Station.load_dependent(0.1, bad), "rates")


@pytest.mark.parametrize("bad", [lambda j: 0.0 * j, lambda j: -j, lambda j: np.nan * j])
def test_mva_rate_functions_are_checked_when_used(bad):
    station = Station.load_dependent(0.1, bad)
    _check(lambda: mva(5, [station], think_time=1.0), "rates")


@pytest.mark.parametrize("bad", NOT_INTEGERS, ids=repr)
def test_mva_servers(bad):
    _check(lambda: Station.multiserver(0.1, bad), "servers")


def test_mva_station_kind_and_rates():
    _check(lambda: Station(0.1, kind="fcfs"), "kind")
    _check(lambda: Station(0.1, kind="queue", rates=[1.0]), "rates")
    _check(lambda: Station(0.1, kind="load-dependent"), "rates")


def test_mva_stations_must_be_a_nonempty_sequence():
    _check(lambda: mva(5, []), "stations")
    _check(lambda: mva(5, 0.1), "stations")
    _check(lambda: mva(5, Station.queue(0.1)), "stations")


def test_mva_population_limits():
    _check(lambda: mva(10**7, [0.1]), "population")
    _check(lambda: mva(10**4, [Station.multiserver(0.1, 2)]), "population")


def test_validation_helpers_return_arrays():
    assert as_integer([1, 2.0], "x").dtype == np.int64
    assert as_positive(2, "x").dtype == np.float64
    assert as_nonnegative(0, "x") == 0.0
    assert as_choice("a", "x", ("a", "b")) == "a"
    _check(lambda: as_integer(5, "x", minimum=7), "x")
    _check(lambda: as_integer(2**60, "x"), "x")


@pytest.mark.parametrize("name", ["clients", "capacity"])
@pytest.mark.parametrize("bad", [0, 0.5, math.nan, -2])
def test_mm1bk_probabilities_arguments(name, bad):
    from queuetune.models.single_server import mm1bk_probabilities

    _check(lambda: mm1bk_probabilities(**{**MM1BK, name: bad}), name)


def test_birth_death_helper_arguments():
    from queuetune.models.birth_death import log_stationary_distribution

    _check(lambda: log_stationary_distribution(np.zeros((2, 3)), np.array([1, 4])), "states")
    _check(lambda: log_stationary_distribution(np.zeros((2, 3)), np.array([1])), "states")
    _check(lambda: log_stationary_distribution(np.zeros((1, 3)), np.array([0.5])), "states")
    _check(lambda: log_stationary_distribution([[0.0, np.nan]], np.array([2])), "log_ratio")
    # padding past a chain's last state is ignored
    log_stationary_distribution([[0.0, np.nan]], np.array([1]))


def test_markov_helper_arguments():
    import scipy.sparse as sp

    from queuetune.models.markov import stationary_distribution

    generator = sp.csr_matrix(np.array([[-1.0, 1.0], [2.0, -2.0]]))
    _check(lambda: stationary_distribution(generator, pinned=2), "pinned")
    _check(lambda: stationary_distribution(generator, pinned=-1), "pinned")
    _check(lambda: stationary_distribution(np.eye(2)), "generator")
    np.testing.assert_allclose(stationary_distribution(generator), [2 / 3, 1 / 3], rtol=1e-14)


def test_chain_helper_arguments():
    from queuetune.models.thread_pool_chain import build_chain, cpu_time_per_request, state_count

    _check(lambda: state_count(clients=0, capacity=5, threads=2, two_phases=True), "clients")
    _check(lambda: state_count(clients=5, capacity=5, threads=0.5, two_phases=True), "threads")
    _check(lambda: build_chain(clients=5, capacity=0, threads=2, cpu_time=0.1, wait_time=0.1,
                               think_time=1.0), "capacity")
    _check(lambda: build_chain(clients=5, capacity=5, threads=2, cpu_time=-0.1, wait_time=0.1,
                               think_time=1.0), "cpu_time")
    _check(lambda: build_chain(clients=5, capacity=5, threads=2, cpu_time=0.0, wait_time=0.0,
                               think_time=1.0), "wait_time")
    _check(lambda: build_chain(clients=6, capacity=5, threads=2, cpu_time=0.1, wait_time=0.1,
                               think_time=0.0), "think_time")
    _check(lambda: build_chain(clients=5, capacity=5, threads=2, cpu_time=0.1, wait_time=0.1,
                               think_time=1.0, thread_overhead=-1), "thread_overhead")
    _check(lambda: build_chain(clients=10**5, capacity=10**5, threads=10**3, cpu_time=0.1,
                               wait_time=0.1, think_time=1.0), "EXACT_MAX_STATES")
    _check(lambda: cpu_time_per_request(0.1, [1.5], 2, 0.0, 0.0), "busy")


def test_symbolic_helper_arguments():
    from queuetune.models import symbolic

    _check(lambda: symbolic.mm1bk_exact(0, 2, 1, 1), "clients")
    _check(lambda: symbolic.mm1bk_exact(2, 1.5, 1, 1), "capacity")
    _check(lambda: symbolic.mm1bk_exact(2, 2, -1, 1), "service_time")
    _check(lambda: symbolic.mm1bk_exact(2, 2, 1, 0), "think_time")
    _check(lambda: symbolic.birth_death_balance_equations([1, 2], [1]), "births")


def test_scalar_checks_agree_with_array_checks_on_whole_floats():
    from queuetune._validation import as_scalar_integer, integer, real

    assert integer(3.0, "n", low=1) == as_scalar_integer(3.0, "n") == 3
    for bad in (3.5, True, "3", None, float("nan")):
        with pytest.raises(ValueError, match="n must be an integer"):
            integer(bad, "n", low=1)
    with pytest.raises(ValueError, match=r"x must be a number in \(0, 1\]"):
        real(0, "x", low=0, high=1, low_open=True)
