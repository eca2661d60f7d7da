"""Excerpt layouts of ``domino-threads`` (Demetriou 1998) that the generic parsers do not read.

* ``domino-threads-configuration``: the bulleted client and server configurations (DT-T1),
  one fragment per system; ``- Key: value`` lines, lines without a label, and indented
  sub-items under a ``Key:`` line that has no value of its own (the hard drives).
* ``domino-threads-ini-settings``: the client NOTES.INI settings (DT-T2), ``- Name=value``
  lines with an optional ``(unit)``.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from ...provenance import FRAGMENT_SEPARATOR, excerpt_fragments, parser

_BULLET = re.compile(r"^\s*-\s*")
_SUB_BULLET = re.compile(r"^\s+-\s*-+\s*")
_LABELLED = re.compile(r"^(?P<property>[^:]+):\s*(?P<value>.*)$")
_INI = re.compile(r"^- (?P<setting>\w+) ?= ?(?P<value>\d+)(?: \((?P<unit>[^)]+)\))?$")


@parser("domino-threads-configuration")
def parse_configuration(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (system, item, property, value); ``options["systems"]`` names the fragments in order.

    ``item`` numbers the rows of one system from 1. A line without a label gives an empty
    property; a sub-item's property is ``Parent > Label``.
    """
    fragments = excerpt_fragments(text)
    systems = [str(s) for s in options["systems"]]
    if len(fragments) != len(systems):
        raise ValueError(f"{len(fragments)} fragments for systems {systems}")
    records = []
    for system, fragment in zip(systems, fragments, strict=True):
        parent = None
        item = 0
        for line in fragment.splitlines():
            if not line.strip() or line.strip() == FRAGMENT_SEPARATOR:
                continue
            sub = _SUB_BULLET.match(line)
            body = line[sub.end():] if sub else _BULLET.sub("", line, count=1)
            match = _LABELLED.match(body)
            if sub:
                if parent is None or match is None:
                    raise ValueError(f"sub-item without a parent or label: {line!r}")
                prop, value = f"{parent} > {match['property'].strip()}", match["value"]
            elif match and not match["value"].strip():
                parent = match["property"].strip()  # a heading such as "Hard Drives:"
                continue
            else:
                parent = None
                prop, value = (match["property"].strip(), match["value"]) if match else ("", body)
            item += 1
            records.append([system, str(item), prop, value.strip()])
    return pd.DataFrame(records, columns=fields)


@parser("domino-threads-ini-settings")
def parse_ini_settings(text: str, options: dict[str, Any], fields: list[str]) -> pd.DataFrame:
    """Rows (setting, value, unit) from ``- Name=value`` or ``- Name = value (unit)`` lines."""
    records = []
    for line in text.splitlines():
        if not line.strip() or line.strip() == FRAGMENT_SEPARATOR:
            continue
        match = _INI.match(line)
        if match is None:
            raise ValueError(f"not a NOTES.INI setting line: {line!r}")
        records.append([match["setting"], match["value"], match["unit"] or ""])
    return pd.DataFrame(records, columns=fields)
