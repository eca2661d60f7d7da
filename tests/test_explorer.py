"""queuetune.explorer (the what-if grids) and charts.slider_explorer (the page that shows them)."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_domain import (
    BATCH,
    FEW,
    call,
    maybe_refused,
    refused_argument,
    times,
)

from queuetune import charts, explorer, stated, thread_pool
from queuetune._validation import MAX_INTEGER
from queuetune.charts.sliders import _explorer_number
from queuetune.documents.domino_threads import rules

SMALL = dict(clients=[20, 60, 120], capacity=[40, 200], threads=[2, 8], cpu_time=[0.01, 0.03],
             wait_time=[0.1], think_time=[2.0, 5.0])
SIZING = dict(clients=[10, 50, 150, 300], capacity=[60, 400], cpu_time=[0.005, 0.02],
              wait_time=[0.05, 0.4], think_time=[1.0, 6.0])


@pytest.fixture(scope="module")
def small_grid():
    return explorer.build_grid(**SMALL)


@pytest.fixture(scope="module")
def small_sizing():
    return explorer.threads_needed(**SIZING)


# --- build_grid ---------------------------------------------------------------------------------

def test_grid_holds_every_combination_once_in_order(small_grid):
    assert list(small_grid.columns) == list(explorer.AXES) + list(explorer.METRICS)
    assert len(small_grid) == np.prod([len(v) for v in SMALL.values()])
    assert not small_grid.duplicated(list(explorer.AXES)).any()
    order = ["capacity", "threads", "cpu_time", "wait_time", "think_time", "clients"]
    assert small_grid.equals(small_grid.sort_values(order, kind="stable"))


def test_grid_rows_are_the_model(small_grid):
    """Every row equals thread_pool called on its own, for every metric kept."""
    for row in small_grid.itertuples(index=False):
        res = thread_pool(clients=row.clients, capacity=row.capacity, threads=row.threads,
                          cpu_time=row.cpu_time, wait_time=row.wait_time,
                          think_time=row.think_time, method="fes")
        for metric in explorer.METRICS:
            assert getattr(row, metric) == pytest.approx(float(getattr(res, metric)),
                                                         rel=1e-12, abs=1e-300), metric


def test_grid_exact_method_matches_the_chain():
    grid = explorer.build_grid(clients=[30, 90], capacity=[50], threads=[3], cpu_time=[0.02],
                               wait_time=[0.1], think_time=[2.0], method="exact")
    res = thread_pool(clients=[30, 90], capacity=50, threads=3, cpu_time=0.02, wait_time=0.1,
                      think_time=2.0, method="exact")
    np.testing.assert_allclose(grid["response_time"], res.response_time, rtol=1e-12)
    fes = explorer.build_grid(clients=[30, 90], capacity=[50], threads=[3], cpu_time=[0.02],
                              wait_time=[0.1], think_time=[2.0])
    assert not np.allclose(fes["response_time"], grid["response_time"], rtol=1e-9)


def test_grid_has_no_negative_zero(small_grid):
    for metric in explorer.METRICS:
        assert not np.any(np.signbit(small_grid[metric].to_numpy())), metric


def test_grid_scalars_make_one_value_axes():
    grid = explorer.build_grid(clients=50, capacity=100, threads=4, cpu_time=0.01,
                               wait_time=0.2, think_time=3.0)
    assert len(grid) == 1


def test_default_axes_are_evenly_spaced_for_sliders():
    for axis in (explorer.CLIENTS, explorer.CAPACITY, explorer.THREADS, explorer.CPU_TIME,
                 explorer.WAIT_TIME, explorer.THINK_TIME):
        steps = np.diff(axis)
        assert np.allclose(steps, steps[0]), axis


@pytest.mark.parametrize(("name", "value", "message"), [
    ("clients", [0, 10], "clients must be an integer >= 1"),
    ("capacity", [10.5], "capacity must be an integer >= 1"),
    ("threads", [8, 4], "threads must be strictly increasing"),
    ("threads", [4, 4], "threads must be strictly increasing"),
    ("cpu_time", [-0.01], r"cpu_time must be 0 or a number in \[1e-100, 1e\+100\]"),
    ("wait_time", [float("nan")], r"wait_time must be 0 or a number in \[1e-100, 1e\+100\]"),
    ("think_time", [0.0], r"think_time must be a number in \[1e-100, 1e\+100\]"),
    ("think_time", [[1.0, 2.0]], "think_time must be a number or a flat sequence"),
    ("clients", "many", "clients must be an integer >= 1"),
])
def test_grid_rejects_bad_axes(name, value, message):
    with pytest.raises(ValueError, match=message):
        explorer.build_grid(**{**SMALL, name: value})


def test_grid_rejects_bad_method_and_size():
    with pytest.raises(ValueError, match="method must be one of 'fes', 'exact'"):
        explorer.build_grid(**SMALL, method="fast")
    with pytest.raises(ValueError, match="MAX_CONFIGURATIONS = 200000"):
        explorer.build_grid(clients=range(1, 1001), capacity=range(1, 201), threads=[1, 2])
    with pytest.raises(ValueError, match="cpu_time and wait_time must not both be 0"):
        explorer.build_grid(clients=[5], capacity=[5], threads=[1], cpu_time=[0.0],
                            wait_time=[0.0], think_time=[1.0])


# --- threads_needed -----------------------------------------------------------------------------

def test_sizing_has_every_combination(small_sizing):
    assert len(small_sizing) == np.prod([len(v) for v in SIZING.values()])
    assert not small_sizing.duplicated(["clients", "capacity", "cpu_time", "wait_time",
                                        "think_time"]).any()


def test_rule_column_is_the_domino_rule(small_sizing):
    for clients, threads in zip(small_sizing["clients"], small_sizing["rule_threads"],
                                strict=True):
        assert threads == rules.domino_initial_threads(int(clients))


def _response_times(row, threads):
    return thread_pool(clients=row.clients, capacity=row.capacity, threads=threads,
                       cpu_time=row.cpu_time, wait_time=row.wait_time,
                       think_time=row.think_time, method="fes").response_time


def test_model_threads_at_load_is_the_smallest_pool_meeting_the_target(small_sizing):
    """A full scan of every pool size 1..min(K, B) finds the same answer as the bisection,
    which also checks that the response time falls as threads are added on these grids."""
    for row in small_sizing.itertuples(index=False):
        top = min(row.clients, row.capacity)
        scan = np.asarray(_response_times(row, np.arange(1, top + 1)), dtype=float)
        target = 1.10 * scan[-1]
        assert np.all(np.diff(scan) <= 1e-12 * scan[1:]), "response time rose with threads"
        smallest = int(np.argmax(scan <= target)) + 1
        assert row.model_threads_at_load == smallest
        assert row.response_time_model == pytest.approx(scan[row.model_threads - 1], rel=1e-12)
        assert row.response_time_model <= target * (1 + 1e-12)
        assert row.response_time_unlimited == pytest.approx(scan[-1], rel=1e-12)


SETTINGS = ["capacity", "cpu_time", "wait_time", "think_time"]


def test_model_threads_serve_every_smaller_load(small_sizing):
    """The model's answer is the largest answer at any load up to this one: it never falls as
    clients are added, and it meets the target at every smaller load of the grid."""
    for _, group in small_sizing.groupby(SETTINGS):
        group = group.sort_values("clients")
        assert group["model_threads"].tolist() == group["model_threads_at_load"].cummax().tolist()
        assert group["model_threads"].is_monotonic_increasing


def test_the_answer_at_one_load_falls_past_the_cpu_knee_and_the_model_answer_does_not():
    """Past the load where the CPU saturates, the answer at one load alone falls: a tolerance
    in proportion to a response time that grows with the CPU queue admits a pool that leaves
    the CPU idle part of the time. The pool that keeps the CPU busy does not depend on the
    load, and the model's answer stays put."""
    sizing = explorer.threads_needed(clients=list(range(150, 401, 25)), capacity=[400],
                                     cpu_time=[0.02], wait_time=[0.2], think_time=[4.0])
    at_load = sizing["model_threads_at_load"].to_numpy()
    assert at_load[-1] < at_load.max(), at_load
    assert sizing["model_threads"].is_monotonic_increasing
    assert sizing["model_threads"].iloc[-1] == at_load.max()


