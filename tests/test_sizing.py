"""queuetune.sizing: the flow-equivalent server against closed forms, and the sizing's steps."""

from __future__ import annotations

import math

import numpy as np
import pytest
from fes_reference import brute_chain, model_configurations

from queuetune import mm1bk, sizing, thread_pool

# --------------------------------------------------------------------------- independent routes


def erlang_b(servers, load):
    e = 1.0
    for n in range(1, servers + 1):
        e = load * e / (n + load * e)
    return e


def erlang_c(servers, load):
    b = erlang_b(servers, load)
    return servers * b / (servers - load * (1 - b))


# Definition 1 (the thread holders) is tested in tests/models/test_flow_equivalent.py.


# --------------------------------------------------------------------------- definition 2


@pytest.mark.parametrize(("p", "B", "rate"), [(1, 1, 50.0), (3, 10, 250.0), (4, 30, 500.0),
                                              (2, 5, 10.0)])
def test_open_with_processor_time_only_is_m_m_c_b(p, B, rate):
    s = 0.01
    st = sizing.solve(processors=p, cpu_time=s, wait_time=0, arrival_rate=rate, capacity=B)
    # M/M/c/B in closed form
    a = rate * s
    w = np.array([a**n / math.factorial(n) if n <= p
                  else a**n / (math.factorial(p) * p ** (n - p)) for n in range(B + 1)])
    pi = w / w.sum()
    assert st.refused == pytest.approx(pi[-1], rel=1e-12)
    assert st.admitted == pytest.approx((np.arange(B + 1) * pi).sum(), rel=1e-12)
    assert st.throughput == pytest.approx(rate * (1 - pi[-1]), rel=1e-12)


@pytest.mark.parametrize(("p", "rate"), [(1, 60.0), (4, 350.0), (16, 1500.0), (64, 6300.0)])
def test_open_unbounded_is_erlang_c(p, rate):
    s = 0.01
    st = sizing.solve(processors=p, cpu_time=s, wait_time=0, arrival_rate=rate)
    want = s + erlang_c(p, rate * s) * s / (p - rate * s)
    assert st.response_time == pytest.approx(want, rel=1e-10)
    assert st.utilization == pytest.approx(rate * s / p, rel=1e-12)
    assert st.refused == 0


@pytest.mark.parametrize(("K", "B", "Z"), [(1, 1, 1.0), (30, 10, 2.0), (200, 200, 4.0),
                                           (500, 120, 0.5)])
def test_one_processor_closed_is_mm1bk(K, B, Z):
    s = 0.02
    for threads in (None, 1, 7):  # without a wait one holder keeps the processor busy
        st = sizing.solve(cpu_time=s, wait_time=0, clients=K, think_time=Z, capacity=B,
                          threads=threads)
        ref = mm1bk(clients=K, capacity=B, service_time=s, think_time=Z)
        assert st.throughput == pytest.approx(float(ref.throughput), rel=1e-11)
        assert st.response_time == pytest.approx(float(ref.response_time), rel=1e-11)
        assert st.utilization == pytest.approx(float(ref.utilization), rel=1e-11)


@pytest.mark.parametrize(("K", "B", "T", "s_c", "s_w", "Z"), [
    (50, 200, 10, 0.02, 0.1, 4.0), (300, 120, 25, 0.01, 0.2, 4.0), (80, 80, 80, 0.05, 0.05, 1.0),
    (1000, 400, 60, 0.005, 0.3, 2.0)])
def test_one_processor_without_a_pool_is_the_old_flow_equivalent_server(K, B, T, s_c, s_w, Z):
    st = sizing.solve(cpu_time=s_c, wait_time=s_w, threads=T, clients=K, think_time=Z,
                      capacity=B)
    ref = thread_pool(clients=K, capacity=B, threads=T, cpu_time=s_c, wait_time=s_w,
                      think_time=Z, method="fes")
    assert st.throughput == pytest.approx(float(ref.throughput), rel=1e-9)
    assert st.response_time == pytest.approx(float(ref.response_time), rel=1e-9)
    assert st.utilization == pytest.approx(float(ref.utilization), rel=1e-9)


