"""queuetune.lab.experiments.keepalive.locust_clients: the columns of the rows its clients write.

Importing Locust patches the standard library for gevent (``monkey.patch_all``), so the
module is imported in a Python process of its own, never in the test session."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from queuetune.lab import records
from queuetune.lab.experiments.keepalive.tables import TABLES

SCRIPT = textwrap.dedent("""
    import importlib, json
    lf = importlib.import_module("queuetune.lab.experiments.keepalive.locust_clients")
    print(json.dumps({"fields": list(lf.FIELDS), "users": [c.__name__ for c in vars(lf).values()
          if isinstance(c, type) and issubclass(c, lf.User) and c is not lf.User]}))
""")


def test_its_rows_are_the_requests_table_after_the_run_number():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120, check=True)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert ["run", *seen["fields"]] == records.columns(TABLES["requests"])
    assert len(seen["users"]) == 1  # one kind of client
