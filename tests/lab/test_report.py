"""The report of a lab data set (queuetune.lab.report) on the stored Imre data set and on an
imported JMeter file whose answer is known: service time, fitted parameters, ceilings,
misses by regime, settings, and the offline HTML file."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from queuetune import mm1bk, sizing
from queuetune.lab import importers, report
from queuetune.lab.experiments.imre import analysis

DATASET = "imre-tomcat-2026-11-24-2"


@pytest.fixture(scope="module")
def fitted():
    return report.fits(DATASET)


def test_the_service_time_is_the_one_client_run_split_by_processor_time():
    svc = report.service(DATASET)
    one = analysis.summarize(DATASET).query("kind == 'one-client'").set_index("split")
    assert svc["S"].to_numpy() == pytest.approx(one.loc[svc.index, "r_succ"].to_numpy())
    assert svc["s_cpu"].to_numpy() == pytest.approx(
        one.loc[svc.index, "server_cpu_ms"].to_numpy() / 1000)
    assert (svc["s_cpu"] + svc["s_wait"]).to_numpy() == pytest.approx(svc["S"].to_numpy())
    assert (svc["think_time"] == 0.4).all()


def test_fitted_parameters_have_intervals_and_agree_with_the_one_client_split(fitted):
    table = report.parameters(fitted)
    assert set(table["model"]) == {"M/M/1/B/K", "thread-limited"}
    assert (table["low"] <= table["estimate"]).all() and (table["estimate"] <=
                                                         table["high"]).all()
    svc = report.service(DATASET)
    cpu = table.query("model == 'thread-limited' and parameter == 'cpu_time'")
    # the processor time fitted to the load runs, against the one measured with one client
    measured = svc.loc[cpu["group"], "s_cpu"].to_numpy()
    assert cpu["estimate"].to_numpy() == pytest.approx(measured, rel=0.05)


def test_no_run_passes_its_ceilings():
    table = report.ceilings(DATASET)
    bound = np.fmin(table["processors (p/s_c)"], table["threads (T/S)"])
    assert table["bottleneck"].to_numpy() == pytest.approx(bound.to_numpy())
    assert (table["highest measured"] <= 1.05 * bound).all()
    svc = report.service(DATASET)
    assert table["processors (p/s_c)"].to_numpy() == pytest.approx(
        1 / svc.loc[table["group"], "s_cpu"].to_numpy())


def test_misses_by_regime_show_where_one_server_fails(fitted):
    table = report.misses(DATASET, fitted)
    assert set(table["regime"]) <= set(report.REGIMES)
    assert (table["low"] <= table["median error"]).all()
    assert (table["median error"] <= table["high"]).all()
    sleep = table.query("group == 'sleep' and quantity == 'response time'")
    worst = sleep.groupby("model")["median error"].apply(lambda e: e.abs().max())
    # 700 ms of waiting in a pool of threads: one server cannot describe it
    assert worst["thread-limited"] < 0.05 < worst["M/M/1/B/K"]


def test_recommended_settings_are_the_sizing_of_the_largest_load():
    table = report.recommend(DATASET).set_index("group")
    svc = report.service(DATASET)
    for group, row in table.iterrows():
        s = svc.loc[group]
        expected = sizing.size(processors=1, cpu_time=s["s_cpu"], wait_time=s["s_wait"],
                               clients=100, think_time=0.4)
        assert row["threads (maxThreads)"] == expected.threads
        assert row["queue bound B"] == expected.capacity >= expected.threads
        assert row["peak"] == "100 clients"
    assert report.not_advised(DATASET) == {}


def test_the_html_report_is_one_offline_file(tmp_path):
    path = report.write_html(DATASET, tmp_path / "r.html")
    page = path.read_text()
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page, re.IGNORECASE)
    assert page.count("<svg") == 2 and "Recommended settings" in page
    assert path.stat().st_size < 300_000


def _jtl(path, *, service_time, think_time, levels, seconds=60.0):
    """A JTL whose clients see M/M/1/K/K's mean response time and think ``think_time``."""
    lines = ["timeStamp,elapsed,success,allThreads"]
    t0 = 1_700_000_000_000
    for k in levels:
        r = float(mm1bk(clients=k, capacity=k, service_time=service_time,
                        think_time=think_time).response_time)
        rows = []
        for client in range(k):
            start = client * (r + think_time) / k
            while start + r <= seconds:
                rows.append(f"{round(t0 + start * 1000)},{round(r * 1000)},true,{k}")
                start += r + think_time
        lines += sorted(rows)
        t0 += round(seconds * 1000) + 1000
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_imported_file_gets_its_service_time_and_think_time_back(tmp_path):
    source = _jtl(tmp_path / "r.jtl", service_time=0.020, think_time=0.5,
                  levels=[1, 5, 10, 20, 30, 40])
    data = importers.import_file(source, tmp_path / "d")
    svc = report.service(data)
    assert math.isnan(svc.loc["all", "s_cpu"])
    assert svc.loc["all", "think_time"] == pytest.approx(0.5, rel=0.05)
    params = report.parameters(report.fits(data)).set_index("parameter")
    assert params.loc["service_time", "estimate"] == pytest.approx(0.020, rel=0.05)
    assert params.loc["think_time", "low"] < params.loc["think_time", "high"]
    # no processor time in the file: nothing sized, and the report says so first
    assert report.recommend(data).empty
    assert "no processor time" in report.not_advised(data)["all"]
    whole = report.text(data)
    cannot = whole.split("== What this data set cannot give")[1].split("== ")[0]
    assert "!! the processor time per request (s_c)" in cannot
    assert "Not sized (all): no processor time" in whole.split("== Recommended settings")[1]


