"""queuetune.lab.experiments.database.experiment: the page and its bounds, the settings, the
plan, the advice; then, on real servers, the smoke campaign (data set, checks, report), the
page's secret, and the database's postmaster killed in the middle of a campaign."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import psutil
import pytest
from lab_campaigns import validate_package, write_campaign
from lab_database import lab_children

from queuetune import snippets
from queuetune.lab import campaign, datasets, postgres, report
from queuetune.lab.experiments.database import experiment
from queuetune.lab.tomcat import MAX_CPU_MS, MAX_WAIT_MS, ServerSettings, free_port

URL = "jdbc:postgresql://127.0.0.1:5432/queuetune?user=queuetune"


def _page(**kwargs) -> bytes:
    given = {"connections": 3, "jdbc_url": URL, "pool_timeout_ms": 1000, "rows": 10, **kwargs}
    return experiment.page("s3cret", **given)


def _settings() -> dict:
    return tomllib.loads(campaign.builtin("database-smoke").read_text(encoding="utf-8"))


# -- the page -------------------------------------------------------------------------------


def test_the_page_carries_its_secret_pool_url_and_bounds():
    text = _page().decode()
    assert "@QUEUETUNE_" not in text
    assert '"s3cret"' in text and f'"{URL}"' in text
    assert "setMaximumPoolSize(3)" in text and "setConnectionTimeout(1000L)" in text
    assert f"{MAX_CPU_MS}L * 1_000_000L" in text and f"{MAX_WAIT_MS}L * 1_000L" in text
    assert f"CV = {experiment.LOGNORMAL_CV!r}" in text
    # the secret is checked before any parameter is read or the pool is touched
    assert text.index("if (!allowed(request))") < text.index('request.getParameter("stats")')
    assert text.index("if (!allowed(request))") < text.index("POOL.getConnection()")


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"connections": 0}, "connections"),
    ({"pool_timeout_ms": 100}, "pool_timeout_ms"),
    ({"rows": 0}, "rows"),
    ({"jdbc_url": "jdbc:postgresql://10.0.0.1:5432/db?user=u"}, "jdbc_url"),
    ({"jdbc_url": 'jdbc:postgresql://127.0.0.1:1/x?user=u");'}, "jdbc_url"),
])
def test_a_bad_page_setting_is_refused_by_name(kwargs, match):
    with pytest.raises(ValueError, match=match):
        _page(**kwargs)


def test_a_bad_secret_is_refused():
    with pytest.raises(ValueError, match="secret"):
        experiment.page('a"b', connections=1, jdbc_url=URL, pool_timeout_ms=1000, rows=1)


def test_the_access_log_names_the_thread_and_the_pages_times():
    pattern = experiment.access_pattern().split()
    assert pattern[:2] == ["%s", "%D"]  # what Tomcat's counters read
    assert {"%F", "%I", "%{X-Queuetune-Db-Us}o", "%{X-Queuetune-Permit-Wait-Us}o"} <= set(
        pattern)


def test_the_access_log_keeps_the_page_requests_only():
    page = ("200 5100 2048 4 queuetune-exec-1 1700000000123 "
            "?work=1&db_work=2&sleep_us=3&dist=constant&bytes=2048 4000 10 900 3000 1 2 3 -")
    stats = "200 900 80 0 queuetune-exec-2 1700000000200 ?stats=1 - - - - - - - -"
    stopped = ("503 10 0 0 queuetune-exec-3 1700000000300 ?work=1&db_work=2&sleep_us=3"
               "&dist=constant&bytes=2048 - 7 - - - - - pool-timeout")
    rows = experiment.parse_access([page, stats, stopped, "garbage"])
    assert [r["status"] for r in rows] == [200, 503]
    assert rows[0]["pool_wait_us"] == 10 and rows[0]["sleep_us"] == 3
    assert rows[1]["stopped"] == "pool-timeout" and rows[1]["cpu_us"] is None


# -- settings and plan ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "low_s", "high_s"), [
    ("database-smoke", 10, 60), ("database-work", 6 * 60, 14 * 60),
    ("database-advice", 10 * 60, 20 * 60)])
def test_each_campaign_plans_within_its_time(name, low_s, high_s):
    plan = campaign.load(campaign.builtin(name))
    assert low_s <= plan.estimated_seconds() <= high_s


def test_the_advice_runs_follow_a_one_client_run_on_the_designs_server():
    plan = campaign.load(campaign.builtin("database-advice"))
    runs = plan.schedule()
    assert runs[0].kind == "one-client" and runs[0]["settings_from"] == "design"
    assert [r["peak_multiple"] for r in runs[1:]] == [0.5, 1.0, 1.1, 1.5, 2.0, 3.0, 4.0]
    assert len(plan.server_groups()) == 2


@pytest.mark.parametrize(("change", "match"), [
    ({"clients": [3], "arrival_rate": [40.0]}, "exactly one of clients"),
    ({"settings_from": ["advice"], "peak_multiple": [1.0], "arrival_rate": [0.0]},
     "needs an \\[advice\\] table"),
    ({"distribution": ["uniform"]}, "distribution"),
    ({"db_ms": [60.0]}, "db_ms"),
])
def test_a_bad_design_is_refused_by_name(tmp_path, change, match):
    settings = _settings()
    settings.pop("advice")
    settings["design"] = [{**settings["design"][0], **change}]
    with pytest.raises(ValueError, match=match):
        campaign.load(write_campaign(tmp_path, settings)).schedule()


def test_tomcat_must_have_a_core_of_its_own(tmp_path):
    settings = _settings()
    settings["server"]["cores"] = [0, 1]
    with pytest.raises(ValueError, match="server.cores\\[0\\]"):
        campaign.load(write_campaign(tmp_path, settings))


# -- the advice -----------------------------------------------------------------------------


def test_the_advice_takes_the_largest_peak_that_fits_the_processors():
    from queuetune import sizing

    shares = (0.9, 0.4, 0.2, 0.1)
    advice = experiment.advice_for(processors=1, cpu_s=0.007, wait_s=0.026, shares=shares,
                                   max_response_s=2.0)
    assert advice["peak"] == pytest.approx(advice["share"] / 0.007, rel=1e-12)
    fitted = sizing.size(processors=1, cpu_time=0.007, wait_time=0.026,
                         arrival_rate=advice["peak"], max_response_time=2.0)
    assert fitted.processors_needed <= 1
    for larger in [s for s in shares if s > advice["share"]]:
        assert sizing.size(processors=1, cpu_time=0.007, wait_time=0.026,
                           arrival_rate=larger / 0.007,
                           max_response_time=2.0).processors_needed > 1
    # the deployed numbers are those of the snippets, verbatim
    assert experiment.snippet_levels(advice["tomcat"], advice["hikari"]) == {
        "threads": fitted.threads, "queue": snippets.queue(snippets.from_sizing(fitted)),
        "pool": snippets.pool(snippets.from_sizing(fitted))}


def test_no_fitting_peak_is_refused():
    with pytest.raises(ValueError, match="no peak"):
        experiment.advice_for(processors=1, cpu_s=0.007, wait_s=0.026, shares=(0.99,),
                              max_response_s=2.0)


def test_a_snippet_without_a_setting_is_refused():
    with pytest.raises(ValueError, match="maxQueueSize"):
        experiment.snippet_levels('maxThreads="4"', "maximumPoolSize=2")


# -- real servers ---------------------------------------------------------------------------


def _status(url: str, headers: dict[str, str]) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=30) as answer:
            answer.read()
            return answer.status, dict(answer.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers)


@pytest.mark.lab
def test_only_requests_with_the_secret_do_any_work():
    before = lab_children()
    secret = experiment.new_secret()
    header = {experiment.SECRET_HEADER: secret}
    with postgres.Cluster(cores=(0,), rows=10) as cluster:
        server = experiment.DatabaseTomcat(
            ServerSettings(threads=2, queue=2, port=free_port(), cores=(1,)),
            pages={"database.jsp": experiment.page(secret, connections=1,
                                                   jdbc_url=cluster.jdbc_url,
                                                   pool_timeout_ms=1000, rows=10)},
            ready_path=f"{experiment.PAGE}?work=0&db_work=0&sleep_us=0&dist=constant",
            ready_headers=header)
        with server:
            page = f"{server.url}{experiment.PAGE}"
            status, headers = _status(f"{page}?work=1000&db_work=1000&sleep_us=100"
                                      f"&dist=lognormal", header)
            assert status == 200 and int(headers["X-Queuetune-Db-Work"]) >= 0
            for wrong in ({}, {experiment.SECRET_HEADER: "not-the-secret"}):
                assert _status(f"{page}?work=not-a-number", wrong)[0] == 403
                assert _status(f"{page}?stats=1", wrong)[0] == 403
            too_long = MAX_WAIT_MS * 1000 + 1
            assert _status(f"{page}?sleep_us={too_long}&dist=constant", header)[0] == 500
            assert _status(f"{page}?work=1&dist=uniform", header)[0] == 500
            stats = experiment.pool_stats(server.url, secret)
            assert stats["total"] == 1 and stats["timeouts"] == 0
            threads = {r["thread"] for r in experiment.parse_access(server.access_lines())}
            assert threads and all(t.startswith("queuetune-exec-") for t in threads)
    assert lab_children() - before == set()


@pytest.mark.lab
def test_the_smoke_data_set_validates_and_is_checked(database_smoke):
    plan, folder = database_smoke
    report_ = validate_package(folder)
    assert report_.valid, report_.flatten(["rowNumber", "fieldName", "message"])[:5]
    runs = datasets.load("runs", folder)
    meta = datasets.metadata(folder)
    assert len(runs) == len(plan.schedule())
    invalid = runs.loc[~runs["valid"].astype(bool), "run"].tolist()
    assert meta["invalid_runs"] == invalid
    assert meta["status"] == ("complete" if not invalid else "complete-with-invalid-runs")
    # whatever the machine's load: the database ran, every answer is on both sides
    assert runs["database_alive"].all() and (runs["pool_timeouts"] == 0).all()
    # (a saturated machine may fill the queue: refusals are counted on both sides)
    assert (runs["ok"] + runs["closed"] + runs["other_errors"] == runs["sent"]).all()
    assert (runs["closed"] == runs["server_rejected"]).all()
    assert (runs["server_answered"] == runs["ok"]).all()
    assert (runs["db_cpu_ms"] > 0).all() and (runs["jvm_cpu_ms"] > 0).all()
    access = datasets.load("access", folder)
    assert access.groupby("run").size().tolist() == runs["ok"].tolist()
    assert set(datasets.load("pool", folder)["run"]) == set(runs["run"])
    assert set(datasets.load("calibration", folder)["what"]) == {"page", "database"}
    # the advice: sized from the one-client run, its snippets deployed verbatim
    advice = datasets.load("advice", folder).set_index("quantity")["value"]
    deployed = experiment.snippet_levels(advice["tomcat"], advice["hikari"])
    last = runs.iloc[-1]
    assert last["settings_from"] == "advice" and advice["measured_in_run"] == "1"
    assert {k: last[k] for k in deployed} == deployed
    assert last["arrival_rate"] == pytest.approx(float(advice["peak"]), rel=1e-3)
    samples = datasets.load("samples", folder)
    assert {"server", "database", "generator", "core-0", "core-1"} <= set(samples["what"])
    assert set(samples["run"]) == set(runs["run"])


@pytest.mark.lab
def test_the_work_varies_per_request_as_asked(database_smoke):
    _, folder = database_smoke
    runs = datasets.load("runs", folder).set_index("run")
    access = datasets.load("access", folder)
    for run, part in access.groupby("run"):
        drawn = part["db_work"] / runs.loc[run, "db_work"]
        # exponential and lognormal draws: spread out, cut at MAX_FACTOR
        assert drawn.max() <= experiment.MAX_FACTOR and drawn.std() > 0.3


@pytest.mark.lab
def test_the_report_runs_on_the_smoke(database_smoke):
    _, folder = database_smoke
    text = report.text(folder, include_invalid=True)
    assert "What this data set cannot give" in text


def _database_of(pid: int) -> list[psutil.Process]:
    found = []
    for proc in psutil.Process(pid).children(recursive=True):
        try:
            if proc.name() == "postgres" and "-D" in proc.cmdline():
                found.append(proc)
        except psutil.Error:
            continue
    return found


@pytest.mark.lab
def test_a_killed_database_is_flagged_and_nothing_is_left(tmp_path):
    before = lab_children()
    settings = _settings()
    settings.pop("advice")
    settings["design"] = [{**settings["design"][0], "arrival_rate": [30.0, 31.0, 32.0]}]
    settings["timing"]["one_client_s"] = 0.0
    settings["timing"]["measure_s"] = 3.0
    # a dead database fails a request within a quarter second; the clients wait 3 s at most
    settings["workload"]["pool_timeout_ms"] = 250
    settings["checks"]["request_timeout_s"] = 3.0
    file = write_campaign(tmp_path, settings)
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "queuetune.lab", "run", str(file),
                                "--out", str(out), "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        postmaster = []
        while time.monotonic() < deadline and process.poll() is None:
            found = list(out.glob("*/runs.csv"))
            if found and len(found[0].read_text().splitlines()) > 1:  # one run stored
                postmaster = _database_of(process.pid)
                break
            time.sleep(0.1)
        assert postmaster, process.communicate(timeout=60)
        postmaster[0].send_signal(signal.SIGKILL)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    folder = found[0].parent
    meta = datasets.metadata(folder)
    runs = datasets.load("runs", folder)
    assert meta["status"] == "stopped-server-dead", err
    assert len(runs) == 2 and not runs["valid"].iloc[-1]
    assert not runs["database_alive"].iloc[-1]
    assert "PostgreSQL's postmaster was not running" in runs["invalid_reason"].iloc[-1]
    assert validate_package(folder).valid
    # nothing left: no PostgreSQL, Java or Locust process, no folder of the runner's
    deadline = time.monotonic() + 20
    while lab_children() - before and time.monotonic() < deadline:
        time.sleep(0.2)
    assert lab_children() - before == set()
    left = [p for p in Path(tempfile.gettempdir()).glob("queuetune-*")
            if (p / ".queuetune-lab-base").is_file()
            and (p / ".queuetune-lab-base").read_text().split() == [str(process.pid)]]
    assert left == []
    assert json.loads((folder / "datapackage.json").read_text())["measurement"]["status"] \
        != "complete"
    assert os.path.isdir(folder)


def test_the_monitors_samples_are_kept_in_long_form():
    from types import SimpleNamespace

    monitor = SimpleNamespace(times=[10.0, 10.25], values={"server": [1.0, 1.1],
                                                           "database": [0.5]},
                              cores=[[3.0, 4.0], [3.2, 4.1]])
    rows = experiment.monitor_samples(monitor)
    assert {(r["t"], r["what"]) for r in rows} == {
        (10.0, "server"), (10.25, "server"), (10.0, "database"), (10.0, "core-0"),
        (10.0, "core-1"), (10.25, "core-0"), (10.25, "core-1")}
    assert [r["seconds"] for r in rows if r["what"] == "core-1"] == [4.0, 4.1]
