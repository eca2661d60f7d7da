"""queuetune.lab.experiments.keepalive.summary: the connections a limit implies, how a run is
summarized from its rows and how TIME_WAIT sockets are told apart."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune.lab.experiments.keepalive import summary


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
