"""The claims audit: every claim, rule and check of the source documents evaluated in code.

Each check is a function registered under its inventory ID that computes, from the data in
``data/`` and the models, a :class:`Finding`: the verdict and the number behind it::

    @check("DT-C2", document="domino-threads",
           statement="For a fixed thread setting, response time rises with users")
    def _(): ...  # returns Finding-compatible (verdict, evidence, values)

The verdict words are defined once, in :data:`DEFINITIONS` (the claims-audit page prints the
same words), and every check's verdict follows from them. "The source's numbers" are what the
document states: its transcribed tables and the numbers of its sentences; what follows from them
by arithmetic or by laws that hold for every system (Little's law, the response-time law of a
closed loop, the utilization bound); and the values its own model gives with the parameters it
states (as the model's values, never as measurements). A parameter the book chose (a CPU share,
an overhead constant, a request time for a simulation) is not one of them: a result that rests
on it is the book's analysis, shown in the evidence, never the ground of a verdict.

Checks for each document live in its home, ``queuetune/documents/<document>/claims.py``, and
register when the document's package is imported (:func:`queuetune.homes.load_all`, done
here before any look-up).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from . import data, homes

__all__ = ["DEFINITIONS", "NOTHING_TESTED", "UNTESTED_MARK", "VERDICTS", "Finding", "check",
           "evidence_problems", "findings", "registered", "run", "values_table"]

VERDICTS = ("supported", "contradicted", "partly", "not testable")

#: What each verdict word means: the one written definition every verdict follows.
DEFINITIONS = {
    "supported": "the source's numbers bear out every part of the claim that they can test; a "
                 "part they cannot test is named in the evidence.",
    "contradicted": "the source's numbers say otherwise on a part of the claim that they can "
                    "test and bear out no other part, or they show that the claim's parts "
                    "cannot all hold together.",
    "partly": "the source's numbers bear out part of the claim and contradict another part, or "
              "bear it out only with a qualification that they show.",
    "not testable": "the source's numbers can test no part of the claim: nothing measured "
                    "survives, or all that can be checked is the text agreeing with itself, or "
                    "a result would rest on parameters the book chose (such a result is the "
                    "book's analysis, not evidence about the source).",
}

#: The words with which the evidence of every "not testable" finding begins.
UNTESTED_MARK = "Nothing the source states can test the claim"

#: Phrases by which an evidence says that nothing of the claim could be tested. A finding whose
#: evidence uses one must be "not testable"; compared lower case, whitespace-normalized.
NOTHING_TESTED = (
    UNTESTED_MARK.lower(),
    "survives to test",
    "nothing to test",
    "nothing could be tested",
    "no part of the claim can be tested",
    "no factor can be recomputed",
)


@dataclass(frozen=True)
class Finding:
    """The outcome of checking one claim: a verdict and the numbers behind it."""

    id: str
    document: str
    statement: str
    verdict: str
    evidence: str
    values: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if not self.evidence.strip():
            raise ValueError(f"{self.id}: a finding needs the evidence behind its verdict")
        problems = evidence_problems(self.verdict, self.evidence)
        if problems:
            raise ValueError(f"{self.id}: {'; '.join(problems)}")


def evidence_problems(verdict: str, evidence: str) -> list[str]:
    """Where an evidence text disagrees with its verdict (empty when they agree).

    A "not testable" evidence must begin with :data:`UNTESTED_MARK`; any other verdict's
    evidence must not say that nothing could be tested (:data:`NOTHING_TESTED`).
    """
    text = re.sub(r"\s+", " ", evidence).strip().lower()
    said = [phrase for phrase in NOTHING_TESTED if phrase in text]
    if verdict == "not testable":
        if not text.startswith(UNTESTED_MARK.lower()):
            return [f"a 'not testable' evidence must begin with {UNTESTED_MARK!r}"]
        return []
    return [f"the evidence says {phrase!r}, which only a 'not testable' verdict may say"
            for phrase in said]


@dataclass(frozen=True)
class _Check:
    id: str
    document: str
    statement: str
    func: Callable[[], tuple[str, str, dict[str, Any]]]


_REGISTRY: dict[str, _Check] = {}
# An inventory ID of a claim, rule or check, read whole: "DT-C2", "IP-C10".
_CLAIM_ID = re.compile(r"(?P<prefix>[A-Z]{2})-C(?P<number>[0-9]+)")


def check(id: str, *, document: str, statement: str):  # noqa: A002 - the inventory's word
    """Register ``func() -> (verdict, evidence, values)`` as the check of claim ``id`` (an
    inventory ID such as ``"DT-C2"``)."""
    if not isinstance(id, str) or _CLAIM_ID.fullmatch(id) is None:
        raise ValueError(f"id must be a claim's inventory ID such as 'DT-C2', got {id!r}")

    def register(func):
        if id in _REGISTRY:
            raise ValueError(f"claim {id} has two checks")
        _REGISTRY[id] = _Check(id, document, statement, func)
        return func

    return register


def registered(document: str | None = None) -> list[str]:
    """IDs with a check, in the book's order (optionally of one document)."""
    homes.load_all()  # the homes register their checks on import
    checks = [c for c in _REGISTRY.values() if document in (None, c.document)]
    return [c.id for c in sorted(checks, key=_order)]


def _order(entry: _Check) -> tuple[int, int]:
    """Documents in the book's order, then claims by number (DT-C2 before DT-C10)."""
    order = data.documents()
    rank = order.index(entry.document) if entry.document in order else len(order)
    return rank, int(_CLAIM_ID.fullmatch(entry.id)["number"])


def run(id: str) -> Finding:  # noqa: A002
    """Evaluate one claim."""
    if id not in registered():
        raise ValueError(f"no check registered for {id!r}; registered: {registered()}")
    entry = _REGISTRY[id]
    verdict, evidence, values = entry.func()
    return Finding(entry.id, entry.document, entry.statement, verdict, evidence, values)


def findings(document: str | None = None) -> pd.DataFrame:
    """All findings (of one document) as a table: id, statement, verdict, evidence."""
    rows = [run(i) for i in registered(document)]
    return pd.DataFrame(
        [{"id": f.id, "document": f.document, "statement": f.statement, "verdict": f.verdict,
          "evidence": f.evidence} for f in rows],
        columns=["id", "document", "statement", "verdict", "evidence"],
    )


def values_table(id: str, labels: dict[str, str], digits: int = 2) -> pd.DataFrame:  # noqa: A002
    """Selected numbers behind one claim's verdict (its check's ``values``), one row each under
    the readable name ``labels`` gives its key; floats rounded to ``digits`` decimals."""
    values = run(id).values
    missing = sorted(set(labels) - set(values))
    if missing:
        raise ValueError(f"labels name key(s) {missing} that the values of {id} do not have; "
                         f"they have {sorted(values)}")
    shown = {label: values[key] for key, label in labels.items()}
    return pd.Series(shown, name=id).map(
        lambda v: round(v, digits) if isinstance(v, float) else v).to_frame()
