"""What the runner and an experiment hand each other (see ``experiments/README.md``).

* :class:`Server` - the server an experiment started (or a target the user started): its URL,
  and, when the runner can see it, its process, its counters (answered, refused) and a probe;
* :class:`Session` - the campaign being run, the options, the data set writer, a progress step,
  and a scratch dictionary for what an experiment keeps between runs (a calibration);
* :class:`Measured` - what an experiment returns for one run: its ``runs`` row (by column
  name), rows of its other tables, the measurement window, and what the clients saw.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Counters", "Measured", "Server", "Session"]


@dataclass(frozen=True)
class Counters:
    """What the server logged so far: requests answered and refused."""

    answered: int
    rejected: int
    server_time_us_sum: int = 0

    def since(self, before: Counters) -> Counters:
        return Counters(self.answered - before.answered, self.rejected - before.rejected,
                        self.server_time_us_sum - before.server_time_us_sum)


@dataclass
class Server:
    """A running server, as the runner sees it."""

    url: str
    pids: Callable[[], list[int]] | None = None  # its processes (None: not started by us)
    counters: Callable[[], Counters] | None = None  # its logs (None: not readable)
    alive: Callable[[], bool] | None = None
    probe: Callable[[float], bool] | None = None  # one cheap request; True when answered
    cores: tuple[int, ...] = ()
    handle: Any = None  # the experiment's own object (a Tomcat)


@dataclass
class Measured:
    """One run, measured: the experiment's side of it."""

    row: Mapping[str, Any]  # the runs row: every column of the experiment's own
    window: tuple[float, float]  # the measurement window, epoch seconds
    refused_seen: int  # requests the clients saw refused
    connection_errors: int  # requests that ended in any other error
    tables: Mapping[str, list[Mapping[str, Any]]] = field(default_factory=dict)
    failed_checks: list[str] = field(default_factory=list)  # the experiment's own, in words


@dataclass
class Session:
    """The campaign being run, as an experiment sees it."""

    plan: Any
    options: Any
    writer: Any
    step: Callable[[str], contextlib.AbstractContextManager] = field(
        default=lambda label: contextlib.nullcontext())
    state: dict[str, Any] = field(default_factory=dict)
    run_number: int = 0

    @contextlib.contextmanager
    def progress(self, label: str) -> Iterator[None]:
        with self.step(label):
            yield