def test_peak_threads_is_the_percentile_of_busy_threads(small_sizing):
    for row in small_sizing.itertuples(index=False):
        top = min(row.clients, row.capacity)
        res = thread_pool(clients=row.clients, capacity=row.capacity, threads=top,
                          cpu_time=row.cpu_time, wait_time=row.wait_time,
                          think_time=row.think_time, method="fes")
        cdf = np.cumsum(res.probabilities)
        assert cdf[row.peak_threads] >= 0.99 - 1e-12
        if row.peak_threads > 0:
            assert cdf[row.peak_threads - 1] < 0.99
        assert row.mean_busy_threads == pytest.approx(float(res.busy_threads), rel=1e-12)
        assert row.mean_busy_threads <= row.peak_threads + 1


def test_tighter_tolerance_and_higher_percentile_ask_for_more_threads():
    loose = explorer.threads_needed(**SIZING, tolerance=0.5, percentile=90)
    tight = explorer.threads_needed(**SIZING, tolerance=0.02, percentile=99.9)
    assert (tight["model_threads"] >= loose["model_threads"]).all()
    assert (tight["model_threads"] > loose["model_threads"]).any()
    assert (tight["peak_threads"] >= loose["peak_threads"]).all()
    assert (tight["peak_threads"] > loose["peak_threads"]).any()


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"tolerance": 0}, r"tolerance must be a number in \(0, 10\]"),
    ({"tolerance": True}, r"tolerance must be a number in \(0, 10\]"),
    ({"tolerance": 11}, r"tolerance must be a number in \(0, 10\]"),
    ({"percentile": 100}, r"percentile must be a number in \(0, 100\)"),
    ({"percentile": float("nan")}, r"percentile must be a number in \(0, 100\)"),
    ({"method": "mva"}, "method must be one of"),
    ({"capacity": [0]}, "capacity must be an integer >= 1"),
])
def test_sizing_rejects_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        explorer.threads_needed(**{**SIZING, **kwargs})