@pytest.mark.parametrize("kw", model_configurations(80, seed=11))
def test_the_flow_equivalent_server_is_thread_pools(kw):
    """The sizing's FES and the model library's ``thread_pool(method="fes")`` solve the same
    decomposition (the library's chain of admitted requests is its own code)."""
    st = sizing.solve(**kw)
    ref = thread_pool(method="fes", **kw)
    assert st.throughput == pytest.approx(float(ref.throughput), rel=1e-9)
    assert st.response_time == pytest.approx(float(ref.response_time), rel=1e-9)
    assert st.utilization == pytest.approx(float(ref.utilization), rel=1e-9)


@pytest.mark.parametrize(("T", "B", "rate"), [(5, 5000, 40.0), (5, 5000, 80.0), (20, 3000, 300.0),
                                              (40, 35, 150.0), (3, 2000, 30.001)])
def test_the_geometric_tail_equals_the_explicit_chain(T, B, rate):
    p, s_c, s_w, C = 2, 0.01, 0.1, 6
    x = sizing.holders_throughput(processors=p, cpu_time=s_c, wait_time=s_w, connections=C,
                                  holders=T)
    death = np.concatenate([x, np.full(B + 1 - len(x), x[-1])]) if B + 1 > len(x) else x
    want = brute_chain(death, rate=rate, capacity=B)
    st = sizing.solve(processors=p, cpu_time=s_c, wait_time=s_w, connections=C, threads=T,
                      arrival_rate=rate, capacity=B)
    assert (st.throughput, st.admitted, st.refused) == pytest.approx(want, rel=1e-9)


def test_closed_refusals_are_the_arrivals_turned_away():
    kw = dict(processors=2, cpu_time=0.01, wait_time=0.1, connections=6, threads=12)
    st = sizing.solve(**kw, clients=300, think_time=1.0, capacity=40)
    x = sizing.holders_throughput(processors=2, cpu_time=0.01, wait_time=0.1, connections=6,
                                  holders=40)
    death = np.concatenate([x[:13], np.full(40 - 12, x[12])])
    want = brute_chain(death, clients=300, think=1.0, capacity=40)
    assert (st.throughput, st.admitted, st.refused) == pytest.approx(want, rel=1e-10)
    assert st.refused > 0.1


def test_virtual_threads_cut_where_the_tail_weighs_nothing():
    kw = dict(processors=4, cpu_time=0.01, wait_time=0.2, connections=30, arrival_rate=140.0)
    unlimited = sizing.solve(**kw)
    many = sizing.solve(**kw, threads=5000)
    assert unlimited.response_time == pytest.approx(many.response_time, rel=1e-12)
    assert sizing.solve(**kw, capacity=50).refused > sizing.solve(**kw, capacity=80).refused


def test_an_open_load_beyond_the_limit_is_unstable_without_a_bound():
    st = sizing.solve(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300)
    assert not st.stable and math.isinf(st.response_time)
    bounded = sizing.solve(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300,
                           capacity=500)
    assert bounded.stable and bounded.throughput < 200 and bounded.refused > 0.3


def test_zero_think_time_sits_at_the_bound():
    st = sizing.solve(processors=2, cpu_time=0.01, wait_time=0.05, clients=50, think_time=0,
                      capacity=20, threads=8)
    x = sizing.holders_throughput(processors=2, cpu_time=0.01, wait_time=0.05, holders=8)
    assert st.throughput == x[8] and st.admitted == 20 and st.refused == 1.0
    small = sizing.solve(processors=2, cpu_time=0.01, wait_time=0.05, clients=5, think_time=0)
    assert small.refused == 0 and small.admitted == 5


# --------------------------------------------------------------------------- the sizing


