"""The keep-alive experiment's parts that need no server: its campaign file, the server's
settings, the page, how a run is summarized and how TIME_WAIT sockets are told apart."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune.lab.experiments.keepalive import dataset, plan, server, summary


def test_the_default_campaign_is_the_blogs_test_with_a_baseline():
    runs = plan.configurations(plan.load())
    assert [(r.scheme, r.keep_alive_requests) for r in runs] == [
        ("http", 1), ("http", 5), ("http", 10), ("http", 100), ("https", 100)]
    assert {(r.clients, r.requests_per_client, r.response_bytes) for r in runs} == {
        (10, 1000, 5887)}
    assert [r.run for r in runs] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize(("text", "message"), [
    ('format = 1\nexperiment = "keepalive"\nspeed = 2\n', r"unknown key\(s\) \['speed'\]"),
    ('format = 1\nexperiment = "imre"\n', "experiment must be 'keepalive'"),
    ('format = 2\nexperiment = "keepalive"\n', "format must be 1"),
    ('format = 1\nexperiment = "keepalive"\n[load]\nthreads = 3\n',
     r"unknown key\(s\) \['threads'\] in \[load\]"),
])
def test_a_bad_campaign_file_is_refused_by_name(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        plan.load(path)


def test_bad_levels_are_refused_by_name():
    with pytest.raises(ValueError, match="factors.http levels must be between 1 and 100000"):
        plan.configurations({"factors": {"http": [0]}})
    with pytest.raises(ValueError, match="factors.https must be a list of whole numbers"):
        plan.configurations({"factors": {"https": "100"}})
    with pytest.raises(ValueError, match="factors must name at least one level"):
        plan.configurations({"factors": {}})


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


def test_a_data_set_is_never_written_over(tmp_path):
    first = dataset.new_folder(tmp_path, "keepalive-tomcat", "2026-11-27")
    first.mkdir()
    assert first.name == "keepalive-tomcat-2026-11-27"
    assert dataset.new_folder(tmp_path, "keepalive-tomcat", "2026-11-27").name == (
        "keepalive-tomcat-2026-11-27-2")
