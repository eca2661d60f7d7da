"""A throwaway PostgreSQL cluster for one server configuration of the lab.

``initdb`` writes a cluster into a temporary folder marked as the lab's
(:func:`queuetune.lab.processes.temporary_folder`: a runner killed with SIGKILL leaves it, and
the next runner removes it); the postmaster runs in the foreground (``postgres -D``), pinned to
its cores with ``taskset``, in a process group of its own tied to this process, listening on
127.0.0.1 only, on a port of its own, with its Unix socket inside the folder. Leaving the
context manager stops it (``pg_ctl stop -m fast``, then ``-m immediate``, then SIGKILL of its
group) and removes the folder, on success, failure or Ctrl-C.

The cluster is for measuring, not for keeping data: ``fsync``, ``synchronous_commit`` and
``full_page_writes`` are off (a crash may lose it; it is thrown away anyway), and every local
connection is trusted (loopback only, a throwaway cluster).

It holds a generated table (``qt_items``: ``rows`` rows of an id and a value) and a function,
``qt_work(iterations)``, a dependent chain of square roots in PL/pgSQL whose processor time in
the backend grows with ``iterations``; :meth:`Cluster.calibrate` measures iterations per
millisecond of the cluster's processor time.

PostgreSQL refuses to run as root: when the lab runs as root, the cluster runs as the user
``postgres`` (Debian's package makes it), through ``setpriv``, which keeps the parent-death
signal (``--pdeathsig KILL``) that changing the user would otherwise clear.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import statistics
import subprocess
import time
from pathlib import Path

import psutil

from . import processes
from .tomcat import free_port

__all__ = ["BIN", "FOLDER_PREFIX", "Cluster", "DatabaseError", "postgres_version",
           "remove_stale_folders"]

#: Where Debian's postgresql-15 keeps its programs (``POSTGRES_BIN`` overrides it).
BIN = Path(os.environ.get("POSTGRES_BIN", "/usr/lib/postgresql/15/bin"))
FOLDER_PREFIX = "queuetune-postgres-"
_INSTALL_HINT = "install Debian's postgresql (make database does it), or set POSTGRES_BIN"
_USER = "queuetune"
_DATABASE = "queuetune"
_SETTINGS = {  # the postmaster's command line (-c): loopback only, no durability
    "listen_addresses": "127.0.0.1", "fsync": "off", "synchronous_commit": "off",
    "full_page_writes": "off", "max_connections": "200", "shared_buffers": "64MB",
    "autovacuum": "off", "log_min_messages": "warning", "jit": "off",
}
_SCHEMA = """\
CREATE TABLE qt_items (id integer PRIMARY KEY, value double precision NOT NULL);
INSERT INTO qt_items SELECT i, sqrt(i) FROM generate_series(1, {rows}) AS i;
ANALYZE qt_items;
CREATE FUNCTION qt_work(iterations bigint) RETURNS double precision
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
  x double precision := 1.0;
BEGIN
  FOR i IN 1 .. iterations LOOP
    x := sqrt(x + i) * 1.0000001;
  END LOOP;
  RETURN x;
END $$;
"""
#: The query a request runs: the work, and one row of the table by its key.
QUERY = "SELECT qt_work(?), (SELECT value FROM qt_items WHERE id = ?)"


class DatabaseError(RuntimeError):
    """The cluster could not be made, started or asked."""


def _program(name: str) -> str:
    path = BIN / name
    if not path.is_file():
        raise DatabaseError(f"PostgreSQL's {name} not found in {BIN}; {_INSTALL_HINT}")
    return str(path)


def postgres_version() -> str:
    """The server's version line, e.g. ``postgres (PostgreSQL) 15.18 (Debian ...)``."""
    return subprocess.run([_program("postgres"), "--version"], capture_output=True, text=True,
                          timeout=60, check=True).stdout.strip()


def remove_stale_folders(tmp: Path | None = None) -> list[Path]:
    """The clusters a killed runner left (marked, their maker gone), removed."""
    return processes.remove_stale(FOLDER_PREFIX, tmp)


