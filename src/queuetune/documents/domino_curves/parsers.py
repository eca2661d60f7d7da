"""Excerpt layouts of ``domino-curves`` (Zimmet & Florio Barber 1998).

* ``domino-curves-systems``: the five system configurations (DC-T1). Each block starts with a
  ``System N`` heading (with or without ``#`` marks) followed by ``Key: value`` lines; in the
  source some lines run several pairs together (``Network: TCP/IPMemory: 384MB...``), so a
  line is cut wherever one of ``options["keys"]`` followed by ``": "`` begins.
* ``domino-curves-workloads``: the bulleted workload list (DC-T2),
  ``- Name (sometimes called Alias): description``, the name possibly in ``**bold**``.
* ``domino-curves-cpu-savings``: ``- Name workload: 15 to 20 percent less CPU`` (DC-T4); a
  single printed percentage fills both the low and the high column.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ...provenance import FRAGMENT_SEPARATOR, parser

_HEADING = re.compile(r"^#*\s*System (?P<number>\d+)\s*$")
_WORKLOAD = re.compile(
    r"^- (?:\*\*)?(?P<workload>[^:*(]+?)(?:\*\*)?(?: \(sometimes called (?P<alias>[^)]+)\))?: "
    r"(?P<description>.+)$"
)
_SAVING = re.compile(
    r"^- (?P<workload>.+) workload: (?P<low>\d+)(?: to (?P<high>\d+))? percent less CPU$"
)


def _data_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and ln.strip() != FRAGMENT_SEPARATOR]


@parser("domino-curves-systems")
def parse_systems(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (system_number, system, property, value); ``system`` is the ``System:`` value."""
    keys = [str(k) for k in options["keys"]]
    splitter = re.compile("(" + "|".join(re.escape(k) for k in keys) + "): ")
    records: list[list[str]] = []
    number = name = None
    for line in _data_lines(text):
        heading = _HEADING.match(line)
        if heading:
            number, name = heading["number"], None
            continue
        if number is None:
            raise ValueError(f"line before the first 'System N' heading: {line!r}")
        matches = list(splitter.finditer(line))
        if not matches or matches[0].start() != 0:
            raise ValueError(f"line does not start with a known key: {line!r}")
        for match, following in zip(matches, [*matches[1:], None], strict=True):
            value = line[match.end():following.start() if following else len(line)].strip()
            if match[1] == "System":
                name = value
                continue
            if name is None:
                raise ValueError(f"system {number}: a property before the 'System:' line")
            records.append([number, name, match[1], value])
    return pd.DataFrame(records, columns=fields)


@parser("domino-curves-workloads")
def parse_workloads(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (workload, alias, description); alias is empty where none is printed."""
    records = []
    for line in _data_lines(text):
        match = _WORKLOAD.match(line)
        if match is None:
            raise ValueError(f"not a workload line: {line!r}")
        records.append([match["workload"], match["alias"] or "", match["description"]])
    return pd.DataFrame(records, columns=fields)


@parser("domino-curves-cpu-savings")
def parse_cpu_savings(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (workload, low, high) in percent; ``20 percent`` gives low = high = 20."""
    records = []
    for line in _data_lines(text):
        match = _SAVING.match(line)
        if match is None:
            raise ValueError(f"not a CPU-saving line: {line!r}")
        records.append([match["workload"], match["low"], match["high"] or match["low"]])
    return pd.DataFrame(records, columns=fields)
