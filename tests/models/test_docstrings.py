"""The examples in the models' docstrings run and print what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["mm1bk", "mva", "thread_pool", "birth_death", "results", "symbolic", "markov",
           "thread_pool_chain"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"queuelab.models.{name}")
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
