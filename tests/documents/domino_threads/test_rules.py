"""queuetune.rules: the rules of thumb of the source documents as calculators."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import (
    BAD_INTS,
    CALC,
    F,
    call,
    counts,
    maybe_refused,
    refused_argument,
    unwrap,
)

from queuetune import data
from queuetune.documents.domino_threads import rules
from queuetune.documents.domino_threads import rules as threads_rule


def stated(quantity: str) -> str:
    table = data.load("domino-threads", "stated_values")
    return table.loc[table["quantity"] == quantity, "value"].item()


def test_the_article_example_200_users_20_threads():
    users = int(stated("example_web_mail_users"))
    assert rules.domino_initial_threads(users) == int(stated("example_initial_http_threads"))


def test_default_share_is_the_stated_one():
    assert rules.domino_starting_percent() == Fraction(stated(
        "starting_threads_share_of_web_users"))


@pytest.mark.parametrize(("users", "threads"), [(1, 1), (9, 1), (10, 1), (11, 2), (25, 3),
                                                (50, 5), (100, 10), (101, 11), (350, 35)])
def test_rounds_up_to_a_whole_thread(users, threads):
    assert rules.domino_initial_threads(users) == threads


@pytest.mark.parametrize(("users", "percent", "threads"), [
    (350, 20, 70), (200, 12.5, 25), (200, 10.0, 20), (3, 0.1, 1), (7, 100, 7), (1000, 33.3, 333),
])
def test_other_shares(users, percent, threads):
    assert rules.domino_initial_threads(users, percent=percent) == threads


@given(st.integers(min_value=1, max_value=10**6),
       st.integers(min_value=1, max_value=1000).map(lambda n: n / 10))
def test_smallest_whole_number_of_threads_covering_the_share(users, percent):
    threads = rules.domino_initial_threads(users, percent=percent)
    share = Fraction(users) * Fraction(str(percent)) / 100
    assert threads >= share
    assert threads == 1 or threads - 1 < share
    assert 1 <= threads <= users


@pytest.mark.parametrize("users", [0, -5, 2.5, 200.5, True, "200", None])
def test_bad_users_are_refused_naming_the_range(users):
    with pytest.raises(ValueError, match=r"users must be an integer in \[1, 9007199254740992\]"):
        rules.domino_initial_threads(users)


def test_a_whole_float_counts_as_an_integer_as_everywhere_in_the_package():
    assert rules.domino_initial_threads(200.0) == rules.domino_initial_threads(200) == 20


@pytest.mark.parametrize("percent", [0, -1, 100.5, math.nan, math.inf, True, "10"])
def test_bad_percent_is_refused_naming_the_range(percent):
    with pytest.raises(ValueError, match=r"percent must be a number in \(0, 100\]"):
        rules.domino_initial_threads(100, percent=percent)


# --- over the whole domain (property tests): domino rules


@CALC
@given(st.data())
def test_domino_initial_threads_over_its_domain(data):
    bad = refused_argument(data.draw, ["users", "percent"])
    percent = st.one_of(st.none(), st.floats(0, 100, exclude_min=True),
                        st.sampled_from([5e-324, 1e-300, 100.0]))
    arguments = {
        "users": maybe_refused(data.draw, "users", counts(), BAD_INTS, bad),
        "percent": maybe_refused(data.draw, "percent", percent,
                                 [0.0, -1.0, 100.5, math.nan, math.inf, 10**400, "10", True],
                                 bad),
    }
    res = call(lambda users, percent: threads_rule.domino_initial_threads(users,
                                                                          percent=percent),
               arguments, [])
    if res is None:
        return
    a, _ = unwrap(arguments)
    share = a["users"] * (F(10) if a["percent"] is None else F(str(a["percent"]))) / 100
    assert res == max(1, math.ceil(share)) and 1 <= res <= a["users"]
