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


# --- the whole text or nothing (property tests) ------------------------------------------------

from decimal import Decimal  # noqa: E402

from hypothesis import assume, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from property_domain import SEEDED  # noqa: E402

#: Numerals as documents print them: integers (with or without thousands commas) and decimals.
INTEGERS = st.integers(0, 2**53)
NUMERALS = st.one_of(
    INTEGERS.map(str),
    INTEGERS.map("{:,}".format),
    st.decimals(0, 10**12, places=3, allow_nan=False, allow_infinity=False).map(str),
)
#: Text glued to a number that does not make another number of it: no digit, no space, no
#: separator, and not the factor mark "x".
JUNK = st.text(st.characters(exclude_categories=["Nd", "Zs", "Cc"], exclude_characters="xX,.+-"),
               min_size=1, max_size=4)


@SEEDED
@given(NUMERALS)
def test_every_numeral_is_read_whole(numeral):
    assert stated.parse_number(numeral) == float(Decimal(numeral.replace(",", "")))


@SEEDED
@given(NUMERALS, JUNK, st.booleans())
def test_a_numeral_with_anything_glued_to_it_is_refused(numeral, junk, before):
    """No parser reads the number out of part of the text: "12a", "a12", "12 %" are refused,
    naming the whole text."""
    text = junk + numeral if before else numeral + junk
    assume(text.strip().lower() not in stated._WORDS)
    for parse in (stated.parse_number, stated.parse_count, stated.parse_span):
        with pytest.raises(ValueError, match="^text "):
            parse(text)


@SEEDED
@given(st.integers(-(10**40), 10**40), st.sampled_from(["", " thousand", " million", "X"]))
def test_parse_count_is_exact_at_any_size(n, suffix):
    multiplier = {"": 1, " thousand": 10**3, " million": 10**6, "X": 1}[suffix]
    assert stated.parse_count(f"{n}{suffix}") == n * multiplier
    assert stated.parse_count(f"{n:,}{suffix}") == n * multiplier


@SEEDED
@given(st.integers(0, 2**52 - 1).map(lambda k: 2**53 + 2 * k + 1))
def test_parse_number_refuses_a_whole_number_a_float_cannot_hold(n):
    """Odd numbers between 2**53 and 2**54 have no float64: parse_number would round them."""
    with pytest.raises(ValueError, match="above 2\\*\\*53.*parse_count"):
        stated.parse_number(str(n))


@SEEDED
@given(st.integers(0, 10**6), st.integers(1, 999))
def test_parse_count_refuses_a_number_that_is_not_whole(whole, thousandths):
    with pytest.raises(ValueError, match="is not a whole number"):
        stated.parse_count(f"{whole}.{thousandths:03d}")


def test_count_reads_a_stated_count_exactly():
    assert stated.count("domino-curves", "dangerous_disk_queue_length") == 2  # printed "two"
    assert stated.count("iplanet-tuning", "rqthrottle", figure_id="IP-F14") == int(
        stated.number("iplanet-tuning", "rqthrottle", figure_id="IP-F14"))
