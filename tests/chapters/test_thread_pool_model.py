"""queuetune.chapters.thread_pool_model: the sweeps and summaries of the thread-pool-model
chapter."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    FEW,
    call,
    times,
)

from queuetune import data, mm1bk, stated, thread_pool
from queuetune._validation import MAX_INTEGER
from queuetune.chapters import text
from queuetune.chapters import thread_pool_model as tpm
from queuetune.chapters.thread_pool_model import sweep

Z, CPU, WAIT = 4.0, 0.07, 0.07


def test_stated_source_quotes_the_sentence():
    sentence = stated.sentence("imre-appserver", "think_time_Z")
    assert tpm.stated_source("imre-appserver", "think_time_Z") == f'stated: "{sentence}"'


def test_fes_gap_is_zero_where_the_flow_equivalent_server_is_exact():
    clients = np.arange(1, 31)
    # s_w = 0: the threads never matter and both solutions are M/M/1/B/K
    exact_case = tpm.fes_gap(clients, Z, capacity=20, threads=5, cpu_time=0.14, wait_time=0.0)
    assert set(exact_case) == {"throughput", "response_time", "mean_in_system"}
    assert max(exact_case.values()) < 1e-9
    # one thread with two phases: not exponential, so the gap is real
    one = tpm.fes_gap(clients, Z, capacity=20, threads=1, cpu_time=CPU, wait_time=WAIT)
    assert one["response_time"] > 1e-3
    exact = thread_pool(clients=clients, capacity=20, threads=1, cpu_time=CPU, wait_time=WAIT,
                        think_time=Z, method="exact")
    fes = thread_pool(clients=clients, capacity=20, threads=1, cpu_time=CPU, wait_time=WAIT,
                      think_time=Z, method="fes")
    assert one["throughput"] == pytest.approx(
        np.max(np.abs(fes.throughput / exact.throughput - 1)))


def test_benchmark_section():
    bench = pd.DataFrame({"section": ["a", "a", "a", "b"], "case": [1, 1, 2, 1],
                          "quantity": ["x", "y", "x", "x"], "value": ["1", "2", "3", "4"]})
    wide = tpm.benchmark_section(bench, "a")
    assert wide.loc[1, "y"] == "2" and wide.loc[2, "x"] == "3" and len(wide) == 2
    with pytest.raises(ValueError, match=r"name must be one of \['a', 'b'\]"):
        tpm.benchmark_section(bench, "c")
    stored = data.load_result("benchmark_models", dtype={"value": str})
    section = tpm.benchmark_section(stored, "thread_pool_fes_vs_exact")
    assert {"threads", "err_R", "err_X"} <= set(section.columns)


def test_validation_setting():
    row = SimpleNamespace(clients=60.0, capacity=50.0, threads=30.0, cpu_time=0.07,
                          wait_time=0.07, thread_overhead=0.0, pool_overhead=0.0)
    assert tpm.validation_setting(row) == "K=60, B=50, T=30, s_c=0.07, s_w=0.07"
    row.thread_overhead = 0.002
    assert tpm.validation_setting(row) == (
        "K=60, B=50, T=30, s_c=0.07, s_w=0.07, theta=0.002, phi=0")


def test_validation_coverage_counts_degenerate_intervals_apart():
    frame = pd.DataFrame({"point": [1, 1, 2, 2, 3],
                          "exact_in_ci": [True, False, True, True, False],
                          "ci_degenerate": [False, False, False, True, True]})
    cover = tpm.validation_coverage(frame)
    assert cover["points"] == 3 and cover["metric-points"] == 5
    assert cover["proper intervals"] == 3 and cover["exact inside"] == 2
    assert cover["share inside"] == "66.7%"
    assert cover["degenerate"] == 2 and cover["degenerate and exact differs"] == 1
    with pytest.raises(ValueError, match="no interval of non-zero width"):
        tpm.validation_coverage(frame[frame["ci_degenerate"]])


def test_fes_distance_reports_the_worst_point():
    group = pd.DataFrame({"fes_rel_to_exact": [0.001, -0.05, 0.002], "point": [4, 7, 9],
                          "exact": [1.0, 2.0, 3.0], "fes": [1.001, 1.9, 3.006]})
    distance = tpm.fes_distance(group)
    assert distance["median |fes / exact - 1|"] == "0.20%"
    assert distance["max |fes / exact - 1|"] == "5.00%"
    assert distance["at point"] == 7
    assert distance["exact there"] == "2" and distance["fes there"] == "1.9"


def test_sweep_solves_the_exact_chain_at_every_setting():
    clients = np.array([1, 10, 40, 80])
    frame = tpm.sweep(clients, [20, 50], [1, 5], cpu_time=CPU, wait_time=WAIT, think_time=Z)
    assert len(frame) == 2 * 2 * len(clients)
    assert not frame.duplicated(["clients", "capacity", "threads"]).any()
    res = thread_pool(clients=clients, capacity=50, threads=5, cpu_time=CPU, wait_time=WAIT,
                      think_time=Z, method="exact")
    assert tpm.at(frame, 80, 50, 5, "response_time") == pytest.approx(res.response_time[-1])
    assert tpm.at(frame, 40, 20, 1, "refused") == pytest.approx(
        thread_pool(clients=40, capacity=20, threads=1, cpu_time=CPU, wait_time=WAIT, think_time=Z,
                    method="exact").rejection_probability)
    # with no waiting phase the pool does not matter: M/M/1/B/K at the CPU
    alone = tpm.sweep(clients, [20], [1, 5], cpu_time=0.14, wait_time=0.0, think_time=Z)
    reference = mm1bk(clients=clients, capacity=20, service_time=0.14, think_time=Z)
    for threads in (1, 5):
        got = alone[alone["threads"] == threads]["throughput"].to_numpy()
        np.testing.assert_allclose(got, reference.throughput, rtol=1e-9)
    # the overheads slow the server down
    loaded = tpm.sweep(clients, [50], [5], cpu_time=CPU, wait_time=WAIT, think_time=Z,
                       thread_overhead=0.05, pool_overhead=0.01)
    assert tpm.at(loaded, 80, 50, 5, "response_time") > tpm.at(frame, 80, 50, 5,
                                                              "response_time")
    assert set(frame["pool"]) == {"T = 1", "T = 5"} and set(frame["queue"]) == {"B = 20",
                                                                                "B = 50"}


def test_at_needs_exactly_one_row():
    frame = tpm.sweep([10, 20], [50], [5], cpu_time=CPU, wait_time=WAIT, think_time=Z)
    with pytest.raises(ValueError, match="0 rows have"):
        tpm.at(frame, 30, 50, 5, "throughput")


def test_error_spread_gives_the_quantiles_of_both_errors():
    frame = pd.DataFrame({"abs_R": [0.0, 0.01, 0.02, 0.03, 0.10],
                          "abs_X": [0.0, 0.0, 0.0, 0.0, 0.02]})
    spread = tpm.error_spread(frame)
    assert spread["configurations"] == 5
    assert spread["R: median"] == "2.00%" and spread["R: max"] == "10.00%"
    assert spread["X: max"] == "2.00%"
    with pytest.raises(ValueError, match="at least one"):
        tpm.error_spread(frame.iloc[:0])


# --- over the whole domain (property tests)


@FEW
@given(st.lists(st.integers(1, 12), min_size=1, max_size=3, unique=True),
       st.lists(st.one_of(st.integers(1, 12), st.sampled_from([MAX_INTEGER])), min_size=1,
                max_size=2, unique=True),
       st.lists(st.integers(1, 6), min_size=1, max_size=2, unique=True),
       times(zero=True), times(), times())
def test_thread_pool_sweep_over_its_domain(clients, queues, pools, cpu, wait, think):
    frame = call(sweep, {"clients": sorted(clients), "queues": queues, "threads": pools,
                         "cpu_time": cpu, "wait_time": wait, "think_time": think},
                 ["clients", "queues", "threads"])
    if frame is None:
        return
    for column in ("throughput", "response_time", "refused", "busy_threads", "utilization"):
        assert np.all(np.isfinite(frame[column])), column


def test_relative_difference_is_drawn_to_a_portable_step():
    """fes / exact - 1 for a chart: rounded to 1e-9, so that rounding (whose last bits change
    with the processor) is 0 and a difference a few ulps apart is drawn the same."""
    exact = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    approx = exact * np.array([1 + 4e-16, 1 - 9e-13, 1 + 2.2166e-9, 1.05, 1 - 3e-7])
    out = tpm.relative_difference(approx, exact)
    np.testing.assert_allclose(out, [0.0, 0.0, 2e-9, 0.05, -3e-7], rtol=1e-12, atol=0)
    assert not np.signbit(out[:2]).any()
    nudged = tpm.relative_difference(np.nextafter(approx, np.inf), exact)
    np.testing.assert_array_equal(nudged, out)
    with pytest.raises(ValueError, match="resolution must be a number in"):
        tpm.relative_difference(approx, exact, resolution=0)


def test_fes_gap_of_an_exact_case_prints_as_rounding():
    """With s_w = 0 the flow-equivalent server is exact: its gap prints 'below 1e-12'."""
    gaps = tpm.fes_gap(np.arange(1, 30), 1.0, capacity=20, threads=5, cpu_time=0.05,
                       wait_time=0.0)
    assert {text.difference_text(v) for v in gaps.values()} == {"below 1e-12"}
