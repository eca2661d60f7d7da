"""The stored lab data sets: complete, valid, every request accounted for, and the chapter's
derived numbers recomputed here from the raw tables by other means."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from lab_campaigns import check_accounting, validate_package

from queuetune.lab import campaign, datasets
from queuetune.lab.experiments.imre import analysis, chapter

DATASETS = datasets.datasets("imre")
#: The data set the chapter and README read (the chapter's first cell takes it from here).
CHAPTER_DATASET = chapter.BOOK_DATASET
#: The data sets of today's server (its chapter's first cell names them).
TODAY = datasets.datasets("today")


def test_the_chapter_reads_a_stored_data_set():
    assert CHAPTER_DATASET in DATASETS
    chapter_text = (Path(__file__).parents[2] / "notebooks" / "lab.md").read_text(
        encoding="utf-8")
    assert "DATASET = chapter.BOOK_DATASET" in chapter_text


def test_the_chapters_read_every_stored_data_set_of_today_s_server():
    """Today's chapter reads its campaigns' data sets, and the chapter on the advice the
    convoy's: each stored data set of the experiment is named by one of them."""
    notebooks = Path(__file__).parents[2] / "notebooks"
    text = "".join((notebooks / f"{name}.md").read_text(encoding="utf-8")
                   for name in ("today", "advice"))
    named = [name for name in TODAY if f'"{name}"' in text]
    assert named == TODAY, f"the chapters name {named} of {TODAY}"


@pytest.mark.parametrize("name", TODAY)
def test_a_data_set_of_today_s_server_is_valid_and_its_status_says_what_it_holds(name):
    folder = datasets.dataset_dir(name)
    meta = datasets.metadata(name)
    assert validate_package(folder).valid
    runs, _ = check_accounting(folder)
    schedule = campaign.load(folder / "campaign.toml").schedule()
    assert len(runs) == meta["runs_completed"] <= len(schedule)
    assert [(r.kind, r.processors, r.executor, r.pool) for r in runs.itertuples()] == [
        (r.kind, r["processors"], r["executor"], r["pool"]) for r in schedule[:len(runs)]]
    valid = runs["valid"].astype(bool)
    assert meta["invalid_runs"] == runs.loc[~valid, "run"].tolist()
    complete = meta["status"] == "complete"
    assert complete == (len(runs) == len(schedule) and bool(valid.all()))
    if not complete:  # a campaign the runner stopped names why and which runs
        assert meta["status"] in ("stopped-server-dead", "complete-with-invalid-runs")
        assert meta["invalid_runs"]
    assert runs.loc[valid, "generator_kept_up"].all(), "a valid run where the generator fell behind"


@pytest.mark.parametrize("name", ["imre-tomcat-2026-11-24", "imre-tomcat-2026-11-24-2"])
def test_the_two_format_1_data_sets_load_unchanged(name):
    assert datasets.format_version(name) == 1 and datasets.experiment_of(name) == "imre"
    runs = analysis.runs_of(name)
    assert (runs["windows"] == 1).all() and runs["valid"].isna().all()
    assert len(analysis.summarize(name)) == len(runs)


@pytest.mark.parametrize("name", DATASETS)
def test_a_stored_data_set_is_complete_valid_and_accounted_for(name):
    folder = analysis.dataset_dir(name)
    meta = json.loads((folder / "datapackage.json").read_text())["measurement"]
    finished = meta["status"] in ("complete", "complete-with-invalid-runs")
    assert finished or meta.get("note"), "an unfinished set must say why"
    assert validate_package(folder).valid
    plan = campaign.load(folder / "campaign.toml")
    runs, _ = check_accounting(folder)
    schedule = plan.schedule()
    stored = len(schedule) if finished else meta["runs_completed"]
    assert len(runs) == stored
    assert [(r.kind, r.split, r.threads, r.queue, r.clients) for r in runs.itertuples()] == [
        (r.kind, r["split"], r["threads"], r["queue"], r["clients"])
        for r in schedule[:stored]]
    if datasets.format_version(name) >= 2:  # the runner checked every run: flags agree
        valid = runs["valid"].astype(bool)
        assert meta["invalid_runs"] == runs.loc[~valid, "run"].tolist()
        assert (meta["status"] == "complete") == (finished and bool(valid.all()))
        runs = runs[valid]
    assert runs["generator_kept_up"].all(), "a run where the generator fell behind"


