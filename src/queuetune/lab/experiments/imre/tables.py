"""The tables of an Imre data set: runs, requests, calibration and the wire scenarios."""

from __future__ import annotations

from ...monitor import ACCESS_TABLE, SAMPLES_TABLE
from ...records import Field, Table, runner_fields

_RUN = Field("run", "integer", "Run number, in the order the runs were measured")

TABLES: dict[str, Table] = {
    "runs": Table("runs.csv", "One row per run: settings, counts, processor use", (
        _RUN,
        Field("kind", "string", "'one-client' (the service time, as the paper measured it) or "
                                "'load' (the design's runs)"),
        Field("split", "string", "Name of the request's split between processor and waiting"),
        Field("cpu_ms", "number", "Processor time of the arithmetic asked for", "ms"),
        Field("sleep_ms", "number", "Waiting (sleep) asked for, after the arithmetic", "ms"),
        Field("work", "integer", "Iterations of the arithmetic loop sent with each request"),
        Field("threads", "integer", "Tomcat Executor maxThreads: the thread pool (empty: "
                                    "unknown, a server the user started, --target; so are "
                                    "queue, max_connections and capacity)"),
        Field("queue", "integer", "Tomcat Executor maxQueueSize: requests that may wait for "
                                  "a thread (the connection queue)"),
        Field("max_connections", "integer", "Tomcat Connector maxConnections: connections "
                                            "Tomcat accepts at once (far above the clients "
                                            "unless the design sets it)"),
        Field("capacity", "integer", "Requests the server admits at once: threads + queue, "
                                     "or maxConnections when smaller (the models' B)"),
        Field("clients", "integer", "Virtual clients (the models' K)"),
        Field("think_s", "number", "Mean of the exponential think time (the models' Z)", "s"),
        Field("keep_alive", "boolean", "Whether a client keeps its connection between "
                                       "requests"),
        Field("window_start_s", "number", "Start of the measurement window, from the run's "
                                          "start", "s"),
        Field("window_end_s", "number", "End of the window: clients send nothing later", "s"),
        Field("windows", "integer", "Equal consecutive windows the measured period is cut "
                                    "into, each summarized on its own (repeated windows)"),
        Field("sent", "integer", "Requests sent in the whole run (one row each in requests)"),
        Field("locust_requests", "integer", "Requests counted by Locust's own statistics"),
        Field("ok", "integer", "Requests answered with HTTP 200 in the whole run"),
        Field("closed", "integer", "Requests whose connection closed without an answer "
                                   "(refused by Tomcat's full queue)"),
        Field("other_errors", "integer", "Requests that ended in any other error"),
        Field("server_answered", "integer", "Requests in Tomcat's access log for the run "
                                            "(empty for a server the runner did not start)"),
        Field("server_rejected", "integer", "'Executor rejected socket' lines Tomcat logged "
                                            "for the run"),
        Field("server_time_ms", "number", "Mean time Tomcat took per answered request (%D of "
                                          "its access log)", "ms"),
        Field("server_cpu", "number", "Processor time of Tomcat's JVM over the window, as a "
                                      "share of one core"),
        Field("server_core_busy", "number", "Share of time the server's core(s) were busy "
                                            "over the window (anything running on them)"),
        Field("thread_cpu_ms", "number", "Mean processor time of the answering thread per "
                                         "answered request sent in the window", "ms"),
        Field("jvm_cpu_ms", "number", "The JVM's whole processor time per answer: "
                                      "server_cpu times the window's length over the "
                                      "answered requests sent in it (D = U / X)", "ms"),
        Field("generator_cpu", "number", "Processor time of the Locust processes over the "
                                         "window, as a share of one core"),
        Field("generator_core_busy", "number", "Share of time the generator's core(s) were "
                                               "busy over the window"),
        Field("lag_p99_ms", "number", "99th percentile of how late requests were sent against "
                                      "their planned time, in the window", "ms"),
        Field("generator_kept_up", "boolean", "generator_cpu and lag_p99_ms within the "
                                              "campaign's [checks]"),
        Field("seconds", "number", "Wall-clock length of the run, start to end", "s"),
        *runner_fields(),
    )),
    "requests": Table("requests.csv.gz", "One row per request sent", (
        _RUN,
        Field("worker", "integer", "Locust worker that sent it (0 without distributed mode)"),
        Field("user", "integer", "Virtual client, within its worker"),
        Field("seq", "integer", "The client's request number, from 0"),
        Field("start_s", "number", "When it was sent, from the run's start", "s"),
        Field("latency_ms", "number", "Time from sending to the end of the answer or error",
              "ms"),
        Field("outcome", "string", "ok, closed (connection closed without an answer), reset, "
                                   "refused, timeout, http-<code>, or error-<type>"),
        Field("status", "integer", "HTTP status (0 when no answer came)"),
        Field("bytes", "integer", "Length of the answer's body", "bytes"),
        Field("think_s", "number", "Think time drawn before this request (empty for the "
                                   "first)", "s"),
        Field("lag_ms", "number", "How late it was sent against its planned time (the end of "
                                  "the previous answer plus the think time)", "ms"),
        Field("server_cpu_us", "integer", "Processor time the answering thread used, measured "
                                          "by the JVM (empty without an answer)", "us"),
    )),
    "access": ACCESS_TABLE,
    "cpu_samples": SAMPLES_TABLE,
    "calibration": Table("calibration.csv",
                         "Requests that calibrated iterations per millisecond", (
        Field("step", "integer", "Request number"),
        Field("work", "integer", "Iterations of the arithmetic loop"),
        Field("latency_ms", "number", "Time to the end of the answer (one client, no think "
                                      "time)", "ms"),
        Field("server_cpu_us", "integer", "Processor time of the answering thread", "us"),
    )),
    "wire_connections": Table("wire_connections.csv",
                              "Concurrent requests sent at Tomcat's limits", (
        Field("scenario", "string", "Which limit: 'executor-queue' or 'max-connections'"),
        Field("request", "integer", "Request number, in the order sent (10 ms apart)"),
        Field("sent_s", "number", "When the connection was opened, from the first", "s"),
        Field("connect_ms", "number", "Time for the TCP connection to open", "ms"),
        Field("total_ms", "number", "Time to the end of the answer, or to the error", "ms"),
        Field("outcome", "string", "ok, or what the client saw instead"),
        Field("bytes", "integer", "Bytes received", "bytes"),
    )),
    "wire_packets": Table("wire_packets.csv",
                          "The packets of those requests (tcpdump on loopback)", (
        Field("scenario", "string", "Which limit"),
        Field("request", "integer", "Request number (by the client's port, in order)"),
        Field("time_s", "number", "When the packet passed, from the scenario's first", "s"),
        Field("direction", "string", "'client>server' or 'server>client'"),
        Field("flags", "string", "TCP flags: S (SYN), A (ACK), P (PSH), F (FIN), R (RST)"),
        Field("length", "integer", "TCP payload length", "bytes"),
    )),
}


