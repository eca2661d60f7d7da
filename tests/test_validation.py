"""queuetune._validation: a count above 2**53 is refused, never rounded to a neighbour.

Every integer up to 2**53 is exact in a float64; 2**53 + 1 is not (its float64 is 2**53). A
count given as an integer (Python, NumPy, in a list or an object array) is compared as given,
so that one above the bound is refused with the parameter's name, and every accepted one comes
back exactly. A float above 2**53 may already be a rounded count, so :func:`integer` refuses it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from property_domain import SEEDED

from queuetune._validation import MAX_INTEGER, as_integer, as_scalar_integer, as_series, integer

ABOVE = st.integers(MAX_INTEGER + 1, 2**200)
INSIDE = st.integers(1, MAX_INTEGER)


def _forms(n: int) -> list:
    """``n`` as the callers give counts: a Python int, in a list, in an object array, and as a
    NumPy integer where it fits in one."""
    forms = [n, [1, n], np.array([n], dtype=object)]
    if n < 2**63:
        forms += [np.int64(n), np.array([1, n], dtype=np.int64)]
    if n < 2**64:
        forms += [np.uint64(n), np.array([n], dtype=np.uint64)]
    return forms


@SEEDED
@given(ABOVE)
def test_as_integer_refuses_every_count_above_the_bound(n):
    for form in _forms(n):
        # (NumPy reads [1, n] as float64 from n = 2**63 on: then the message shows n's float)
        with pytest.raises(ValueError, match=r"^clients must be an integer between 1 and "
                                             rf"{MAX_INTEGER}, got "):
            as_integer(form, "clients")
        with pytest.raises(ValueError, match="^clients must be"):
            as_scalar_integer(form, "clients")


@SEEDED
@given(ABOVE)
def test_as_series_refuses_every_count_above_the_bound(n):
    for form in _forms(n):
        with pytest.raises(ValueError, match=rf"^cpus must be .*<= {MAX_INTEGER}; element"):
            as_series(form, "cpus", integer=True)


@SEEDED
@given(INSIDE)
def test_counts_up_to_the_bound_come_back_exactly(n):
    for form in _forms(n):
        assert int(np.max(as_integer(form, "clients"))) == n
        assert int(np.max(as_series(form, "cpus", integer=True))) == n
    assert as_scalar_integer(n, "clients") == n
    assert integer(n, "users", high=MAX_INTEGER) == n
    assert integer(float(n), "users") == n  # a float up to 2**53 is exactly its integer


@SEEDED
@given(ABOVE.filter(lambda n: float(n) > MAX_INTEGER))
def test_integer_refuses_a_float_above_the_bound(n):
    """float(n) is a neighbour of n (or n itself): as a count it may be rounded already.
    (float(2**53 + 1) is 2**53, the bound itself, which is exact and accepted.)"""
    for form in (float(n), np.float64(n)):
        with pytest.raises(ValueError, match=r"^seed must be an integer in \[0, inf\)"):
            integer(form, "seed", low=0)
    assert integer(n, "seed", low=0) == n  # the int itself is exact, however large


def test_the_bound_itself_is_accepted_and_its_successor_refused():
    assert as_scalar_integer(MAX_INTEGER, "threads") == MAX_INTEGER
    with pytest.raises(ValueError, match="threads"):
        as_scalar_integer(MAX_INTEGER + 1, "threads")
    # the successor's float64 is the bound: the check must not compare through it
    assert float(MAX_INTEGER + 1) == MAX_INTEGER


# --- the two classes, kept out of the package's source ------------------------------------------

import ast  # noqa: E402
from pathlib import Path  # noqa: E402

SRC = Path(__file__).resolve().parents[1] / "src" / "queuetune"
CONVERTERS = {"int", "float"}


def _name(node: ast.AST) -> str:
    """``f`` of ``f(...)`` or of ``x.f(...)``."""
    if isinstance(node, ast.Call):
        node = node.func
    return node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")


def _partial_or_rounding(node: ast.Call) -> str | None:
    """What a call ``int(...)``/``float(...)`` does wrong, or None: ``int(float(x))`` and
    ``int(stated.number(...))`` round or cut a count through a float; ``int(s.split()[0])``
    and ``float(s[:k])`` read a number from part of a string."""
    if _name(node) not in CONVERTERS or len(node.args) != 1:
        return None
    arg = node.args[0]
    if _name(node) == "int" and isinstance(arg, ast.Call) and _name(arg) in {
            "float", "number", "parse_number"}:
        return "a count through a float (use stated.count / parse_count or integer())"
    if isinstance(arg, ast.Subscript):
        if isinstance(arg.slice, ast.Slice) and isinstance(arg.value, ast.Name | ast.Attribute):
            return "a number from a slice of a string"
        words = arg.value
        if (isinstance(words, ast.Call) and _name(words) in {"split", "rsplit"}
                and not words.args):  # split at whitespace: the other words are dropped
            return "a number from one word of a string"
    return None


def test_no_module_rounds_a_count_or_reads_a_number_in_part():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and (why := _partial_or_rounding(node)):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}: {ast.unparse(node)} - {why}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(("code", "flagged"), [
    ("int(float(x))", True), ("int(stated.number(d, q))", True), ("float(s.split()[0])", True),
    ("int(text[:3])", True), ("int(parts[1])", False), ("int(stated.count(d, q))", False),
    ("float(values[0])", False), ("int(x)", False), ("int(ep.rsplit(':', 1)[1])", False)])
def test_the_source_check_tells_the_patterns_apart(code, flagged):
    node = ast.parse(code, mode="eval").body
    assert (_partial_or_rounding(node) is not None) == flagged
