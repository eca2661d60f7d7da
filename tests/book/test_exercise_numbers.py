"""The book's Sphinx extension that numbers each page's exercises from 1 (book/_ext)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("exercise_numbers",
                                               ROOT / "book" / "_ext" / "exercise_numbers.py")
exercise_numbers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exercise_numbers)


def test_each_page_counts_its_exercises_from_one_in_page_order():
    numbers = {
        "notebooks/a": {"exercise": {"a1": (1,), "a2": (2,)}},
        "notebooks/b": {"exercise": {"b2": (4,), "b1": (3,), "b3": (5,)},
                        "table": {"t": (7,)}},
        "notebooks/c": {"figure": {"f": (1,)}},
    }
    assert exercise_numbers.per_page(numbers) == ["notebooks/b"]
    assert numbers["notebooks/a"]["exercise"] == {"a1": (1,), "a2": (2,)}
    assert numbers["notebooks/b"] == {"exercise": {"b1": (1,), "b2": (2,), "b3": (3,)},
                                      "table": {"t": (7,)}}
    assert numbers["notebooks/c"] == {"figure": {"f": (1,)}}
    assert exercise_numbers.per_page(numbers) == []


def test_the_book_loads_the_extension():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]
    assert config["local_extensions"]["exercise_numbers"] == "book/_ext"
    extensions = config["config"]["extensions"]
    assert extensions.index("exercise_numbers") > extensions.index("sphinx_exercise")
