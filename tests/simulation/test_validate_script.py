"""scripts/validate_models.py on two tiny points: the table's shape, order and determinism."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd
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


SERVER_GRID = [
    {"arrival_rate": 4.0, "capacity": 6, "threads": None, "processors": 2, "connections": 2,
     "cpu_time": 0.1, "wait_time": 0.3},
    {"clients": 6, "think_time": 0.0, "capacity": 6, "threads": 3, "processors": 2,
     "connections": 2, "cpu_time": 0.1, "wait_time": 0.3},
]


@pytest.fixture(scope="module")
def frame(script):
    return script.run_all(RUN, 1, MM1BK_GRID, POOL_GRID, [])


def test_grids_cover_the_paper_region(script):
    mm1bk = script.mm1bk_points()
    pool = script.thread_pool_points()
    assert len(mm1bk) >= 10 and len(pool) >= 10
    assert {p["clients"] for p in mm1bk} == set(range(10, 101, 10))
    assert {p["capacity"] for p in mm1bk} == {50, 200}
    assert {30, 100, 1, 2, 5} <= {p["threads"] for p in pool}
    assert any(p["thread_overhead"] > 0 for p in pool)


def test_server_grid_covers_todays_servers(script):
    server = script.server_points()
    assert any(p["processors"] > 1 for p in server)
    assert any(p["connections"] is not None for p in server)
    assert any(p["threads"] is None for p in server)
    assert any("arrival_rate" in p for p in server)
    assert any(p.get("think_time") == 0 for p in server)
    assert any(p["processors"] > 1 and p["thread_overhead"] > 0 for p in server)


def test_server_grid_simulates(script):
    """Every server point is a valid simulation (its inputs and its work estimate)."""
    for i, point in enumerate(script.server_points()):
        result = script.simulate_thread_pool(**point, seed=i, horizon=20.0, warmup=2.0,
                                             replications=2)
        assert result.estimate["throughput"] > 0


def test_server_rows_against_the_model(script):
    if not script.model_supports_server():
        pytest.skip("queuetune.thread_pool does not take processors= yet")
    frame = script.run_all(RUN, 1, [], [], SERVER_GRID)
    assert list(frame["model"].unique()) == ["server"]
    assert list(frame["metric"]) == list(THREAD_POOL_METRICS) * len(SERVER_GRID)
    assert frame["exact"].notna().all() and frame["fes"].notna().all()
    assert "Flow-equivalent approximation (fes) of the server" in script.summary(frame, RUN)
    first = frame.iloc[0]
    assert script._describe_point(first) == "λ=4, B=6, T=none, cpu=0.1, wait=0.3, p=2, C=2"


def test_summary_says_when_the_server_grid_is_missing(script, frame):
    assert "The server grid" in script.summary(frame, RUN)


def test_one_row_per_metric_in_order(frame):
    assert list(frame["metric"]) == list(MM1BK_METRICS) + list(THREAD_POOL_METRICS)
    assert list(frame["model"].unique()) == ["mm1bk", "thread_pool"]
    assert frame.loc[frame["model"] == "mm1bk", "fes"].isna().all()
    assert frame.loc[frame["model"] == "thread_pool", "fes"].notna().all()
    inside = (frame["sim_ci_low"] <= frame["exact"]) & (frame["exact"] <= frame["sim_ci_high"])
    assert (frame["exact_in_ci"] | ~inside).all()


def test_same_table_twice(script, frame):
    assert script.run_all(RUN, 1, MM1BK_GRID, POOL_GRID, []).equals(frame)


def test_summary_counts_and_lists_misses(script, frame):
    text = script.summary(frame, RUN)
    proper = frame[~frame["ci_degenerate"]]
    assert f"| all | | {len(proper)} | {int(proper['exact_in_ci'].sum())} " in text
    assert text.count("\n| thread_pool | 0 |") + text.count("\n| mm1bk | 0 |") == int(
        (~frame["exact_in_ci"]).sum()
    )


def test_stored_rows_of_other_grids_are_kept(script, frame, tmp_path):
    """--grids server: the other grids' rows come from the stored table, even one written
    before the server's columns existed, and the table is ordered as a full run orders it."""
    old = frame.drop(columns=["arrival_rate", "processors", "connections"])
    old.to_csv(tmp_path / "old.csv", index=False, float_format="%.10g")
    stored = pd.read_csv(tmp_path / "old.csv")
    server = script.run_all(RUN, 1, [], [], SERVER_GRID[:1])
    merged = script.with_stored_rows(server, stored, ["server"])
    assert list(merged.columns) == list(server.columns)
    assert list(merged["model"].unique()) == ["mm1bk", "thread_pool", "server"]
    kept = merged[merged["model"] != "server"].reset_index(drop=True)
    assert (kept.loc[kept["model"] == "thread_pool", "processors"] == 1.0).all()
    assert kept.loc[kept["model"] == "mm1bk", "processors"].isna().all()
    assert kept["arrival_rate"].isna().all() and kept["connections"].isna().all()
    assert kept["exact"].tolist() == pytest.approx(frame["exact"].tolist(), rel=1e-9)
    fresh = merged[merged["model"] == "server"].reset_index(drop=True)
    # the same values; a column holding NaN from the stored rows becomes float
    pd.testing.assert_frame_equal(fresh, server, check_dtype=False)


def test_tables_split_by_grid(script, frame, tmp_path):
    """The paper's grids keep their own columns (the thread-pool chapter reads that table);
    the server grid has its own table; reading both gives the rows back."""
    server = script.run_all(RUN, 1, [], [], SERVER_GRID[:1])
    both = script.with_stored_rows(server, frame, ["server"])
    script.write_tables(both, tmp_path)
    paper = pd.read_csv(tmp_path / "validation_models.csv")
    assert "processors" not in paper.columns and "arrival_rate" not in paper.columns
    assert set(paper["model"]) == {"mm1bk", "thread_pool"}
    stored = pd.read_csv(tmp_path / "validation_server.csv")
    assert set(stored["model"]) == {"server"} and "connections" in stored.columns
    again = script.read_tables(tmp_path)
    assert len(again) == len(both)
    assert again["exact"].tolist() == pytest.approx(both["exact"].tolist(), rel=1e-9)
