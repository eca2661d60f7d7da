"""queuetune.documents.imre_appserver.parsers: Table 1's value lists and the numbered equations."""

from __future__ import annotations

import pytest

from queuetune import provenance
from queuetune.documents.imre_appserver import parsers


def test_value_lists_give_one_row_per_value():
    table = parsers.parse_value_lists("Threads\t10, 100\nQueue\t50\n", {}, ["parameter", "value"])
    assert table.values.tolist() == [["Threads", "10"], ["Threads", "100"], ["Queue", "50"]]
    with pytest.raises(ValueError, match="no ';' between parameter and values: 'Threads 10'"):
        parsers.parse_value_lists("Threads 10\n", {"delimiter": ";"}, ["parameter", "value"])


def test_equations_number_and_latex():
    text = "$$X = K/(Z + R) \\quad (3)$$\n[...]\n$$U = X S \\quad (12)$$\n"
    table = parsers.parse_equations(text, {}, ["equation", "latex"])
    assert table.values.tolist() == [["3", "X = K/(Z + R)"], ["12", "U = X S"]]


@pytest.mark.parametrize("line", ["$$X = K \\quad (3)$$ and more", "$$X = K \\quad (3a)$$",
                                  "X = K \\quad (3)"])
def test_equations_refuse_a_line_they_would_read_in_part(line):
    with pytest.raises(ValueError, match="not a numbered display equation"):
        parsers.parse_equations(line, {}, ["equation", "latex"])


def test_the_parsers_are_registered_under_their_names():
    assert provenance.PARSERS["imre-appserver-value-lists"] is parsers.parse_value_lists
    assert provenance.PARSERS["imre-appserver-equations"] is parsers.parse_equations
