"""How a data set's runs map to the models' quantities: what each experiment tells the report.

The report (:mod:`queuetune.lab.report`) is generic: it fits, bounds and sizes from the
quantities of the models (clients or arrival rate, think time, threads, admission bound,
processors, pool, throughput, response time, share failed) and from the one-client service
time and its split. Which columns of a data set give them is the experiment's own knowledge:
each experiment exports ``model_quantities(dataset)`` returning a :class:`ModelQuantities`
(see ``experiments/README.md``); an imported data set gets its from
:func:`queuetune.lab.importers.model_quantities`. :func:`of` finds an experiment's by the data
set's experiment, never by importing an experiment by name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from . import datasets, experiments

__all__ = ["RUN_COLUMNS", "SERVICE_COLUMNS", "ModelQuantities", "of"]

#: One row per load run: ``group`` (runs sharing one service time, named in words), ``run``,
#: ``clients`` (closed loop; NA for open arrivals), ``arrival_rate`` (1/s, open arrivals; NaN
#: for a closed loop), ``think_time`` (s), ``threads`` (NA: no thread limit or unknown),
#: ``capacity`` (the requests the server admits, B; NA: unknown or unbounded),
#: ``processors`` (NA: unknown), ``connections`` (the pool held during the wait; NA: none),
#: ``throughput`` (1/s), ``response_time`` (s), ``error_rate`` (share failed) and ``valid``
#: (the runner's verdict; NA where it did not check).
RUN_COLUMNS = ("group", "run", "clients", "arrival_rate", "think_time", "threads", "capacity",
               "processors", "connections", "throughput", "response_time", "error_rate",
               "valid")
#: One row per group (the index): ``S`` (the one-client service time, s; NaN: unknown),
#: ``s_cpu`` and ``s_wait`` (its processor time and the rest; NaN: unknown), ``think_time``
#: (s) and ``how`` (in words, where each number comes from).
SERVICE_COLUMNS = ("S", "s_cpu", "s_wait", "think_time", "how")


@dataclass(frozen=True)
class ModelQuantities:
    """A data set's runs as the models see them (:data:`RUN_COLUMNS`), its service times per
    group (:data:`SERVICE_COLUMNS`), whether the think time is the campaign's
    (``think_time_known``; else it is estimated and the fits may free it), and, in words,
    what the design cannot give (``cannot``) and which load runs the mapping left out and
    why (``left_out``)."""

    runs: pd.DataFrame
    service: pd.DataFrame
    think_time_known: bool
    cannot: tuple[str, ...] = ()
    left_out: tuple[str, ...] = field(default=())

    def __post_init__(self):
        for name, frame, columns in (("runs", self.runs, RUN_COLUMNS),
                                     ("service", self.service, SERVICE_COLUMNS)):
            missing = [c for c in columns if c not in frame.columns]
            if missing:
                raise ValueError(f"model_quantities' {name} must have the columns {columns}; "
                                 f"it lacks {missing}")
        groups = set(self.runs["group"])
        unknown = sorted(groups - set(self.service.index))
        if unknown:
            raise ValueError(f"model_quantities' service must have a row for every group of "
                             f"its runs; it lacks {unknown}")


def of(dataset: str | Path) -> ModelQuantities | None:
    """The model quantities of ``dataset``, from its experiment's ``model_quantities``; None
    when its experiment does not say how its runs map to the models' quantities. (An imported
    data set has no experiment: the report asks :mod:`queuetune.lab.importers` for its.)"""
    name = datasets.experiment_of(dataset)
    mapping = getattr(experiments.get(name), "model_quantities", None)
    return None if mapping is None else mapping(dataset)
