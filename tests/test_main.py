"""python -m queuetune size: the command line of queuetune.sizing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from queuetune import sizing
from queuetune.__main__ import _time, main

ENGINEER = ["--processors", "8", "--cpu-ms", "40", "--wait-ms", "200", "--rate", "300"]


def run_json(capsys, args):
    assert main(["size", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_holds_the_answer_at_the_peak_and_at_twice_the_peak(capsys):
    out = run_json(capsys, ENGINEER)
    want = sizing.size(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0)
    for key in ("processors_needed", "threads", "connections", "capacity", "utilization",
                "response_time", "response_time_p95", "response_time_p99", "throughput",
                "refused", "processor_limit", "pool_limit", "thread_limit", "warnings",
                "headroom", "saturation_multiple", "saturation_resource",
                "max_response_time", "max_response_origin"):
        assert out[key] == getattr(want, key), key
    assert out["loads"] == want.loads and [r["multiple"] for r in out["loads"]] == [1, 1.1, 1.5, 2]
    for key in ("response_time", "response_time_p95", "response_time_p99", "throughput",
                "refused", "utilization", "multiple"):
        assert out["double"][key] == want.double[key], key
    assert out["double"]["arrival_rate"] == 600
    assert out["inputs"]["processors"] == 8 and out["inputs"]["arrival_rate"] == 300
    assert out["warnings"][0] == (f"8 processors are fewer than the {want.processors_needed} "
                                  "that carry 1.5× the peak")


def test_milliseconds_and_seconds_are_converted(capsys):
    out = run_json(capsys, ["--processors", "18", "--cpu-ms", "40", "--wait-ms", "200",
                            "--clients", "1000", "--think-s", "2", "--connections", "70",
                            "--threads", "60", "--capacity", "400", "--headroom", "1.2",
                            "--read-timeout-s", "30", "--p99-ms", "1500"])
    want = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, clients=1000,
                       think_time=2.0, connections=70, threads=60, capacity=400,
                       headroom=1.2, read_timeout=30.0, p99_objective=1.5)
    assert out["capacity"] == want.capacity and out["response_time"] == want.response_time
    assert out["inputs"]["p99_objective"] == 1.5 and out["inputs"]["read_timeout"] == 30
    assert out["max_response_origin"] == "p99_objective" and out["headroom"] == 1.2
    assert out["yours"]["saturation_multiple"] == want.yours["saturation_multiple"]
    assert out["yours"]["loads"] == want.yours["loads"]


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
    (["--headroom", "0.5"], "--headroom must be a number in [1, 10], got 0.5"),
    (["--p99-ms", "0"], "--p99-ms must be a number in [0.001, 3.6e+06] ms, got 0"),
    (["--read-timeout-s", "-1"], "--read-timeout-s must be a number in (0, 3600] s"),
    (["--threads", "0"], "--threads must be an integer in [1, 100000]"),
    (["--capacity", "40"], "--capacity (your bound on admitted requests) goes with --threads "
                           "(your maxThreads)"),
    (["--rate", "1e7"], "the load keeps about 600000 processors busy, more than the 100000 "
                        "this sizing covers"),
    (["--clients", "10", "--think-s", "1"], "not both"),
    (["--rate", "", "--clients", "10"], "--clients needs --think-s, a number in [0, 100000] s"),
    (["--processors", "many"], "--processors: invalid float value"),
])
def test_bad_input_exits_2_naming_the_option(capsys, args, message):
    argv = list(ENGINEER)
    for option, value in zip(args[::2], args[1::2], strict=True):
        if option in argv and value == "":  # left out
            del argv[argv.index(option): argv.index(option) + 2]
        elif option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    with pytest.raises(SystemExit) as stop:
        main(["size", *argv])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "nan" not in err.replace("got nan", "")
    assert "----" not in err


def test_text_answer_has_the_load_rows_and_the_origin_of_b(capsys):
    assert main(["size", *ENGINEER, "--processors", "18", "--threads", "51"]) == 0
    text = capsys.readouterr().out
    want = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0,
                       threads=51)
    for row in want.loads:
        assert f"{row['multiple']:g}× ({row['arrival_rate']:.4g}/s)" in text
    assert f"saturates at {want.saturation_multiple:.3g}× the peak (processors)" in text
    assert "nginx's default proxy_read_timeout" in text
    assert f"saturate at {want.yours['saturation_multiple']:.3g}× the peak (threads)" in text
    assert "not computed" not in text  # "—": the rows past saturation, not resolved
    assert ("—" in text) == any(row["response_time_p99"] is None for row in want.loads)
    for row in want.loads:  # mean, p95 and p99 of each row, as the table writes them
        cells = [_time(row[k]) for k in ("response_time", "response_time_p95",
                                         "response_time_p99")]
        assert any(all(c in line for c in cells) for line in text.splitlines()), cells


def test_text_answer_says_whether_the_p99_objective_is_met(capsys):
    assert main(["size", *ENGINEER, "--p99-ms", "2000"]) == 0
    text = capsys.readouterr().out
    want = sizing.size(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0,
                       p99_objective=2.0)
    assert (f"p99 objective 2000.0 ms: not met, prevented by the processors (p99 at the peak "
            f"{_time(want.response_time_p99)})") in text
    assert main(["size", *ENGINEER, "--processors", "18", "--p99-ms", "1500"]) == 0
    assert "p99 objective 1500.0 ms: met at the peak" in capsys.readouterr().out
    out = run_json(capsys, [*ENGINEER, "--p99-ms", "2000"])
    assert out["objective"]["prevented_by"] == "the processors"
    assert out["double"]["response_time_p99"] == want.double["response_time_p99"]


def test_runs_as_a_module():
    done = subprocess.run([sys.executable, "-m", "queuetune", "size", *ENGINEER, "--json"],
                          capture_output=True, text=True, check=True)
    want = sizing.size(processors=8, cpu_time=0.04, wait_time=0.2, arrival_rate=300.0)
    assert json.loads(done.stdout)["processors_needed"] == want.processors_needed


#: Modules the command must not import (see tests/test_init.py): Altair alone takes seconds.
HEAVY = ("altair", "vl_convert", "vega_datasets", "pandas", "scipy", "sympy", "simpy",
         "matplotlib", "IPython", "queuetune.charts", "queuetune.models.thread_pool_server")


def test_the_command_imports_no_chart_library():
    script = ("import sys\nfrom queuetune.__main__ import main\n"
              f"main(['size', *{ENGINEER!r}, '--json'])\n"
              f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    assert done.stdout.splitlines()[-1] == "", done.stdout


# --------------------------------------------------------------------------- a fleet (issue 30)
FLEET = ["--processors", "8", "--cpu-ms", "40", "--wait-ms", "190", "--rate", "300",
         "--instances", "3", "--db-processors", "4", "--db-ms", "10"]


def test_a_database_option_sizes_the_fleet_and_json_holds_it(capsys):
    from queuetune.fleet_sizing import size_fleet

    out = run_json(capsys, FLEET)
    want = size_fleet(processors=8, cpu_time=0.04, wait_time=0.19, db_time=0.01,
                      db_processors=4, arrival_rate=300.0, instances=3)
    for key in ("instances", "connections", "total_connections", "database_utilization",
                "limiting_resource", "pools", "threads", "capacity", "response_time"):
        assert out[key] == getattr(want, key), key
    assert out["total_connections"] <= 97 and out["inputs"]["db_max_connections"] == 100
    assert {"connections", "response_time", "throughput", "database_utilization",
            "connection_wait", "database_time", "within_limit"} <= set(out["pools"][0])


def test_the_fleet_text_answer_names_pool_total_and_limit(capsys):
    assert main(["size", *FLEET, "--db-max-connections", "40"]) == 0
    text = capsys.readouterr().out
    assert "connection pool per instance: 12 (36 in total, of the 37 the database allows)" \
        in text
    assert "(connection limit)" in text and "over the limit" in text


@pytest.mark.parametrize("args, message", [
    (["--db-max-connections", "2"], "--db-max-connections must be an integer in [4, 100000]"),
    (["--db-contention", "-1"], "--db-contention must be a number in [0, 10]"),
    (["--db-processors", "0"], "--db-processors must be an integer in [1, 4096]"),
    (["--instances", "5000"], "--instances must be an integer in [1, 4096]"),
    (["--db-ms", "0"], "--db-ms must be a number in [0.001, 1e+06] ms"),
    (["--threads", "10"], "--threads is not taken with a fleet"),
])
def test_bad_fleet_input_exits_2_naming_the_option(capsys, args, message):
    with pytest.raises(SystemExit) as stop:
        main(["size", *FLEET, *args])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err


def test_a_fleet_option_without_db_ms_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["size", *ENGINEER, "--instances", "3"])
    assert stop.value.code == 2
    assert "--db-ms must be given with --instances" in capsys.readouterr().err
