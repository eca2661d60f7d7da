"""Reading any lab data set, and repairing the status of one whose runner was killed."""

from __future__ import annotations

import json
import shutil

import pytest

from queuetune.lab import datasets, tomcat

STORED = "imre-tomcat-2026-11-24-2"


def _copy_as_running(tmp_path, pid=None, started=None):
    folder = tmp_path / "set"
    shutil.copytree(datasets.dataset_dir(STORED), folder)
    package = json.loads((folder / "datapackage.json").read_text())
    package["measurement"]["status"] = "running"
    if pid is not None:
        package["measurement"].update(runner_pid=pid, runner_started=started)
    (folder / "datapackage.json").write_text(json.dumps(package))
    return folder


def test_stored_data_sets_say_their_experiment_and_format():
    assert {"imre-tomcat-2026-11-24", STORED} <= set(datasets.datasets("imre"))
    assert datasets.format_version(STORED) == 1 and datasets.experiment_of(STORED) == "imre"
    assert "runs" in datasets.tables(STORED)
    with pytest.raises(ValueError, match="table must be one of"):
        datasets.load("nope", STORED)
    with pytest.raises(ValueError, match="dataset must be one of"):
        datasets.metadata("no-such-set")


def test_repair_sets_the_status_from_the_runs_on_disk(tmp_path):
    folder = _copy_as_running(tmp_path)
    # every planned run is on disk: the runner was killed after its last one
    assert datasets.repair(folder) == "complete"
    meta = datasets.metadata(folder)
    assert meta["runs_completed"] == 82 and meta["invalid_runs"] == []
    assert "repair" in meta["repaired"]
    assert "Status: **complete**" in (folder / "README.md").read_text()


def test_repair_of_a_campaign_cut_short_says_killed(tmp_path):
    folder = _copy_as_running(tmp_path)
    lines = (folder / "runs.csv").read_text().splitlines()
    (folder / "runs.csv").write_text("\n".join(lines[:11]) + "\n")  # ten runs
    assert datasets.repair(folder) == "killed"
    assert datasets.metadata(folder)["runs_completed"] == 10


def test_repair_leaves_a_running_runner_and_a_finished_set_alone(tmp_path):
    import psutil

    me = psutil.Process()
    folder = _copy_as_running(tmp_path, pid=me.pid, started=me.create_time())
    with pytest.raises(ValueError, match="is still running"):
        datasets.repair(folder)
    # the same PID, given since to another process: the runner is gone
    reused = _copy_as_running(tmp_path / "b", pid=me.pid, started=me.create_time() - 100)
    assert datasets.repair(reused) == "complete"
    with pytest.raises(ValueError, match="only a data set left 'running'"):
        datasets.repair(datasets.dataset_dir(STORED))


def test_only_marked_bases_of_dead_makers_are_removed(tmp_path):
    import os
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    folders = {}
    for name, mark in (("dead", dead), ("alive", str(os.getpid())), ("unmarked", None)):
        folder = tmp_path / f"{tomcat.BASE_PREFIX}{name}"
        folder.mkdir()
        if mark is not None:
            (folder / tomcat.BASE_MARK).write_text(mark + "\n")
        folders[name] = folder
    removed = tomcat.remove_stale_bases(tmp_path)
    assert removed == [folders["dead"]]
    assert not folders["dead"].exists()
    assert folders["alive"].exists() and folders["unmarked"].exists()
