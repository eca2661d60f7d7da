"""The keep-alive data set's tables: one row per run, one row per request."""

from __future__ import annotations

from ...records import Field, Table, runner_fields

__all__ = ["TABLES", "REQUEST_FIELDS"]

_RUN_FIELDS = (
    Field("run", "integer", "Run number, in the order measured"),
    Field("kind", "string", "load (the only kind of run of this experiment)"),
    Field("scheme", "string", "http, or https (TLS)"),
    Field("keep_alive_requests", "integer",
          "Tomcat's maxKeepAliveRequests (1: keep-alive off)"),
    Field("clients", "integer", "Client threads"),
    Field("requests_per_client", "integer", "Requests each client sent, one after another"),
    Field("requests", "integer", "Requests sent"),
    Field("answered", "integer", "Answered 200 with the whole page"),
    Field("errors", "integer", "Requests without a 200 answer"),
    Field("server_answered", "integer", "Answers in Tomcat's access log on the measured port"),
    Field("locust_requests", "integer", "Requests in Locust's own count"),
    Field("average_request_time_ms", "number",
          "Mean time from sending a request to its answer's last byte (handshakes included)",
          "ms"),
    Field("median_request_time_ms", "number", "Median of the same", "ms"),
    Field("p99_request_time_ms", "number", "99th percentile of the same", "ms"),
    Field("first_request_time_ms", "number",
          "Mean time of the requests that opened their connection", "ms"),
    Field("reused_request_time_ms", "number",
          "Mean time of the requests over a connection already open (empty without any)", "ms"),
    Field("total_run_time_s", "number",
          "From the common start to the last answer (the slowest client)", "s"),
    Field("connections_opened", "integer", "Connections the clients opened"),
    Field("expected_connections", "integer",
          "clients x ceil(requests_per_client / keep_alive_requests)"),
    Field("max_requests_per_connection", "integer", "Most requests one connection carried"),
    Field("tls_resumed", "integer",
          "Connections whose TLS session was resumed (empty over plain HTTP)"),
    Field("time_wait_server", "integer",
          "Server sockets of the measured port in TIME_WAIT just after the run"),
    Field("time_wait_client", "integer",
          "Client sockets to the measured port in TIME_WAIT just after the run"),
    Field("time_wait_before_server", "integer", "The same, server side, just before the run"),
    Field("time_wait_before_client", "integer", "The same, client side, just before the run"),
    Field("generator_cpu", "number", "Share of one core Locust used during the run"),
    Field("warmup_answered", "integer", "Warm-up requests answered on the second port"),
    Field("bytes", "integer", "Body bytes received", "bytes"),
    Field("tls_version", "string", "TLS version negotiated (empty over plain HTTP)"),
    Field("tls_cipher", "string", "TLS cipher suite negotiated (empty over plain HTTP)"),
    Field("load_average_1min", "number",
          "The machine's load average (1 minute) when the run started"),
    Field("started_utc", "string", "When the clients started"),
    Field("seconds", "number", "Wall-clock length of the run, start to end (the runner's)",
          "s"),
)

REQUEST_FIELDS = (
    Field("run", "integer", "Run number"),
    Field("user", "integer", "Client thread"),
    Field("seq", "integer", "The client's request number, from 0"),
    Field("connection", "integer", "The client's connection it went over, from 1"),
    Field("opened", "integer", "1 if this request opened its connection"),
    Field("resumed", "integer",
          "On a request that opened a TLS connection: 1 if the TLS session was resumed"),
    Field("start_s", "number", "When it was sent, from the common start", "s"),
    Field("latency_ms", "number", "Time from sending to the answer's last byte", "ms"),
    Field("outcome", "string", "ok, http-<code>, or error-<type>"),
    Field("status", "integer", "HTTP status (0 without an answer)"),
    Field("bytes", "integer", "Length of the answer's body", "bytes"),
)

TABLES = {
    "runs": Table("runs.csv", "One row per run", (*_RUN_FIELDS, *runner_fields())),
    "requests": Table("requests.csv.gz", "One row per request sent", REQUEST_FIELDS),
}