def test_an_unknown_data_set_is_refused():
    with pytest.raises(ValueError, match="dataset must be one of"):
        report.service("no-such-data-set")


def test_the_command_prints_and_writes_the_report(tmp_path, capsys):
    from queuetune.lab.__main__ import main

    source = _jtl(tmp_path / "r.jtl", service_time=0.010, think_time=0.2, levels=[1, 5, 10])
    data = importers.import_file(source, tmp_path / "d")
    assert main(["report", str(data), "--html", str(tmp_path / "r.html")]) == 0
    out = capsys.readouterr().out
    assert "== Fitted parameters" in out and "kB)" in out
    assert (tmp_path / "r.html").is_file()


def test_the_knee_is_where_the_bottleneck_saturates(fitted):
    table = report.predictions(DATASET, fitted).query("model == 'thread-limited'")
    svc = report.service(DATASET).loc["sleep"]
    # 30 threads of 717 ms saturate at 42/s, long before the core's 1/s_c = 71/s
    knee_30 = (svc["S"] + svc["think_time"]) / (svc["S"] / 30)
    knee_100 = (svc["S"] + svc["think_time"]) / svc["s_cpu"]
    assert 40 < knee_30 < 55 and 70 < knee_100 < 90
    regime = table.set_index(["group", "threads", "clients"])["regime"]
    assert set(regime.loc[("sleep", 30, 100)]) == {"past the knee"}
    assert set(regime.loc[("sleep", 100, 40)]) == {"below the knee"}
    assert set(regime.loc[("sleep", 30, 40)]) == {"at the knee"}


def test_the_fits_warnings_are_reported(fitted):
    table = report.fit_warnings(fitted)
    one_server = table.query("group == 'sleep' and model == 'M/M/1/B/K'")["warning"]
    assert one_server.str.contains("less than a constant model").any()
    assert not table.query("model == 'thread-limited'")["warning"].str.contains(
        "M/M/1/B/K").any()


@pytest.mark.lab
def test_a_data_set_measured_with_target_is_reported(user_server_smoke):
    """The smoke campaign run with --target against a Tomcat the test starts (the fixture):
    the report says which runs it used; with every run (the core check fails on a busy shared
    machine) it fits and sizes."""
    folder, _, _ = user_server_smoke
    runs = report.datasets.load("runs", folder)
    # the server's pool and queue are its own, not the campaign's levels: unknown
    assert runs[["threads", "queue", "max_connections", "capacity"]].isna().all().all()
    assert "unknown to the runner" in report.datasets.metadata(folder)["server"]
    assert any("threads and queue" in c for c in report.cannot(folder))
    used = report.runs_used(folder)
    assert used.startswith(f"{len(report.observations(folder))} of the 2 load runs used")
    whole = report.text(folder, include_invalid=True)
    assert "== Recommended settings" in whole and "Not shown" not in whole.split(
        "== Ceilings")[1]
    table = report.recommend(folder, include_invalid=True)
    assert table["peak"].tolist() == ["8 clients"] and table["threads (maxThreads)"].iloc[0] >= 1


