"""The keep-alive experiment: its campaign files (no server), then the experiment for real,
through the lab's runner, in a few seconds (``lab``-marked: the built-in ``keepalive-smoke``
campaign, 2 clients x 12 requests at 5 per connection, over HTTP and HTTPS). The real run checks
what holds whatever the machine's speed or load (no timing): the data set validates, every
request is accounted for on both sides, the connections are those the limit implies, TLS
sessions are resumed, the sockets left in TIME_WAIT are counted on the side that closed first,
and nothing is left running. (The runner's core check may flag a run invalid on a busy
machine; the experiment's own checks must not fail.)"""

from __future__ import annotations

import json

import psutil
import pytest
from lab_campaigns import validate_package

from queuetune.lab import campaign, datasets, runner
from queuetune.lab.experiments.keepalive import summary


def test_the_built_in_campaign_is_the_blogs_test_with_a_baseline():
    plan = campaign.load(campaign.builtin("keepalive"))
    assert plan.experiment.NAME == "keepalive"
    runs = plan.schedule()
    assert [(r["tls"], r["requests_per_connection"], r["clients"]) for r in runs] == [
        (False, 1, 10), (False, 5, 10), (False, 10, 10), (False, 100, 10), (True, 100, 10)]
    assert (plan.settings.requests_per_client, plan.settings.response_bytes) == (1000, 5887)
    assert len(plan.server_groups()) == 5  # a fresh Tomcat per configuration


def _campaign_text(**changes: str) -> str:
    text = campaign.builtin("keepalive-smoke").read_text()
    for old, new in changes.items():
        assert old in text, old
        text = text.replace(old, new)
    return text


@pytest.mark.parametrize(("old", "new", "message"), [
    ("[timing]", "speed = 2\n[timing]", r"speed"),
    ("requests_per_connection = [5]\nclients = [2]\n\n# The",
     "requests_per_connection = [0]\nclients = [2]\n\n# The",
     r"requests_per_connection\[0\] must be"),
    ("tls = [true]", "tls = [1]", r"tls\[0\] must be true \(HTTPS\) or false"),
    ("requests_per_client = 12", "requests_per_client = 0",
     r"load.requests_per_client must be"),
    ("server_cores = [1]", "server_cores = 1", r"server.server_cores must be a list"),
])
def test_a_bad_campaign_file_is_refused_by_name(tmp_path, old, new, message):
    path = tmp_path / "bad.toml"
    path.write_text(_campaign_text(**{old: new}))
    with pytest.raises(ValueError, match=message):
        campaign.load(path)


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    plan = campaign.load(campaign.builtin("keepalive-smoke"))
    folder = runner.run_campaign(plan, runner.Options(
        out_root=tmp_path_factory.mktemp("keepalive"), progress=False))
    left = {p.pid for p in psutil.Process().children(recursive=True)} - before
    assert not left, "a server or generator was left running"
    return plan, folder


@pytest.mark.lab
def test_the_data_set_validates_and_says_where_it_ran(measured):
    _, folder = measured
    assert validate_package(folder).valid
    meta = json.loads((folder / "datapackage.json").read_text())["measurement"]
    assert meta["experiment"] == "keepalive"
    assert meta["status"] in ("complete", "complete-with-invalid-runs")
    assert meta["machine"]["tomcat"].startswith("Apache Tomcat/")
    assert "TIME_WAIT" in meta["time_wait"]


@pytest.mark.lab
def test_every_request_is_accounted_for_on_both_sides(measured):
    plan, folder = measured
    runs = datasets.load("runs", folder)
    requests = datasets.load("requests", folder)
    sent = plan.schedule()[0]["clients"] * plan.settings.requests_per_client
    assert list(runs["scheme"]) == ["http", "https"]
    for r in runs.itertuples():
        assert r.requests == r.answered == r.server_answered == r.locust_requests == sent
        assert r.errors == 0 and r.connection_errors == 0
        assert r.server_alive and r.probe_ok
        assert (requests["run"] == r.run).sum() == sent
    assert (requests["bytes"] == plan.settings.response_bytes).all()


@pytest.mark.lab
def test_only_the_machine_can_make_a_run_invalid(measured):
    runs = datasets.load("runs", measured[1])
    for reason in runs["invalid_reason"].dropna():
        assert "core" in reason and "requests" not in reason and "connections" not in reason


@pytest.mark.lab
def test_the_server_closes_each_connection_at_its_limit(measured):
    plan, folder = measured
    runs = datasets.load("runs", folder)
    first = plan.schedule()[0]
    expected = summary.expected_connections(
        clients=first["clients"], requests=plan.settings.requests_per_client,
        keep_alive_requests=first["requests_per_connection"])
    assert (runs["connections_opened"] == expected).all()
    assert (runs["expected_connections"] == expected).all()
    assert (runs["max_requests_per_connection"] == first["requests_per_connection"]).all()


@pytest.mark.lab
def test_tls_sessions_are_resumed_after_each_clients_first_connection(measured):
    plan, folder = measured
    tls = datasets.load("runs", folder).set_index("scheme").loc["https"]
    assert tls["tls_version"].startswith("TLSv1.")
    assert tls["tls_resumed"] == tls["connections_opened"] - plan.schedule()[1]["clients"]


@pytest.mark.lab
def test_time_wait_is_left_on_the_side_which_closes_first(measured):
    plan, folder = measured
    plain = datasets.load("runs", folder).set_index("scheme").loc["http"]
    clients, limit = plan.schedule()[0]["clients"], plan.schedule()[0]["requests_per_connection"]
    # Each client closes its last, unfinished connection itself (client side); Tomcat closes
    # the others at the limit, but the client, reading "Connection: close", closes too, and
    # either FIN may go first: 8 runs here left 2 to 4 of the 4 on the server, one run none.
    # What holds whatever the race: a FIN-ended connection leaves TIME_WAIT on the side that
    # sent the first FIN, on both after a simultaneous close (3 on the server and 4 on the
    # clients for 6 connections once), so the server holds at most the connections it ended,
    # the clients at least those they ended, and the two together at least one per connection.
    unfinished = clients * (plan.settings.requests_per_client % limit > 0)
    opened = plain["connections_opened"]
    assert plain["time_wait_before_server"] == plain["time_wait_before_client"] == 0
    assert plain["time_wait_server"] <= opened - unfinished
    assert unfinished <= plain["time_wait_client"] <= opened
    assert plain["time_wait_server"] + plain["time_wait_client"] >= opened
