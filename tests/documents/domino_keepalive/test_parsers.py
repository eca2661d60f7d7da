"""queuetune.documents.domino_keepalive.parsers: the load settings, the results, label lines."""

from __future__ import annotations

import pytest

from queuetune.documents.domino_keepalive import parsers


def test_load_lines_with_and_without_unit():
    text = "Settings\nThreads 10\nRequest size 10240 bytes\n"
    table = parsers.parse_load(text, {"header_lines": 1}, ["setting", "value", "unit"])
    assert table.values.tolist() == [["Threads", "10", ""], ["Request size", "10240", "bytes"]]


@pytest.mark.parametrize("line", ["Threads ten", "Threads 1.5", "Threads 10 ms extra", "10"])
def test_load_refuses_a_line_it_cannot_read_whole(line):
    with pytest.raises(ValueError, match=f"not a 'name value \\[unit\\]' line: '{line}'"):
        parsers.parse_load(line, {}, ["setting", "value", "unit"])


def test_results_three_lines_per_test():
    text = "1 requests per connection\n12.5\n125\nno keep-alive\n20.1\n201\n"
    table = parsers.parse_results(text, {}, ["test", "n", "average", "total"])
    assert table.values.tolist() == [["1 requests per connection", "1", "12.5", "125"],
                                     ["no keep-alive", "", "20.1", "201"]]
    with pytest.raises(ValueError, match="4 cell lines is not a multiple of 3"):
        parsers.parse_results("a\nb\nc\nd\n", {}, ["test", "n", "average", "total"])


def test_results_read_the_count_only_from_a_whole_label():
    text = "10 requests per connection, warm\n1\n2\n"
    table = parsers.parse_results(text, {}, ["test", "n", "average", "total"])
    assert table.loc[0, "n"] == ""


def test_label_lines_pair_up():
    table = parsers.parse_label_lines("Timeout:\n180\nMax requests:\n100\n", {},
                                      ["setting", "value"])
    assert table.values.tolist() == [["Timeout", "180"], ["Max requests", "100"]]
    with pytest.raises(ValueError, match="not a label line: 'Timeout'"):
        parsers.parse_label_lines("Timeout\n180\n", {}, ["setting", "value"])
    with pytest.raises(ValueError, match="3 lines do not pair up"):
        parsers.parse_label_lines("Timeout:\n180\nMax:\n", {}, ["setting", "value"])
