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
#: The data set the chapter reads (its first cell names it too).
CHAPTER_DATASET = "imre-tomcat-2026-11-24-2"


def test_the_chapter_reads_a_stored_data_set():
    assert CHAPTER_DATASET in DATASETS
    chapter_text = (Path(__file__).parents[2] / "notebooks" / "lab.md").read_text(
        encoding="utf-8")
    assert f'DATASET = "{CHAPTER_DATASET}"' in chapter_text


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
    assert meta["status"] == "complete" or meta.get("note"), "an unfinished set must say why"
    assert validate_package(folder).valid
    plan = campaign.load(folder / "campaign.toml")
    runs, _ = check_accounting(folder)
    schedule = plan.schedule()
    stored = len(schedule) if meta["status"] == "complete" else meta["runs_completed"]
    assert len(runs) == stored
    assert [(r.kind, r.split, r.threads, r.queue, r.clients) for r in runs.itertuples()] == [
        (r.kind, r["split"], r["threads"], r["queue"], r["clients"])
        for r in schedule[:stored]]
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
