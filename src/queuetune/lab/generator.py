"""The load generator: Locust, started for one run with an experiment's Locust file.

Alone (one process), or in Locust's distributed mode: a master and local worker processes
(``workers``), or a master that waits for workers the user starts on other machines
(``expect_workers``). Every process is pinned to the generator's cores and runs in a process
group of its own, which :meth:`Generator.stop` ends, whatever happened; its temporary folder,
marked with the runner's PID, is removed on leaving, or by the next runner when the runner
was killed (:func:`remove_stale_folders`).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from . import processes
from .tomcat import free_port

__all__ = ["LoadSpec", "Generator", "GeneratorError", "FOLDER_PREFIX", "remove_stale_folders"]

#: The prefix of the generator's temporary folders (its Locust logs and requests).
FOLDER_PREFIX = "queuetune-locust-"


def remove_stale_folders(tmp: Path | None = None) -> list[Path]:
    """Remove the temporary folders that the generator of a killed runner left behind
    (marked with their maker's PID, which no longer runs). Returns what it removed."""
    return processes.remove_stale(FOLDER_PREFIX, tmp)


class GeneratorError(RuntimeError):
    """The load generator failed."""


@dataclass(frozen=True)
class LoadSpec:
    """What one run asks of the generator (passed to Locust as ``--lab-spec``)."""

    run: int
    path: str  # the request, e.g. /work.jsp?work=1500000&sleep_us=0&bytes=10240
    clients: int
    think_s: float
    seed: int
    ramp_s: float
    warmup_s: float
    measure_s: float
    timeout_s: float
    keep_alive: bool = True
    headers: dict[str, str] | None = None  # sent with every request (the page's secret)
    workers: int = 0
    out: str = ""

    @property
    def stop_s(self) -> float:
        """When clients stop sending: the end of the measurement window."""
        return self.ramp_s + self.warmup_s + self.measure_s

    def json(self) -> str:
        return json.dumps({**asdict(self), "stop_s": self.stop_s})


class Generator:
    """Locust processes for one run. Use as a context manager."""

    def __init__(self, spec: LoadSpec, host: str, locustfile: Path, *,
                 cores: tuple[int, ...] = (),
                 workers: int = 0, expect_workers: int = 0,
                 master_bind: tuple[str, int] | None = None):
        if workers and expect_workers:
            raise ValueError("workers and expect_workers exclude each other: start local "
                             "workers, or wait for workers started elsewhere")
        self.host = host
        self.locustfile = Path(locustfile)
        self.cores = cores
        self.local_workers = workers
        self.expect_workers = expect_workers
        self.master_bind = master_bind
        self._tmp = processes.temporary_folder(FOLDER_PREFIX)
        out = str(Path(self._tmp.name) / "requests.csv")
        self.spec = LoadSpec(**{**asdict(spec), "out": out,
                                "workers": workers or expect_workers})
        self.processes: list[subprocess.Popen] = []
        self._logs: list = []

    def __enter__(self) -> Generator:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.cleanup()

    # -- processes --------------------------------------------------------------------

    def _command(self, *extra: str) -> list[str]:
        command = [sys.executable, "-m", "locust", "-f", str(self.locustfile),
                   "--loglevel", "WARNING", *extra]
        if self.cores:
            command = ["taskset", "-c", ",".join(map(str, self.cores)), *command]
        return command

    def _spawn(self, name: str, command: list[str]) -> None:
        log = open(Path(self._tmp.name) / f"{name}.log", "wb")  # noqa: SIM115
        self._logs.append(log)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.processes.append(processes.spawn(command, env=env, log=log))

    def start(self) -> None:
        s = self.spec
        # Locust creates every client at once; each then waits for its own start time.
        rate = float(s.clients)
        limit = s.stop_s + s.timeout_s + 30.0  # Locust's own last resort; the run ends earlier
        common = ["--headless", "--host", self.host, "--users", str(s.clients),
                  "--spawn-rate", f"{rate:.6g}", "--run-time", f"{int(limit) + 1}s",
                  "--exit-code-on-error", "0", "--only-summary", "--lab-spec", s.json()]
        distributed = self.local_workers or self.expect_workers
        try:
            if not distributed:
                self._spawn("locust", self._command(*common))
                return
            host, port = self.master_bind or ("127.0.0.1", free_port())
            self._spawn("master", self._command(
                *common, "--master", "--expect-workers", str(s.workers),
                "--expect-workers-max-wait", "120",
                "--master-bind-host", host, "--master-bind-port", str(port)))
            for i in range(self.local_workers):
                self._spawn(f"worker-{i}", self._command(
                    "--worker", "--master-host", "127.0.0.1", "--master-port", str(port)))
        except BaseException:
            self.stop()
            raise

    def running(self) -> bool:
        """Whether the run goes on (the master, or the single process, has not exited)."""
        return bool(self.processes) and self.processes[0].poll() is None

    def pids(self) -> list[int]:
        return [p.pid for p in self.processes if p.poll() is None]

    def wait(self, timeout: float) -> None:
        """Until the run ends by itself; then check that it wrote its rows."""
        try:
            self.processes[0].wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise GeneratorError(f"the load generator did not finish within {timeout:g} s; "
                                 f"its log ends with:\n{self.log_tail()}") from None
        for worker in self.processes[1:]:
            with contextlib.suppress(subprocess.TimeoutExpired):
                worker.wait(timeout=15)
        if not Path(self.spec.out + ".json").is_file():
            raise GeneratorError(f"the load generator exited (code "
                                 f"{self.processes[0].returncode}) without writing its rows; "
                                 f"its log ends with:\n{self.log_tail()}")

    def result(self) -> tuple[Path, dict]:
        """The rows file and what Locust said about the run (``t0_epoch``, ``rows``)."""
        meta = json.loads(Path(self.spec.out + ".json").read_text())
        return Path(self.spec.out), meta

    def log_tail(self, lines: int = 15) -> str:
        texts = []
        for log in sorted(Path(self._tmp.name).glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-lines:]
            texts.append(f"[{log.stem}]\n" + "\n".join(tail))
        return "\n".join(texts)

    def stop(self) -> None:
        """End every generator process (TERM, then KILL) and remove the temporary files."""
        for process in self.processes:
            processes.end(process, grace_s=10.0)
        self.processes = []
        for log in self._logs:
            log.close()
        self._logs = []

    def cleanup(self) -> None:
        self.stop()
        self._tmp.cleanup()

