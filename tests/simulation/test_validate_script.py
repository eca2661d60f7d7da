"""scripts/validate_models.py on two tiny points: the table's shape, order and determinism."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from queuetune.simulation import MM1BK_METRICS, THREAD_POOL_METRICS

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "validate_models.py"
RUN = {"horizon": 100.0, "warmup": 10.0, "replications": 3}
MM1BK_GRID = [{"clients": 8, "capacity": 4, "service_time": 0.2, "think_time": 1.0}]
POOL_GRID = [
    {
        "clients": 8,
        "capacity": 5,
        "threads": 2,
        "cpu_time": 0.05,
        "wait_time": 0.2,
        "think_time": 1.0,
        "thread_overhead": 0.1,
        "pool_overhead": 0.01,
    }
]


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("validate_models", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def frame(script):
    return script.run_all(RUN, 1, MM1BK_GRID, POOL_GRID)


def test_grids_cover_the_paper_region(script):
    mm1bk = script.mm1bk_points()
    pool = script.thread_pool_points()
    assert len(mm1bk) >= 10 and len(pool) >= 10
    assert {p["clients"] for p in mm1bk} == set(range(10, 101, 10))
    assert {p["capacity"] for p in mm1bk} == {50, 200}
    assert {30, 100, 1, 2, 5} <= {p["threads"] for p in pool}
    assert any(p["thread_overhead"] > 0 for p in pool)


def test_one_row_per_metric_in_order(frame):
    assert list(frame["metric"]) == list(MM1BK_METRICS) + list(THREAD_POOL_METRICS)
    assert list(frame["model"].unique()) == ["mm1bk", "thread_pool"]
    assert frame.loc[frame["model"] == "mm1bk", "fes"].isna().all()
    assert frame.loc[frame["model"] == "thread_pool", "fes"].notna().all()
    inside = (frame["sim_ci_low"] <= frame["exact"]) & (frame["exact"] <= frame["sim_ci_high"])
    assert (frame["exact_in_ci"] | ~inside).all()


def test_same_table_twice(script, frame):
    assert script.run_all(RUN, 1, MM1BK_GRID, POOL_GRID).equals(frame)


def test_summary_counts_and_lists_misses(script, frame):
    text = script.summary(frame, RUN)
    proper = frame[~frame["ci_degenerate"]]
    assert f"| all | | {len(proper)} | {int(proper['exact_in_ci'].sum())} " in text
    assert text.count("\n| thread_pool | 0 |") + text.count("\n| mm1bk | 0 |") == int(
        (~frame["exact_in_ci"]).sum()
    )
