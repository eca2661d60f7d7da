"""domino-threads (Demetriou 1998): checks specific to the sidebar's 4 x 5 grids and the text."""

from __future__ import annotations

from functools import partial

import lookup
import pytest

from queuetune import data

DOC = "domino-threads"
stated = partial(lookup.stated, DOC)
USERS = [25, 50, 100, 200]
THREADS = [10, 25, 50, 100, 200]
GRIDS = {
    "webmail_response_time": "response_time_s",
    "probe_response_time": "response_time_s",
    "cpu_utilization": "cpu_utilization_pct",
    "memory_used": "memory_committed_mb",
    "disk_queue_length": "avg_disk_queue_length",
}


@pytest.mark.parametrize("name", sorted(GRIDS))
def test_each_grid_has_the_twenty_design_cells(name):
    df = data.load(DOC, name)
    cells = list(zip(df["users"], df["http_threads"], strict=True))
    assert cells == [(u, t) for u in USERS for t in THREADS]
    assert df[GRIDS[name]].notna().all()
    assert (df[GRIDS[name]] > 0).all()


def test_design_levels_stated_in_the_text_are_the_grid_levels():
    threads = stated("http_threads_levels").replace("and ", "").split(", ")
    users = stated("user_levels").replace("and ", "").split(", ")
    assert [int(t) for t in threads] == THREADS
    assert [int(u) for u in users] == USERS


def test_response_times_quoted_in_the_text_equal_the_table():
    grid = data.load(DOC, "webmail_response_time")
    as_text = {(int(u), int(t)): f"{v:.3f}" for u, t, v in grid.itertuples(index=False)}
    assert stated("response_time_25_users_10_threads", "DT-C2") == as_text[(25, 10)]
    assert stated("response_time_200_users_10_threads", "DT-C2") == as_text[(200, 10)]
    assert stated("response_time_200_users_10_threads", "DT-C3") == as_text[(200, 10)]
    assert stated("response_time_200_users_200_threads", "DT-C3") == as_text[(200, 200)]


def test_cpu_is_flat_and_memory_rises_with_threads():
    """DT-C4: CPU hardly moves along a row; memory never falls as threads grow."""
    cpu = data.load(DOC, "cpu_utilization").pivot(index="users", columns="http_threads",
                                                  values="cpu_utilization_pct")
    assert ((cpu.max(axis=1) - cpu.min(axis=1)) <= 2).all()
    assert (cpu.max(axis=None) <= 100) and (cpu.min(axis=None) >= 0)
    memory = data.load(DOC, "memory_used").pivot(index="users", columns="http_threads",
                                                 values="memory_committed_mb")
    assert (memory.diff(axis=1).iloc[:, 1:] >= 0).all(axis=None)


def test_configuration_lists_client_and_server():
    config = data.load(DOC, "test_configuration")
    assert config.groupby("system").size().to_dict() == {"client": 5, "server": 9}
    for system in ("client", "server"):
        props = set(config.loc[config["system"] == system, "property"].dropna())
        assert {"CPUs", "Memory", "OS"} <= props
    drives = config[config["property"].fillna("").str.startswith("Hard Drives > ")]
    assert drives["property"].tolist() == [f"Hard Drives > Logical {d}" for d in "CDF"]


def test_workload_settings():
    settings = data.load(DOC, "workload_settings").set_index("setting")
    assert settings.loc["ThreadStagger", "value"] == 5
    assert settings.loc["ThreadStagger", "unit"] == "seconds"
    assert settings.loc["NormalMessageSize", "value"] == 10000
    assert settings.loc["NumMessageRecipients", "value"] == 3


def test_figures_point_at_existing_tables_or_stated_values():
    assert lookup.unknown_figure_sources(DOC) == {}
    figures = data.load(DOC, "figures")
    assert set(figures["status"]) == {"reproduced"}
    assert figures["figure_id"].tolist() == [f"DT-F{i}" for i in range(3, 8)]
