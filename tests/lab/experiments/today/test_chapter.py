"""The chapter "Today's server": labels, fit, errors by regime, curves and the sizing advice,
on tables made by the model itself (so the right answer is known) and on a stored data set."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from queuetune import sizing
from queuetune.lab.experiments.today import chapter
from queuetune.lab.regimes import REGIMES

S_C, S_W = 0.010, 0.040
TIMES = pd.DataFrame({"s_c": [S_C], "s_w": [S_W]}, index=[1])


def _table(rows: list[dict]) -> pd.DataFrame:
    """Runs measured exactly as the model says, with the columns the chapter reads."""
    base = {"processors": 1, "executor": "platform", "threads": 10, "queue": 1000, "pool": 0,
            "clients": 0, "arrival_rate": 0.0, "think_s": 0.5, "valid": True,
            "answered": 100, "invalid_reason": "", "regime": "at the knee", "steady": True}
    table = pd.DataFrame([{**base, **r} for r in rows])
    table["run"] = np.arange(1, len(table) + 1)
    model = chapter.model_values(table, TIMES)
    table["throughput"] = model["x_model"]
    table["response_time"] = model["r_model"]
    table["r_mean"] = table["response_time"] * 1000
    table["error_rate"] = model["e_model"]
    table["configuration"] = [f"T = {t}" for t in table["threads"]]
    table["steady"] = True
    return table


def test_the_fit_finds_the_times_the_measurements_were_made_with():
    table = _table([{"arrival_rate": rate, "threads": t} for rate in (30.0, 60.0, 90.0)
                    for t in (3, 10)])
    start = pd.DataFrame({"s_c": [0.02], "s_w": [0.02]}, index=[1])
    found = chapter.fit_times(table, start)
    assert found.loc[1, "s_c"] == pytest.approx(S_C, rel=1e-4)
    assert found.loc[1, "s_w"] == pytest.approx(S_W, rel=1e-4)
    assert found.loc[1, "runs"] == len(table)


def test_errors_are_zero_for_the_model_itself_and_signed_otherwise():
    table = _table([{"clients": k} for k in (10, 40, 80)])
    assert np.allclose(chapter.errors(table, TIMES, "m")[
        ["throughput_error", "response_time_error", "refused_error"]], 0, atol=1e-12)
    slower = table.assign(response_time=table["response_time"] * 2)
    assert np.allclose(chapter.errors(slower, TIMES, "m")["response_time_error"], -0.5)


def test_an_open_run_whose_queue_grew_all_window_is_not_compared():
    table = _table([{"arrival_rate": rate} for rate in (30.0, 60.0, 90.0)])
    table["error_rate"] = 0.0
    table.loc[2, "throughput"] = 70.0  # answered 70 of 90 per second, refusing nothing
    assert chapter._steady(table).tolist() == [True, True, False]
    table["steady"] = chapter._steady(table)
    assert chapter.errors(table, TIMES, "m")["run"].tolist() == [1, 2]


def test_invalid_runs_are_left_out_and_listed():
    table = _table([{"clients": k} for k in (10, 40, 80)])
    table.loc[1, ["valid", "invalid_reason"]] = [False, "server dead"]
    assert chapter.errors(table, TIMES, "m")["run"].tolist() == [1, 3]
    assert chapter.invalid(table)["invalid_reason"].tolist() == ["server dead"]


def test_by_regime_gives_the_median_inside_its_interval_and_skips_empty_refusals():
    rng = np.random.default_rng(3)
    n = 12
    frame = pd.DataFrame({
        "model": "m", "run": np.arange(n), "regime": ["below the knee"] * 6 + ["at the knee"] * 6,
        "throughput_error": rng.normal(0.0, 0.02, n),
        "response_time_error": rng.normal(-0.1, 0.05, n),
        "refused_error": 0.0, "e_model": 0.0, "error_rate": 0.0})
    out = chapter.by_regime(frame)
    assert set(out["quantity"]) == {"throughput", "response time"}
    assert (out["low"] <= out["median error"]).all() and (out["median error"] <= out["high"]).all()
    assert out["regime"].astype(str).tolist()[:2] == ["below the knee", "at the knee"]


def test_curves_cover_every_configuration_and_model_on_whole_clients():
    table = _table([{"clients": k, "threads": t} for k in (10, 50) for t in (2, 5)])
    curves = chapter.curves(table, {"a": TIMES, "b": TIMES}, points=7)
    assert set(curves["configuration"]) == {"T = 2", "T = 5"}
    assert set(curves["model"]) == {"a", "b"}
    assert (curves["clients"] == curves["clients"].round()).all()
    assert curves["clients"].min() == 1 and curves["clients"].max() == 50


def test_the_advice_is_the_sizing_s_and_is_judged_on_the_measured_runs():
    # measured shares refused are whole requests over thousands: the model's 1e-12 is none
    table = _table([{"arrival_rate": 60.0, "threads": t} for t in (1, 3, 10, 40)])
    table["error_rate"] = table["error_rate"].round(6)
    plan = sizing.size(processors=1, cpu_time=S_C, wait_time=S_W, arrival_rate=60.0)
    advised = chapter.advice(table, TIMES).iloc[0]
    assert advised["advised threads"] == plan.threads
    assert advised["advised B"] == plan.capacity
    # the sizing asks for a second processor to carry 1.5 times the peak (Erlang C at
    # 0.9 erlangs), yet expects the one measured to carry the peak itself: the capacity
    # call is judged at the peak, not at the headroom
    assert advised["processors needed"] == plan.processors_needed == 2
    assert plan.headroom == 1.5 and plan.refused < chapter.EXPECTED_REFUSED
    assert advised["expected to carry it"] and advised["a configuration carried it"]
    assert advised["promise judged"]
    assert not chapter.advice(table.assign(steady=False), TIMES)["promise judged"].iloc[0]
    assert advised["saturation multiple"] == pytest.approx(plan.saturation_multiple,
                                                           rel=1e-12)
    nearest = min((1, 3, 10, 40), key=lambda t: (abs(t - plan.threads), t))
    assert advised["nearest measured"] == f"T = {nearest}"
    assert advised["best measured"] != "T = 1"  # 1 / S = 20/s cannot carry 60/s
    assert advised["threads held"] and advised["capacity call"] == "right"
    slow = table.assign(response_time=np.where(table["threads"] == nearest, 10.0,
                                               table["response_time"]))
    assert not chapter.advice(slow, TIMES)["threads held"].iloc[0]
    # a server that refused at every thread count: it did not carry the load after all
    refusing = table.assign(error_rate=0.2)
    assert chapter.advice(refusing, TIMES)["capacity call"].iloc[0] == "wrong"
    # past the threads' ceiling a closed loop refuses nothing (B >= K) but answers well under
    # its peak K / (Z + S): the advice does not expect it carried, and none carried it
    crowd = _table([{"clients": 80, "think_s": 0.1, "threads": t} for t in (1, 3, 10, 40)])
    crowd["error_rate"] = crowd["error_rate"].round(6)
    over = chapter.advice(crowd, TIMES).iloc[0]
    assert over["advised share refused"] == 0 and over["advised share of the peak answered"] < 0.95
    assert not over["expected to carry it"] and over["capacity call"] == "right"
    assert not over["promise judged"]


def test_labels_name_only_the_factors_a_data_set_varies():
    name = "today-virtual-2026-11-27"
    table = chapter.measured(name)
    assert any(c.startswith("virtual") for c in table["configuration"])
    assert not any("queue" in c for c in table["configuration"])
    assert np.allclose(table["response_time"], table["r_mean"] / 1000, equal_nan=True)
    assert set(table["regime"]) <= set(REGIMES)


def test_error_text_gives_the_interval_or_says_why_there_is_none():
    frame = pd.DataFrame({"model": "m", "regime": ["at the knee", "past the knee"],
                          "quantity": ["response time", "share refused (points)"],
                          "median error": [-0.37, 0.085], "low": [-0.47, np.nan],
                          "high": [-0.2, np.nan]})
    assert chapter.error_text(frame, "m", "at the knee", "response time") == \
        "-37% [-47%, -20%]"
    assert chapter.error_text(frame, "m", "past the knee", "share refused (points)") == \
        "+8.5 points (one run, no interval)"
    assert chapter.error_text(frame, "m", "below the knee", "throughput") == "not measured"
    shown = chapter.errors_shown(frame.assign(**{"largest error": [-0.5, 0.1]}))
    assert shown["low"].tolist() == ["-47.0%", "no interval (one run)"]


def test_the_model_chart_draws_every_configuration_and_only_valid_runs():
    table = _table([{"clients": k, "threads": t} for k in (10, 50) for t in (2, 5)])
    table.loc[0, "valid"] = False
    spec = chapter.model_chart(table, {"a": TIMES}, title="t", description="d",
                               x_title="Clients", panels=[("throughput", "X", ".1f")]
                               ).to_dict()
    text = str(spec)
    assert "T = 2" in text and "T = 5" in text
    rows = [row for data in spec["datasets"].values() for row in data]
    assert sum(row["_kind"] != "curve" for row in rows) == len(table) - 1


@pytest.mark.parametrize("dataset", ["today-virtual-2026-11-27", "today-processors-2026-11-27"])
def test_the_report_sees_each_configuration_with_its_own_resources(dataset):
    """Open runs with their arrival rate and no clients, virtual threads with no thread limit
    nor queue bound, the pool where there is one; the service times of the processors level
    measured by its one-client run; runs never steady left out, and said."""
    from queuetune.lab.experiments import today

    table = chapter.measured(dataset)
    q = today.model_quantities(dataset)
    steady = table[table["steady"]].reset_index(drop=True)
    assert q.runs["run"].tolist() == steady["run"].tolist()
    assert bool(q.left_out) == (not table["steady"].all())
    open_ = steady["arrival_rate"] > 0
    assert q.runs.loc[open_.to_numpy(), "clients"].isna().all()
    assert q.runs.loc[~open_.to_numpy(), "arrival_rate"].isna().all()
    virtual = (steady["executor"] == "virtual").to_numpy()
    assert q.runs.loc[virtual, ["threads", "capacity"]].isna().all().all()
    platform = q.runs[~virtual]
    assert (platform["capacity"] == steady.loc[~virtual, "threads"].to_numpy()
            + steady.loc[~virtual, "queue"].to_numpy()).all()
    assert (q.runs["processors"].to_numpy() == steady["processors"].to_numpy()).all()
    times = today.analysis.service_times(dataset).set_index("processors")
    for group, part in q.runs.groupby("group"):
        t = times.loc[int(part["processors"].iloc[0])]
        assert q.service.loc[group, "s_cpu"] == pytest.approx(t["s_c"])
        assert q.service.loc[group, "S"] == pytest.approx(t["s_c"] + t["s_w"])


def test_the_answers_of_a_convoy_come_in_bursts_of_the_thread_count():
    """On the stored one-processor runs with constant work, past a few clients, the answers
    come in bursts of T separated by silences longer than half the wait; with few clients
    (25, below the threads' ceiling) the bursts are smaller."""
    burst = chapter.bursts("today-processors-2026-11-27")
    one = burst[burst["processors"] == 1].set_index(["threads", "clients"])
    for threads in (5, 8):
        for clients in (50, 75, 110):
            row = one.loc[(threads, clients)]
            assert row["median burst (answers)"] == threads  # exact: a median of counts
            assert row["time in silences"] > 0.5
        assert one.loc[(threads, 25), "median burst (answers)"] < threads
    assert set(burst["run"]) <= set(range(1, 27))
