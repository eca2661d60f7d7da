"""The tables of a data set of today's experiment: runs, requests and calibration."""

from __future__ import annotations

from ...monitor import ACCESS_TABLE, SAMPLES_TABLE
from ...records import Field, Table, runner_fields

_RUN = Field("run", "integer", "Run number, in the order the runs were measured")

TABLES: dict[str, Table] = {
    "runs": Table("runs.csv", "One row per run: levels, counts, processor use, lateness", (
        _RUN,
        Field("kind", "string", "'one-client' (the service time, one client in turn) or "
                                "'load' (the design's runs)"),
        Field("processors", "integer", "Cores Tomcat runs on (-XX:ActiveProcessorCount)"),
        Field("executor", "string", "'platform' (Executor of maxThreads platform threads, "
                                    "maxQueueSize waiting) or 'virtual' (Tomcat's "
                                    "StandardVirtualThreadExecutor: no pool, no queue)"),
        Field("threads", "integer", "Executor maxThreads (empty for virtual threads)"),
        Field("queue", "integer", "Executor maxQueueSize (empty for virtual threads)"),
        Field("pool", "integer", "Permits of the page's pool, the models' connections C (0: "
                                 "no pool)"),
        Field("clients", "integer", "Closed-loop clients (0 in an open-loop run)"),
        Field("arrival_rate", "number", "Planned Poisson arrival rate (0 in a closed-loop "
                                        "run)", "1/s"),
        Field("think_s", "number", "Mean think time of the closed-loop clients", "s"),
        Field("distribution", "string", "How the page drew each request's processor time "
                                        "and wait: constant (the means as given), "
                                        "exponential or lognormal (coefficient of variation "
                                        "lognormal_cv)"),
        Field("lognormal_cv", "number", "Coefficient of variation of the lognormal draws "
                                        "(empty for the other distributions)"),
        Field("cpu_ms", "number", "Processor time of the arithmetic asked for (with a "
                                  "distribution: its mean)", "ms"),
        Field("wait_ms", "number", "Wait phase asked for, holding a permit (with a "
                                   "distribution: its mean)", "ms"),
        Field("work", "integer", "Iterations of the arithmetic loop sent with each request"),
        Field("java", "string", "Version of the Java runtime Tomcat ran on"),
        Field("server_error", "string", "Why the server did not start (the measured error; "
                                        "empty when it started)"),
        Field("window_start_s", "number", "Start of the measurement window, from the run's "
                                          "start", "s"),
        Field("window_end_s", "number", "End of the window: nothing is sent later", "s"),
        Field("sent", "integer", "Requests sent in the whole run (one row each in requests)"),
        Field("sent_in_window", "integer", "Requests sent in the measurement window"),
        Field("locust_requests", "integer", "Requests counted by Locust's own statistics"),
        Field("ok", "integer", "Requests answered with HTTP 200 in the whole run"),
        Field("closed", "integer", "Requests whose connection closed without an answer "
                                   "(refused by Tomcat's full queue)"),
        Field("other_errors", "integer", "Requests that ended in any other error"),
        Field("server_answered", "integer", "Requests in Tomcat's access log for the run"),
        Field("server_rejected", "integer", "'Executor rejected socket' lines Tomcat logged"),
        Field("server_time_ms", "number", "Mean time Tomcat took per answered request (%D)",
              "ms"),
        Field("server_cpu", "number", "Processor time of Tomcat's JVM over the window, in "
                                      "cores"),
        Field("thread_cpu_ms", "number", "Mean processor time of the answering thread per "
                                         "answered request sent in the window (empty on "
                                         "virtual threads)", "ms"),
        Field("jvm_cpu_ms", "number", "The JVM's whole processor time per answer: "
                                      "server_cpu times the window's length over the "
                                      "answered requests sent in it (D = U / X)", "ms"),
        Field("generator_cpu", "number", "Processor time of the load generator over the "
                                         "window, in cores (with 2 processors it shares "
                                         "Tomcat's cores)"),
        Field("generator_share", "number", "Share of the busy time of Tomcat's cores that "
                                           "the generator took (0 when it runs on cores of "
                                           "its own, with 1 processor)"),
        Field("cores_busy", "number", "Busy time of Tomcat's cores over the window, in cores"),
        Field("other_cpu", "number", "cores_busy less server_cpu and, when they share cores, "
                                     "generator_cpu: what else ran there, in cores"),
        Field("lateness_p99_ms", "number", "99th percentile of how late requests were sent "
                                           "against their plan, in the window", "ms"),
        Field("lateness_max_ms", "number", "Largest lateness in the window", "ms"),
        Field("virtual_share", "number", "Share of answered requests run on a virtual "
                                         "thread, as the server said"),
        Field("generator_kept_up", "boolean", "generator_cpu and lateness within the "
                                              "campaign's [checks]"),
        Field("seconds", "number", "Wall-clock length of the run, start to end", "s"),
        *runner_fields(),
    )),
    "requests": Table("requests.csv.gz", "One row per request sent", (
        _RUN,
        Field("user", "integer", "Closed-loop client (0: the open-loop arrival process)"),
        Field("seq", "integer", "The client's (or the arrival process's) request number"),
        Field("planned_s", "number", "When it should have been sent, from the run's start",
              "s"),
        Field("start_s", "number", "When it was sent, from the run's start", "s"),
        Field("lateness_ms", "number", "start_s less planned_s", "ms"),
        Field("latency_ms", "number", "Time from sending to the end of the answer or error",
              "ms"),
        Field("outcome", "string", "ok, closed, reset, refused, timeout, http-<code>, or "
                                   "error-<type>"),
        Field("status", "integer", "HTTP status (0 when no answer came)"),
        Field("bytes", "integer", "Length of the answer's body", "bytes"),
        Field("server_cpu_us", "integer", "Processor time of the arithmetic, measured by the "
                                          "JVM (empty when it cannot: virtual threads)", "us"),
        Field("permit_wait_us", "integer", "Time the request waited for a permit of the pool, "
                                           "measured by the page", "us"),
        Field("virtual", "integer", "1 when a virtual thread ran it, 0 when a platform "
                                    "thread did (empty without an answer)"),
        Field("drawn_work", "integer", "Iterations of the arithmetic the page drew for it "
                                       "(the run's distribution; constant: the mean; empty "
                                       "without an answer)"),
        Field("drawn_wait_us", "integer", "Wait phase the page drew for it", "us"),
        Field("capped", "integer", "How many of its two draws the page's bounds capped (the "
                                   "iterations' bound or MAX_CPU_MS of processor time, and "
                                   "MAX_WAIT_MS)"),
    )),
    "access": ACCESS_TABLE,
    "cpu_samples": SAMPLES_TABLE,
    "calibration": Table("calibration.csv",
                         "Requests that calibrated iterations per millisecond", (
        Field("step", "integer", "Request number"),
        Field("work", "integer", "Iterations of the arithmetic loop"),
        Field("latency_ms", "number", "Time to the end of the answer (one request at a time)",
              "ms"),
        Field("server_cpu_us", "integer", "Processor time of the arithmetic", "us"),
    )),
}
