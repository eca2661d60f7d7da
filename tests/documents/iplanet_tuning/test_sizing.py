"""The sizing calculators of the iPlanet guide (IP-C4, IP-C5, IP-C6)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    BAD_AMOUNTS,
    BAD_INTS,
    BAD_INTS_FROM_ZERO,
    BAD_MAGNITUDES,
    CALC,
    F,
    amounts,
    call,
    close,
    counts,
    counts_from_zero,
    drawn,
    exact,
    maybe_refused,
    optional,
    refused_argument,
    times,
    unwrap,
)

from queuetune import stated
from queuetune.documents.iplanet_tuning import sizing

DOC = "iplanet-tuning"


def n(quantity: str) -> float:
    return stated.number(DOC, quantity)


# ------------------------------------------------------------------ memory (IP-C5)


def test_memory_rule_reproduces_the_four_cpu_example():
    cpus = int(n("memory_example_cpus"))
    assert sizing.memory_mb(cpus) == n("memory_example_total_min") == 256


def test_additive_reading_adds_the_baseline_and_misses_the_example():
    cpus = int(n("memory_example_cpus"))
    additive = sizing.memory_mb(cpus, composition="additive")
    assert additive == n("memory_baseline") + cpus * n("memory_per_cpu_min") == 320
    assert additive != n("memory_example_total_min")


def test_one_cpu_needs_the_baseline_under_both_readings():
    for composition in sizing.COMPOSITIONS:
        assert sizing.memory_mb(1, composition=composition) == n("memory_baseline")


def test_users_beyond_fifty_add_half_a_megabyte_each():
    base = sizing.memory_mb(2)
    assert sizing.memory_mb(2, 50) == base
    assert sizing.memory_mb(2, 51) == base + 0.5
    assert sizing.memory_mb(2, 250) == base + 100


def test_constants_come_from_the_stated_values():
    assert sizing.rule_constant("memory_per_extra_user_kb") == n("memory_per_extra_user") == 512
    assert sizing.rule_constant("t1_line_kbit_s") == n("t1_line_rate") == 1544
    with pytest.raises(ValueError, match="name"):
        sizing.rule_constant("nope")


def test_overrides_replace_the_constants():
    assert sizing.memory_mb(3, 60, baseline_mb=0, per_cpu_mb=100, users_included=10,
                            per_user_kb=1024) == 300 + 50


@given(cpus=st.integers(1, 64), users=st.integers(0, 5000), more=st.integers(0, 100))
def test_memory_grows_with_cpus_and_users(cpus, users, more):
    for composition in sizing.COMPOSITIONS:
        m = sizing.memory_mb(cpus, users, composition=composition)
        assert sizing.memory_mb(cpus + 1, users, composition=composition) >= m
        assert sizing.memory_mb(cpus, users + more, composition=composition) >= m
        assert sizing.memory_mb(cpus, users, composition="additive") >= sizing.memory_mb(
            cpus, users, composition="example")


# ------------------------------------------------------------------ bandwidth (IP-C6)


def test_bandwidth_example_of_the_guide():
    users, size, seconds = n("peak_users"), n("average_document_size"), n("transfer_time")
    assert sizing.bandwidth_kb_s(users, size, seconds) == n("bandwidth_needed") == 240
    kbit = sizing.bandwidth_kbit_s(users, size, seconds)
    assert kbit == n("bandwidth_needed_kbit") == 1920
    assert sizing.t1_lines(kbit) == n("t1_lines_needed") == 2


def test_binary_kilobytes_would_not_give_the_printed_1920():
    kbit = sizing.bandwidth_kbit_s(50, 24, 5, bytes_per_kb=1024)
    assert kbit == pytest.approx(1966.08)
    assert kbit != n("bandwidth_needed_kbit")
    assert sizing.t1_lines(kbit) == 2


@pytest.mark.parametrize(("kbit", "lines"), [(0, 0), (1, 1), (1544, 1), (1544.5, 2),
                                              (3088, 2), (3089, 3), (4632, 3)])
def test_t1_lines_round_up(kbit, lines):
    assert sizing.t1_lines(kbit) == lines


def test_t1_lines_with_an_exact_multiple_after_floating_point():
    # 0.1 + 0.2 style noise must not add a line: 3 x 1544 computed in steps.
    kbit = sizing.bandwidth_kbit_s(3 * 1544 / 8 * 0.1, 10, 1)
    assert kbit == pytest.approx(4632)
    assert sizing.t1_lines(kbit) == 3


@given(users=st.integers(0, 10_000), size=st.one_of(st.just(0.0), st.floats(1e-100, 1e4)),
       seconds=st.floats(0.01, 100))
def test_lines_carry_the_bandwidth(users, size, seconds):
    kbit = sizing.bandwidth_kbit_s(users, size, seconds)
    lines = sizing.t1_lines(kbit)
    assert lines * 1544 >= kbit * (1 - 1e-9)
    assert (lines - 1) * 1544 < kbit or lines == 0


# ------------------------------------------------------------------ RqThrottle (IP-C4)


def test_one_thread_at_five_ms_gives_two_hundred_per_second():
    t = n("static_response_time_low") / 1000
    assert sizing.max_throughput(int(n("rqthrottle_single")), t) == pytest.approx(
        n("throughput_one_at_a_time"))


@given(threads=st.integers(1, 10_000), t=st.floats(1e-4, 100))
def test_threads_for_throughput_inverts_the_bound(threads, t):
    x = sizing.max_throughput(threads, t)
    assert sizing.threads_for_throughput(x, t) == threads
    assert sizing.threads_for_throughput(x * 1.001, t) >= threads


# ------------------------------------------------------------------ bad input

BAD = [0.5, -1, math.nan, math.inf, "4", None, True]


@pytest.mark.parametrize("value", [0, -1, 2.5, "4", None, True])
def test_memory_rejects_bad_cpus(value):
    with pytest.raises(ValueError, match="cpus"):
        sizing.memory_mb(value)


@pytest.mark.parametrize("value", [-1, 2.5, "4", None, True])
def test_memory_rejects_bad_users(value):
    with pytest.raises(ValueError, match="peak_users"):
        sizing.memory_mb(2, value)


def test_memory_rejects_unknown_composition_and_bad_overrides():
    with pytest.raises(ValueError, match="composition"):
        sizing.memory_mb(2, composition="sum")
    with pytest.raises(ValueError, match="per_cpu_mb"):
        sizing.memory_mb(2, per_cpu_mb=-1)
    with pytest.raises(ValueError, match="per_user_kb"):
        sizing.memory_mb(2, per_user_kb=math.nan)


@pytest.mark.parametrize(("name", "value"), [("users", -1), ("users", "5"),
                                             ("document_kb", -0.1), ("document_kb", math.inf),
                                             ("transfer_time_s", 0), ("transfer_time_s", None)])
def test_bandwidth_rejects(name, value):
    args = {"users": 50, "document_kb": 24, "transfer_time_s": 5, name: value}
    with pytest.raises(ValueError, match=name):
        sizing.bandwidth_kb_s(**args)


def test_bandwidth_rejects_other_kilobytes():
    with pytest.raises(ValueError, match="bytes_per_kb"):
        sizing.bandwidth_kbit_s(50, 24, 5, bytes_per_kb=1008)


@pytest.mark.parametrize(("name", "value"), [("kbit_s", -1), ("kbit_s", math.nan),
                                             ("line_kbit_s", 0), ("line_kbit_s", "T1")])
def test_t1_lines_rejects(name, value):
    args = {"kbit_s": 100, name: value}
    with pytest.raises(ValueError, match=name):
        sizing.t1_lines(args.pop("kbit_s"), **args)


@pytest.mark.parametrize(("func", "name", "args"), [
    (sizing.max_throughput, "threads", (0, 0.1)),
    (sizing.max_throughput, "threads", (1.5, 0.1)),
    (sizing.max_throughput, "request_time_s", (4, 0)),
    (sizing.threads_for_throughput, "throughput", (0, 0.1)),
    (sizing.threads_for_throughput, "request_time_s", (10, -1)),
])
def test_throughput_calculators_reject(func, name, args):
    with pytest.raises(ValueError, match=name):
        func(*args)


# --- over the whole domain (property tests): iplanet sizing


@st.composite
def memory_arguments(draw):
    names = ["cpus", "peak_users", "baseline_mb", "per_cpu_mb", "users_included",
             "per_user_kb"]
    bad = refused_argument(draw, names)
    maybe = st.one_of(st.none(), amounts())
    return {
        "cpus": maybe_refused(draw, "cpus", counts(), BAD_INTS, bad),
        "peak_users": maybe_refused(draw, "peak_users", counts_from_zero(), BAD_INTS_FROM_ZERO,
                                    bad),
        "composition": draw(st.sampled_from(sizing.COMPOSITIONS)),
        "baseline_mb": maybe_refused(draw, "baseline_mb", maybe, optional(BAD_AMOUNTS), bad),
        "per_cpu_mb": maybe_refused(draw, "per_cpu_mb", maybe, optional(BAD_AMOUNTS), bad),
        "users_included": maybe_refused(draw, "users_included",
                                        st.one_of(st.none(), counts_from_zero()),
                                        optional(BAD_INTS_FROM_ZERO), bad),
        "per_user_kb": maybe_refused(draw, "per_user_kb", maybe, optional(BAD_AMOUNTS), bad),
    }


@CALC
@given(memory_arguments())
def test_memory_mb_over_its_domain(arguments):
    res = call(sizing.memory_mb, arguments, [])
    if res is None:
        return
    a, _ = unwrap(arguments)

    def given_or(name, constant):
        return exact(sizing.rule_constant(constant) if a[name] is None else a[name])

    base = given_or("baseline_mb", "memory_baseline_mb")
    per_cpu = given_or("per_cpu_mb", "memory_per_cpu_mb")
    included = int(given_or("users_included", "users_before_extra_memory"))
    per_user = given_or("per_user_kb", "memory_per_extra_user_kb")
    cpus = a["cpus"]
    if a["composition"] == "example":
        cpu_part = max(base, cpus * per_cpu)
    else:
        cpu_part = base + cpus * per_cpu if cpus > 1 else base
    want = cpu_part + max(0, a["peak_users"] - included) * per_user / 1024
    assert math.isfinite(res) and close(res, want, 1e-12), (res, float(want))


@st.composite
def bandwidth_arguments(draw):
    return drawn(draw, {"users": (amounts(), BAD_AMOUNTS), "document_kb": (amounts(), BAD_AMOUNTS),
                        "transfer_time_s": (times(), BAD_MAGNITUDES)})


@CALC
@given(bandwidth_arguments(), st.sampled_from([None, 1000, 1024]))
def test_bandwidth_over_its_domain(arguments, bytes_per_kb):
    names = ["users", "document_kb", "transfer_time_s"]
    kb_s = call(sizing.bandwidth_kb_s, arguments, names)
    if bytes_per_kb is None:
        kbit_s = call(sizing.bandwidth_kbit_s, arguments, names)
        bytes_per_kb = 1000
    else:
        kbit_s = call(lambda **a: sizing.bandwidth_kbit_s(**a, bytes_per_kb=bytes_per_kb),
                      arguments, names)
    if kb_s is None:
        assert kbit_s is None
        return
    a, _ = unwrap(arguments)
    want = exact(a["users"]) * exact(a["document_kb"]) / exact(a["transfer_time_s"])
    assert math.isfinite(kb_s) and close(kb_s, want, 1e-12)
    assert math.isfinite(kbit_s) and close(kbit_s, want * bytes_per_kb * 8 / 1000, 1e-12)


@CALC
@given(st.data())
def test_t1_lines_over_their_domain(data):
    bad = refused_argument(data.draw, ["kbit_s", "line_kbit_s"])
    arguments = {
        "kbit_s": maybe_refused(data.draw, "kbit_s", amounts(), BAD_AMOUNTS, bad),
        "line_kbit_s": maybe_refused(data.draw, "line_kbit_s", st.one_of(st.none(), times()),
                                     optional(BAD_MAGNITUDES), bad),
    }
    lines = call(lambda kbit_s, line_kbit_s: sizing.t1_lines(kbit_s, line_kbit_s=line_kbit_s),
                 arguments, [])
    if lines is None:
        return
    a, _ = unwrap(arguments)
    line = exact(a["line_kbit_s"] or sizing.rule_constant("t1_line_kbit_s"))
    ratio = exact(a["kbit_s"]) / line
    assert isinstance(lines, int)
    if ratio == 0:
        assert lines == 0
    else:  # enough lines, and one fewer would not do (up to rounding of a whole ratio)
        assert lines >= 1 and lines >= ratio * (1 - F(1, 10**9))
        assert lines == 1 or lines - 1 < ratio


@CALC
@given(st.data())
def test_throughput_calculators_over_their_domain(data):
    time = (times(), BAD_MAGNITUDES)
    arguments = drawn(data.draw, {"threads": (counts(), BAD_INTS), "request_time_s": time})
    bound = call(sizing.max_throughput, arguments, [])
    if bound is not None:
        a, _ = unwrap(arguments)
        assert math.isfinite(bound)
        assert close(bound, F(a["threads"]) / exact(a["request_time_s"]), 1e-15)

    arguments = drawn(data.draw, {"throughput": time, "request_time_s": time})
    need = call(sizing.threads_for_throughput, arguments, [])
    if need is not None:
        a, _ = unwrap(arguments)
        busy = exact(a["throughput"]) * exact(a["request_time_s"])
        assert isinstance(need, int) and need >= 1
        assert need >= busy * (1 - F(1, 10**9))
        assert need == 1 or need - 1 < busy
