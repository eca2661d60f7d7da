"""Fixtures of the lab's tests."""

from __future__ import annotations

import pytest
from lab_campaigns import lab_processes


@pytest.fixture
def no_leftovers():
    """Fails the test if a server or generator process outlives it."""
    before = set(lab_processes())
    yield
    after = set(lab_processes()) - before
    assert not after, f"processes left running: {sorted(after)}"