@pytest.mark.parametrize("load", [0.5, 3.0, 60.0, 600.0])
def test_the_pool_is_the_smallest_with_a_short_erlang_c_wait(load):
    c = sizing.erlang_c_connections(load=load, tolerance=0.1)
    assert c > load and erlang_c(c, load) / (c - load) <= 0.1
    assert c - 1 <= load or erlang_c(c - 1, load) / (c - 1 - load) > 0.1


ENGINEER = dict(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0)


@pytest.mark.parametrize("kw", [
    ENGINEER, {**ENGINEER, "processors": 18}, {**ENGINEER, "processors": 18, "headroom": 1.2},
    dict(processors=64, cpu_time=0.005, wait_time=0.05, arrival_rate=3000.0),
    dict(processors=4, cpu_time=0.01, wait_time=0.2, clients=1000, think_time=4.0),
    dict(processors=1, cpu_time=0.01, wait_time=0.2, clients=200, think_time=4.0,
         connections=30, max_response_time=1.0),
    dict(processors=16, cpu_time=0.005, wait_time=0, arrival_rate=2000.0, read_timeout=3.0),
])
def test_the_sizing_follows_its_definition(kw):
    s = sizing.size(**kw)
    S = kw["cpu_time"] + kw["wait_time"]
    h = kw.get("headroom", 1.5)
    peak = kw.get("arrival_rate") or kw["clients"] / (kw["think_time"] + S)
    assert s.peak == pytest.approx(peak) and s.headroom == h
    p_need = s.processors_needed  # the smallest p with an Erlang-C processor wait <= S / 10
    a, tol = h * peak * kw["cpu_time"], 0.1 * S / kw["cpu_time"]
    assert p_need > a and erlang_c(p_need, a) / (p_need - a) <= tol
    assert p_need - 1 <= a or erlang_c(p_need - 1, a) / (p_need - 1 - a) > tol
    C = s.connections
    if kw["wait_time"] == 0:
        assert C is None and s.pool_limit is None
    elif "connections" in kw:
        assert C == kw["connections"]
    else:
        erlang = sizing.erlang_c_connections(load=h * peak * kw["wait_time"], tolerance=0.1)
        assert C == min(erlang, s.threads)  # never a pool larger than the threads
    x = sizing.holders_throughput(processors=kw["processors"], cpu_time=kw["cpu_time"],
                                  wait_time=kw["wait_time"], connections=C,
                                  holders=s.threads)
    limit = min(s.processor_limit, s.pool_limit or math.inf)
    t_sat = s.saturation_threads
    assert x[t_sat] >= 0.95 * limit and (t_sat == 1 or x[t_sat - 1] < 0.95 * limit)
    assert s.threads == max(t_sat, s.peak_threads or 0)
    r_max = kw.get("max_response_time", kw.get("read_timeout", 60.0))
    assert s.max_response_time == r_max
    assert s.thread_limit == pytest.approx(x[s.threads], rel=1e-12)
    assert s.capacity == max(s.threads, math.ceil(r_max * s.thread_limit - 1e-9))
    assert s.saturation_multiple == s.thread_limit / peak
    assert s.utilization == pytest.approx(s.throughput * kw["cpu_time"] / kw["processors"])
    assert [row["multiple"] for row in s.loads] == list(sizing.MULTIPLES)
    assert s.double == s.loads[3] and s.double["multiple"] == 2.0
    for row, before in zip(s.loads[1:], s.loads, strict=False):
        assert row["utilization"] >= before["utilization"] - 1e-12
        assert row["refused"] >= before["refused"] - 1e-12
    for row in s.loads:  # percentiles of admitted requests, in order, in every row
        assert 0 < row["response_time_p50"] < row["response_time_p95"] < row["response_time_p99"]
    assert (s.response_time_p95, s.response_time_p99) == (
        s.loads[0]["response_time_p95"], s.loads[0]["response_time_p99"])


