"""The tables of a data set of the database experiment: runs, requests, access, pool,
calibration and advice."""

from __future__ import annotations

from ...records import Field, Table, runner_fields
from ..today.tables import TABLES as _TODAY

_RUN = Field("run", "integer", "Run number, in the order the runs were measured")


def _requests() -> Table:
    """Today's request rows (the same Locust files write them), with this page's meaning."""
    meaning = {"server_cpu_us": Field("server_cpu_us", "integer", "Processor time of the "
                                      "request's thread over the whole request (the JVM's "
                                      "measure)", "us"),
               "permit_wait_us": Field("permit_wait_us", "integer", "Time in HikariCP's "
                                       "getConnection: the pool wait", "us")}
    today = _TODAY["requests"]
    return Table(today.path, "One row per request sent (the client's side)",
                 tuple(meaning.get(f.name, f) for f in today.fields))


TABLES: dict[str, Table] = {
    "runs": Table("runs.csv", "One row per run: levels, counts, processor time per answer, "
                              "the pool", (
        _RUN,
        Field("kind", "string", "'one-client' (the service time, one client in turn) or "
                                "'load' (the design's runs)"),
        Field("processors", "integer", "Cores Tomcat runs on (-XX:ActiveProcessorCount)"),
        Field("threads", "integer", "Executor maxThreads T"),
        Field("queue", "integer", "Executor maxQueueSize (B = T + queue)"),
        Field("pool", "integer", "HikariCP maximumPoolSize C (= minimumIdle)"),
        Field("settings_from", "string", "'design' (the campaign's settings) or 'advice' "
                                         "(queuetune.sizing.size's, from the one-client run)"),
        Field("peak_multiple", "number", "Arrival rate as a multiple of the advice's peak "
                                         "(0: not an advice run)"),
        Field("distribution", "string", "Distribution of the three works per request: "
                                        "constant, exponential or lognormal"),
        Field("cpu_ms", "number", "Mean processor time asked of the request's thread", "ms"),
        Field("db_ms", "number", "Mean processor time asked of the database per query",
              "ms"),
        Field("wait_ms", "number", "Mean wait holding the connection after the query", "ms"),
        Field("clients", "integer", "Closed-loop clients (0 in an open-loop run)"),
        Field("arrival_rate", "number", "Planned Poisson arrival rate (0 in a closed-loop "
                                        "run)", "1/s"),
        Field("think_s", "number", "Mean think time of the closed-loop clients", "s"),
        Field("work", "integer", "Mean iterations of the page's arithmetic sent"),
        Field("db_work", "integer", "Mean iterations of qt_work() sent"),
        Field("window_start_s", "number", "Start of the measurement window, from the run's "
                                          "start", "s"),
        Field("window_end_s", "number", "End of the window: nothing is sent later", "s"),
        Field("sent", "integer", "Requests sent in the whole run"),
        Field("sent_in_window", "integer", "Requests sent in the measurement window"),
        Field("locust_requests", "integer", "Requests counted by Locust's own statistics"),
        Field("ok", "integer", "Requests answered with HTTP 200"),
        Field("ok_in_window", "integer", "Of those, sent in the window"),
        Field("closed", "integer", "Requests whose connection closed without an answer"),
        Field("other_errors", "integer", "Requests that ended in any other error"),
        Field("server_answered", "integer", "Lines of Tomcat's access log for the run's "
                                            "page requests"),
        Field("server_rejected", "integer", "'Executor rejected socket' lines Tomcat logged"),
        Field("throughput", "number", "Answers (200) sent in the window per second", "1/s"),
        Field("response_ms", "number", "Mean response time of those answers", "ms"),
        Field("response_p99_ms", "number", "99th percentile of it", "ms"),
        Field("thread_cpu_ms", "number", "Mean processor time of the request's thread "
                                         "(X-Queuetune-Cpu-Us)", "ms"),
        Field("jvm_cpu_ms", "number", "The JVM's whole processor time over the window per "
                                      "answer in it (utilization law)", "ms"),
        Field("db_cpu_ms", "number", "The database's processes' processor time over the "
                                     "window per answer in it", "ms"),
        Field("db_time_ms", "number", "Mean time of the query as the page saw it (database "
                                      "work and round trip; access log)", "ms"),
        Field("hold_ms", "number", "Mean time a connection was held (query and wait)", "ms"),
        Field("pool_wait_ms", "number", "Mean time in getConnection", "ms"),
        Field("pool_wait_p99_ms", "number", "99th percentile of it", "ms"),
        Field("pool_timeouts", "integer", "getConnection calls that timed out "
                                          "(HikariCP's connectionTimeout) in the run"),
        Field("database_failures", "integer", "Other database errors the page saw"),
        Field("server_cpu", "number", "Processor time of Tomcat's JVM over the window, in "
                                      "cores"),
        Field("database_cpu", "number", "Processor time of PostgreSQL's processes over the "
                                        "window, in cores"),
        Field("generator_cpu", "number", "Processor time of the load generator over the "
                                         "window, in cores"),
        Field("database_cores_busy", "number", "Busy time of the database's cores over the "
                                               "window, in cores"),
        Field("generator_share", "number", "Share of the busy time of the database's cores "
                                           "that the generator took"),
        Field("tomcat_cores_busy", "number", "Busy time of Tomcat's cores, in cores"),
        Field("other_cpu", "number", "Busy time of all the servers' cores less Tomcat, "
                                     "PostgreSQL and the generator: what else ran there, in "
                                     "cores"),
        Field("lateness_p99_ms", "number", "99th percentile of how late requests were sent "
                                           "against their plan, in the window", "ms"),
        Field("database_alive", "boolean", "PostgreSQL's postmaster ran at the end of the "
                                           "run"),
        Field("seconds", "number", "Wall-clock length of the run, start to end", "s"),
        *runner_fields(),
    )),
    "requests": _requests(),
    "access": Table("access.csv.gz", "Tomcat's access log of the run's page requests (the "
                                     "server's side), one row each", (
        _RUN,
        Field("status", "integer", "HTTP status (%s)"),
        Field("time_us", "integer", "Time to the end of the answer (%D)", "us"),
        Field("commit_ms", "integer", "Time to commit the answer, its first byte (%F)",
              "ms"),
        Field("bytes", "integer", "Bytes of the answer (%B)", "bytes"),
        Field("thread", "string", "The thread that ran it (%I)"),
        Field("end_ms", "integer", "When the answer ended, epoch milliseconds "
                                   "(%{end:msec}t)", "ms"),
        Field("cpu_us", "integer", "Processor time of the request's thread", "us"),
        Field("pool_wait_us", "integer", "Time in getConnection", "us"),
        Field("db_us", "integer", "Time of the query", "us"),
        Field("hold_us", "integer", "Time the connection was held", "us"),
        Field("work", "integer", "Iterations of the arithmetic drawn"),
        Field("db_work", "integer", "Iterations of qt_work() drawn"),
        Field("sleep_us", "integer", "Wait drawn", "us"),
        Field("stopped", "string", "Why the page stopped the request (empty: it did not)"),
    )),
    "samples": Table("samples.csv.gz", "The processor monitor's raw samples of the run "
                                       "(cumulative, four a second)", (
        _RUN,
        Field("t", "number", "When the sample was taken, epoch seconds", "s"),
        Field("what", "string", "'server' (Tomcat's JVM), 'database' (PostgreSQL's "
                                "processes), 'generator' (Locust), or 'core-N' (core N, busy "
                                "with anything, steal time excluded)"),
        Field("seconds", "number", "Its processor time so far (cumulative; a process group's "
                                   "from when it was first sampled)", "s"),
    )),
    "pool": Table("pool.csv", "HikariCP's counters read after each run (the page's stats)", (
        _RUN,
        Field("timeouts", "integer", "getConnection timeouts since the server started"),
        Field("failures", "integer", "Other database errors since the server started"),
        Field("active", "integer", "Connections in use when read"),
        Field("idle", "integer", "Idle connections when read"),
        Field("total", "integer", "Connections of the pool when read"),
        Field("waiting", "integer", "Threads waiting for a connection when read"),
    )),
    "calibration": Table("calibration.csv", "Iterations per millisecond of processor time, "
                                            "of the page's arithmetic and of qt_work()", (
        Field("server", "integer", "Server start (1, 2...) it was measured on"),
        Field("what", "string", "'page' (the JVM's arithmetic) or 'database' (qt_work)"),
        Field("per_ms", "number", "Iterations per millisecond of processor time"),
    )),
    "advice": Table("advice.csv", "The sizing's advice the advice runs deployed", (
        Field("quantity", "string", "What it is"),
        Field("value", "string", "Its value (the snippets verbatim)"),
    )),
}
