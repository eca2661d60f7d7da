"""queuetune.stated: numbers stated in the prose, looked up by name and read as printed."""

from __future__ import annotations

import pytest

from queuetune import data, stated

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


@pytest.mark.parametrize("text, number", [
    ("1.8 million", 1.8e6), ("2 thousand", 2000.0), ("3 Billion", 3e9), ("2X", 2.0), ("1.5x", 1.5),
])
def test_parse_number_reads_multipliers_and_factors(text, number):
    assert stated.parse_number(text) == number


@pytest.mark.parametrize("text", ["million", "X", "two million", "1.8 millions", "2XX"])
def test_parse_number_refuses_malformed_multipliers_and_factors(text):
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


def test_a_quantity_stated_in_several_sentences():
    doc = "iplanet-tuning"
    assert stated.numbers(doc, "thread_check_every_connections") == [16.0, 32.0]
    with pytest.raises(ValueError, match="stated with 2 values"):
        stated.number(doc, "thread_check_every_connections")
    with pytest.raises(ValueError, match="stated with 2 different values"):
        stated.value(doc, "thread_check_every_connections")
    # stated three times, always as 400: one number
    assert len(stated.rows(doc, "static_directories")) == 3
    assert stated.number(doc, "static_directories") == 400.0
    with pytest.raises(ValueError, match="stated 3 times .* narrow it down"):
        stated.sentence(doc, "static_directories")
    assert stated.number(doc, "servlets_jsps_per_hour") == 1.8e6


def test_rows_narrowed_by_a_column():
    doc = "domino-threads"
    assert len(stated.rows(doc, "response_time_200_users_10_threads")) == 2
    one = stated.row(doc, "response_time_200_users_10_threads", inventory_id="DT-C3")
    assert one["inventory_id"] == "DT-C3"
    assert stated.value(doc, "response_time_200_users_10_threads", inventory_id="DT-C2") \
        == one["value"]
    with pytest.raises(ValueError, match=r"stated 0 times .* with \{'inventory_id': 'DT-C9'\}"):
        stated.row(doc, "response_time_200_users_10_threads", inventory_id="DT-C9")
    with pytest.raises(ValueError, match=r"where names column\(s\) \['colour'\]"):
        stated.rows(doc, "default_http_threads", colour="red")


def test_figure_statements_group_the_numbers_by_sentence():
    note, frame = stated.figure_statements("imre-appserver", "IM-F2")
    figures = data.load("imre-appserver", "figures").set_index("figure_id")
    assert note == f"**IM-F2, {figures.loc['IM-F2', 'status']}.** {figures.loc['IM-F2', 'note']}"
    names = [q.strip() for q in figures.loc["IM-F2", "stated_in_text"].split(";")]
    said = stated.table("imre-appserver").set_index("quantity").loc[names]
    # one row per sentence, and every stated value of the figure appears in its sentence's row
    assert frame.index.name == "sentence of the text"
    assert list(frame.columns) == ["numbers stated"]
    assert sorted(frame.index) == sorted(set(said["sentence"]))
    for quantity, r in said.iterrows():
        assert str(r["value"]) in frame.loc[r["sentence"], "numbers stated"], quantity


def test_figure_statements_without_numbers_and_unknown_figures():
    figures = data.load(DOC, "figures")
    silent = figures.loc[figures["stated_in_text"].isna(), "figure_id"].iloc[0]
    note, frame = stated.figure_statements(DOC, silent)
    assert frame is None and note.startswith(f"**{silent}, ")
    with pytest.raises(ValueError, match="figure_id must be one of"):
        stated.figure_statements(DOC, "DC-F99")
