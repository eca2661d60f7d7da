"""Excerpt layouts of ``domino-keepalive`` (Nashed 2023).

* ``domino-keepalive-load``: ``Name value [unit]`` lines of the test load (DK-T1), the value
  being the last number on the line and the unit the word after it, if any.
* ``domino-keepalive-results``: the results table (DK-T2) printed one cell per line: a
  header line, then per test its label, average request time and total run time. The
  number of requests per connection is read from labels ``N requests per connection``
  and left empty for other labels (``TLS connection``).
* ``domino-keepalive-label-lines``: a setting block printed as ``Label:`` lines each followed
  by its value on the next line.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ...provenance import FRAGMENT_SEPARATOR, parser

_LOAD = re.compile(r"^(?P<setting>.+?) (?P<value>\d+)(?: (?P<unit>\S+))?$")
_PER_CONNECTION = re.compile(r"^(?P<n>\d+) requests per connection$")


def _data_lines(text: str, options: dict[str, Any]) -> list[str]:
    lines = [ln.strip() for ln in text.splitlines()
             if ln.strip() and ln.strip() != FRAGMENT_SEPARATOR]
    return lines[int(options.get("header_lines", 0)):]


@parser("domino-keepalive-load")
def parse_load(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (setting, value, unit); unit is empty where none is printed."""
    records = []
    for line in _data_lines(text, options):
        match = _LOAD.match(line)
        if match is None:
            raise ValueError(f"not a 'name value [unit]' line: {line!r}")
        records.append([match["setting"], match["value"], match["unit"] or ""])
    return pd.DataFrame(records, columns=fields)


@parser("domino-keepalive-results")
def parse_results(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (test, requests_per_connection, average time, total time), three lines per test."""
    lines = _data_lines(text, options)
    if len(lines) % 3:
        raise ValueError(f"{len(lines)} cell lines is not a multiple of 3")
    records = []
    for i in range(0, len(lines), 3):
        label, average, total = lines[i:i + 3]
        match = _PER_CONNECTION.match(label)
        records.append([label, match["n"] if match else "", average, total])
    return pd.DataFrame(records, columns=fields)


@parser("domino-keepalive-label-lines")
def parse_label_lines(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (setting, value) from ``Label:`` / value line pairs."""
    lines = _data_lines(text, options)
    if len(lines) % 2:
        raise ValueError(f"{len(lines)} lines do not pair up as label and value")
    records = []
    for label, value in zip(lines[0::2], lines[1::2], strict=True):
        if not label.endswith(":"):
            raise ValueError(f"not a label line: {label!r}")
        records.append([label[:-1], value])
    return pd.DataFrame(records, columns=fields)
