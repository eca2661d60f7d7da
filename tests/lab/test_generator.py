"""queuetune.lab.generator: what one run asks of Locust and the commands that start it (no
Locust is started here: tests/lab/test_lab_smoke.py runs the real one)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from queuetune.lab.experiments.imre.experiment import locustfile
from queuetune.lab.generator import Generator, LoadSpec

SPEC = LoadSpec(run=3, path="/work.jsp?work=1500000&sleep_us=0&bytes=10240", clients=40,
                think_s=0.5, seed=7, ramp_s=5.0, warmup_s=10.0, measure_s=60.0, timeout_s=30.0)


@pytest.fixture
def generator():
    made = []

    def make(**kwargs):
        made.append(Generator(SPEC, "http://127.0.0.1:8080", locustfile(), **kwargs))
        return made[-1]

    yield make
    for g in made:
        g.cleanup()


def test_clients_stop_at_the_end_of_the_measurement_window():
    assert SPEC.stop_s == 75.0


def test_the_spec_travels_as_json_with_its_stop_time():
    data = json.loads(SPEC.json())
    assert data["stop_s"] == 75.0 and data["clients"] == 40 and data["keep_alive"] is True
    assert LoadSpec(**{k: v for k, v in data.items() if k != "stop_s"}) == SPEC


def test_the_generator_runs_the_locustfile_it_is_given(generator):
    given = Path("/elsewhere/their_locustfile.py")
    g = generator()
    g.locustfile = given
    assert g._command()[g._command().index("-f") + 1] == str(given)


def test_the_generator_writes_its_rows_in_a_directory_of_its_own(generator):
    g = generator()
    out = Path(g.spec.out)
    assert out.name == "requests.csv" and out.parent.is_dir()
    assert g.spec.workers == 0 and g.spec.clients == SPEC.clients
    assert not g.running() and g.pids() == []
    g.cleanup()
    assert not out.parent.exists()


def test_the_command_runs_locust_pinned_to_the_generators_cores(generator):
    plain = generator()._command("--headless")
    assert plain[:3] == [sys.executable, "-m", "locust"]
    assert plain[plain.index("-f") + 1] == str(locustfile()) and plain[-1] == "--headless"
    pinned = generator(cores=(2, 3))._command()
    assert pinned[:3] == ["taskset", "-c", "2,3"] and pinned[3:6] == plain[:3]


def test_workers_are_counted_in_the_spec(generator):
    assert generator(workers=3).spec.workers == 3
    assert generator(expect_workers=2).spec.workers == 2


def test_local_and_remote_workers_exclude_each_other():
    with pytest.raises(ValueError, match="workers and expect_workers exclude each other"):
        Generator(SPEC, "http://127.0.0.1:8080", locustfile(), workers=2, expect_workers=2)