def test_a_data_set_without_valid_load_runs_says_what_it_cannot_show(tmp_path):
    import json
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(report.datasets.dataset_dir(DATASET), copy,
                    ignore=shutil.ignore_patterns("wire_*", "requests.csv.gz"))
    shutil.copy(report.datasets.dataset_dir(DATASET) / "requests.csv.gz", copy)
    # keep the one-client runs and the load runs of one client count only: nothing to fit
    runs = (copy / "runs.csv").read_text().splitlines()
    kept = [runs[0]] + [line for line in runs[1:]
                        if ",one-client," in line or ",load," in line and ",10,0.4," in line]
    (copy / "runs.csv").write_text("\n".join(kept) + "\n")
    package = json.loads((copy / "datapackage.json").read_text())
    package["resources"] = [r for r in package["resources"] if not r["name"].startswith("wire")]
    (copy / "datapackage.json").write_text(json.dumps(package))
    whole = report.text(copy)
    assert "Not shown: no group has a closed loop measured at two client counts" in whole
    assert "Not shown: nothing fitted" in whole
    assert "== Recommended settings" in whole and report.charts(copy) == []


# -- every stored data set --------------------------------------------------------------------

SECTIONS = ("== One-client service time and its split", "== Fitted parameters",
            "== What the fits warn of", "== Ceilings", "== Where the models miss",
            "== Recommended settings")


@pytest.mark.parametrize("dataset", report.datasets.datasets())
def test_every_stored_data_set_gets_a_whole_report(dataset):
    """The report runs on each stored data set (the list read from data/lab), shows every
    section or says why not, and says first what the design cannot give when something is
    missing: a group fitted by neither model, or not sized."""
    fitted = report.fits(dataset)
    whole = report.text(dataset, fitted=fitted)
    positions = [whole.index(heading) for heading in SECTIONS]
    assert positions == sorted(positions)
    used = report.observations(dataset)
    assert whole.splitlines()[1].startswith(f"{len(used)} of the ")
    sized = set(report.recommend(dataset)["group"])
    groups = set(used["group"])
    if groups - set(fitted) or groups - sized:
        cannot = whole.split("== What this data set cannot give")[1].split("\n== ")[0]
        assert cannot.count("\n!! ") >= 1
    for group, why in report.not_advised(dataset).items():
        assert group not in sized and why in whole
    assert set(fitted) | sized <= groups


@pytest.mark.parametrize("dataset", report.datasets.datasets())
def test_no_stored_run_passes_the_bottleneck_it_is_given(dataset):
    """The least ceiling of the resources a data set gives is the server's capacity: no run
    measured above it (5 % for the one-client times that estimate it)."""
    table = report.ceilings(dataset, include_invalid=True)
    known = table[table["bottleneck"].notna()]
    assert (known["highest measured"] <= 1.05 * known["bottleneck"]).all()


def _jtl_many_threads(path, *, response_time, think_time, levels, seconds=30.0):
    """A JTL of a server that runs every request side by side: each takes ``response_time``
    whatever the clients (a sleep), so throughput K / (R + Z) grows past 1 / R."""
    lines = ["timeStamp,elapsed,success,allThreads"]
    t0 = 1_700_000_000_000
    for k in levels:
        rows = []
        for client in range(k):
            start = client * (response_time + think_time) / k
            while start + response_time <= seconds:
                rows.append(f"{round(t0 + start * 1000)},{round(response_time * 1000)},true,{k}")
                start += response_time + think_time
        lines += sorted(rows)
        t0 += round(seconds * 1000) + 1000
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_imported_sleep_gets_no_processors_and_no_ceiling_below_what_it_measured(tmp_path):
    """A server 10 ms asleep per request, measured by clients that think 90 ms: its file has
    no processor time, so no processors are advised from the 10 ms and no ceiling is claimed
    below the 360/s it carried (one request at a time would give 1/S = 100/s)."""
    source = _jtl_many_threads(tmp_path / "r.jtl", response_time=0.010, think_time=0.090,
                               levels=[1, 4, 12, 24, 36])
    data = importers.import_file(source, tmp_path / "d")
    highest = report.observations(data)["throughput"].max()
    assert highest > 3 / report.service(data).loc["all", "S"]
    table = report.ceilings(data)
    bounds = table.drop(columns=["group", "threads", "connections", "highest measured"])
    assert bounds.isna().all().all()
    assert report.recommend(data).empty
    whole = report.text(data)
    assert "processors needed" not in whole
    first = whole.index("== What this data set cannot give")
    assert first < whole.index("== One-client service time")
    page = report.html(data)
    caveat = page.index('<div class="caveat"')
    assert caveat < page.index("<table") and "processor time per request" in page[caveat:]


def test_the_html_file_is_refused_by_name_before_any_work(tmp_path):
    for bad, words in ((tmp_path / "missing" / "r.html", "does not exist"),
                       (tmp_path, "is a folder")):
        with pytest.raises(ValueError, match=f"html .*{words}"):
            report.write_html(DATASET, bad)
    assert list(tmp_path.iterdir()) == []