@pytest.mark.parametrize("kw", [
    dict(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0, threads=51),
    dict(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=100.0, threads=60,
         connections=10, capacity=200),
    dict(processors=4, cpu_time=0.01, wait_time=0.2, clients=300, think_time=2.0,
         threads=20, capacity=50),
])
def test_the_users_own_settings_are_measured_as_given(kw):
    s = sizing.size(**kw)
    yours = s.yours
    C = kw.get("connections", s.connections)
    assert (yours["threads"], yours["connections"], yours["capacity"]) == (
        kw["threads"], C, kw.get("capacity"))
    base = {k: kw[k] for k in ("processors", "cpu_time", "wait_time")}
    for row in yours["loads"]:
        load = ({"arrival_rate": row["arrival_rate"]} if "arrival_rate" in kw
                else {"clients": row["clients"], "think_time": kw["think_time"]})
        want = sizing.solve(**base, threads=kw["threads"], connections=C,
                            capacity=kw.get("capacity"), **load)
        assert row["response_time"] == want.response_time
        assert row["refused"] == want.refused
    x = sizing.holders_throughput(**base, connections=C, holders=kw["threads"])
    assert yours["saturation_multiple"] == pytest.approx(x[-1] / s.peak, rel=1e-12)
    assert any(f"your settings (T = {kw['threads']})" in w for w in s.warnings)


def test_the_saturating_resource_is_the_one_near_full_at_the_ceiling():
    eighteen = sizing.size(**{**ENGINEER, "processors": 18})
    assert eighteen.saturation_resource == "processors"  # 450/s of processors, 95 % busy
    assert 1.4 < eighteen.saturation_multiple < 1.5
    few = sizing.size(**{**ENGINEER, "processors": 18}, threads=51)
    assert few.yours["saturation_resource"] == "threads"  # issue 29: 51 threads at 0.71x
    pool = sizing.size(**{**ENGINEER, "processors": 18}, connections=65)
    assert pool.saturation_resource == "pool" and pool.saturation_multiple < 65 / 0.2 / 300


def test_headroom_is_carried_at_ten_percent_over_the_peak():
    """Issue 29: the 18-core service sized for its peak went from 275 ms to 2,330 ms at 1.1x;
    sized with the default headroom it keeps its response time and refuses nothing."""
    s = sizing.size(**{**ENGINEER, "processors": 18})
    at_peak, bump = s.loads[0], s.loads[1]
    assert bump["multiple"] == 1.1 and bump["refused"] < 1e-6
    assert bump["response_time"] < 1.05 * at_peak["response_time"]
    assert s.saturation_multiple > 1.1


def test_a_pool_of_one_connection_is_named_in_the_singular():
    s = sizing.size(processors=2, cpu_time=0.01, wait_time=0.5, arrival_rate=100.0,
                    connections=1)
    assert "a pool of 1 connection completes at most 2 requests/s, below the peak of 100" in \
        s.warnings


def test_a_utilization_target_replaces_the_queueing_criterion():
    s = sizing.size(**ENGINEER, target_utilization=0.7)
    assert s.processors_needed == math.ceil(300 * 0.04 / 0.7)
    assert s.warnings[0] == ("8 processors are fewer than the 18 that keep under 70 % busy "
                             "at the peak")


def test_a_given_pool_larger_than_the_threads_gets_a_warning():
    s = sizing.size(processors=1, cpu_time=0.01, wait_time=0.2, clients=200, think_time=4.0,
                    connections=30, max_response_time=1.0)
    assert s.connections == 30 > s.threads
    assert any("your pool of 30 connections is larger than" in w for w in s.warnings)
    sized = sizing.size(**ENGINEER)
    assert sized.connections <= sized.threads


@pytest.mark.parametrize(("given", "origin", "r_max"), [
    ({}, "default", 60.0), ({"read_timeout": 5.0}, "read_timeout", 5.0),
    ({"read_timeout": 5.0, "p99_objective": 1.5}, "p99_objective", 1.5),
    ({"read_timeout": 5.0, "p99_objective": 1.5, "max_response_time": 0.8},
     "max_response_time", 0.8),
])
def test_b_says_where_its_longest_response_came_from(given, origin, r_max):
    s = sizing.size(**{**ENGINEER, "processors": 18}, **given)
    assert (s.max_response_origin, s.max_response_time) == (origin, r_max)
    assert origin in sizing.ORIGINS
    assert (origin == "default") == any("no read timeout" in w for w in s.warnings)


