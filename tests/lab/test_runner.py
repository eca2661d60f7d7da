"""The runner runs an experiment it has never seen: a made-up one, written into a temporary
folder that joins the experiments' package, with no server and no load generator (no edit of
the runner, of the campaign reader or of the experiments' registry)."""

from __future__ import annotations

import sys
import textwrap

import pytest

from queuetune.lab import campaign, datasets, experiments, runner

ECHO = '''
"""A made-up experiment: each run "measures" its factors' product."""
import contextlib
import time

from queuetune.lab import records
from queuetune.lab.campaign import Factor, Run, only
from queuetune.lab.harness import Measured, Server

NAME = "echo"
TITLE = "An experiment that measures nothing"


def _whole(value, key, settings):
    if not isinstance(value, int) or value < 1:
        raise ValueError(f"{key} must be an integer >= 1, got {value!r}")
    return value


FACTORS = {
    "size": Factor("size", _whole, "a size, >= 1"),
    "colour": Factor("colour", lambda v, k, s: str(v), "any word", default=lambda s: "grey"),
    "count": Factor("count", _whole, "a count, >= 1", server=False),
}
TABLES = {
    "runs": records.Table("runs.csv", "One row per run", (
        records.Field("run", "integer", "Run number"),
        records.Field("kind", "string", "Kind of run"),
        records.Field("size", "integer", "The size"),
        records.Field("colour", "string", "The colour"),
        records.Field("count", "integer", "The count"),
        records.Field("product", "integer", "size x count"),
        records.Field("server", "integer", "Which server start measured it"),
        *records.runner_fields())),
    "items": records.Table("items.csv", "One row per item", (
        records.Field("run", "integer", "Run number"),
        records.Field("item", "integer", "Item number"))),
}
STARTS = []


def parse_settings(raw):
    only(raw, ("echo",), "the campaign file")
    return dict(raw.get("echo", {}))


def schedule(plan):
    return plan.cells()


def estimated_seconds(plan, *, starts_server=True):
    return 0.1 * len(plan.cells())


def describe(plan, options):
    return {"settings": plan.settings}


def readme_lines(metadata):
    return ["Nothing was measured."]


@contextlib.contextmanager
def server(session, run):
    STARTS.append(run["size"])
    yield Server(url="echo://", probe=lambda timeout: True)


def prepare(session, server, run):
    pass


def measure(session, server, run, monitor):
    now = time.time()
    product = run["size"] * run["count"]
    return Measured(row={"size": run["size"], "colour": run["colour"], "count": run["count"],
                         "product": product, "server": len(STARTS)},
                    window=(now - 1, now), refused_seen=0, connection_errors=0,
                    tables={"items": [{"item": i} for i in range(run["count"])]},
                    failed_checks=[] if product != 6 else ["six is unlucky"])
'''

CAMPAIGN = '''
[campaign]
format = 2
name = "echo"
experiment = "echo"
description = "Nothing, measured"
seed = 1

[[design]]
size = [1, 2]
count = [1, 3]

[[design]]
size = [2]
colour = ["red"]
count = [2]

[echo]
note = "its own settings"
'''


@pytest.fixture
def echo(tmp_path, monkeypatch):
    home = tmp_path / "extra" / "echo"
    home.mkdir(parents=True)
    (home / "__init__.py").write_text(textwrap.dedent(ECHO))
    monkeypatch.setattr(experiments, "__path__", [*experiments.__path__, str(home.parent)])
    yield
    sys.modules.pop("queuetune.lab.experiments.echo", None)


def test_the_runner_runs_an_experiment_it_has_never_seen(tmp_path, echo):
    file = tmp_path / "echo.toml"
    file.write_text(CAMPAIGN)
    plan = campaign.load(file)
    assert plan.experiment.NAME == "echo" and plan.settings == {"note": "its own settings"}
    assert [(r["size"], r["colour"], r["count"]) for r in plan.cells()] == [
        (1, "grey", 1), (1, "grey", 3), (2, "grey", 1), (2, "grey", 3), (2, "red", 2)]
    folder = runner.run_campaign(plan, runner.Options(out_root=tmp_path / "out",
                                                      progress=False))
    runs = datasets.load("runs", folder)
    assert runs["product"].tolist() == [1, 3, 2, 6, 4]
    # a server per level of the server factors (size, colour), shared by the counts
    assert runs["server"].tolist() == [1, 1, 2, 2, 3]
    items = datasets.load("items", folder)
    assert items.groupby("run").size().tolist() == [1, 3, 1, 3, 2]
    # the experiment's own failed check makes its run invalid, and the status says so
    assert runs["valid"].tolist() == [True, True, True, False, True]
    assert runs.loc[3, "invalid_reason"] == "six is unlucky"
    meta = datasets.metadata(folder)
    assert (meta["experiment"], meta["format_version"]) == ("echo", 2)
    assert meta["status"] == "complete-with-invalid-runs" and meta["invalid_runs"] == [4]
    assert meta["runner_started"] <= meta["runner_finished"]
    assert "Nothing was measured." in (folder / "README.md").read_text()


def test_a_design_naming_another_experiments_factor_is_refused_by_name(tmp_path, echo):
    file = tmp_path / "echo.toml"
    file.write_text(CAMPAIGN.replace("size = [2]\n", "size = [2]\nthreads = [30]\n"))
    with pytest.raises(ValueError, match=r"unknown parameter 'threads' in \[design\[1\]\]"):
        campaign.load(file)
    file.write_text(CAMPAIGN.replace("size = [1, 2]", "size = [0, 2]"))
    with pytest.raises(ValueError, match=r"design\[0\]\.size\[0\] must be an integer >= 1"):
        campaign.load(file)
    assert not (tmp_path / "out").exists()


def test_an_experiment_missing_part_of_the_interface_is_named(tmp_path, monkeypatch):
    home = tmp_path / "extra" / "broken"
    home.mkdir(parents=True)
    (home / "__init__.py").write_text('NAME = "broken"\n')
    monkeypatch.setattr(experiments, "__path__", [*experiments.__path__, str(home.parent)])
    try:
        with pytest.raises(ValueError, match="does not export"):
            experiments.get("broken")
    finally:
        sys.modules.pop("queuetune.lab.experiments.broken", None)


def test_an_error_of_the_experiment_is_stored_with_the_runs_before_it(tmp_path, echo):
    """The runner keeps the runs done before an unexpected error, stores the error's type and
    message in the data set's metadata with the status ``failed``, and raises it as it was."""
    file = tmp_path / "echo.toml"
    file.write_text(CAMPAIGN)
    plan = campaign.load(file)
    measure = plan.experiment.measure

    def breaks_at_the_fourth(session, server, run, monitor):
        if run["size"] * run["count"] == 6:
            raise RuntimeError("the monitor's clock went backwards")
        return measure(session, server, run, monitor)

    plan.experiment.measure = breaks_at_the_fourth
    out = tmp_path / "out"
    with pytest.raises(RuntimeError, match="clock went backwards"):
        runner.run_campaign(plan, runner.Options(out_root=out, progress=False))
    (folder,) = out.iterdir()
    meta = datasets.metadata(folder)
    assert meta["status"] == "failed" and meta["runs_completed"] == 3
    assert meta["error"] == "RuntimeError: the monitor's clock went backwards"
    assert datasets.load("runs", folder)["product"].tolist() == [1, 3, 2]
