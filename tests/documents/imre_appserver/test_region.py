"""queuetune.documents.imre_appserver.region: the stored region map matches the code, and its
statements can fail and hold."""

from __future__ import annotations

import numpy as np
import pytest

from queuetune import data
from queuetune.documents.imre_appserver import region as imre_region


@pytest.fixture(scope="module")
def region():
    return data.load_result("imre_region")


def test_region_csv_covers_the_default_grid_in_order(region):
    assert list(region.columns) == list(imre_region.COLUMNS)
    expected = [(s, t, p) for p in imre_region.POOL_OVERHEADS
                for t in imre_region.THREAD_OVERHEADS for s in imre_region.CPU_SHARES]
    got = list(region[["cpu_share", "thread_overhead", "pool_overhead"]]
               .itertuples(index=False, name=None))
    assert np.allclose(np.array(got), np.array(expected))
    held = region[list(imre_region.STATEMENTS)].sum(axis=1)
    assert (held == region["statements_held"]).all()


@pytest.mark.parametrize("index", [0, 137, 299, 461, 599])
def test_region_csv_matches_recomputation_at_sampled_cells(region, index):
    row = region.iloc[index]
    now = imre_region.evaluate(row["cpu_share"], row["thread_overhead"], row["pool_overhead"])
    for name in imre_region.STATEMENTS:
        assert now[name] == bool(row[name]), name
    assert now["statements_held"] == row["statements_held"]
    for name in ("q200_max_thread_gap", "q50_best_gain_100_threads",
                 "throughput_at_most_clients"):
        assert now[name] == pytest.approx(row[name], rel=1e-6, abs=1e-9), name


def test_region_statements_can_fail_and_hold():
    # the paper's own model (all of S on the CPU, no overhead): threads change nothing
    own = imre_region.evaluate(1.0)
    assert own["q200_threads_no_effect"] and not own["q50_more_threads_faster"]
    assert own["q50_faster_above_60"]
    # heavy contention: 100 threads drop more than 30 and are visibly slower at queue 200
    busy = imre_region.evaluate(1.0, 0.01)
    assert busy["q50_more_threads_more_errors"] and not busy["q200_threads_no_effect"]


def test_region_map_refuses_a_grid_estimated_too_long_before_it_starts():
    """The default grid is admitted; one ten times larger in CPU shares is refused by size,
    before any cell is computed (the progress wrapper is never called)."""
    seconds = imre_region.cell_seconds()
    default = (len(imre_region.CPU_SHARES) * len(imre_region.THREAD_OVERHEADS)
               * len(imre_region.POOL_OVERHEADS))
    assert 0 < default * seconds <= imre_region.REGION_MAX_SECONDS
    shares = [i / 200 for i in range(1, 201)]
    called = []
    with pytest.raises(ValueError, match=r"200 x 10 x 3 = 6000 cells would take about .* "
                                         r"more than max_seconds = 600 s"):
        imre_region.region_map(cpu_shares=shares, progress=called.append)
    assert called == []
    with pytest.raises(ValueError, match="max_seconds must be a number in"):
        imre_region.region_map(max_seconds=0)
    one = imre_region.region_map(cpu_shares=[0.5], thread_overheads=[0.0], pool_overheads=[0.0],
                                 max_seconds=seconds * 1.01)
    assert len(one) == 1