def test_processor_demand_is_the_utilization_law_on_the_raw_runs():
    folder = analysis.dataset_dir(CHAPTER_DATASET)
    runs = pd.read_csv(folder / "runs.csv")
    requests = pd.read_csv(folder / "requests.csv.gz")
    demand = chapter.processor_demand(CHAPTER_DATASET)
    for split, row in demand.iterrows():
        one = runs[(runs["split"] == split) & (runs["kind"] == "one-client")].iloc[0]
        inside = requests[(requests["run"] == one["run"])
                          & (requests["start_s"] >= one["window_start_s"])
                          & (requests["start_s"] < one["window_end_s"])
                          & (requests["outcome"] == "ok")]
        answers_per_s = len(inside) / (one["window_end_s"] - one["window_start_s"])
        assert row["JVM, one client (ms)"] == pytest.approx(
            1000 * one["server_cpu"] / answers_per_s)
        assert row["thread, one client (ms)"] == pytest.approx(
            inside["server_cpu_us"].median() / 1000)
        assert (row["JVM under load, lowest (ms)"] <= row["JVM under load, median (ms)"]
                <= row["JVM under load, highest (ms)"])


def test_at_clients_names_the_measured_counts():
    table = chapter.remeasured(CHAPTER_DATASET)
    configurations = len(table.drop_duplicates(["split", "configuration"]))
    for clients, runs in table.groupby("clients").size().items():
        assert len(chapter.at_clients(table, int(clients))) == runs <= configurations
    with pytest.raises(ValueError, match="clients must be one of the measured counts"):
        chapter.at_clients(table, 7)


def _as_format_2(folder: Path) -> Path:
    """The second format-1 data set rewritten as the runner writes format 2: a maxConnections
    column, three windows per run, the validity columns (run 20 flagged invalid), the new
    schemas."""
    import shutil

    from queuetune.lab import records
    from queuetune.lab.experiments.imre import TABLES

    shutil.copytree(datasets.dataset_dir("imre-tomcat-2026-11-24-2"), folder)
    runs = pd.read_csv(folder / "runs.csv", keep_default_na=False, dtype=str)
    runs["max_connections"] = "10000"
    runs["windows"] = ["1" if kind == "one-client" else "3" for kind in runs["kind"]]
    runs["thread_cpu_ms"] = runs["jvm_cpu_ms"] = ""  # recorded since issue 31
    for field in records.VALIDITY_FIELDS:
        runs[field.name] = ""
    runs["valid"] = ["false" if run == "20" else "true" for run in runs["run"]]
    runs.loc[runs["run"] == "20", "invalid_reason"] = "made up for this test"
    runs[records.columns(TABLES["runs"])].to_csv(folder / "runs.csv", index=False)
    package = json.loads((folder / "datapackage.json").read_text())
    for resource in package["resources"]:
        resource["schema"] = records.schema(TABLES[resource["name"]])
    meta = package["measurement"]
    meta.update(format_version=2, experiment="imre", invalid_runs=[20],
                status="complete-with-invalid-runs")
    meta["settings"]["design"] = [meta["settings"]["design"]]
    meta["settings"]["timing"]["windows"] = 3
    (folder / "datapackage.json").write_text(json.dumps(package))
    return folder


def test_the_chapter_reads_a_format_2_data_set_with_repeated_windows(tmp_path):
    from queuetune.lab.experiments.imre import models

    folder = _as_format_2(tmp_path / "set")
    assert validate_package(folder).valid
    windows = analysis.windows(folder)
    assert windows.groupby("run").size().max() == 3
    table = chapter.remeasured(folder)
    services = models.service(folder)
    predicted = models.predict(table, services, 0.4)
    verdicts = chapter.claims(table, predicted)
    assert len(verdicts) == 10
    by_regime = chapter.accuracy_by_regime(table, predicted, services, 0.4, windows,
                                           resamples=100)
    assert (by_regime["low"] <= by_regime["high"]).all()
    assert set(by_regime["regime"].astype(str)) == set(chapter.REGIMES)
    # run 20 is left out: one load run fewer than the format-1 reading counts
    counted = by_regime[(by_regime["quantity"] == "throughput")
                        & (by_regime["model"] == "thread-limited")]["runs"].sum()
    assert counted == len(table) - 1
    summary = analysis.summarize(folder)
    assert chapter.validity_table(summary)["invalid"].sum() == 1
    assert chapter.invalid_runs(summary)["run"].tolist() == [20]
    setup = chapter.setup_table(datasets.metadata(folder))
    assert "in 3 windows" in setup.loc["each run", "value"]