# --- fes_benchmark --------------------------------------------------------------------------------

def test_benchmark_errors_are_read_from_the_results(tmp_path):
    bench = explorer.fes_benchmark(5, 40)
    assert len(bench) > 0
    assert set(bench["threads"]) <= set(range(5, 41))
    assert {"err_X", "err_R"} <= set(bench.columns)
    # One row of the CSV, changed: the function must report the changed number.
    tidy = pd.read_csv(explorer.BENCHMARK_CSV, dtype=str)
    pool = tidy[(tidy["section"] == "thread_pool_fes_vs_exact") & (tidy["quantity"] == "threads")]
    case = pool.loc[pd.to_numeric(pool["value"]) == 5, "case"].iloc[0]
    tidy.loc[(tidy["case"] == case) & (tidy["quantity"] == "err_R"), "value"] = "0.5"
    changed = tmp_path / "bench.csv"
    tidy.to_csv(changed, index=False)
    assert (explorer.fes_benchmark(5, 40, path=changed)["err_R"] == 0.5).sum() == 1


def test_benchmark_rejects_bad_input(tmp_path):
    with pytest.raises(ValueError, match="threads_high must be an integer >= threads_low"):
        explorer.fes_benchmark(10, 5)
    with pytest.raises(ValueError, match="path must name the benchmark's CSV"):
        explorer.fes_benchmark(path=tmp_path / "missing.csv")


# --- charts.slider_explorer ---------------------------------------------------------------------

PANELS = [("throughput", "Throughput (req/s)", ".4~g", "linear"),
          ("response_time", "Response time (s)", ".4~g", "log"),
          ("rejection_probability", "Rejected", ".2%", "linear"),
          ("busy_threads", "Busy threads", ".3f", "linear")]
SLIDERS = [("capacity", "Queue"), ("threads", "Threads"), ("cpu_time", "CPU (s)"),
           ("think_time", "Think (s)")]


def explorer_chart(grid, sizing=None, **overrides):
    kwargs = dict(x="clients", x_title="Clients", sliders=SLIDERS, panels=PANELS,
                  initial={"threads": 8, "capacity": 200, "load": 60}, title="T",
                  description="D", pool=("threads", "busy_threads", "Pool:"))
    if sizing is not None:
        kwargs.update(answers=sizing, answer_series=[("rule_threads", "Rule"),
                                                     ("model_threads", "Model")],
                      answer_title="How many?", answer_y_title="Threads", load_label="Load")
    kwargs.update(overrides)
    return charts.slider_explorer(grid, **kwargs)