def test_a_p99_objective_below_the_service_alone_is_refused_by_the_service():
    s = sizing.size(**{**ENGINEER, "processors": 18}, p99_objective=0.5)
    floor = s.objective["service_p99"]
    # P(S > t) for S the sum of exponentials of means 0.04 and 0.2
    tail = (0.2 * math.exp(-floor / 0.2) - 0.04 * math.exp(-floor / 0.04)) / (0.2 - 0.04)
    assert tail == pytest.approx(0.01, rel=1e-9)
    assert s.objective["met"] is False and s.objective["prevented_by"]
    assert any("p99 objective of 500 ms cannot be met" in w for w in s.warnings)
    reachable = sizing.size(**{**ENGINEER, "processors": 18}, p99_objective=1.5)
    assert reachable.objective["met"] is True
    assert reachable.response_time_p99 <= 1.5


def test_a_p99_objective_is_met_at_the_peak_by_growing_the_threads_and_a_sized_pool():
    kw = {**ENGINEER, "processors": 18, "headroom": 1.0}
    plain = sizing.size(**kw, read_timeout=0.98)  # the same R_max, so the same B rule
    s = sizing.size(**kw, p99_objective=0.98)
    assert plain.response_time_p99 > 0.98  # the settings alone miss it
    assert s.objective["met"] is True and s.objective["prevented_by"] is None
    assert s.response_time_p99 <= 0.98 and s.objective["p99_at_peak"] == s.response_time_p99
    assert (s.objective["threads_before"], s.objective["connections_before"]) == (
        plain.threads, plain.connections)
    assert s.threads > plain.threads and plain.connections <= s.connections <= s.threads
    assert any("threads grown from" in w for w in s.warnings)
    # the fewest threads: one fewer (pool in the same proportion) misses it
    T = s.threads - 1
    C = min(T, math.ceil(plain.connections * T / plain.threads))
    h = sizing.Holders(processors=18, cpu_time=0.04, wait_time=0.2, connections=C)
    B = max(T, math.ceil(0.98 * h.at(T) - 1e-9))
    fewer = sizing.percentiles(h, sizing._Setting(T, B), 300.0, None, None, (0.99,))[0]
    assert fewer > 0.98


@pytest.mark.parametrize(("given", "blocker"), [
    ({"processors": 8, "p99_objective": 2.0}, "the processors"),  # 8 cores: 150 % busy
    ({"processors": 18, "connections": 30, "p99_objective": 1.2}, "the pool"),
])
def test_a_p99_objective_more_threads_cannot_meet_names_what_prevents_it(given, blocker):
    s = sizing.size(**{**ENGINEER, **given})
    assert s.objective["met"] is False and s.objective["prevented_by"] == blocker
    assert s.objective["p99_at_peak"] == s.response_time_p99 > given["p99_objective"]
    assert any(f"{blocker.split()[-1]}" in w and "prevent" in w for w in s.warnings)


@pytest.mark.parametrize(("s_c", "s_w"), [(0.1, 0.0), (0.05, 0.05), (0.04, 0.2), (0.3, 0.01)])
def test_the_service_quantile_inverts_its_tail(s_c, s_w):
    t = sizing.service_quantile(cpu_time=s_c, wait_time=s_w, q=0.95)
    rng = np.random.default_rng(5)
    sample = rng.exponential(s_c, 400_000) + (rng.exponential(s_w, 400_000) if s_w else 0)
    assert np.mean(sample > t) == pytest.approx(0.05, abs=0.002)


