"""queuetune.chapters.practical: the practical chapter's ceilings, worked example, formulas and
load curves."""

from __future__ import annotations

import math

import numpy as np
import pytest

from queuetune import sizing
from queuetune.chapters import practical


@pytest.fixture(scope="module")
def example() -> sizing.Sizing:
    return practical.example()


def test_ceilings_by_hand():
    c = practical.ceilings(cpu_time=0.02, wait_time=0.08, think_time=2.9, threads=3)
    assert c.per_client == pytest.approx(1 / 3.0)
    assert c.processor == pytest.approx(50.0)
    assert c.pool == pytest.approx(30.0)
    assert (c.bottleneck, c.limit) == ("pool", pytest.approx(30.0))
    assert c.knee_clients == pytest.approx(90.0)
    wide = practical.ceilings(cpu_time=0.02, wait_time=0.08, think_time=2.9, threads=10)
    assert (wide.bottleneck, wide.limit) == ("processor", pytest.approx(50.0))
    four = practical.ceilings(cpu_time=0.02, wait_time=0.08, think_time=2.9, threads=10,
                              processors=4)
    assert four.processor == pytest.approx(200.0) and four.bottleneck == "pool"


def test_the_example_has_several_processors_and_a_pool_that_is_its_bottleneck(example):
    inputs = practical.EXAMPLE
    assert inputs["processors"] > 1 and inputs["wait_time"] > 0
    assert example.connections is not None
    # the pool's ceiling is the lowest, above the peak; the threads complete a little less,
    # and there are no more connections than threads
    assert example.pool_limit < 0.9 * example.processor_limit
    assert example.connections <= example.threads
    assert inputs["arrival_rate"] < example.thread_limit < example.pool_limit
    assert example.utilization == pytest.approx(inputs["arrival_rate"] * inputs["cpu_time"]
                                                / inputs["processors"], rel=1e-6)
    assert example.response_time < 1.2 * (inputs["cpu_time"] + inputs["wait_time"])
    # the sized settings carry the headroom: nothing refused at 1.5 times the peak, and the
    # pool (not the threads) binds at the saturation multiple, above the headroom
    assert example.headroom == 1.5 and example.saturation_resource == "pool"
    assert example.headroom < example.saturation_multiple
    assert example.saturation_multiple == pytest.approx(example.thread_limit
                                                        / inputs["arrival_rate"], rel=1e-12)
    at = {row["multiple"]: row for row in example.loads}
    assert at[1.5]["refused"] < 1e-4
    # under overload: the bound keeps the answer near R_max, completes what the threads can,
    # and refuses the rest
    assert example.double["response_time"] == pytest.approx(inputs["max_response_time"],
                                                            rel=0.1)
    assert example.double["throughput"] == pytest.approx(example.thread_limit, rel=0.01)
    assert example.double["refused"] > 0.15


def test_hikaris_default_pool_caps_the_example(example):
    capped = practical.example(connections=practical.HIKARI_DEFAULT_POOL)
    assert capped.pool_limit == pytest.approx(practical.HIKARI_DEFAULT_POOL
                                              / practical.EXAMPLE["wait_time"])
    assert capped.throughput < capped.pool_limit < example.throughput
    assert any("pool of 10 connections" in w for w in capped.warnings)


def test_s_over_one_minus_u_holds_only_under_its_condition():
    one = practical.response_times(processors=1, cpu_time=0.01, wait_time=0.0,
                                   arrival_rate=60.0).set_index("formula")
    # one processor, all of S on it, open arrivals: the model is M/M/1
    assert one.loc["S/(1 - U)", "holds"]
    assert one.loc["the model", "value"] == pytest.approx(one.loc["S/(1 - U)", "value"],
                                                          rel=1e-10)
    waits = practical.response_times(processors=1, cpu_time=0.01, wait_time=0.2,
                                     arrival_rate=60.0).set_index("formula")
    assert not waits.loc["S/(1 - U)", "holds"] and waits.loc["s_c/(1 - U) + s_w", "holds"]
    assert waits.loc["the model", "value"] == pytest.approx(
        waits.loc["s_c/(1 - U) + s_w", "value"], rel=1e-9)
    many = practical.response_times(processors=18, cpu_time=0.04, wait_time=0.2,
                                    arrival_rate=300.0).set_index("formula")
    assert many.loc["S/(1 - U)", "value"] == pytest.approx(0.72)
    assert 0.24 < many.loc["the model", "value"] < 0.25  # issue 21: about 240 ms
    assert not many.loc["S/(1 - U)", "holds"] and not many.loc["s_c/(1 - U) + s_w", "holds"]


def test_load_curves(example):
    peak = practical.EXAMPLE["arrival_rate"]
    curves = practical.load_curves(example, [peak, peak / 2, 2 * peak, peak], small_pool=10)
    T, C, B = example.threads, example.connections, example.capacity
    assert list(curves["setting"].unique()) == [
        f"T = {T}, C = {C}, B = {B}", f"T = {T}, C = {C}, no bound on B",
        f"T = {T}, C = 10, B = {B}", f"virtual threads, C = {C}, B = {B}"]
    assert curves.groupby("setting", sort=False).size().tolist() == [3, 3, 3, 3]
    at = curves.set_index(["setting", "rate"])
    sized = at.loc[(f"T = {T}, C = {C}, B = {B}", peak)]
    assert sized["throughput"] == pytest.approx(example.throughput, rel=1e-9)
    assert sized["response_time"] == pytest.approx(example.response_time, rel=1e-9)
    # beyond its ceiling an unbounded open server has no steady state
    assert math.isnan(at.loc[(f"T = {T}, C = {C}, no bound on B", 2 * peak), "throughput"])
    small = curves[curves["setting"] == f"T = {T}, C = 10, B = {B}"]
    assert np.all(small["throughput"] <= 10 / practical.EXAMPLE["wait_time"] + 1e-9)
    virtual = at.loc[(f"virtual threads, C = {C}, B = {B}", peak)]
    assert virtual["response_time"] <= sized["response_time"]
    with pytest.raises(ValueError, match="rates"):
        practical.load_curves(example, [0.0, 10.0], small_pool=5)
    with pytest.raises(ValueError, match="small_pool"):
        practical.load_curves(example, [10.0], small_pool=0)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="threads"):
        practical.ceilings(0.01, 0.2, 4.0, threads=0)
    with pytest.raises(ValueError, match="cpu_time"):
        practical.ceilings(0.0, 0.2, 4.0, threads=3)
    with pytest.raises(TypeError):
        practical.ceilings(0.01, 0.2, 4.0, 3)  # type: ignore[misc]
    with pytest.raises(ValueError, match="processors"):
        practical.example(processors=0)
