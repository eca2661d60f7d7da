"""queuelab.stated: numbers stated in the prose, looked up by name and read as printed."""

from __future__ import annotations

import pytest

from queuelab import data, stated

DOC = "domino-curves"


@pytest.mark.parametrize("text, number", [
    ("65", 65.0), (".025", 0.025), ("0.481", 0.481), ("1,200", 1200.0), ("two", 2.0),
    ("Five", 5.0), (" 40 ", 40.0), ("-3", -3.0),
])
def test_parse_number_reads_digits_and_words(text, number):
    assert stated.parse_number(text) == number


@pytest.mark.parametrize("text", ["5-600", "15 to 20", "", ".", "-", "1.2.3", "12,34", "abc",
                                  "two hundred"])
def test_parse_number_refuses_anything_else(text):
    with pytest.raises(ValueError, match="is not a single printed number"):
        stated.parse_number(text)


def test_parse_number_needs_a_string():
    with pytest.raises(ValueError, match="text must be a string"):
        stated.parse_number(40)


@pytest.mark.parametrize("text, span", [
    ("one to three", (1.0, 3.0)), ("15 to 20", (15.0, 20.0)), ("one", (1.0, 1.0)),
    ("three To five", (3.0, 5.0)),
])
def test_parse_span(text, span):
    assert stated.parse_span(text) == span


@pytest.mark.parametrize("text, message", [
    ("three to one", "lower end above its upper end"), ("1 to 2 to 3", "not a span"),
    ("5-600", "not a single printed number"),
])
def test_parse_span_refuses_bad_spans(text, message):
    with pytest.raises(ValueError, match=message):
        stated.parse_span(text)


def test_lookups_return_the_printed_value_unit_and_sentence():
    assert stated.value(DOC, "cpu_per_user_at_200_users") == ".025"
    assert stated.number(DOC, "cpu_per_user_at_200_users") == 0.025
    assert stated.unit(DOC, "cpu_per_user_at_200_users") == ""
    assert stated.unit(DOC, "production_cpu_max") == "%"
    assert "75 percent" in stated.sentence(DOC, "production_cpu_max")
    assert stated.number(DOC, "dangerous_disk_queue_length") == 2


def test_every_stated_number_of_the_document_reads_or_is_a_known_range():
    table = stated.table(DOC)
    unread = [v for v in table["value"] if not _reads(v)]
    assert unread == ["5-600"]  # "Mail at 5-600 users", kept as printed
    assert len(table) == len(data.load(DOC, "stated_values"))


def _reads(text: str) -> bool:
    try:
        stated.parse_number(text)
    except ValueError:
        return False
    return True


def test_unknown_quantity_is_named_with_the_known_ones():
    with pytest.raises(ValueError, match=r"'nope' is stated 0 times .* stated quantities: \["):
        stated.value(DOC, "nope")
