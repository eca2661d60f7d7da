"""queuetune.lab.experiments.database.chapter: the runs as the models see them."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune.lab.experiments.database import chapter


def test_a_group_names_its_configuration_and_work():
    row = pd.Series({"processors": 2, "threads": 8, "queue": 100, "pool": 4,
                     "distribution": "lognormal", "cpu_ms": 5.0, "db_ms": 2.0,
                     "wait_ms": 10.0, "settings_from": "advice"})
    text = chapter.group_of(row)
    assert "p = 2" in text and "B = 108" in text and "C = 4" in text
    assert "lognormal" in text and "advice" in text


@pytest.mark.lab
def test_the_smoke_maps_to_the_models_quantities(database_smoke):
    _, folder = database_smoke
    q = chapter.model_quantities(folder)
    design = q.runs[q.runs["group"].str.endswith("design")]
    assert len(design) == 2 and set(design["connections"]) == {2}
    assert (design["capacity"] == 24).all()
    # the advice's run: its group names the settings the sizing emitted
    assert len(q.runs) == 3 and q.runs["group"].iloc[-1].endswith("advice")
    # every group has its one-client service; the database's time apart from the JVM's
    assert q.service["S"].notna().all()
    assert (q.service["s_db_cpu"] > 0).all() and (q.service["s_cpu"] > 0).all()
    assert (q.service["S"] >= q.service["s_cpu"]).all()
    assert any("open runs" in c for c in q.cannot)
