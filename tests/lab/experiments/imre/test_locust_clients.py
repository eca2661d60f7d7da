"""queuetune.lab.experiments.imre.locust_clients: how a request's outcome is named, and the rows
file a run writes.

Importing Locust patches the standard library for gevent (``monkey.patch_all``), so the
module is imported in a Python process of its own, never in the test session."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from queuetune.lab import records
from queuetune.lab.experiments.imre.tables import TABLES

SCRIPT = textwrap.dedent("""
    import json, sys
    import gevent
    from geventhttpclient.response import HTTPConnectionClosed
    import importlib
    # the module, not the package's locustfile() (its path) of the same name
    lf = importlib.import_module("queuetune.lab.experiments.imre.locust_clients")

    cases = {
        "ok": (None, 200), "redirect": (None, 302), "server error": (None, 503),
        "error with a status": (OSError("x"), 404),
        "closed": (HTTPConnectionClosed("closed"), 0),
        "refused": (ConnectionRefusedError(), 0), "reset": (ConnectionResetError(), 0),
        "timeout": (TimeoutError(), 0), "gevent timeout": (gevent.Timeout(), 0),
        "timed out": (OSError("read timed out"), 0), "other": (KeyError("k"), 0),
    }
    classified = {name: lf._classify(*args) for name, args in cases.items()}
    out = sys.argv[1]
    lf._state.update(t0_epoch=1700000000.5, rows=[
        (1, 1, 0, 1, 0.9, 10.0, "ok", 200, 10, 0.4, 0.1, 900),
        (1, 0, 2, 0, 0.1, 11.0, "ok", 200, 10, 0.4, 0.1, 800),
        (1, 0, 1, 1, 0.5, 12.0, "reset", 0, 0, 0.4, 0.2, ""),
        (1, 0, 1, 0, 0.2, 13.0, "ok", 200, 10, 0.4, 0.0, 700)])
    lf._write({"out": out}, locust_requests=4)
    print(json.dumps({"classified": classified, "fields": list(lf.FIELDS)}))
""")


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    out = tmp_path_factory.mktemp("locust") / "requests.csv"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(out)], capture_output=True,
                          text=True, timeout=120, check=True)
    return json.loads(done.stdout.splitlines()[-1]), out


@pytest.mark.parametrize("case, expected", [
    ("ok", ["ok", 200]), ("redirect", ["ok", 302]), ("server error", ["http-503", 503]),
    ("error with a status", ["http-404", 404]), ("closed", ["closed", 0]),
    ("refused", ["refused", 0]), ("reset", ["reset", 0]), ("timeout", ["timeout", 0]),
    ("gevent timeout", ["timeout", 0]), ("timed out", ["timeout", 0]),
    ("other", ["error-KeyError", 0]),
])
def test_each_outcome_is_named_as_the_data_name_it(ran, case, expected):
    assert ran[0]["classified"][case] == expected


def test_the_rows_have_the_data_sets_columns(ran):
    assert ran[0]["fields"] == records.columns(TABLES["requests"])


def test_the_rows_file_is_sorted_by_worker_client_and_sequence(ran):
    _, out = ran
    lines = out.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ",".join(records.columns(TABLES["requests"]))
    assert [tuple(line.split(",")[1:4]) for line in lines[1:]] == [
        ("0", "1", "0"), ("0", "1", "1"), ("0", "2", "0"), ("1", "0", "1")]
    assert lines[2].endswith(",reset,0,0,0.4,0.2,")  # no processor time for a failure
    meta = json.loads((out.parent / "requests.csv.json").read_text(encoding="utf-8"))
    assert meta == {"t0_epoch": 1700000000.5, "rows": 4, "locust_requests": 4}