@pytest.fixture(scope="module")
def sizing_for_small():
    return explorer.threads_needed(clients=SMALL["clients"], capacity=SMALL["capacity"],
                                   cpu_time=SMALL["cpu_time"], wait_time=SMALL["wait_time"],
                                   think_time=SMALL["think_time"])


# The two specs the chart tests read, each built (and validated by Altair) once: the tests
# only read them.
@pytest.fixture(scope="module")
def plain_spec(small_grid):
    return explorer_chart(small_grid).to_dict()


@pytest.fixture(scope="module")
def answered_spec(small_grid, sizing_for_small):
    return explorer_chart(small_grid, sizing_for_small).to_dict()


def test_sliders_are_bound_ranges_starting_at_initial(answered_spec):
    spec = answered_spec
    params = {p["name"]: p for p in spec["params"] if "bind" in p}
    assert list(params) == ["capacity", "threads", "cpu_time", "think_time", "load"]
    assert params["threads"]["bind"] == {"input": "range", "min": 2.0, "max": 8.0, "step": 6.0,
                                         "name": "Threads "}
    assert params["threads"]["value"] == 8 and params["capacity"]["value"] == 200
    assert params["cpu_time"]["value"] == 0.01  # default: the smallest value
    assert params["load"]["bind"]["min"] == 20 and params["load"]["value"] == 60
    assert spec["title"] == "T" and spec["description"] == "D"


def test_packed_records_hold_the_grid(small_grid, plain_spec):
    spec = plain_spec
    records = spec["datasets"]["explorer_grid"]
    assert len(records) == len(small_grid) // len(SMALL["clients"])
    first = small_grid.iloc[: len(SMALL["clients"])]
    assert [records[0][f"s{i}"] for i in range(4)] == [40, 2, 0.01, 2]
    for j, (column, *_rest) in enumerate(PANELS):
        expected = [float(f"{v:.4g}") for v in first[column]]
        if column == "rejection_probability":
            continue
        assert records[0][f"m{j}"] == pytest.approx(expected, rel=1e-12)
    # Each panel filters on every slider, then unpacks the lists to one row per client count.
    view = spec["concat"][0]["layer"][0]
    kinds = [next(iter(t)) for t in view["transform"]]
    assert kinds == ["filter", "flatten", "window", "calculate"]
    for column, _ in SLIDERS:
        assert f"- {column})" in view["transform"][0]["filter"]
    assert json.loads(view["transform"][3]["calculate"].split("[datum")[0]) == SMALL["clients"]


def test_panels_keep_a_fixed_y_range_and_tooltips_for_every_panel(small_grid, plain_spec):
    spec = plain_spec
    views = spec["concat"]
    assert len(views) == len(PANELS)
    for view, (column, y_title, fmt, scale) in zip(views, PANELS, strict=True):
        y = view["layer"][0]["encoding"]["y"]
        assert y["title"] == y_title and y["scale"]["type"] == scale
        low, high = y["scale"]["domain"]
        assert low <= small_grid[column].min() and high >= small_grid[column].max()
        tips = view["layer"][0]["encoding"]["tooltip"]
        assert [t.get("title") for t in tips] == ["Clients"] + [p[1] for p in PANELS]
        assert {"title": y_title, "format": fmt} in [
            {k: t.get(k) for k in ("title", "format")} for t in tips]
    pool_layers = [layer for layer in views[3]["layer"] if layer.get("mark", {}).get("type")
                   in ("rule", "text")]
    assert pool_layers, "the busy-threads panel draws the pool"


def test_answers_panel_reads_out_every_answer(sizing_for_small, answered_spec):
    spec = answered_spec
    answers = spec["datasets"]["explorer_answers"]
    assert len(answers) == len(sizing_for_small) // len(SMALL["clients"])
    text = json.dumps(spec["concat"][-2:])
    assert "'Rule'" in text and "'Model'" in text and "load" in text