def test_the_peak_pool_of_threads_is_the_smallest_within_tolerance():
    kw = dict(processors=4, cpu_time=0.01, wait_time=0.2, connections=40)
    s = sizing.size(**kw, arrival_rate=100.0)  # the threads carry 1.5 x 100/s
    ref = sizing.solve(**kw, arrival_rate=150.0).response_time
    at = sizing.solve(**kw, arrival_rate=150.0, threads=s.peak_threads).response_time
    fewer = sizing.solve(**kw, arrival_rate=150.0, threads=s.peak_threads - 1).response_time
    assert at <= 1.1 * ref < fewer


def test_the_engineers_service():
    eight = sizing.size(**ENGINEER)
    eighteen = sizing.size(**{**ENGINEER, "processors": 18})
    assert eight.processors_needed == eighteen.processors_needed
    assert eight.warnings[0] == (f"8 processors are fewer than the {eight.processors_needed} "
                                 "that carry 1.5× the peak")
    assert eight.utilization > 0.9 and eight.refused > 0.3  # 200/s is all 8 cores do
    assert eighteen.utilization == pytest.approx(300 * 0.04 / 18)
    assert eighteen.refused < 1e-9
    assert 0.24 < eighteen.response_time < 0.3  # about S = 240 ms, not S/(1 - U) = 720 ms
    assert eighteen.connections > 1.5 * 300 * 0.2  # carries 1.5x the peak's 60 erlangs
    capped = sizing.size(**{**ENGINEER, "processors": 18}, connections=10)
    assert capped.pool_limit == 50 and capped.throughput < 50
    assert any("pool of 10" in w for w in capped.warnings)


def test_the_benchmark_sizing_is_finite():
    s = sizing.size(processors=256, cpu_time=0.002, wait_time=0.01, arrival_rate=1e5,
                    connections=1000)
    assert all(math.isfinite(v) for v in (s.response_time, s.utilization, s.throughput))


@pytest.mark.parametrize(("change", "name"), [
    ({"processors": 0}, "processors"), ({"processors": 4097}, "processors"),
    ({"processors": 2.5}, "processors"), ({"cpu_time": 0}, "cpu_time"),
    ({"cpu_time": float("nan")}, "cpu_time"), ({"wait_time": -1}, "wait_time"),
    ({"arrival_rate": 0}, "arrival_rate"), ({"arrival_rate": 2e7}, "arrival_rate"),
    ({"connections": 0}, "connections"), ({"max_response_time": 0}, "max_response_time"),
    ({"read_timeout": -1}, "read_timeout"), ({"p99_objective": 1e4}, "p99_objective"),
    ({"target_utilization": 1.5}, "target_utilization"),
    ({"headroom": 0.9}, "headroom"), ({"headroom": float("inf")}, "headroom"),
    ({"threads": 0}, "threads"), ({"capacity": 10}, "capacity"),
    ({"threads": 10, "capacity": 5}, "capacity"), ({"busy_share": 1}, "busy_share"),
    ({"tolerance": 0}, "tolerance"), ({"processors": True}, "processors"),
    ({"clients": 10, "think_time": 1.0}, "arrival_rate"),
    ({"arrival_rate": None}, "arrival_rate"),
    ({"arrival_rate": None, "clients": 10}, "think_time"),
    ({"arrival_rate": None, "clients": 10**6, "think_time": 1.0}, "clients"),
])
def test_bad_input_is_refused_by_name(change, name):
    with pytest.raises(ValueError, match=name):
        sizing.size(**{**ENGINEER, **change})


def test_an_answer_beyond_the_limits_is_refused_with_the_way_out(monkeypatch):
    with pytest.raises(ValueError, match="300000 connections busy, more than the 100000 this"):
        sizing.size(processors=64, cpu_time=0.001, wait_time=100, arrival_rate=2000)
    monkeypatch.setitem(sizing.LIMITS, "threads", (1, 50))
    with pytest.raises(ValueError, match="more than 50 threads.*give more processors="):
        sizing.size(**{**ENGINEER, "processors": 18})


def test_keyword_only():
    with pytest.raises(TypeError):
        sizing.size(8, 0.04, 0.2)  # type: ignore[misc]


# --------------------------------------------------------------------------- percentiles

