"""Where the threads of a convoy spend a request's time (issue 31, item 2): a short look inside
a one-processor Tomcat running the test page with constant work.

The request threads' own accounts come from Linux's scheduler statistics
(``/proc/<pid>/task/<tid>/schedstat``: the time each thread ran on a core, the time it waited on
the run queue, runnable but not running, and its time slices), summed over the Executor's
threads over a few seconds of closed-loop load with no think time (the queue never empties,
so every thread always holds a request). Divided by the answers, they split the time a request
holds its thread (``T / X``) into its processor time, its wait for the core, and the rest (the
page's sleep, and the moments a thread has no request, which never come here).

This says where the threads wait, not what aligns them: the run queue is where a thread stands
while the others compute, whatever brought them to compute at once. It is a probe, not a
measurement of the book: its numbers are printed, never stored as a data set
(``python -m queuetune.lab.experiments.today.convoy``).
"""

from __future__ import annotations

import http.client
import statistics
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psutil

from ...._validation import integer, real
from ...java import find_java
from ...tomcat import ServerSettings, free_port
from .experiment import CALIBRATION_WORK, PAGE, SECRET_HEADER, TodayTomcat, new_secret, page

__all__ = ["schedstat", "where_threads_wait"]

#: The prefix of the Executor's threads (``queuetune.lab.tomcat``): Linux keeps the first 15
#: characters of a thread's name, exactly this prefix.
THREAD_PREFIX = "queuetune-exec-"


def schedstat(pid: int, prefix: str = THREAD_PREFIX, *, proc: Path = Path("/proc")
              ) -> tuple[float, float, int, int]:
    """Summed over the threads of process ``pid`` whose name starts with ``prefix``: seconds
    on a core, seconds waiting on the run queue, time slices, and how many threads."""
    ran = waited = slices = count = 0
    for task in sorted((proc / str(pid) / "task").iterdir()):
        try:
            name = (task / "comm").read_text().strip()
            fields = (task / "schedstat").read_text().split()
        except OSError:  # the thread ended between the listing and the reading
            continue
        if not name.startswith(prefix[:15]):
            continue
        ran += int(fields[0])
        waited += int(fields[1])
        slices += int(fields[2])
        count += 1
    return ran / 1e9, waited / 1e9, slices, count


def _request(host: str, port: int, path: str, secret: str) -> int:
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request("GET", path, headers={SECRET_HEADER: secret, "Connection": "close"})
        answer = conn.getresponse()
        answer.read()
        return int(answer.getheader("X-Queuetune-Cpu-Us") or -1) if answer.status == 200 else -2
    finally:
        conn.close()


def _work_per_ms(host: str, port: int, secret: str, requests: int = 40) -> float:
    """Iterations per millisecond of the thread's processor time (as the runner calibrates)."""
    path = f"{PAGE}?work={CALIBRATION_WORK}&sleep_us=0&bytes=200"
    for _ in range(requests):  # the JIT first
        _request(host, port, path, secret)
    cpu_ms = statistics.median(_request(host, port, path, secret) / 1000
                               for _ in range(requests))
    return CALIBRATION_WORK / cpu_ms


def where_threads_wait(*, threads: int = 8, clients: int = 40, seconds: float = 4.0,
                       cpu_ms: float = 10.0, wait_ms: float = 40.0, core: int = 1,
                       calibration_requests: int = 40) -> dict:
    """Tomcat on ``core`` with ``threads`` platform threads, ``clients`` closed-loop clients
    with no think time for ``seconds``, each request ``cpu_ms`` of arithmetic then a
    ``wait_ms`` sleep, constant (``calibration_requests`` measure the arithmetic's speed
    first, after as many that warm the JIT). Per answer: the time a request held its thread, and its
    thread's time on the core, on the run queue, and elsewhere (the sleep), in ms."""
    threads = integer(threads, "threads", low=1, high=64)
    clients = integer(clients, "clients", low=threads, high=400)
    seconds = real(seconds, "seconds", low=0.5, high=60.0, unit="s")
    cpu_ms = real(cpu_ms, "cpu_ms", low=0.1, high=100.0, unit="ms")
    wait_ms = real(wait_ms, "wait_ms", low=0.0, high=1000.0, unit="ms")
    calibration_requests = integer(calibration_requests, "calibration_requests", low=3,
                                   high=10_000)
    secret = new_secret()
    port = free_port()
    server = TodayTomcat(ServerSettings(threads=threads, queue=1000, port=port, cores=(core,)),
                         runtime=find_java(), executor="platform",
                         pages={"today.jsp": page(secret)},
                         ready_path=f"{PAGE}?work=0&sleep_us=0",
                         ready_headers={SECRET_HEADER: secret})
    with server:
        host = server.settings.address
        work = round(cpu_ms * _work_per_ms(host, port, secret, calibration_requests))
        path = f"{PAGE}?work={work}&sleep_us={round(wait_ms * 1000)}&bytes=200"
        stop = threading.Event()
        answers = [0] * clients

        def client(index: int) -> None:
            while not stop.is_set():
                if _request(host, port, path, secret) >= 0:
                    answers[index] += 1

        with ThreadPoolExecutor(clients) as pool:
            for i in range(clients):
                pool.submit(client, i)
            time.sleep(1.0)  # the queue fills, the threads settle
            before, counted, t0 = schedstat(server.pid), sum(answers), time.monotonic()
            busy0 = _core_busy(core)
            time.sleep(seconds)
            after, done, t1 = schedstat(server.pid), sum(answers), time.monotonic()
            busy1 = _core_busy(core)
            stop.set()
    n = done - counted
    if n <= 0:
        raise RuntimeError("no request was answered while the threads were observed")
    ran, queued = (after[0] - before[0]) / n * 1000, (after[1] - before[1]) / n * 1000
    held = threads * (t1 - t0) / n * 1000  # Little's law: every thread always holds one
    return {"threads": threads, "clients": clients, "answers": n,
            "threads seen": after[3], "throughput (1/s)": n / (t1 - t0),
            "held (ms)": held, "on the core (ms)": ran, "on the run queue (ms)": queued,
            "elsewhere (ms)": held - ran - queued,
            "core busy (the threads)": (after[0] - before[0]) / (t1 - t0),
            # anything else on the core makes the threads queue for it: on a shared machine
            # the run queue holds other processes' work too; compare the two
            "core busy (everything)": (busy1 - busy0) / (t1 - t0)}


def _core_busy(core: int) -> float:
    """Core ``core``'s cumulative busy seconds (steal excluded), as the monitor counts them."""
    t = psutil.cpu_times(percpu=True)[core]
    return t.user + t.nice + t.system + t.irq + t.softirq


if __name__ == "__main__":  # pragma: no cover - a probe run by hand
    for t in (1, 2, 8):
        print(where_threads_wait(threads=t, clients=max(5 * t, 10)))