def test_answers_axis_is_fixed_over_every_answer_and_pool(small_grid, sizing_for_small,
                                                          answered_spec):
    """The answers' y axis does not follow the sliders: a fixed log range over all answers."""
    spec = answered_spec
    sizing = spec["concat"][len(PANELS)]
    scales = [layer["encoding"]["y"]["scale"] for layer in sizing["layer"]
              if "scale" in layer.get("encoding", {}).get("y", {})]
    assert scales, "the answers panel has no explicit y scale"
    for scale in scales:
        assert scale["type"] == "log" and scale["nice"] is False
        low, high = scale["domain"]
        shown = sizing_for_small[["rule_threads", "model_threads"]].to_numpy()
        assert low <= min(shown.min(), min(SMALL["threads"]))
        assert high >= max(shown.max(), max(SMALL["threads"]))
    with pytest.raises(ValueError, match="answers must be numbers >= 1"):
        explorer_chart(small_grid, sizing_for_small.assign(rule_threads=0))


def test_views_stack_in_one_column_where_the_box_is_narrow(answered_spec):
    """Two views to a row; a patch of the compiled spec turns the columns into a signal of the
    box's width, so that on a phone the views stack instead of widening the page."""
    spec = answered_spec
    assert spec["columns"] == charts.sliders.EXPLORER_COLUMNS == 2
    assert len(spec["concat"]) == len(PANELS) + 2  # the panels, the answers, the readout
    patch = spec["usermeta"]["embedOptions"]["patch"]
    signal = next(op["value"] for op in patch if op["path"] == "/signals/-")
    assert signal["name"] == "explorer_columns"
    assert "containerSize()[0]" in signal["init"] and signal["init"].endswith("? 1 : 2")
    assert signal["on"][0]["events"] == {"source": "window", "type": "resize"}
    assert {"op": "add", "path": "/layout/columns",
            "value": {"signal": "explorer_columns"}} in patch


def test_a_tap_marks_the_point_and_writes_its_value(plain_spec):
    """Touch screens show no tooltip: a tap (pointerdown) on a panel selects the x under it,
    and the panel writes that point's value above its plot."""
    spec = plain_spec
    text = json.dumps(spec)
    for j in range(len(PANELS)):
        assert f'"name": "tap_{j}"' in text
        view = json.dumps(spec["concat"][j])
        assert f'{{"param": "tap_{j}", "empty": false}}' in view
        assert f"format(datum.m{j}, '{PANELS[j][2]}')" in view
    assert text.count('"on": "pointerdown"') == len(PANELS)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"initial": {"threads": 5}}, r"initial\['threads'\] must be one of"),
    ({"panels": [("throughput", "X", ".1f", "sqrt")]}, "panel scale must be 'linear' or 'log'"),
    ({"sliders": [("load", "Load")]}, "must be a valid identifier other than 'load'"),
    ({"sliders": [("think time", "Think")]}, "must be a valid identifier"),
    ({"title": ""}, "title must be a non-empty string"),
])
def test_builder_rejects_bad_arguments(small_grid, overrides, message):
    grid = small_grid.assign(load=small_grid["threads"], **{"think time": 1.0})
    with pytest.raises(ValueError, match=message):
        explorer_chart(grid, **overrides)


def test_builder_rejects_uneven_sliders_and_holes():
    grid = explorer.build_grid(clients=[10, 20], capacity=[10], threads=[1, 2, 4],
                               cpu_time=[0.01], wait_time=[0.1], think_time=[1.0])
    with pytest.raises(ValueError, match="must take evenly spaced values"):
        charts.slider_explorer(grid, x="clients", x_title="C", sliders=[("threads", "T")],
                               panels=PANELS[:1], initial={}, title="T", description="D")
    holed = grid[~((grid["threads"] == 2) & (grid["clients"] == 20))]
    holed = holed[holed["threads"] != 4]
    with pytest.raises(ValueError, match="must hold every clients value"):
        charts.slider_explorer(holed, x="clients", x_title="C", sliders=[("threads", "T")],
                               panels=PANELS[:1], initial={}, title="T", description="D")


def test_stored_numbers_are_compact():
    assert _explorer_number(12.3456789) == 12.35
    assert _explorer_number(0.000123456) == 0.0001235
    assert _explorer_number(40.0) == 40 and isinstance(_explorer_number(40.0), int)
    assert _explorer_number(0.123456, 4) == 0.1235