#: The sizing's percentiles against thread_pool(method="fes")'s, the same fast method on the
#: same flow-equivalent chain: the two compute the chain's weights differently (the sizing in
#: logarithms with its geometric tail in closed form, thread_pool level by level), so they
#: agree to the rounding of those weights, carried through the inversion and Brent's 1e-10
#: (at most 5e-11 relative measured on these seeds).
PERCENTILE_AGREEMENT = 1e-8


def _fes_percentiles(row, *, threads, connections, capacity, kw):
    load = ({"arrival_rate": row["arrival_rate"]} if row["arrival_rate"] is not None else
            {"clients": row["clients"], "think_time": kw["think_time"]})
    res = thread_pool(**load, threads=threads, connections=connections, capacity=capacity,
                      processors=kw["processors"], cpu_time=kw["cpu_time"],
                      wait_time=kw["wait_time"], method="fes")
    return np.array([res.response_time_p50, res.response_time_p95, res.response_time_p99])


@pytest.mark.parametrize("seed", range(12))
def test_percentiles_are_thread_pools_fes_percentiles_on_random_settings(seed):
    """Every row of the sizing (recommended settings) and of the user's own settings, at 1,
    1.1, 1.5 and 2 times the peak (overload included: B bounded, the weights then grow
    toward B), against thread_pool(method="fes") with the same T, C, B and load."""
    rng = np.random.default_rng(900 + seed)
    p = int(rng.integers(1, 17))
    s_c = float(rng.uniform(0.002, 0.05))
    s_w = float(rng.choice([0.0, rng.uniform(0.005, 0.3)]))
    limit = p / s_c if s_w == 0 else min(p / s_c, 40 / s_w)
    if seed % 3 == 2:
        load = {"clients": int(rng.integers(5, 400)), "think_time": float(rng.uniform(0, 3))}
    else:
        load = {"arrival_rate": float(rng.uniform(0.2, 0.9) * limit)}
    threads = int(rng.integers(1, 60))
    kw = {"processors": p, "cpu_time": s_c, "wait_time": s_w, **load}
    mine = {"threads": threads, "capacity": threads + int(rng.integers(0, 300))}
    if s_w > 0:
        mine["connections"] = int(rng.integers(1, threads + 3))
    s = sizing.size(**kw, **mine, read_timeout=float(rng.uniform(0.2, 3.0)))
    settings = [(s.loads, s.threads, s.connections, s.capacity),
                (s.yours["loads"], threads, s.yours["connections"], mine["capacity"])]
    for rows, T, C, B in settings:
        for row in rows:
            got = np.array([row["response_time_p50"], row["response_time_p95"],
                            row["response_time_p99"]])
            want = _fes_percentiles(row, threads=T, connections=C, capacity=B, kw=kw)
            np.testing.assert_allclose(got, want, rtol=PERCENTILE_AGREEMENT)


def test_percentiles_of_an_unbounded_queue_past_its_ceiling_are_infinite():
    s = sizing.size(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0,
                    threads=51)  # your B unbounded (Tomcat's default queue)
    rows = s.yours["loads"]
    assert all(math.isinf(r["response_time_p99"]) for r in rows if math.isinf(
        r["response_time"]))
    assert all(math.isfinite(r["response_time_p99"]) for r in rows if math.isfinite(
        r["response_time"]))


def test_an_open_unbounded_tail_is_summed_in_closed_form():
    """B = 10^10 (the geometric tail of 10^10 levels) gives the percentiles of B unbounded
    when the load is stable, and grows toward B / X under overload."""
    kw = dict(processors=4, cpu_time=0.01, wait_time=0.05, connections=30, threads=40)
    huge = sizing.size(**kw, arrival_rate=200.0, capacity=10**10)
    free = sizing.size(**kw, arrival_rate=200.0)
    for a, b in zip(huge.yours["loads"], free.yours["loads"], strict=True):
        if math.isfinite(b["response_time"]):
            assert a["response_time_p99"] == pytest.approx(b["response_time_p99"], rel=1e-9)
        else:  # overload: the admitted requests wait about B / X_in(T), a wait of
            # coefficient of variation ~1e-5, evaluated in the time domain: its percentiles
            # within a few standard deviations of the mean
            assert a["response_time"] > 1e6
            assert a["response_time_p50"] == pytest.approx(a["response_time"], rel=1e-4)
            assert a["response_time_p50"] < a["response_time_p95"] < a["response_time_p99"]
            assert a["response_time_p99"] < a["response_time"] * (1 + 1e-4)
    assert not any("p50, p95 or p99" in w for w in huge.warnings)


