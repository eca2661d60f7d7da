"""queuetune.documents.domino_curves.parsers: the layouts of the article's lists, read whole."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune.documents.domino_curves import parsers

SYSTEMS = """### System 1
System: IBM 704 CPU: One 200MHz Pentium Pro
Memory: 512MB
[...]
### System 2
System: IBM 330
CPU: One 300MHz Pentium II Memory: 512MB
"""


def test_systems_split_every_known_key_of_a_line():
    table = parsers.parse_systems(SYSTEMS, {"keys": ["System", "CPU", "Memory"]},
                                  ["system_number", "system", "property", "value"])
    assert table.values.tolist() == [
        ["1", "IBM 704", "CPU", "One 200MHz Pentium Pro"], ["1", "IBM 704", "Memory", "512MB"],
        ["2", "IBM 330", "CPU", "One 300MHz Pentium II"], ["2", "IBM 330", "Memory", "512MB"]]


@pytest.mark.parametrize(("text", "message"), [
    ("System: IBM 704\n", "before the first 'System N' heading"),
    ("### System 1\nDisk: 4GB\n", "does not start with a known key"),
    ("### System 1\nCPU: One\n", "a property before the 'System:' line"),
])
def test_systems_refuse_what_they_cannot_place(text, message):
    with pytest.raises(ValueError, match=message):
        parsers.parse_systems(text, {"keys": ["System", "CPU"]}, ["n", "s", "p", "v"])


def test_workloads_with_and_without_alias():
    text = ("- **Mail**: users reading and sending mail\n"
            "- Web (sometimes called HTTP): pages served\n")
    table = parsers.parse_workloads(text, {}, ["workload", "alias", "description"])
    assert table.values.tolist() == [["Mail", "", "users reading and sending mail"],
                                     ["Web", "HTTP", "pages served"]]
    with pytest.raises(ValueError, match="not a workload line: 'Mail users'"):
        parsers.parse_workloads("Mail users\n", {}, ["workload", "alias", "description"])


def test_cpu_savings_read_a_range_or_one_number_whole():
    text = ("- Mail workload: 20 to 30 percent less CPU\n"
            "- Web workload: 15 percent less CPU\n")
    table = parsers.parse_cpu_savings(text, {}, ["workload", "low", "high"])
    assert table.equals(pd.DataFrame([["Mail", "20", "30"], ["Web", "15", "15"]],
                                     columns=["workload", "low", "high"]))
    for line in ("- Web workload: 1.5 percent less CPU", "- Web workload: 15 percent less CPU!"):
        with pytest.raises(ValueError, match="not a CPU-saving line"):
            parsers.parse_cpu_savings(line, {}, ["workload", "low", "high"])
