"""The pool-size section's numbers: what the fleet model gives, computed, not assumed."""

import math

import numpy as np
import pytest

from queuetune.chapters import pool_size as ps

POOLS = list(range(1, 25))


@pytest.fixture(scope="module")
def curves():
    return {(w["name"], s): ps.pool_curves(w, POOLS, contention=s)
            for w in (ps.DATABASE_BOUND, ps.LATENCY_BOUND) for s in (0.0, ps.CONTENTION)}


def test_database_bound_needs_about_twice_its_processors(curves):
    twice = 2 * ps.SETTING["db_processors"]
    for s in (0.0, ps.CONTENTION):
        found = ps.best_pool(curves[("database-bound", s)])
        # the smallest pool within 5 % of the best response time is near 2 p_db in total
        assert abs(found["enough"]["total_connections"] - twice) <= 2
    contended = ps.best_pool(curves[("database-bound", ps.CONTENTION)])
    assert not contended["at_edge"]
    assert contended["best"]["total_connections"] <= 2 * twice


def test_contention_makes_a_large_pool_collapse(curves):
    # the database completes less than the load with D in it past
    # D = 1 + (p_db/(lambda s_db) - 1)/sigma
    load, p_db = ps.SETTING["arrival_rate"], ps.SETTING["db_processors"]
    cliff = 1 + (p_db / (load * ps.DATABASE_BOUND["db_time"]) - 1) / ps.CONTENTION
    curve = curves[("database-bound", ps.CONTENTION)]
    past = curve[curve["total_connections"] > cliff + 1]
    below = curve[(curve["total_connections"] < cliff - 1) & (curve["total_connections"] >= 8)]
    assert (past["refused"] > 0.01).all()
    assert (below["refused"] < 1e-6).all()
    free = curves[("database-bound", 0.0)]
    assert free["throughput"].iloc[-1] == pytest.approx(load, rel=1e-9)


def test_latency_bound_needs_little_law_not_twice_the_processors(curves):
    load = ps.SETTING["arrival_rate"]
    w = ps.LATENCY_BOUND
    little = load * (w["db_time"] + w["wait_time"])
    for s in (0.0, ps.CONTENTION):
        curve = curves[("latency-bound", s)]
        found = ps.best_pool(curve)
        assert little < found["enough"]["total_connections"] < 2 * little
        at_twice = curve[curve["total_connections"] == 2 * ps.SETTING["db_processors"]].iloc[0]
        # a pool of 2 p_db caps the fleet at its connections over the holding time
        assert at_twice["throughput"] == pytest.approx(
            at_twice["total_connections"] / (w["db_time"] + w["wait_time"]), rel=1e-3)


def test_the_pool_grows_with_the_wait_share():
    table = ps.optimum_against_wait([0.001, 0.01, 0.05], POOLS, db_time=0.002,
                                    contention=ps.CONTENTION)
    enough = list(table["enough"])
    assert enough == sorted(enough) and enough[0] < enough[-1]
    assert (table["enough"] >= table["little"]).all()
    assert table["share"].iloc[-1] == pytest.approx(0.05 / 0.052, rel=1e-12)


def test_best_pool_and_curves_check_their_input(curves):
    with pytest.raises(ValueError, match="tolerance"):
        ps.best_pool(curves[("database-bound", 0.0)], tolerance=1.5)
    with pytest.raises(ValueError, match="pools"):
        ps.pool_curves(ps.DATABASE_BOUND, [0], contention=0.0)
    with pytest.raises(ValueError, match="contention"):
        ps.pool_curves(ps.DATABASE_BOUND, [1], contention=-1)
    with pytest.raises(ValueError, match="setting"):
        ps.pool_curves(ps.DATABASE_BOUND, [1], contention=0.0, setting={"nope": 1})
    assert math.isfinite(curves[("latency-bound", 0.0)]["response_time"].max())


def test_the_best_pool_does_not_move_with_rounding(curves):
    # Past the pool the load needs a curve is flat to its last digits: another processor's
    # rounding (a few units in the last place, here up to 1e-13 relative) must not move the
    # best pool. The practical chapter's sweep at s_w = 10 ms is such a curve: its best was
    # 21 connections per instance on one processor and 23 on another before ps.EQUAL.
    flat = ps.pool_curves({"name": "flat", "db_time": 0.002, "wait_time": 0.01}, POOLS,
                          contention=ps.CONTENTION)
    rng = np.random.default_rng(7)
    for key, curve in [*curves.items(), ("flat", flat)]:
        found = ps.best_pool(curve)
        for _ in range(20):
            jittered = curve.assign(response_time=curve["response_time"] * (
                1 + rng.uniform(-1e-13, 1e-13, len(curve))))
            assert ps.best_pool(jittered)["best"] == pytest.approx(found["best"], rel=1e-12), key