def test_percentiles_past_saturation_are_those_of_the_long_wait():
    """The 18-processor example past saturation (1.43× the peak): nearly every admitted
    request waits ~B / X_in(T) = 60 s for a thread, a wait of coefficient of variation below
    1 % (the Euler inversion gave p99 = 83.5 s for a mean of 60.0 s; the rows then showed
    none). Now every row has p50 < p95 < p99, past saturation within a few seconds of the
    mean (the wait's standard deviation, sqrt(B) / X_in(T), is 0.4 s; the holding time's
    0.2 s), and no warning about percentiles."""
    s = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0)
    below = [row for row in s.loads if row["multiple"] < s.saturation_multiple]
    past = [row for row in s.loads if row["multiple"] > s.saturation_multiple]
    assert [row["multiple"] for row in past] == [1.5, 2.0]
    for row in below:
        assert 0 < row["response_time_p50"] <= row["response_time_p95"] <= row[
            "response_time_p99"] < 10 * row["response_time"]
    for row in past:
        assert row["response_time"] == pytest.approx(60.0, rel=0.01)
        sd = math.sqrt(row["response_time"] / s.thread_limit)  # the wait's, about
        assert abs(row["response_time_p50"] - row["response_time"]) < 0.5 * sd
        assert (row["response_time"] + 1.0 * sd < row["response_time_p95"]
                < row["response_time_p99"] < row["response_time"] + 4.0 * sd)
    assert not any("p50, p95 or p99" in w for w in s.warnings)


def test_a_p99_objective_far_past_saturation_names_the_processors():
    s = sizing.size(processors=4, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0,
                    p99_objective=2.0, max_response_time=60.0)  # the peak 3× the ceiling
    assert s.response_time_p99 == pytest.approx(60.0, rel=0.05)
    assert s.objective["p99_at_peak"] == s.response_time_p99  # exact: the same number
    assert s.objective["met"] is False and s.objective["prevented_by"] == "the processors"
    assert (f"the p99 objective of 2000 ms is not met at the peak "
            f"({sizing._g4(1000 * s.response_time_p99)} ms): the 4 processors given prevent "
            "it (more threads do not help; more processors would)" in s.warnings)


@pytest.mark.parametrize("seed", range(3))
def test_a_promise_is_the_answers_row_at_that_load(seed):
    """sizing.promise, given the recommended settings and a multiple of the peak, is the
    answer's own row there (the lab scores a deployed advice with it)."""
    rng = np.random.default_rng(seed)
    p = int(rng.integers(1, 17))
    cpu, wait = float(rng.uniform(0.002, 0.05)), float(rng.uniform(0.0, 0.3))
    rate = float(rng.uniform(0.2, 0.6)) * p / cpu
    answer = sizing.size(processors=p, cpu_time=cpu, wait_time=wait, arrival_rate=rate,
                         read_timeout=2.0)
    for row in answer.loads:
        got = sizing.promise(processors=p, cpu_time=cpu, wait_time=wait,
                             threads=answer.threads, capacity=answer.capacity,
                             connections=answer.connections,
                             arrival_rate=row["multiple"] * rate)
        for key in ("throughput", "response_time", "response_time_p50", "response_time_p95",
                    "response_time_p99", "utilization", "refused"):
            assert got[key] == pytest.approx(row[key], rel=1e-12, abs=1e-15), (key, row)
