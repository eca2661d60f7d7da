"""With one processor, a thread limit, no pool and a closed workload the simulation gives, for
the same seed, the per-replication numbers of the simulation before processors, connections,
open arrivals and threads=None existed, to the last bit.

``data/legacy_samples.json`` was written by that simulation (its commit is recorded in the
file): the same random stream is drawn in the same order, so nothing may differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from queuetune.simulation import simulate_mm1bk, simulate_thread_pool

LEGACY = json.loads((Path(__file__).parent / "data" / "legacy_samples.json").read_text())


@pytest.mark.parametrize("case", LEGACY["thread_pool"], ids=lambda c: str(c["seed"]))
def test_thread_pool_same_numbers_as_before(case):
    result = simulate_thread_pool(**case["point"], seed=case["seed"], **LEGACY["run"])
    assert {m: list(v) for m, v in result.samples.items()} == case["samples"]


@pytest.mark.parametrize("case", LEGACY["mm1bk"], ids=lambda c: str(c["seed"]))
def test_mm1bk_same_numbers_as_before(case):
    result = simulate_mm1bk(**case["point"], seed=case["seed"], **LEGACY["run"])
    assert {m: list(v) for m, v in result.samples.items()} == case["samples"]


def test_explicit_defaults_change_nothing():
    """processors=1 and connections=None spelled out are the defaults."""
    case = LEGACY["thread_pool"][0]
    result = simulate_thread_pool(**case["point"], processors=1, connections=None,
                                  seed=case["seed"], **LEGACY["run"])
    assert {m: list(v) for m, v in result.samples.items()} == case["samples"]
