"""Campaign files: the built-in ones, and every kind of bad input refused by name."""

from __future__ import annotations

import copy
import re
import subprocess
import sys

import pytest
from lab_campaigns import smoke_settings, write_campaign

from queuetune.lab import campaign


def test_builtin_campaigns_parse():
    assert campaign.builtins() == ["imre", "smoke"]
    for name in campaign.builtins():
        plan = campaign.load(campaign.builtin(name))
        assert plan.name and plan.source


def test_default_campaign_is_the_papers_design_ten_times_faster():
    plan = campaign.load(campaign.builtin("imre"))
    assert plan.design.threads == (30, 100)
    assert plan.design.queue == (50, 200)
    assert plan.design.clients == tuple(range(10, 101, 10))
    # the paper: Z = 4 s, S = 0.14 s; here both ten times shorter
    assert plan.think_time_s == pytest.approx(0.4)
    cpu = next(s for s in plan.splits if s.name == "cpu")
    assert (cpu.cpu_ms, cpu.sleep_ms) == (14.0, 0.0)
    assert {s.name for s in plan.splits} == {"cpu", "sleep"}
    assert len(plan.runs()) == 2 * 2 * 2 * 10
    # the plan fits the hour the campaign is allowed on a 2-core machine
    assert plan.estimated_seconds() <= 3600


def test_schedule_measures_one_client_before_each_splits_load():
    plan = campaign.load(campaign.builtin("imre"))
    order = plan.schedule()
    assert len(order) == len(plan.runs()) + len(plan.splits)
    for split in plan.splits:
        mine = [r for r in order if r.split == split]
        assert mine[0].kind == "one-client" and mine[0].clients == 1
        assert all(r.kind == "load" for r in mine[1:])


def _edit(path: tuple, value):
    settings = copy.deepcopy(smoke_settings())
    table = settings
    for key in path[:-1]:
        table = table[key]
    if value is _DELETE:
        del table[path[-1]]
    else:
        table[path[-1]] = value
    return settings


_DELETE = object()

BAD = [
    (("design", "threads"), [0], "design.threads[0]"),
    (("design", "threads"), [-4], "design.threads[0]"),
    (("design", "threads"), [2.5], "design.threads[0]"),
    (("design", "queue"), [0], "design.queue[0]"),
    (("design", "clients"), [], "design.clients"),
    (("design", "clients"), [4, 4], "design.clients"),
    (("design", "pool"), [3], "unknown parameter 'pool'"),
    (("campaign", "colour"), "red", "unknown parameter 'colour'"),
    (("campaign", "name"), "Big Name!", "campaign.name"),
    (("workload", "think_time_s"), -1.0, "workload.think_time_s"),
    (("workload", "keep_alive"), "yes", "workload.keep_alive"),
    (("workload", "splits"), [{"name": "x", "cpu_ms": 0.0, "sleep_ms": 0.0}], "cpu_ms + sleep_ms"),
    (("workload", "splits"), [{"name": "x", "cpu_ms": 1.0, "sleep_ms": 0.0, "io": 1}],
     "unknown parameter 'io'"),
    (("timing", "measure_s"), 0.0, "timing.measure_s"),
    (("server", "port"), 70000, "server.port"),
    (("server", "generator_cores"), [1], "must not share a core"),
    (("checks", "generator_cpu_max"), 1.5, "checks.generator_cpu_max"),
    (("timing", "ramp_s"), _DELETE, "timing.ramp_s is missing"),
]


@pytest.mark.parametrize(("path", "value", "message"), BAD,
                         ids=[".".join(b[0]) + f"={b[1]!r}" for b in BAD])
def test_bad_values_are_refused_by_name(tmp_path, path, value, message):
    file = write_campaign(tmp_path, _edit(path, value))
    with pytest.raises(ValueError, match=re.escape(message)):
        campaign.load(file)


def test_missing_file_and_bad_toml(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        campaign.load(tmp_path / "nothing.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[campaign\nname = 1\n")
    with pytest.raises(ValueError, match="not valid TOML"):
        campaign.load(broken)
    with pytest.raises(ValueError, match="campaign must be one of"):
        campaign.builtin("nope")


def test_command_line_refuses_a_bad_campaign_and_writes_nothing(tmp_path):
    file = write_campaign(tmp_path, _edit(("design", "threads"), [0]))
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "queuetune.lab", "run", str(file),
                             "--out", str(out), "--quiet"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 2
    assert "design.threads[0]" in result.stderr
    assert not out.exists()


def test_plan_command_prints_the_runs():
    result = subprocess.run([sys.executable, "-m", "queuetune.lab", "plan", "smoke"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert result.stdout.splitlines()[0].startswith("smoke: 3 runs")


def test_the_progress_bar_survives_a_campaign_longer_than_its_estimate(tmp_path, capsys):
    from queuetune.lab import runner

    plan = campaign.load(campaign.builtin("smoke"))
    bar = runner._progress(plan, runner.Options(out_root=tmp_path, progress=True))
    bar.n = bar.total  # the estimate is used up, and a step still runs
    with runner._step(bar, "one more run"):
        pass
    assert bar.n <= bar.total
    str(bar)  # renders without a TypeError
    bar.close()
    assert "one more run" in capsys.readouterr().err
