"""queuetune.documents.iplanet_tuning.parsers: the guide's status dumps, bucket reports,
tab tables, magnus.conf and the defaults stated in its prose."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuetune import provenance
from queuetune.documents.iplanet_tuning import parsers

BUCKET_FIELDS = ["scope", "statistic", "unit", "average", "total_printed", "total", "percent"]
CONF_FIELDS = ["order", "directive", "value", "value_number", "init_fn", "commented"]


def test_decimal_comma_is_read_only_when_asked():
    text = "\tAverage\tTotal\tPercent\nTotal Response Time:\t0.0257\t245,1985\t(50.52%)\n"
    parse = provenance.PARSERS["iplanet-tuning-buckets"]
    assert parse is parsers.parse_buckets
    assert parse(text, {"decimal_comma": True}, BUCKET_FIELDS).iloc[0]["total"] == "245.1985"
    assert parse(text, {}, BUCKET_FIELDS).iloc[0]["total"] == "245,1985"


def test_buckets_scopes_units_and_percent():
    text = ("header\nLatency:\t0.001\t12\t(4.5%)\nBucket A\nRequests:\t\t190\n")
    table = parsers.parse_buckets(text, {"scopes": {"Bucket A": "a"}, "first_scope": "all",
                                         "units": {"Latency": "s"}}, BUCKET_FIELDS)
    assert table.values.tolist() == [["all", "Latency", "s", "0.001", "12", "12", "4.5"],
                                     ["a", "Requests", "", "", "190", "190", ""]]


@pytest.mark.parametrize("cell", ["(4.5%) more", "(-4.5%)", "(4.5.1%)", "4.5%"])
def test_buckets_refuse_a_percent_cell_they_would_read_in_part(cell):
    with pytest.raises(ValueError, match="unexpected percent cell"):
        parsers.parse_buckets(f"header\nLatency:\t1\t2\t{cell}\n", {}, BUCKET_FIELDS)


def test_tab_table_skips_pads_and_derives():
    text = "Table 3 caption\nA\tthe default is 64\t\t\nB\tno default\n"
    derive = {"from": 1, "fields": ["default"], "patterns": [r"default is (?P<default>\d+)$"]}
    options = {"skip": ["^Table"], "cells": 3, "derive": derive}
    table = parsers.parse_tab_table(text, options, ["name", "text", "extra", "default"])
    assert table.values.tolist() == [["A", "the default is 64", "", "64"],
                                     ["B", "no default", "", ""]]
    with pytest.raises(ValueError, match="4 cells, expected at most 3"):
        parsers.parse_tab_table("a\tb\tc\td\n", {"cells": 3}, ["x", "y", "z"])


def test_magnus_conf_directives_init_lines_and_whole_numbers():
    text = ("RqThrottle 128\nMaxKeepAliveConnections 256 KeepAliveTimeout 30\n"
            "#ListenQ 4096\nInit fn=\"load-modules\"\n  shlib=x.so\nInit fn=cache-init\n")
    options = {"run_together": ["MaxKeepAliveConnections 256 KeepAliveTimeout 30"]}
    table = parsers.parse_magnus_conf(text, options, CONF_FIELDS)
    assert table[["directive", "value_number", "commented"]].values.tolist() == [
        ["RqThrottle", "128", "false"], ["MaxKeepAliveConnections", "256", "false"],
        ["KeepAliveTimeout", "30", "false"], ["#ListenQ", "4096", "true"],
        ["Init", "", "false"], ["Init", "", "false"]]
    assert table["init_fn"].tolist()[-2:] == ["load-modules", "cache-init"]
    assert table["value"].iloc[4] == "fn=\"load-modules\"\n  shlib=x.so"


@pytest.mark.parametrize("value", ["128k", "1.5", "-1", "12 8"])
def test_magnus_conf_value_number_only_for_a_whole_integer(value):
    table = parsers.parse_magnus_conf(f"RqThrottle {value}\n", {}, CONF_FIELDS)
    assert table.loc[0, "value"] == value and table.loc[0, "value_number"] == ""


def test_dump_labels_and_components():
    text = "Cache:\nhits/lookups 93/190 (48.95%)\nStatus up\n"
    options = {"sections": ["Cache:"], "top_level": ["Status"],
               "labels": ["hits/lookups", "Status"],
               "components": {"hits/lookups": [["hits", ""], ["lookups", ""], ["percent", "%"]]}}
    fields = ["example", "section", "label", "printed", "component", "value", "unit"]
    table = parsers.parse_dump(text, options, fields)
    assert table[["section", "label", "component", "value", "unit"]].values.tolist() == [
        ["Cache", "hits/lookups", "hits", "93", ""],
        ["Cache", "hits/lookups", "lookups", "190", ""],
        ["Cache", "hits/lookups", "percent", "48.95", "%"],
        ["", "Status", "value", "", ""]]
    with pytest.raises(ValueError, match="2 numbers in '93/190', 3 components named"):
        parsers.parse_dump("hits/lookups 93/190\n", options, fields)


@given(st.integers(0, 10**6), st.sampled_from(["-", "+", "1.2.", "2,", "."]))
def test_dump_components_refuse_a_number_they_would_read_in_part(number, glued):
    """"-93/190" is not 93 of 190: a component glued to a sign, point or comma is no number,
    and the count of numbers no longer matches the components named."""
    options = {"labels": ["hits/lookups"],
               "components": {"hits/lookups": [["hits", ""], ["lookups", ""]]}}
    fields = ["example", "section", "label", "printed", "component", "value", "unit"]
    assert parsers.parse_dump(f"hits/lookups {number}/190\n", options, fields)[
        "value"].tolist() == [str(number), "190"]
    with pytest.raises(ValueError, match="1 numbers in"):
        parsers.parse_dump(f"hits/lookups {glued}{number}/190\n", options, fields)
