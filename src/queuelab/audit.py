"""The claims audit: every claim, rule and check of the source documents evaluated in code.

Each check is a function registered under its inventory ID that computes, from the data in
``data/`` and the models, a :class:`Finding`: the verdict and the number behind it::

    @check("DT-C2", document="domino-threads",
           statement="For a fixed thread setting, response time rises with users")
    def _(): ...  # returns Finding-compatible (verdict, evidence, values)

Verdicts: ``supported``, ``contradicted``, ``partly`` (supported with a qualification the
numbers show), ``not testable`` (the text gives nothing to compute it from).

Checks for each document live in its home, ``queuelab/documents/<document>/claims.py``, and
register when the document's package is imported (:func:`queuelab.documents.load_all`, done
here before any look-up).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from . import data

__all__ = ["VERDICTS", "Finding", "check", "findings", "registered", "run", "values_table"]

VERDICTS = ("supported", "contradicted", "partly", "not testable")


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


@dataclass(frozen=True)
class _Check:
    id: str
    document: str
    statement: str
    func: Callable[[], tuple[str, str, dict[str, Any]]]


_REGISTRY: dict[str, _Check] = {}


def check(id: str, *, document: str, statement: str):  # noqa: A002 - the inventory's word
    """Register ``func() -> (verdict, evidence, values)`` as the check of claim ``id``."""

    def register(func):
        if id in _REGISTRY:
            raise ValueError(f"claim {id} has two checks")
        _REGISTRY[id] = _Check(id, document, statement, func)
        return func

    return register


def registered(document: str | None = None) -> list[str]:
    """IDs with a check, in the book's order (optionally of one document)."""
    from . import documents  # the homes register their checks on import

    documents.load_all()
    checks = [c for c in _REGISTRY.values() if document in (None, c.document)]
    return [c.id for c in sorted(checks, key=_order)]


def _order(entry: _Check) -> tuple[int, int]:
    """Documents in the book's order, then claims by number (DT-C2 before DT-C10)."""
    order = data.documents()
    rank = order.index(entry.document) if entry.document in order else len(order)
    return rank, int("".join(ch for ch in entry.id.rpartition("-")[2] if ch.isdigit()))


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
