"""queuetune.documents.domino_curves.chapter: the five systems of DC-T1 read as numbers."""

from __future__ import annotations

import re

import edits
import pytest

from queuetune import data
from queuetune.documents.domino_curves import chapter

DOC = "domino-curves"


@pytest.fixture(scope="module")
def hardware():
    return chapter.hardware().set_index("Called in the text")


def test_hardware_reads_every_property_from_the_printed_text(hardware):
    systems = data.load(DOC, "system_configurations")
    printed = systems.pivot(index="system_number", columns="property", values="value")
    assert len(hardware) == len(printed)
    for (name, row), (_, cells) in zip(hardware.iterrows(), printed.iterrows(), strict=True):
        # every number is in the printed cell it was read from, with its unit run into it
        assert f"{row['Clock (MHz)']}MHz" in cells["CPU"], name
        assert f"{row['Memory (MB)']}MB" in cells["Memory"], name
        assert f"{row['Disk spindles']} Spindles" in cells["Hard Drives"], name
        assert f"{row['Disk size (GB)']:g}GB" in cells["Hard Drives"], name
        word = {1: "One", 2: "Two"}[row["Processors"]]
        assert cells["CPU"].startswith(word), name


def test_hardware_names_the_systems_as_the_text_does(hardware):
    # the text's "two-CPU system 7000" and the other systems with one processor
    assert hardware.loc["system 7000", "Processors"] == 2
    assert (hardware.drop("system 7000")["Processors"] == 1).all()
    assert hardware["System"].str.startswith("System ").all()
    assert list(hardware.index) == [f"system {s.split()[-1]}" for s in hardware["System"]]


def test_hardware_property_refuses_unknown_properties_and_unmatched_patterns():
    with pytest.raises(ValueError, match="prop must be one of"):
        chapter.hardware_property("Colour", r"(\d+)")
    with pytest.raises(ValueError, match="does not match every 'CPU' cell"):
        chapter.hardware_property("CPU", r"(\d+)GHz")


@pytest.mark.parametrize("printed", ["1.5MB", "512MB (ECC)", "about 512MB", "512 MB", "-512MB"])
def test_hardware_property_refuses_a_cell_it_would_read_in_part(altered, printed):
    """A cell the pattern does not match whole is refused, naming it: "1.5MB" is not 5 MB."""
    altered("system_configurations",
            edits.set_value("value", printed, system_number="1", property="Memory"))
    with pytest.raises(ValueError, match=re.escape(repr(printed))):
        chapter.hardware_property("Memory", r"([0-9]+)MB")
