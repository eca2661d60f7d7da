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
    assert {"imre", "smoke"} <= set(campaign.builtins())
    for name in campaign.builtins():
        plan = campaign.load(campaign.builtin(name))
        assert plan.name and plan.source and plan.format == campaign.FORMAT_VERSION


def test_default_campaign_holds_the_papers_design_ten_times_faster():
    plan = campaign.load(campaign.builtin("imre"))
    assert plan.experiment.NAME == "imre"
    cells = {(c["threads"], c["queue"]) for c in plan.cells() if c["max_connections"] == 10000}
    assert {(30, 50), (30, 200), (100, 50), (100, 200)} <= cells
    # the paper: Z = 4 s, S = 0.14 s; here both ten times shorter
    assert plan.settings.think_time_s == pytest.approx(0.4)
    cpu = plan.settings.split("cpu")
    assert (cpu.cpu_ms, cpu.sleep_ms) == (14.0, 0.0)
    assert {s.name for s in plan.settings.splits} == {"cpu", "sleep"}
    # the plan fits the 90 minutes the campaign is allowed on a 2-core machine
    assert plan.estimated_seconds() <= 90 * 60


def test_schedule_measures_one_client_before_each_splits_load():
    plan = campaign.load(campaign.builtin("imre"))
    order = plan.schedule()
    assert len(order) == len(plan.cells()) + len(plan.settings.splits)
    for split in plan.settings.splits:
        mine = [r for r in order if r["split"] == split.name]
        assert mine[0].kind == "one-client" and mine[0]["clients"] == 1
        assert all(r.kind == "load" for r in mine[1:])


def test_the_runner_iterates_the_product_of_each_design_table(tmp_path):
    settings = smoke_settings()
    settings["design"] = [{"split": ["mixed"], "threads": [2, 3], "queue": [1],
                           "clients": [2, 4, 8]},
                          {"split": ["mixed"], "threads": [3], "queue": [1], "clients": [8, 9]}]
    plan = campaign.load(write_campaign(tmp_path, settings))
    assert [(c["threads"], c["clients"]) for c in plan.cells()] == [
        (2, 2), (2, 4), (2, 8), (3, 2), (3, 4), (3, 8), (3, 9)]  # (3, 8) once
    # runs that differ only in clients share a server
    assert [len(g) for g in plan.server_groups()] == [4, 4]


def test_a_format_1_campaign_file_still_loads():
    from queuetune.lab import datasets

    for name in ("imre-tomcat-2026-11-24", "imre-tomcat-2026-11-24-2"):
        plan = campaign.load(datasets.dataset_dir(name) / "campaign.toml")
        assert plan.format == 1 and plan.experiment.NAME == "imre"
        assert len(plan.schedule()) == 82


def test_an_unknown_experiment_and_format_are_refused_by_name(tmp_path):
    settings = smoke_settings()
    settings["campaign"]["experiment"] = "nope"
    with pytest.raises(ValueError, match="campaign.experiment must be one of"):
        campaign.load(write_campaign(tmp_path, settings))
    settings = smoke_settings()
    settings["campaign"]["format"] = 3
    with pytest.raises(ValueError, match="campaign.format must be 1 or 2"):
        campaign.load(write_campaign(tmp_path, settings))


class _Deleted:
    """The value that takes a key out (its repr is in the tests' ids: the same in every process,
    as pytest-xdist needs)."""

    def __repr__(self) -> str:
        return "<deleted>"


_DELETE = _Deleted()


def _edit(path: tuple, value):
    settings = copy.deepcopy(smoke_settings())
    settings.setdefault("validity", {})
    table = settings
    for key in path[:-1]:
        table = table[key]
    if value is _DELETE:
        del table[path[-1]]
    else:
        table[path[-1]] = value
    return settings


BAD = [
    (("design", 0, "threads"), [0], "design.threads[0]"),
    (("design", 0, "threads"), [-4], "design.threads[0]"),
    (("design", 0, "threads"), [2.5], "design.threads[0]"),
    (("design", 0, "queue"), [0], "design.queue[0]"),
    (("design", 0, "clients"), [], "design.clients"),
    (("design", 0, "clients"), [4, 4], "design.clients"),
    (("design", 0, "pool"), [3], "unknown parameter 'pool'"),
    (("design", 0, "split"), ["other"], "design.split[0] must be one of the splits"),
    (("design", 0, "threads"), _DELETE, "design.threads is missing"),
    (("validity", "core_margin"), 2.0, "validity.core_margin"),
    (("validity", "stop_after_dead_server"), "no", "validity.stop_after_dead_server"),
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
                         ids=[".".join(map(str, b[0])) + f"={b[1]!r}" for b in BAD])
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
    file = write_campaign(tmp_path, _edit(("design", 0, "threads"), [0]))
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
    bar = runner._bar(plan, runner.Options(out_root=tmp_path, progress=True))
    bar.n = bar.total  # the estimate is used up, and a step still runs
    with runner._step(bar, "one more run"):
        pass
    assert bar.n <= bar.total
    str(bar)  # renders without a TypeError
    bar.close()
    assert "one more run" in capsys.readouterr().err