@pytest.mark.parametrize("args", list(itertools.product([1, 3], [0.0, 0.2])))
def test_threads_needed_handles_small_and_cpu_free_servers(args):
    clients, cpu = args
    out = explorer.threads_needed(clients=[clients], capacity=[2], cpu_time=[cpu],
                                  wait_time=[0.1], think_time=[1.0])
    assert 1 <= out["model_threads"].item() <= min(clients, 2)


def test_in_milliseconds_adds_the_slider_units(small_grid):
    shown = explorer.in_milliseconds(small_grid)
    np.testing.assert_allclose(shown["cpu_ms"], 1000 * small_grid["cpu_time"])
    np.testing.assert_allclose(shown["wait_ms"], 1000 * small_grid["wait_time"])
    assert shown.drop(columns=["cpu_ms", "wait_ms"]).equals(small_grid)
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['wait_time'\]"):
        explorer.in_milliseconds(small_grid.drop(columns="wait_time"))


def test_rule_against_model_shares(small_sizing):
    shares = explorer.rule_against_model(small_sizing, "rule_threads")
    rule, model = small_sizing["rule_threads"], small_sizing["model_threads"]
    n = len(small_sizing)
    assert shares["fewer threads than the model"] == pytest.approx((rule < model).sum() / n)
    assert shares["as many or more"] == pytest.approx((rule >= model).sum() / n)
    assert shares["fewer threads than the model"] + shares["as many or more"] == pytest.approx(1)
    assert shares["more than twice as many"] == pytest.approx((rule > 2 * model).sum() / n)
    assert shares["more than twice as many"] <= shares["as many or more"]
    with pytest.raises(ValueError, match="rule must be a column of sizing"):
        explorer.rule_against_model(small_sizing, "model_threads")


def test_at_settings_selects_rows_by_close_values(small_grid):
    rows = explorer.at_settings(small_grid, capacity=200, threads=8, cpu_time=0.03,
                                wait_time=0.1, think_time=2.0)
    assert list(rows.index) == SMALL["clients"]
    picked = small_grid[(small_grid["capacity"] == 200) & (small_grid["threads"] == 8)
                        & (small_grid["cpu_time"] == 0.03) & (small_grid["think_time"] == 2.0)]
    np.testing.assert_array_equal(rows["throughput"], picked["throughput"])
    # 0.1 + 0.2 is not 0.3 in floating point: still found
    assert len(explorer.at_settings(small_grid, cpu_time=0.01 + 0.02)) == len(
        small_grid[np.isclose(small_grid["cpu_time"], 0.03)])
    with pytest.raises(ValueError, match="chosen must name at least one setting"):
        explorer.at_settings(small_grid)
    with pytest.raises(ValueError, match=r"column\(s\) \['pool'\]"):
        explorer.at_settings(small_grid, pool=3)


# --- over the whole domain (property tests): explorer


def grid_counts():
    # small, or far too large (refused by the estimate of the work before anything runs)
    return st.one_of(st.integers(1, 30), st.integers(1, 30), st.sampled_from([MAX_INTEGER]))


@st.composite
def grid_axes(draw):
    bad = refused_argument(draw, ["clients", "capacity", "threads", "cpu_time", "wait_time",
                                  "think_time"])

    def axis(name, values, bad_values):
        return maybe_refused(draw, name, st.lists(values, min_size=1, max_size=2, unique=True)
                             .map(sorted), bad_values, bad)

    return {
        "clients": axis("clients", grid_counts(), [[0], [2, 1], [10**400], "many"]),
        "capacity": axis("capacity", grid_counts(), [[0.5], [MAX_INTEGER + 2]]),
        "threads": axis("threads", grid_counts(), [[-1], [3, 3]]),
        "cpu_time": axis("cpu_time", times(zero=True), [[-1.0], [5e-324], [1e101]]),
        "wait_time": axis("wait_time", times(zero=True), [[math.nan], [1e-101]]),
        "think_time": axis("think_time", times(), [[0.0], [math.inf], [[1.0, 2.0]]]),
    }


GRID_NAMES = ["clients", "capacity", "threads", "cpu_time", "wait_time"]


