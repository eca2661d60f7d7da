"""python -m queuetune size: the command line of queuetune.sizing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from queuetune import sizing
from queuetune.__main__ import main

ENGINEER = ["--processors", "8", "--cpu-ms", "40", "--wait-ms", "200", "--rate", "300"]


def run_json(capsys, args):
    assert main(["size", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_holds_the_answer_at_the_peak_and_at_twice_the_peak(capsys):
    out = run_json(capsys, ENGINEER)
    want = sizing.size(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0)
    for key in ("processors_needed", "threads", "connections", "capacity", "utilization",
                "response_time", "throughput", "refused", "processor_limit", "pool_limit",
                "thread_limit", "warnings"):
        assert out[key] == getattr(want, key), key
    for key in ("processors_needed", "threads", "connections", "capacity", "utilization",
                "response_time", "throughput", "refused"):
        assert out["double"][key] == want.double[key], key
    assert out["inputs"]["processors"] == 8 and out["inputs"]["arrival_rate"] == 300
    assert out["warnings"][0] == "8 processors are fewer than the 18 the peak needs"


def test_milliseconds_are_converted(capsys):
    out = run_json(capsys, ["--processors", "18", "--cpu-ms", "40", "--wait-ms", "200",
                            "--clients", "1000", "--think-s", "2", "--connections", "70",
                            "--max-response-ms", "1500", "--target-utilization", "0.6"])
    want = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, clients=1000,
                       think_time=2.0, connections=70, max_response_time=1.5,
                       target_utilization=0.6)
    assert out["capacity"] == want.capacity and out["response_time"] == want.response_time
    assert out["inputs"]["max_response_time"] == 1.5


def test_text_answer_names_the_settings_to_copy(capsys):
    assert main(["size", *ENGINEER[:-1], "300", "--processors", "18"]) == 0
    text = capsys.readouterr().out
    want = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0)
    assert f"server.tomcat.threads.max={want.threads}" in text
    assert f"max-queue-capacity={want.capacity - want.threads}" in text
    assert f"hikari.maximum-pool-size={want.connections}" in text


@pytest.mark.parametrize(("args", "message"), [
    (["--processors", "0"], "--processors must be an integer in [1, 4096]"),
    (["--processors", "2.5"], "--processors must be an integer in [1, 4096]"),
    (["--cpu-ms", "0"], "--cpu-ms must be a number in [0.001, 1e+06] ms"),
    (["--wait-ms", "-5"], "--wait-ms must be a number in [0.001, 1e+06] ms (or 0)"),
    (["--rate", "nan"], "--rate must be a number in (0, 1e+07]"),
    (["--connections", "0"], "--connections must be an integer in [1, 100000]"),
    (["--max-response-ms", "0"], "--max-response-ms must be a number"),
    (["--target-utilization", "2"], "--target-utilization must be a number in (0, 1]"),
    (["--clients", "10", "--think-s", "1"], "not both"),
    (["--processors", "many"], "--processors: invalid float value"),
])
def test_bad_input_exits_2_naming_the_option(capsys, args, message):
    argv = list(ENGINEER)
    for option, value in zip(args[::2], args[1::2], strict=True):
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    with pytest.raises(SystemExit) as stop:
        main(["size", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "nan" not in err.replace("got nan", "")


def test_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "queuetune", "size", *ENGINEER, "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["processors_needed"] == 18
