"""The helpers of the domino-curves chapter: the five systems of DC-T1 read as numbers.

>>> hardware().set_index("Called in the text")["Processors"].to_dict()["system 7000"]
2
"""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from ... import data, stated
from .claims import DOC, cpu_description

# A "Hard Drives" cell of DC-T1: "10 Spindles (4.51GB disk)" (spindles, size in GB).
_DISKS = r"{} Spindles \({}GB disk\)"
_SIZE = r"[0-9]+(?:\.[0-9]+)?"

__all__ = ["hardware", "hardware_property"]


def _systems() -> pd.DataFrame:
    return data.load(DOC, "system_configurations")


def hardware_property(prop: str, pattern: str,
                      convert: Callable[[str], object] = int) -> list:
    """One property of every system (DC-T1), read from its printed text: the first group of
    the regular expression ``pattern``, which must match each system's ``prop`` cell whole
    (so that no number is read from part of one: ``(\\d+)MB`` refuses "1.5MB"), converted by
    ``convert``, in the order of the systems' numbers.

    >>> hardware_property("Memory", r"(\\d+)MB")
    [512, 320, 384, 512, 1280]
    """
    systems = _systems()
    if prop not in set(systems["property"]):
        raise ValueError(f"prop must be one of {sorted(set(systems['property']))}, got {prop!r}")
    cell = systems[systems["property"] == prop].set_index("system_number")
    found = cell["value"].str.extract(rf"\A(?:{pattern})\Z", expand=False)
    if found.isna().any():
        raise ValueError(f"pattern {pattern!r} does not match every {prop!r} cell whole: "
                         f"{cell['value'][found.isna()].tolist()}")
    return found.map(convert).tolist()


def hardware() -> pd.DataFrame:
    """The configurations of DC-T1 as numbers: processors (the printed word, "One" or "Two"),
    clock (MHz), memory (MB), disk spindles and size (GB), and the short name the text uses
    ("system 7000"), one row per system in the order of their numbers."""
    names = _systems().groupby("system_number")["system"].first()
    return pd.DataFrame({
        "System": [f"System {n}: {names[n]}" for n in names.index],
        "Processors": [stated.parse_count(cpu_description(text)["processors"])
                       for text in hardware_property("CPU", r"(.+)", str)],
        "Clock (MHz)": [int(cpu_description(text)["clock_mhz"])
                        for text in hardware_property("CPU", r"(.+)", str)],
        "Memory (MB)": hardware_property("Memory", r"([0-9]+)MB"),
        "Disk spindles": hardware_property("Hard Drives", _DISKS.format(r"([0-9]+)", _SIZE)),
        "Disk size (GB)": hardware_property("Hard Drives", _DISKS.format("[0-9]+", f"({_SIZE})"),
                                            float),
        "Called in the text": [f"system {name.split()[-1]}" for name in names],
    })
