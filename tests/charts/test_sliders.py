"""queuetune.charts.sliders: the slider explorer's packing of a grid, its sliders, its panels'
fixed scales and its checks, on a small hand-made grid (the what-if grids it draws in the book:
tests/test_explorer.py)."""

from __future__ import annotations

import itertools
import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuetune import charts
from queuetune.charts import sliders


@pytest.fixture
def grid():
    """y = a * x + b over x in 1..3 for a in {1, 2} and b in {0.5, 1.5}; z = 0.1 * x."""
    rows = [{"x": x, "a": a, "b": b, "y": a * x + b, "z": 0.1 * x}
            for a, b, x in itertools.product([1, 2], [0.5, 1.5], [1, 2, 3])]
    return pd.DataFrame(rows)


def explorer(grid, **overrides):
    kwargs = dict(x="x", x_title="Clients", sliders=[("a", "Slope"), ("b", "Offset")],
                  panels=[("y", "Y", ".3f", "linear"), ("z", "Z", ".2f", "log")],
                  initial={"a": 2}, title="T", description="D")
    kwargs.update(overrides)
    return charts.slider_explorer(grid, **kwargs)


# -- the numbers stored in the page ------------------------------------------------------------

def test_explorer_number_keeps_four_significant_digits_and_whole_numbers_as_ints():
    assert sliders._explorer_number(1.23456) == 1.235
    assert sliders._explorer_number(123456.0) == 123500
    assert isinstance(sliders._explorer_number(123456.0), int)
    assert sliders._explorer_number(0.000123456) == 0.0001235
    assert sliders._explorer_number(3.14159, decimals=2) == 3.14
    whole = sliders._explorer_number(2.0)
    assert whole == 2 and isinstance(whole, int)


def test_explorer_number_leaves_a_whole_float_above_two_to_the_53_a_float():
    """An int would claim an exactness the float does not have."""
    big = sliders._explorer_number(float(2**60))
    assert isinstance(big, float) and big == pytest.approx(2**60, rel=5e-4)


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False).filter(lambda v: v != 0))
def test_explorer_number_is_within_half_a_unit_of_the_fourth_digit(value):
    stored = sliders._explorer_number(value)
    assert math.isclose(stored, value, rel_tol=5e-4)
    assert float(f"{stored:.4g}") == stored  # nothing past the fourth digit


# -- sliders and the packed records -------------------------------------------------------------

def test_slider_values_are_sorted_and_distinct(grid):
    assert sliders._explorer_slider(grid, "b") == [0.5, 1.5]
    assert sliders._explorer_slider(grid.iloc[::-1], "x") == [1.0, 2.0, 3.0]


def test_uneven_slider_values_are_refused_naming_the_column():
    uneven = pd.DataFrame({"t": [1, 2, 4]})
    with pytest.raises(ValueError, match="slider column 't' must take evenly spaced"):
        sliders._explorer_slider(uneven, "t")


def test_packed_records_one_per_slider_combination(grid):
    records = sliders._explorer_pack(grid, "x", ["a", "b"], ["y", "z"], {"z": 1})
    assert [(r["s0"], r["s1"]) for r in records] == [(1, 0.5), (1, 1.5), (2, 0.5), (2, 1.5)]
    assert records[3]["m0"] == [3.5, 5.5, 7.5]  # 2 * x + 1.5
    assert records[0]["m1"] == [0.1, 0.2, 0.3]  # one decimal place


def test_packing_refuses_a_grid_with_a_hole(grid):
    with pytest.raises(ValueError, match="must hold every x value"):
        sliders._explorer_pack(grid.iloc[1:], "x", ["a", "b"], ["y"], {})


def test_explorer_binds_one_range_slider_per_column_starting_at_initial(grid):
    spec = explorer(grid).to_dict()
    params = {p["name"]: p for p in spec["params"] if "bind" in p}
    assert list(params) == ["a", "b"]
    assert params["a"]["value"] == 2 and params["b"]["value"] == 0.5  # default: the smallest
    assert params["b"]["bind"] == {"input": "range", "min": 0.5, "max": 1.5, "step": 1.0,
                                   "name": "Offset "}
    assert len(spec["datasets"]["explorer_grid"]) == 4


