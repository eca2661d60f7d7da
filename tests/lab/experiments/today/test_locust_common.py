"""queuetune.lab.experiments.today.locust_common: how a request's outcome is named, and the
columns of the rows its clients write.

Importing Locust patches the standard library for gevent (``monkey.patch_all``), so the
module is imported in a Python process of its own, never in the test session."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from queuetune.lab import records
from queuetune.lab.experiments.today.tables import TABLES

SCRIPT = textwrap.dedent("""
    import importlib, json
    import gevent
    from geventhttpclient.response import HTTPConnectionClosed
    lf = importlib.import_module("queuetune.lab.experiments.today.locust_common")
    cases = {
        "ok": (None, 200), "redirect": (None, 302), "server error": (None, 503),
        "error with a status": (OSError("x"), 404),
        "closed": (HTTPConnectionClosed("closed"), 0),
        "refused": (ConnectionRefusedError(), 0), "reset": (ConnectionResetError(), 0),
        "timeout": (TimeoutError(), 0), "gevent timeout": (gevent.Timeout(), 0),
        "timed out": (OSError("read timed out"), 0), "other": (KeyError("k"), 0),
    }
    seeds = [lf.draw_seed(1, run, user, seq) for run in (1, 2) for user in (0, 1, 2)
             for seq in range(50)]
    print(json.dumps({"classified": {k: lf.classify(*a) for k, a in cases.items()},
                      "fields": list(lf.FIELDS), "seeds": seeds,
                      "again": lf.draw_seed(1, 2, 1, 7), "header": lf.DRAW_SEED_HEADER}))
""")


@pytest.fixture(scope="module")
def seen():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, check=True)
    return json.loads(done.stdout.splitlines()[-1])


@pytest.mark.parametrize("case, expected", [
    ("ok", ["ok", 200]), ("redirect", ["ok", 302]), ("server error", ["http-503", 503]),
    ("error with a status", ["http-404", 404]), ("closed", ["closed", 0]),
    ("refused", ["refused", 0]), ("reset", ["reset", 0]), ("timeout", ["timeout", 0]),
    ("gevent timeout", ["timeout", 0]), ("timed out", ["timeout", 0]),
    ("other", ["error-KeyError", 0]),
])
def test_each_outcome_is_named_as_the_data_name_it(seen, case, expected):
    assert seen["classified"][case] == expected


def test_the_rows_have_the_requests_tables_columns(seen):
    assert seen["fields"] == records.columns(TABLES["requests"])


def test_each_request_gets_its_own_seed_of_the_pages_draws(seen):
    """Distinct (run, client, request) give distinct seeds, each a Java long >= 0; the same
    request of the same campaign gets the same seed (its draws can be drawn again)."""
    seeds = seen["seeds"]
    assert len(set(seeds)) == len(seeds) == 300
    assert all(0 <= s < 2**63 for s in seeds)
    assert seen["again"] == seeds[150 + 50 + 7]  # exact: an integer, run 2, client 1, seq 7
    assert seen["header"] == "X-Queuetune-Draw-Seed"
