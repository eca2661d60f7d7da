"""queuetune.lab.__main__: the lab's command line, in its commands that start no server
(``plan``, ``webapp``, ``locustfile``) and its refusals."""

from __future__ import annotations

import argparse

import pytest

from queuetune.lab import __main__ as cli
from queuetune.lab import campaign
from queuetune.lab.experiments.imre.experiment import locustfile
from queuetune.lab.experiments.imre.experiment import page as page_with


def test_locustfile_prints_the_shipped_path(capsys):
    assert cli.main(["locustfile"]) == 0
    assert capsys.readouterr().out.strip() == str(locustfile())


def test_webapp_writes_the_test_page_with_the_secret_it_prints(tmp_path, capsys):
    folder = tmp_path / "ROOT"
    assert cli.main(["webapp", str(folder)]) == 0
    page = folder / "work.jsp"
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"wrote {page}" and out[1].startswith("secret: ")
    secret = out[1].removeprefix("secret: ")
    assert page.read_bytes() == page_with(secret)


def test_plan_lists_every_run_of_the_campaign(capsys):
    plan = campaign.load(campaign.builtin("smoke"))
    assert cli.main(["plan", "smoke"]) == 0
    lines = capsys.readouterr().out.splitlines()
    runs = plan.schedule()
    assert lines[0] == (f"{plan.name}: {len(runs)} runs, about "
                        f"{plan.estimated_seconds() / 60:.0f} min (experiment imre)")
    assert len(lines) == 1 + len(runs)
    for line, run in zip(lines[1:], runs, strict=True):
        assert line.split() == [run.kind, *(str(x) for level in run.levels for x in level)]


def test_an_unknown_campaign_is_an_error_with_exit_status_2(capsys):
    assert cli.main(["plan", "no-such-campaign"]) == 2
    assert capsys.readouterr().err.startswith("error: ")


@pytest.mark.parametrize("text, expected", [("0.0.0.0:5557", ("0.0.0.0", 5557)),
                                            ("::1:80", ("::1", 80))])
def test_master_bind_is_host_and_port(text, expected):
    assert cli._bind(text) == expected


@pytest.mark.parametrize("text", ["5557", ":5557", "host:", "host:0", "host:65536", "host:x"])
def test_a_bad_master_bind_names_the_option(text):
    with pytest.raises(argparse.ArgumentTypeError, match="--master-bind must be HOST:PORT"):
        cli._bind(text)


def test_the_run_command_reads_its_options():
    args = cli._parser().parse_args(["run", "smoke", "--workers", "2", "--no-wire",
                                     "--master-bind", "127.0.0.1:5557"])
    assert (args.campaign, args.workers, args.no_wire, args.master_bind) == (
        "smoke", 2, True, ("127.0.0.1", 5557))
    assert cli._parser().parse_args(["run"]).campaign == "imre"


def _broken_data_sets(root):
    """A file, a folder without a package, a package that is not JSON, one without its
    tables, and one whose runs table is missing."""
    import shutil

    from queuetune.lab import datasets

    (root / "file.csv").write_text("a,b\n")
    (root / "empty").mkdir()
    (root / "notjson").mkdir()
    (root / "notjson" / "datapackage.json").write_text("{bad")
    (root / "nokeys").mkdir()
    (root / "nokeys" / "datapackage.json").write_text('{"measurement": {}}')
    shutil.copytree(datasets.dataset_dir("keepalive-tomcat-2026-11-27-2"), root / "norun")
    (root / "norun" / "runs.csv").unlink()
    return {"file.csv": "is a file", "empty": "without datapackage.json",
            "notjson": "is not a data package", "nokeys": "has no 'resources'",
            "norun": "'runs.csv' is missing"}


def test_report_names_a_bad_data_set_or_html_path_without_a_traceback(tmp_path, capsys):
    for name, words in _broken_data_sets(tmp_path).items():
        assert cli.main(["report", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and words in err and "Traceback" not in err
    missing = tmp_path / "no-such-folder" / "r.html"
    assert cli.main(["report", "keepalive-tomcat-2026-11-27-2", "--html", str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and f"{str(missing.parent)!r} does not exist" in captured.err


def test_webapp_writes_each_experiments_page_where_its_runner_asks(tmp_path, capsys):
    from queuetune.lab import experiments

    with_page = [n for n in experiments.names() if hasattr(experiments.get(n), "page")]
    assert "today" in with_page
    for name in with_page:
        experiment = experiments.get(name)
        assert cli.main(["webapp", str(tmp_path / name), "--experiment", name]) == 0
        secret = capsys.readouterr().out.splitlines()[1].removeprefix("secret: ")
        written = tmp_path / name / experiment.PAGE.lstrip("/")
        assert [p.name for p in (tmp_path / name).iterdir()] == [written.name]
        assert written.read_bytes() == experiment.page(secret)


def test_webapp_of_an_experiment_without_a_page_is_refused_by_name(tmp_path, capsys):
    assert cli.main(["webapp", str(tmp_path / "k"), "--experiment", "keepalive"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: experiment 'keepalive' has no test page") and "imre" in err
    assert not (tmp_path / "k").exists()
