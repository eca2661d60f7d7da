"""The keep-alive experiment's parts that need no server: its campaign files, the server's
settings, the page, how a run is summarized and how TIME_WAIT sockets are told apart."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune.lab import campaign
from queuetune.lab.experiments.keepalive import server_config as server
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


def test_the_page_has_the_blogs_size():
    assert len(server.page_bytes(5887)) == 5887
    assert server.page_bytes(5887) == server.page_bytes(5887)
    with pytest.raises(ValueError, match="size must be at least"):
        server.page_bytes(10)


def test_server_xml_sets_the_limit_on_both_ports_and_tls_only_when_asked():
    plain = server.server_xml(server.KeepAliveSettings(keep_alive_requests=10, port=18080,
                                                       warm_port=18081))
    assert plain.count('maxKeepAliveRequests="10"') == 2
    assert 'port="18080"' in plain and 'port="18081"' in plain and "SSLHostConfig" not in plain
    tls = server.server_xml(server.KeepAliveSettings(
        keep_alive_requests=100, port=18080, warm_port=18081, tls=True,
        keystore_password="secret"))
    assert tls.count("<SSLHostConfig>") == 2 and 'type="EC"' in tls
    with pytest.raises(ValueError, match="keep_alive_requests must be between 1 and 100000"):
        server.KeepAliveSettings(keep_alive_requests=0, port=1, warm_port=2)


def test_expected_connections():
    assert summary.expected_connections(clients=10, requests=1000, keep_alive_requests=5) == 2000
    assert summary.expected_connections(clients=2, requests=12, keep_alive_requests=5) == 6
    with pytest.raises(ValueError, match="keep_alive_requests must be between 1 and 2"):
        summary.expected_connections(clients=1, requests=1, keep_alive_requests=0)


def _rows() -> pd.DataFrame:
    # two clients, limit 2: client 0 over connections 1, 1, 2; client 1 over 1, 1, 2
    return pd.DataFrame({
        "user": [0, 0, 0, 1, 1, 1],
        "seq": [0, 1, 2, 0, 1, 2],
        "connection": [1, 1, 2, 1, 1, 2],
        "opened": [1, 0, 1, 1, 0, 1],
        "resumed": [0, None, 1, 0, None, 1],
        "start_s": [0.0, 0.010, 0.018, 0.001, 0.012, 0.020],
        "latency_ms": [10.0, 8.0, 12.0, 11.0, 8.0, 4.0],
        "outcome": ["ok"] * 5 + ["error-ConnectionResetError"],
        "status": [200] * 5 + [0],
        "bytes": [100] * 5 + [0],
    })


def test_a_run_is_summarized_from_its_rows():
    s = summary.summarize_requests(_rows())
    assert s["requests"] == 6 and s["answered"] == 5 and s["errors"] == 1
    assert s["average_request_time_ms"] == pytest.approx(53 / 6)
    assert s["first_request_time_ms"] == pytest.approx(37 / 4)
    assert s["reused_request_time_ms"] == pytest.approx(8.0)
    assert s["total_run_time_s"] == pytest.approx(0.030)  # 0.018 + 12 ms
    assert s["connections_opened"] == 4 and s["max_requests_per_connection"] == 2
    assert s["tls_resumed"] == 2 and s["bytes"] == 500
    with pytest.raises(ValueError, match="rows must hold at least one request"):
        summary.summarize_requests(_rows().iloc[:0])


def test_time_wait_sockets_are_told_apart_by_the_side_that_holds_them():
    out = "\n".join([
        "0 0 [::ffff:127.0.0.1]:8080 [::ffff:127.0.0.1]:40000",  # server side (Java)
        "0 0 127.0.0.1:8080 127.0.0.1:40002",                    # server side (IPv4)
        "0 0 127.0.0.1:40001 127.0.0.1:8080",                    # client side
        "0 0 127.0.0.1:8081 127.0.0.1:40003",                    # another port
        "0 0 10.0.0.1:8080 10.0.0.2:40004",                      # another address
        "",
    ])
    assert summary.time_wait_counts(out, port=8080) == {"server": 2, "client": 1}
    with pytest.raises(ValueError, match="port must be between 1 and 65535"):
        summary.time_wait_counts(out, port=0)