@FEW
@given(grid_axes())
def test_explorer_grid_over_its_domain(axes):
    grid = call(lambda **a: explorer.build_grid(**a), axes, GRID_NAMES)
    if grid is None:
        return
    for metric in explorer.METRICS:
        assert np.all(np.isfinite(grid[metric])), metric


@FEW
@given(grid_axes())
def test_explorer_threads_needed_over_its_domain(axes):
    axes = {k: v for k, v in axes.items() if k != "threads"}
    sizing_ = call(lambda **a: explorer.threads_needed(**a), axes, GRID_NAMES)
    if sizing_ is None:
        return
    top = np.minimum(sizing_["clients"], sizing_["capacity"])
    assert np.all((1 <= sizing_["model_threads"]) & (sizing_["model_threads"] <= top))
    for column in ("mean_busy_threads", "response_time_unlimited", "response_time_model"):
        assert np.all(np.isfinite(sizing_[column])), column


# --- batches equal single calls (property tests)


AXIS = st.lists(st.integers(1, 40), min_size=1, max_size=3, unique=True).map(sorted)
TIME_AXIS = st.lists(times(zero=True), min_size=1, max_size=2, unique=True).map(sorted)


@settings(BATCH, max_examples=15)
@given(AXIS, AXIS, AXIS, TIME_AXIS, st.lists(times(), min_size=1, max_size=2, unique=True)
       .map(sorted), st.sampled_from(["fes", "exact"]))
def test_explorer_grid_batch_equals_single(clients, capacity, threads, cpu, think, method):
    """Every row of a what-if grid is the model solved at that configuration alone."""
    wait = [0.05]
    grid = explorer.build_grid(clients=clients, capacity=capacity, threads=threads, cpu_time=cpu,
                               wait_time=wait, think_time=think, method=method)
    for row in grid.head(12).itertuples():
        single = thread_pool(clients=row.clients, capacity=row.capacity, threads=row.threads,
                             cpu_time=row.cpu_time,
                             wait_time=row.wait_time, think_time=row.think_time, method=method)
        for metric in explorer.METRICS:
            assert getattr(row, metric) == getattr(single, metric) + 0.0, metric


@settings(BATCH, max_examples=10)
@given(AXIS, AXIS, TIME_AXIS, st.lists(times(), min_size=1, max_size=2, unique=True)
       .map(sorted))
def test_explorer_threads_needed_batch_equals_single(clients, capacity, cpu, think):
    """Every row of threads_needed is the answer for that configuration alone (the bisection
    of each row does not depend on the others)."""
    sizing = explorer.threads_needed(clients=clients, capacity=capacity, cpu_time=cpu,
                                     wait_time=[0.05], think_time=think)
    for row in sizing.head(8).itertuples(index=False):
        alone = explorer.threads_needed(clients=row.clients, capacity=row.capacity,
                                        cpu_time=row.cpu_time, wait_time=row.wait_time,
                                        think_time=row.think_time)
        assert tuple(alone.iloc[0]) == tuple(row)


# --- the starting rule ------------------------------------------------------------------------

@given(st.integers(1, 2**53), st.fractions(0, 100).filter(lambda p: p > 0))
def test_threads_at_share_rounds_the_exact_share_up(clients, percent):
    threads = explorer.threads_at_share(clients=clients, percent=percent)
    assert threads >= 1 and threads - 1 < max(clients * percent / 100, 1) <= threads


@pytest.mark.parametrize(("kwargs", "name"), [
    ({"clients": 0, "percent": Fraction(10)}, "clients"),
    ({"clients": 2**53 + 1, "percent": Fraction(10)}, "clients"),
    ({"clients": 10, "percent": Fraction(0)}, "percent"),
    ({"clients": 10, "percent": 10.0}, "percent"),
    ({"clients": 10, "percent": Fraction(101)}, "percent")])
def test_threads_at_share_refuses_bad_input_naming_it(kwargs, name):
    with pytest.raises(ValueError, match=f"^{name} must be"):
        explorer.threads_at_share(**kwargs)


def test_the_rule_column_uses_the_share_the_article_states(small_sizing):
    share = Fraction(stated.value(*explorer.RULE_SHARE))
    assert small_sizing["rule_threads"].tolist() == [
        explorer.threads_at_share(clients=int(k), percent=share) for k in small_sizing["clients"]]
