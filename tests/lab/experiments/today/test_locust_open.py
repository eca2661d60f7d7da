"""queuetune.lab.experiments.today.locust_open: the open-loop Locust file loads by its path,
as Locust loads it, with its siblings beside it and one kind of client.

Importing Locust patches the standard library for gevent (``monkey.patch_all``), so the
file is loaded in a Python process of its own, never in the test session."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from queuetune.lab.experiments.today import experiment

SCRIPT = textwrap.dedent("""
    import importlib.util, json, sys
    from locust import User
    spec = importlib.util.spec_from_file_location("lf", sys.argv[1])
    lf = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lf)
    users = [c for c in vars(lf).values()
             if isinstance(c, type) and issubclass(c, User) and c.__module__ == "lf"]
    print(json.dumps({"users": [(u.__name__, u.concurrency) for u in users],
                      "siblings": sorted(k for k in sys.modules if k.startswith("queuetune_")),
                      "queuetune": "queuetune" in sys.modules}))
""")


def test_it_loads_by_its_path_with_one_client_class_and_without_the_package():
    path = experiment.locustfile("open")
    assert path.name == "locust_open.py"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(path)], capture_output=True,
                          text=True, timeout=120, check=True)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert len(seen["users"]) == 1
    assert "queuetune_today_locust_common" in seen["siblings"]
    assert not seen["queuetune"]  # the Locust process never imports the package
