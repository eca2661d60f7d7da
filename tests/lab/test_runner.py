"""queuetune.lab.runner: what can be checked without a server - the checks before a campaign
starts, the spec of each run, the rows read back from the generator, the provenance and the
README of a data set (a whole campaign runs in tests/lab/test_lab_smoke.py)."""

from __future__ import annotations

import dataclasses
import math
import os
import socket
from types import SimpleNamespace

import pytest

from queuetune.lab import campaign, records, runner


@pytest.fixture
def plan():
    return campaign.load(campaign.builtin("smoke"))


def options(tmp_path, **kwargs):
    return runner.Options(out_root=tmp_path / "lab", **kwargs)


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_cores_the_machine_lacks_are_refused_naming_the_setting(plan, tmp_path):
    absent = max(os.sched_getaffinity(0)) + 1
    far = dataclasses.replace(plan, server=dataclasses.replace(
        plan.server, server_cores=(min(os.sched_getaffinity(0)),), generator_cores=(absent,)))
    with pytest.raises(ValueError, match=rf"server.generator_cores lists cores \[{absent}\]"):
        runner.preflight(far, options(tmp_path))


def test_negative_worker_counts_are_refused(plan, tmp_path):
    plan = dataclasses.replace(plan, server=dataclasses.replace(
        plan.server, server_cores=(), generator_cores=()))
    with pytest.raises(ValueError, match="workers and expect_workers must be >= 0"):
        runner.preflight(plan, options(tmp_path, workers=-1))


@pytest.mark.parametrize("target, match", [
    ("https://example.org", "target must be an http:// URL"),
    ("ftp://127.0.0.1/", "target must be an http:// URL"),
    ("http://", "target must be an http:// URL"),
])
def test_a_target_must_be_an_http_url(target, match):
    with pytest.raises(ValueError, match=match):
        runner._check_target(target)


def test_a_target_that_serves_nothing_is_refused_with_the_way_to_deploy_the_page():
    with pytest.raises(ValueError, match="does not serve the test page .*webapp DIR"):
        runner._check_target(f"http://127.0.0.1:{closed_port()}")


def test_the_spec_of_a_one_client_run_and_of_a_load_run(plan):
    state = SimpleNamespace(plan=plan, run_number=4)
    one, load = plan.schedule()[0], next(r for r in plan.schedule() if r.kind == "load")
    spec = runner._spec(state, one, work=2000)
    assert (spec.run, spec.clients, spec.ramp_s, spec.warmup_s) == (4, 1, 0.0, 1.0)
    assert spec.measure_s == plan.timing.one_client_s
    assert spec.path.endswith(f"?work=2000&sleep_us={round(one.split.sleep_ms * 1000)}"
                              f"&bytes={plan.response_bytes}")
    spec = runner._spec(state, load, work=2000)
    assert (spec.ramp_s, spec.warmup_s, spec.measure_s) == (
        plan.timing.ramp_s, plan.timing.warmup_s, plan.timing.measure_s)
    assert spec.clients == load.clients and spec.think_s == plan.think_time_s


def test_rows_are_read_back_with_the_data_sets_columns(tmp_path):
    path = tmp_path / "requests.csv"
    header = ",".join(records.columns("requests"))
    path.write_text(f"{header}\n1,0,3,1,0.5,12.5,ok,200,10240,0.4,0.1,900\n", encoding="utf-8")
    assert runner._read_rows(path) == [("1", "0", "3", "1", "0.5", "12.5", "ok", "200",
                                        "10240", "0.4", "0.1", "900")]
    path.write_text("run,latency_ms\n1,12.5\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match="the generator wrote columns"):
        runner._read_rows(path)


def test_round_leaves_no_nan_in_a_row():
    assert runner._round(None, 2) is None and runner._round(math.nan, 2) is None
    assert runner._round(0.123456, 3) == 0.123


def test_cores_busy_is_the_mean_share_of_the_cores():
    monitor = SimpleNamespace(core_share=lambda core, start, end: [0.2, 0.6, 1.0][core])
    assert runner._cores_busy(monitor, (0, 2), (0.0, 1.0)) == pytest.approx(0.6)


def test_the_provenance_and_readme_of_a_data_set(plan, tmp_path):
    versions = {"tomcat": "Apache Tomcat/10.1", "java": "OpenJDK 17"}
    meta = runner._metadata(plan, options(tmp_path, workers=2, date="2026-11-27"), versions)
    m = meta["measurement"]
    assert meta["name"] == f"lab-{plan.name}" and m["date"] == "2026-11-27"
    assert m["load_generator"] == "Locust (local workers: 2)"
    assert m["pinning"]["server_cores"] == list(plan.server.server_cores)
    assert m["machine"]["tomcat"] == "Apache Tomcat/10.1"
    text = runner._readme(meta)
    assert text.startswith(f"# queuetune lab: {plan.name}\n")
    assert "Status: **running** (0 runs stored)" in text
    assert "- Server: Apache Tomcat started by the runner on 127.0.0.1; Apache Tomcat/10.1" in text
    for path, _title, _ in records.TABLES.values():
        assert f"`{path}`" in text


def test_a_users_server_is_not_pinned_and_has_no_jvm_options(plan, tmp_path):
    meta = runner._metadata(plan, options(tmp_path, target="http://server:8080"),
                            {"tomcat": "?", "java": "?"})
    m = meta["measurement"]
    assert m["pinning"]["server_cores"] == [] and m["jvm_options"] == []
    assert "a server started by the user at http://server:8080" in m["server"]
    assert "none (a server the runner did not start)" in runner._readme(meta)