# -- the panels' fixed y scales ----------------------------------------------------------------

def test_linear_panel_runs_from_zero_to_five_percent_above_the_largest_value(grid):
    scale, _ = sliders._panel_scale(grid["y"], "linear", ".3f")
    assert scale.to_dict()["domain"] == pytest.approx([0.0, 7.5 * 1.05])


def test_log_panel_pads_the_positive_values_by_a_quarter():
    scale, axis = sliders._panel_scale(pd.Series([0.0, 2.0, 50.0]), "log", ".2%")
    assert scale.to_dict()["domain"] == pytest.approx([2.0 / 1.25, 50.0 * 1.25])
    assert axis.to_dict()["format"] == ".0%"  # a percentage axis


def test_the_views_stack_below_twice_a_panel_and_its_axis():
    patch = sliders._stacking_patch(300)
    columns = patch[0]["value"]["init"]
    assert f"< {2 * (300 + 56) + 24} ? 1 : 2" in columns
    assert patch[1] == {"op": "add", "path": "/layout/columns",
                        "value": {"signal": "explorer_columns"}}


# -- the checks ------------------------------------------------------------------------------

@pytest.mark.parametrize("overrides, message", [
    ({"sliders": []}, "sliders and panels must each list"),
    ({"panels": [("y", "Y", ".3f", "sqrt")]}, "panel scale must be 'linear' or 'log'"),
    ({"sliders": [("load", "Load")]}, "slider column 'load' must be a valid identifier"),
    ({"initial": {"a": 1.5}}, r"initial\['a'\] must be one of \[1.0, 2.0\]"),
    ({"x_title": " "}, "x_title"),
    ({"panels": [("w", "W", ".3f", "linear")]}, "lacks column"),
])
def test_explorer_refuses_bad_arguments_naming_them(grid, overrides, message):
    with pytest.raises(ValueError, match=message):
        explorer(grid.assign(load=grid["a"]), **overrides)


def answers_of(grid, values):
    frame = grid[["x", "a"]].drop_duplicates().reset_index(drop=True)
    return frame.assign(n=values(frame))


def answer_panel(grid, answers, **overrides):
    kwargs = dict(answers=answers, answer_series=[("n", "Needed")], answer_title="How many?",
                  answer_y_title="Threads", load_label="Load")
    kwargs.update(overrides)
    return explorer(grid, **kwargs)


def test_answers_add_a_load_slider_and_a_packed_dataset(grid):
    answers = answers_of(grid, lambda f: f["x"] * f["a"])
    spec = answer_panel(grid, answers, initial={"load": 3}).to_dict()
    load = next(p for p in spec["params"] if p["name"] == "load")
    assert load["value"] == 3 and load["bind"]["name"] == "Load "
    assert spec["datasets"]["explorer_answers"] == [{"s0": 1, "m0": [1, 2, 3]},
                                                   {"s0": 2, "m0": [2, 4, 6]}]


@pytest.mark.parametrize("change, message", [
    (lambda a: a.assign(n=0), "answers must be numbers >= 1"),
    (lambda a: a.assign(x=a["x"] + 1), "answers must have the same x values"),
])
def test_answers_refused(grid, change, message):
    answers = change(answers_of(grid, lambda f: f["x"]))
    with pytest.raises(ValueError, match=message):
        answer_panel(grid, answers)


def test_answers_need_a_series_and_a_load_within_the_x_values(grid):
    answers = answers_of(grid, lambda f: f["x"])
    with pytest.raises(ValueError, match="answer_series must list"):
        answer_panel(grid, answers, answer_series=[])
    with pytest.raises(ValueError, match=r"initial\['load'\] must be one of"):
        answer_panel(grid, answers, initial={"load": 7})
