"""The keep-alive experiment for real, a few seconds: a Tomcat per configuration, Locust's
clients, a data set. Checks what holds whatever the machine's speed (no timing): every request
accounted for on both sides, the connections the limit implies, TLS sessions resumed, the
sockets left in TIME_WAIT on the side that closed first, and nothing left running."""

from __future__ import annotations

import json

import psutil
import pytest
from lab_campaigns import validate_package

from queuetune import data
from queuetune.lab.experiments.keepalive import dataset, plan, run, summary

pytestmark = pytest.mark.lab

CLIENTS, REQUESTS, LIMIT = 2, 12, 5
PLAN = {
    "format": 1, "experiment": "keepalive", "name": "keepalive-smoke",
    "load": {"clients": CLIENTS, "requests_per_client": REQUESTS},
    "factors": {"http": [LIMIT], "https": [LIMIT]},
    "timing": {"warmup_requests": 20, "start_delay_s": 1.0},
}


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    folder = tmp_path_factory.mktemp("keepalive") / "set"
    campaign = tmp_path_factory.mktemp("campaign") / "campaign.toml"
    campaign.write_text("# the smoke test's campaign (written from the test's dictionary)\n")
    results = [run.measure(c) for c in plan.configurations(PLAN)]
    dataset.write(folder, results, plan=PLAN, campaign_file=campaign, status="complete",
                  jvm_options=[])
    left = {p.pid for p in psutil.Process().children(recursive=True)} - before
    assert not left, "a server or generator was left running"
    return folder


def _table(folder, name):
    package = json.loads((folder / "datapackage.json").read_text())
    resource = next(r for r in package["resources"] if r["name"] == name)
    return data.read_resource(folder, resource)


def test_the_data_set_validates_and_says_where_it_ran(measured):
    assert validate_package(measured).valid
    meta = json.loads((measured / "datapackage.json").read_text())["measurement"]
    assert meta["experiment"] == "keepalive" and meta["status"] == "complete"
    assert meta["machine"]["tomcat"].startswith("Apache Tomcat/")


def test_every_request_is_accounted_for_on_both_sides(measured):
    runs = _table(measured, "runs")
    requests = _table(measured, "requests")
    assert list(runs["scheme"]) == ["http", "https"]
    for r in runs.itertuples():
        assert r.requests == r.answered == r.server_answered == r.locust_requests == (
            CLIENTS * REQUESTS)
        assert r.errors == 0
        assert (requests["run"] == r.run).sum() == CLIENTS * REQUESTS
    assert (requests["bytes"] == 5887).all()


def test_the_server_closes_each_connection_at_its_limit(measured):
    runs = _table(measured, "runs")
    expected = summary.expected_connections(clients=CLIENTS, requests=REQUESTS,
                                            keep_alive_requests=LIMIT)
    assert (runs["connections_opened"] == expected).all()
    assert (runs["max_requests_per_connection"] == LIMIT).all()


def test_tls_sessions_are_resumed_after_each_clients_first_connection(measured):
    tls = _table(measured, "runs").set_index("scheme").loc["https"]
    assert tls["tls_version"].startswith("TLSv1.")
    assert tls["tls_resumed"] == tls["connections_opened"] - CLIENTS


def test_time_wait_is_left_on_the_server_which_closes_first(measured):
    plain = _table(measured, "runs").set_index("scheme").loc["http"]
    # Tomcat closes at the limit (server side); each client closes its last, unfinished
    # connection itself; a race may let a client's FIN go first now and then.
    closed_by_server = plain["connections_opened"] - CLIENTS * (REQUESTS % LIMIT > 0)
    assert plain["time_wait_server"] + plain["time_wait_client"] == plain["connections_opened"]
    assert plain["time_wait_server"] >= closed_by_server / 2
    assert plain["time_wait_before_server"] == plain["time_wait_before_client"] == 0
