"""A real measurement, a few seconds long: a real Tomcat, real Locust clients, a data set.

Checks what must hold whatever the machine's speed (no timing assertions): the run completes,
every table validates against its schema, every request sent is accounted for on both sides
(client rows, Locust's own count, Tomcat's access log and its refusals), the limits behave as
the chapter says, the distributed mode works, Ctrl-C stops everything and leaves valid data,
and no server or generator process is left behind.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from lab_campaigns import (
    check_accounting,
    lab_processes,
    smoke_settings,
    validate_package,
    write_campaign,
)

from queuetune.lab import campaign, datasets, runner, tomcat
from queuetune.lab.experiments.imre import analysis, chapter

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    before = set(lab_processes())
    out = tmp_path_factory.mktemp("lab")
    plan = campaign.load(campaign.builtin("smoke"))
    folder = runner.run_campaign(plan, runner.Options(out_root=out, progress=False))
    assert set(lab_processes()) - before == set(), "a server or generator was left running"
    return plan, folder


def test_the_data_set_is_complete_and_valid(smoke):
    plan, folder = smoke
    report = validate_package(folder)
    assert report.valid, report.flatten(["rowNumber", "fieldName", "message"])[:5]
    meta = datasets.metadata(folder)
    assert meta["format_version"] == 2 and meta["experiment"] == "imre"
    runs = datasets.load("runs", folder)
    # on a quiet machine every run is valid; on a shared one the core check flags some, and
    # the status then says so (never "complete" with an invalid run)
    invalid = runs.loc[~runs["valid"].astype(bool), "run"].tolist()
    assert meta["invalid_runs"] == invalid
    assert meta["status"] == ("complete" if not invalid else "complete-with-invalid-runs")
    assert runs["server_alive"].all() and runs["probe_ok"].all()
    assert (runs["refused_seen"] == runs["refused_by_server"]).all()
    assert (runs["connection_errors"] == 0).all()
    assert meta["pinning"] == {"server_cores": [1], "generator_cores": [0], "tool": "taskset"}
    assert meta["machine"]["tomcat"].startswith("Apache Tomcat/")
    assert (folder / "campaign.toml").read_text() == plan.source
    assert runs["kind"].tolist() == [r.kind for r in plan.schedule()]


def test_every_request_is_accounted_for_on_both_sides(smoke):
    _, folder = smoke
    runs, requests = check_accounting(folder)
    # with 8 clients and room for 3 requests (2 threads + 1 waiting), Tomcat refused some
    busiest = runs.iloc[-1]
    assert busiest["clients"] == 8 and busiest["closed"] > 0
    assert set(requests["outcome"].unique()) <= {"ok", "closed"}


def test_the_server_side_evidence_is_stored_with_every_run(smoke):
    """Tomcat's access log (a row per answer, its thread named), the monitor's raw readings,
    and the JVM's whole processor time per answer beside the answering thread's."""
    _, folder = smoke
    runs = datasets.load("runs", folder)
    access = datasets.load("access", folder)
    samples = datasets.load("cpu_samples", folder)
    counted = access.groupby("run").size().reindex(runs["run"], fill_value=0)
    assert counted.tolist() == runs["server_answered"].tolist()  # exact: counts
    assert access["thread"].str.startswith("queuetune-exec-").all()
    assert (access["begin_s"] >= 0).all() and access["commit_ms"].notna().all()
    for run in runs["run"]:
        assert {"server", "generator", "core0", "core1"} <= set(
            samples[samples["run"] == run]["series"])
    load = runs[runs["kind"] == "load"]
    assert (load["thread_cpu_ms"] > 0).all() and (load["jvm_cpu_ms"] > 0).all()


def test_metrics_follow_the_papers_definitions(smoke):
    _, folder = smoke
    table = analysis.summarize(folder)
    assert (table["sent_in_window"] > 0).all()
    # equation (2) gives back the mean response time of the successful requests
    assert table["r_succ_eq2"].to_numpy() == pytest.approx(table["r_succ"].to_numpy())
    # the one-client run measured a service time longer than the sleep it asked for
    service = analysis.service_time(folder)
    assert (service["measured_s"] > service["sleep_ms"] / 1000).all()


def test_the_two_limits_behave_differently(smoke):
    _, folder = smoke
    wire = analysis.load("wire_connections", folder).set_index(["scenario", "request"])
    queue = wire.loc["executor-queue"]
    # one thread, one place in the queue: the first two are served, the others refused at once
    assert queue["outcome"].tolist()[:2] == ["ok", "ok"]
    assert set(queue["outcome"].tolist()[2:]) <= {"closed", "reset"}
    assert (queue["total_ms"].iloc[2:] < 500).all()
    limit = wire.loc["max-connections"]
    # maxConnections 1, acceptCount 1: nobody is refused; the last connections wait for the
    # kernel to accept them (a SYN sent again a second later)
    assert (limit["outcome"] == "ok").all()
    assert (limit["connect_ms"].max() > 500)
    # 4 threads behind maxConnections 2: never refused either, the later ones wait
    fewer = wire.loc["executor-max-connections"]
    assert (fewer["outcome"] == "ok").all()
    assert (fewer["connect_ms"].max() > 500)
    # two clients back to back against B = 3: many requests, answered or refused, nothing else
    steady = wire.loc["back-to-back"]
    assert len(steady) > 10 and set(steady["outcome"]) <= {"ok", "closed", "reset"}
    assert "requests refused" in chapter.back_to_back(wire.reset_index())


def test_distributed_mode_with_a_worker_process(tmp_path, no_leftovers):
    settings = smoke_settings()
    settings["design"][0]["clients"] = [4]
    file = write_campaign(tmp_path, settings)
    folder = runner.run_campaign(campaign.load(file), runner.Options(
        out_root=tmp_path / "out", workers=1, wire=False, progress=False))
    assert validate_package(folder).valid
    runs, requests = check_accounting(folder)
    assert datasets.metadata(folder)["load_generator"] == "Locust (local workers: 1)"
    assert requests.groupby("run")["user"].nunique().tolist() == [1, 4]


def _start_and_wait_for_runs(tmp_path, runs: int):
    """A campaign of seven runs in a child process, once ``runs`` of them are stored."""
    settings = smoke_settings()
    settings["design"][0]["clients"] = [2, 3, 4, 5, 6, 7, 8]
    file = write_campaign(tmp_path, settings)
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "queuetune.lab", "run", str(file),
                                "--out", str(out), "--no-wire", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        found = list(out.glob("*/runs.csv"))
        if found and len(found[0].read_text().splitlines()) > runs:  # the header, then runs
            return process, found[0].parent
        time.sleep(0.2)
    process.kill()
    raise AssertionError(process.communicate(timeout=30))


def test_ctrl_c_stops_everything_and_keeps_the_finished_runs(tmp_path, no_leftovers):
    process, folder = _start_and_wait_for_runs(tmp_path, 2)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "interrupted" in err
    assert validate_package(folder).valid
    meta = json.loads((folder / "datapackage.json").read_text())["measurement"]
    assert meta["status"] == "interrupted"
    runs, requests = check_accounting(folder)
    assert 2 <= len(runs) < 8 and meta["runs_completed"] == len(runs)
    assert set(requests["run"]) == set(runs["run"])


def _bases_of(pid: int) -> list:
    found = []
    for base in Path(tempfile.gettempdir()).glob(f"{tomcat.BASE_PREFIX}*"):
        mark = base / tomcat.BASE_MARK
        if mark.is_file() and mark.read_text().split() == [str(pid)]:
            found.append(base)
    return found


def test_a_killed_runner_takes_its_server_and_generator_with_it(tmp_path, no_leftovers):
    process, folder = _start_and_wait_for_runs(tmp_path, 1)
    process.send_signal(signal.SIGKILL)  # no chance to clean up
    process.communicate(timeout=30)
    deadline = time.monotonic() + 20
    while lab_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    # the no_leftovers fixture fails the test if the JVM or Locust outlived the runner;
    # what was stored before is complete and valid
    assert validate_package(folder).valid
    runs, _ = check_accounting(folder)
    # the status still says running; repair sets it from what is on disk
    assert datasets.metadata(folder)["status"] == "running"
    assert datasets.repair(folder) == "killed"
    meta = datasets.metadata(folder)
    assert meta["status"] == "killed" and meta["runs_completed"] == len(runs)
    with pytest.raises(ValueError, match="only a data set left 'running'"):
        datasets.repair(folder)
    # the killed runner's CATALINA_BASE stayed behind, marked; the next runner removes it
    stale = _bases_of(process.pid)
    assert stale, "the killed runner left no marked CATALINA_BASE"
    assert set(stale) <= set(tomcat.remove_stale_bases())
    assert not any(base.exists() for base in stale)


def test_a_server_started_by_the_user(user_server_smoke):
    """The smoke campaign against a Tomcat started as a user would (the fixture): refused
    without the page's secret or with another, then measured with it."""
    folder, url, refusals = user_server_smoke
    assert len(refusals) == 2
    assert re.search("needs the secret of its test page", refusals[0]), refusals[0]
    assert re.search("does not serve the test page .* with this", refusals[1]), refusals[1]
    assert validate_package(folder).valid
    meta = datasets.metadata(folder)
    assert meta["server"].startswith(f"a server started by the user at {url}")
    runs, _ = check_accounting(folder)
    assert runs["server_answered"].isna().all() and runs["server_cpu"].isna().all()
    assert (runs["ok"] > 0).all()


def test_an_unreachable_target_is_refused_by_name(tmp_path):
    plan = campaign.load(campaign.builtin("smoke"))
    url = f"http://127.0.0.1:{tomcat.free_port()}"
    with pytest.raises(ValueError, match=f"target {url} does not serve the test page"):
        runner.run_campaign(plan, runner.Options(out_root=tmp_path / "out", target=url,
                                                 secret="any", progress=False))
    assert not (tmp_path / "out").exists()
