"""queuetune.documents.domino_threads.parsers: the configuration lists and NOTES.INI lines."""

from __future__ import annotations

import pytest

from queuetune.documents.domino_threads import parsers

FIELDS = ["system", "item", "property", "value"]


def test_configuration_items_headings_and_sub_items():
    text = ("- CPU: Pentium Pro\n- Hard Drives:\n  -- Size: 4GB\n- Windows NT\n"
            "[...]\n- CPU: Pentium II\n")
    table = parsers.parse_configuration(text, {"systems": ["server", "client"]}, FIELDS)
    assert table.values.tolist() == [
        ["server", "1", "CPU", "Pentium Pro"], ["server", "2", "Hard Drives > Size", "4GB"],
        ["server", "3", "", "Windows NT"], ["client", "1", "CPU", "Pentium II"]]


def test_configuration_refuses_fragments_that_do_not_match_the_systems():
    with pytest.raises(ValueError, match="1 fragments for systems"):
        parsers.parse_configuration("- CPU: x\n", {"systems": ["a", "b"]}, FIELDS)
    with pytest.raises(ValueError, match="sub-item without a parent"):
        parsers.parse_configuration("  -- Size: 4GB\n", {"systems": ["a"]}, FIELDS)


def test_ini_settings_read_whole():
    text = "- ServerTasks=4\n- Server_MaxSessions = 300 (sessions)\n"
    table = parsers.parse_ini_settings(text, {}, ["setting", "value", "unit"])
    assert table.values.tolist() == [["ServerTasks", "4", ""],
                                     ["Server_MaxSessions", "300", "sessions"]]


@pytest.mark.parametrize("line", ["- ServerTasks=4.5", "- ServerTasks=4 threads",
                                  "- ServerTasks=-4", "ServerTasks=4"])
def test_ini_settings_refuse_a_line_they_would_read_in_part(line):
    with pytest.raises(ValueError, match=f"not a NOTES.INI setting line: '{line}'"):
        parsers.parse_ini_settings(line, {}, ["setting", "value", "unit"])