def _as_owner() -> list[str]:
    """The command prefix that runs a program as the cluster's owner (``postgres`` when the
    lab runs as root, which PostgreSQL refuses; nothing otherwise)."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise DatabaseError(f"running as root, PostgreSQL needs a user 'postgres' to run "
                            f"as; {_INSTALL_HINT}") from None
    if shutil.which("setpriv") is None:
        raise DatabaseError("setpriv (util-linux) is needed to run PostgreSQL as 'postgres'")
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups",
            "--pdeathsig=KILL", "--"]


class Cluster:
    """One throwaway cluster. Use as a context manager: stopped and removed on leaving."""

    def __init__(self, *, cores: tuple[int, ...] = (), rows: int = 10_000,
                 start_timeout_s: float = 60.0):
        if rows < 1:
            raise ValueError(f"rows must be >= 1, got {rows}")
        self.cores = tuple(cores)
        self.rows = rows
        self.start_timeout_s = start_timeout_s
        self.port = 0
        self.folder: Path | None = None
        self.process: subprocess.Popen | None = None
        self._tmp = None
        self._log = None
        self._known: set[int] = set()

    # -- life cycle -----------------------------------------------------------------------

    def __enter__(self) -> Cluster:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def socket_dir(self) -> Path:
        return self.folder / "socket"

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://127.0.0.1:{self.port}/{_DATABASE}?user={_USER}"

    def start(self) -> None:
        owner = _as_owner()
        self._tmp = processes.temporary_folder(FOLDER_PREFIX)
        self.folder = Path(self._tmp.name)
        try:
            self._make(owner)
            self.port = free_port()
            command = [*owner, _program("postgres"), "-D", str(self.data),
                       "-p", str(self.port), "-k", str(self.socket_dir),
                       *(arg for key, value in _SETTINGS.items()
                         for arg in ("-c", f"{key}={value}"))]
            if self.cores:
                command = ["taskset", "-c", ",".join(map(str, self.cores)), *command]
            self._log = open(self.folder / "postgres.log", "wb")  # noqa: SIM115
            self.process = processes.spawn(command, env=dict(os.environ), log=self._log)
            self._wait_ready()
            self.sql(f"CREATE DATABASE {_DATABASE};", database="postgres")
            self.sql(_SCHEMA.format(rows=self.rows))
        except BaseException:
            self.stop()
            raise

    def _make(self, owner: list[str]) -> None:
        self.socket_dir.mkdir()
        self.data.mkdir()
        if owner:
            entry = pwd.getpwnam("postgres")
            for path in (self.folder, self.socket_dir, self.data):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        result = subprocess.run(
            [*owner, _program("initdb"), "-D", str(self.data), "-U", _USER, "--auth=trust",
             "--no-sync", "--encoding=UTF8", "--locale=C"],
            capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise DatabaseError(f"initdb failed ({result.returncode}): "
                                f"{(result.stderr or result.stdout)[-2000:]}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + self.start_timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise DatabaseError(f"PostgreSQL exited with code {self.process.returncode} "
                                    f"while starting; its log ends with:\n{self.log_tail()}")
            ready = subprocess.run([_program("pg_isready"), "-h", str(self.socket_dir), "-p",
                                    str(self.port), "-U", _USER, "-d", "postgres"],
                                   capture_output=True, timeout=30)
            if ready.returncode == 0:
                return
            time.sleep(0.1)
        raise DatabaseError(f"PostgreSQL did not accept connections within "
                            f"{self.start_timeout_s:g} s; its log ends with:\n{self.log_tail()}")

    def stop(self) -> None:
        """Stop the postmaster (fast, then immediate, then KILL of its group) and remove the
        folder; safe to call twice or after a failed start."""
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                for mode in ("fast", "immediate"):
                    subprocess.run([*_as_owner(), _program("pg_ctl"), "stop", "-D",
                                    str(self.data), "-m", mode, "-w", "-t", "10"],
                                   capture_output=True, timeout=60)
                    if process.poll() is not None:
                        break
            known = self._known | set(self._children_of(process.pid))
            processes.end(process, grace_s=5.0)
            self._reap_orphans(known)
        if self._log is not None:
            self._log.close()
            self._log = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp, self.folder = None, None

    def _reap_orphans(self, known: set[int]) -> None:
        """Children of a postmaster that stopped or died: they run in sessions of their own
        (out of reach of the group's signal) and end by themselves within a moment, as the
        postmaster's death closes their pipe; whatever is left after 10 s is killed."""
        deadline = time.monotonic() + 10.0
        while (left := _running(known)) and time.monotonic() < deadline:
            time.sleep(0.1)
        for proc in left:
            with contextlib.suppress(psutil.Error):
                proc.kill()

    # -- what it is doing -----------------------------------------------------------------

    def alive(self) -> bool:
        """Whether the postmaster still runs."""
        return self.process is not None and self.process.poll() is None

    def postmaster_pid(self) -> int:
        if self.process is None:
            raise DatabaseError("PostgreSQL is not running")
        return self.process.pid

    @staticmethod
    def _children_of(pid: int) -> list[int]:
        try:
            return [p.pid for p in psutil.Process(pid).children(recursive=True)]
        except psutil.Error:
            return []

    def pids(self) -> list[int]:
        """The postmaster and every process under it (backends, background workers); empty
        once it has stopped. (``setpriv`` and ``taskset`` exec it: its PID is the postmaster's.)"""
        if not self.alive():
            return []
        found = [self.process.pid, *self._children_of(self.process.pid)]
        self._known = self._known | set(found[1:])
        return found

    def cpu_seconds(self) -> float:
        """Processor time (user + system) of the cluster so far, in seconds: its running
        processes' and, through the postmaster's children's times, those that have ended."""
        total = 0.0
        for pid in self.pids():
            try:
                times = psutil.Process(pid).cpu_times()
            except psutil.Error:
                continue
            total += times.user + times.system
            if pid == self.process.pid:
                total += times.children_user + times.children_system
        return total

    def log_tail(self, lines: int = 12) -> str:
        if self.folder is None or not (self.folder / "postgres.log").is_file():
            return ""
        text = (self.folder / "postgres.log").read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    # -- asking it ------------------------------------------------------------------------

    def sql(self, script: str, *, database: str = _DATABASE, timeout_s: float = 120.0) -> str:
        """Run ``script`` with psql over the Unix socket (stops at the first error); its
        output, unaligned, without headers."""
        result = subprocess.run(
            [_program("psql"), "-h", str(self.socket_dir), "-p", str(self.port), "-U", _USER,
             "-d", database, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
            input=script, capture_output=True, text=True, timeout=timeout_s)
        if result.returncode != 0:
            raise DatabaseError(f"psql failed ({result.returncode}): {result.stderr[-2000:]}")
        return result.stdout

    def calibrate(self, *, iterations: int = 200_000, repeats: int = 20, rounds: int = 3
                  ) -> float:
        """Iterations of ``qt_work`` per millisecond of the cluster's processor time: the
        processor time of ``repeats`` calls with ``iterations`` less that of as many calls
        with none (the query's own cost), over one session, the median of ``rounds``.

        The clock of processor time counts in ticks (10 ms): ``iterations * repeats`` should
        take a second or more for an error near 1 %."""
        if iterations < 1 or repeats < 1 or rounds < 1:
            raise ValueError("iterations, repeats and rounds must be >= 1")
        self.sql(f"SELECT qt_work({iterations});")  # the function compiled, the cache warm
        per_ms = []
        for _ in range(rounds):
            work = self._session_seconds(iterations, repeats)
            empty = self._session_seconds(0, repeats)
            if work <= empty:
                raise DatabaseError("calibration failed: the work took no measurable time")
            per_ms.append(iterations * repeats / ((work - empty) * 1000))
        return statistics.median(per_ms)

    def _session_seconds(self, iterations: int, repeats: int) -> float:
        """The cluster's processor time over one psql session of ``repeats`` calls, counted
        once the session's backend has ended and the postmaster has collected it (its time
        then joins the postmaster's children's; before, it is in neither)."""
        children = set(self.pids()[1:])
        before = self.cpu_seconds()
        self.sql("".join(f"SELECT qt_work({iterations});\n" for _ in range(repeats)))
        deadline = time.monotonic() + 10.0
        while not set(self.pids()[1:]) <= children and time.monotonic() < deadline:
            time.sleep(0.01)
        return self.cpu_seconds() - before


def _running(pids: set[int]) -> list[psutil.Process]:
    """Those of ``pids`` that still run a PostgreSQL program."""
    found = []
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            proc = psutil.Process(pid)
            if proc.status() != psutil.STATUS_ZOMBIE and proc.name() in ("postgres",
                                                                         "postmaster"):
                found.append(proc)
    return found
