"""The runner's checks of every run: each check on made-up runs (no server), and both faults
for real, a few seconds each (tests marked ``lab``): a Tomcat killed with SIGKILL during a
smoke run, and a busy loop pinned to the server's core."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import psutil
import pytest
from lab_campaigns import smoke_settings, validate_package, write_campaign

from queuetune.lab import campaign, datasets, runner, validity
from queuetune.lab.harness import Counters, Measured, Server


class _Monitor:
    """A stand-in for CpuMonitor: fixed shares."""

    def __init__(self, process=0.5, busy=0.55, steal=0.0):
        self.process, self.busy, self.steal_ = process, busy, steal

    def share(self, name, start, end):
        return self.process

    def cores_share(self, cores, start, end, *, steal=False):
        return self.steal_ if steal else self.busy


def _server(alive=True, probe=True):
    return Server(url="http://127.0.0.1:1", pids=lambda: [1], counters=lambda: None,
                  alive=lambda: alive, probe=lambda timeout: probe, cores=(1,))


def _measured(refused=3, errors=0, failed=()):
    return Measured(row={}, window=(0.0, 10.0), refused_seen=refused,
                    connection_errors=errors, failed_checks=list(failed))


_LOGGED = Counters(10, 3)


def _check(measured=None, server=None, counters=_LOGGED, monitor=None):
    return validity.check_run(measured or _measured(), server or _server(), counters,
                              monitor or _Monitor(), campaign.Validity(core_margin=0.10))


def test_a_run_passing_every_check_is_valid():
    row = _check()
    assert row["valid"] and row["invalid_reason"] is None
    assert row["refused_seen"] == row["refused_by_server"] == 3
    assert row["server_cores_busy"] == 0.55 and row["server_process_cpu"] == 0.5


@pytest.mark.parametrize(("kwargs", "reason"), [
    ({"server": _server(alive=False)}, "server dead: its process had exited"),
    ({"server": _server(probe=False)}, "server dead: it did not answer a probe"),
    ({"counters": Counters(10, 5)}, "the clients saw 3 refusals, the server logged 5"),
    ({"measured": _measured(errors=2)}, "2 requests ended in a connection error"),
    ({"monitor": _Monitor(process=0.09, busy=0.97)}, "another process took more than the 10%"),
    ({"measured": _measured(failed=["the load generator used 90% of its core"])},
     "the load generator used 90%"),
])
def test_each_failed_check_makes_the_run_invalid_with_its_reason(kwargs, reason):
    row = _check(**kwargs)
    assert row["valid"] is False
    assert reason in row["invalid_reason"]


def test_steal_time_is_recorded_apart_and_does_not_count_as_another_process():
    row = _check(monitor=_Monitor(process=0.5, busy=0.55, steal=0.3))
    assert row["valid"] and row["server_cores_steal"] == 0.3


def test_a_server_the_runner_did_not_start_leaves_unknown_checks_empty():
    server = Server(url="http://127.0.0.1:1", probe=lambda timeout: True)
    row = validity.check_run(_measured(), server, None, _Monitor(), campaign.Validity())
    assert row["valid"] and row["server_alive"] is None and row["refused_by_server"] is None
    assert row["server_cores_busy"] is None


@pytest.mark.parametrize(("invalid", "finished", "dead", "status"), [
    ([], True, None, "complete"),
    ([3], True, None, "complete-with-invalid-runs"),
    ([3], False, 3, "stopped-server-dead"),
    ([], False, None, "interrupted"),
])
def test_the_status_is_complete_only_without_an_invalid_run(invalid, finished, dead, status):
    assert runner.status_of(invalid, finished=finished, dead_at=dead) == status


# -- the two faults, for real -----------------------------------------------------------------


def _campaign_file(tmp_path, clients, **validity_):
    settings = smoke_settings()
    settings["design"][0]["clients"] = clients
    settings["timing"]["measure_s"] = 3.0
    settings["validity"] = validity_
    return write_campaign(tmp_path, settings)


def _tomcat_jvms() -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if "queuetune-tomcat-" in line and "java" in line:
            found.append(process)
    return found


def _wait_for_load_run(out, timeout_s=120.0):
    """Until the one-client run is stored and the first load run has begun."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = list(out.glob("*/runs.csv"))
        if found and len(found[0].read_text().splitlines()) >= 2:
            time.sleep(1.0)  # inside the first load run
            return found[0].parent
        time.sleep(0.1)
    raise AssertionError("the campaign never stored its one-client run")


@pytest.mark.lab
@pytest.mark.parametrize("stop", [True, False], ids=["stop", "go-on"])
def test_a_tomcat_killed_during_a_run_is_flagged_and_stops_the_campaign(tmp_path, stop,
                                                                         no_leftovers):
    file = _campaign_file(tmp_path, [4, 6], stop_after_dead_server=stop)
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "queuetune.lab", "run", str(file),
                                "--out", str(out), "--no-wire", "--quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        folder = _wait_for_load_run(out)
        jvms = _tomcat_jvms()
        assert jvms, "no Tomcat found to kill"
        for jvm in jvms:
            jvm.send_signal(signal.SIGKILL)
        _, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert validate_package(folder).valid
    meta = datasets.metadata(folder)
    runs = datasets.load("runs", folder).set_index("run")
    assert bool(runs.loc[2, "valid"]) is False and not bool(runs.loc[2, "server_alive"])
    assert runs.loc[2, "invalid_reason"].startswith("server dead")
    assert 2 in meta["invalid_runs"]
    assert meta["status"] != "complete"
    if stop:
        assert meta["status"] == "stopped-server-dead" and meta["server_dead_after_run"] == 2
        assert list(runs.index) == [1, 2], "a run measured against a dead server"
        assert process.returncode == 1 and "stopped-server-dead" in err
    else:
        # told to go on: the next run of the same server is measured, and flagged too
        assert list(runs.index) == [1, 2, 3]
        assert runs.loc[3, "invalid_reason"].startswith("server dead")
        assert meta["status"] == "complete-with-invalid-runs"


@pytest.mark.lab
def test_a_busy_loop_on_the_servers_core_is_flagged(tmp_path, no_leftovers):
    plan = campaign.load(_campaign_file(tmp_path, [3]))
    core = plan.settings.server.server_cores[0]
    hog = subprocess.Popen(["taskset", "-c", str(core), sys.executable, "-c",
                            "while True: pass"])
    try:
        folder = runner.run_campaign(plan, runner.Options(out_root=tmp_path / "out",
                                                          wire=False, progress=False))
    finally:
        hog.kill()
        hog.wait()
    runs = datasets.load("runs", folder)
    assert not runs["valid"].any()
    for row in runs.itertuples():
        assert "another process took more than the 10% margin" in row.invalid_reason
        assert row.server_cores_busy - row.server_process_cpu > 0.10
    meta = datasets.metadata(folder)
    assert meta["status"] == "complete-with-invalid-runs"
    assert meta["invalid_runs"] == runs["run"].tolist()
    readme = (folder / "README.md").read_text()
    assert f"Invalid runs (see `invalid_reason` in `runs.csv`): " \
           f"{', '.join(map(str, meta['invalid_runs']))}." in readme
    assert json.loads((folder / "datapackage.json").read_text())["measurement"]["status"] \
        == meta["status"]
