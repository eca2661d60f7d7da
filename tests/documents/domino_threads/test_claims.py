"""Claims audit of Demetriou (1998), DT-C1 … DT-C5: on the transcribed data, and on altered
copies of it, so that each verdict is shown to follow from the numbers."""

from __future__ import annotations

import edits
import numpy as np
import pytest

from queuetune import audit, data
from queuetune.documents.domino_threads import claims as dt
from queuetune.documents.domino_threads import rules

DOC = "domino-threads"


@pytest.fixture
def altered_grid(altered):
    """A copy of the data whose grid cells a test may change: ``altered_grid(table,
    {(users, threads): value})`` sets the table's value column in those cells."""

    def change(name: str, cells: dict) -> None:
        altered(name, *(edits.set_value(dt.GRIDS[name], value, users=users, http_threads=threads)
                        for (users, threads), value in cells.items()))

    return change


# -- DT-C1: memory per thread ------------------------------------------------------------------

def test_memory_slopes_match_an_independent_fit():
    memory = data.load(DOC, "memory_used")
    per = dt.memory_per_thread().set_index("users")
    for users, rows in memory.groupby("users"):
        slope_mb = np.polyfit(rows["http_threads"].astype(float),
                              rows["memory_committed_mb"].astype(float), 1)[0]
        assert per.loc[users, "kb_per_thread"] == pytest.approx(slope_mb * 1024)
        assert per.loc[users, "low_kb"] < per.loc[users, "kb_per_thread"] < per.loc[
            users, "high_kb"]
    # the two-point estimate at 200 users, (210 - 130) MB over 190 threads, is inside
    two_point = (210 - 130) / 190 * 1024
    assert per.loc[200, "low_kb"] < two_point < per.loc[200, "high_kb"]
    with pytest.raises(ValueError, match="confidence"):
        dt.memory_per_thread(confidence=1.5)


def test_memory_per_thread_contradicts_the_stated_20_to_40_kb():
    finding = audit.run("DT-C1")
    assert finding.verdict == "contradicted"
    assert finding.values["stated_kb"] == (20.0, 40.0)
    assert finding.values["intervals_above_stated"] == 4
    slopes = [r["kb_per_thread"] for r in finding.values["per_thread"]]
    assert f"{min(slopes):.0f}-{max(slopes):.0f} KB" in finding.evidence
    assert min(slopes) / 40 > 8


def test_memory_per_thread_near_the_stated_value_would_be_supported(altered_grid):
    # committed memory rising by 6 MB over 190 threads: about 32 KB per thread
    flat = {10: 0, 25: 0, 50: 1, 100: 3, 200: 6}
    altered_grid("memory_used", {(u, t): base + add for u, base in
                                 ((25, 90), (50, 100), (100, 110), (200, 130))
                                 for t, add in flat.items()})
    assert audit.run("DT-C1").verdict == "supported"


def test_memory_per_thread_mixed_when_only_some_loads_fit(altered_grid):
    flat = {10: 0, 25: 0, 50: 1, 100: 3, 200: 6}
    altered_grid("memory_used", {(25, t): 90 + add for t, add in flat.items()})
    assert audit.run("DT-C1").verdict == "partly"


# -- DT-C2: response time rises with users ----------------------------------------------------

def test_response_rises_with_users_but_for_one_step():
    finding = audit.run("DT-C2")
    assert finding.verdict == "partly"
    assert finding.values["webmail_rising_steps"] == 14
    assert finding.values["probe_rising_steps"] == 15
    assert finding.values["quoted_matches"] is True
    (fall,) = finding.values["webmail_falls"]
    assert (fall["http_threads"], fall["users_from"], fall["users_to"]) == (50, 25, 50)
    assert "0.501 to 0.469 s" in finding.evidence


def test_without_the_dip_the_claim_would_be_supported(altered_grid):
    altered_grid("webmail_response_time", {(50, 50): "0.550"})
    assert audit.run("DT-C2").verdict == "supported"


def test_a_misquoted_example_contradicts(altered_grid):
    altered_grid("webmail_response_time", {(25, 10): "0.400"})
    finding = audit.run("DT-C2")
    assert finding.verdict == "contradicted"
    assert "does not match" in finding.evidence


# -- DT-C3: more threads do not help ----------------------------------------------------------

def test_more_threads_help_at_50_and_100_users():
    finding = audit.run("DT-C3")
    assert finding.verdict == "partly"
    assert finding.values["loads_where_more_threads_help"] == [50, 100]
    rows = {r["users"]: r for r in finding.values["webmail_rows"]}
    assert (rows[50]["best_threads"], rows[50]["best"]) == (50, 0.469)
    assert rows[200]["best_threads"] == 10
    assert "1.764 s at 10, 2.166 s at 200" in finding.evidence


def test_with_10_threads_best_everywhere_the_claim_would_be_supported(altered_grid):
    altered_grid("webmail_response_time", {(50, 10): "0.460", (100, 10): "0.760"})
    finding = audit.run("DT-C3")
    assert finding.verdict == "supported"
    assert finding.values["loads_where_more_threads_help"] == []


def test_row_changes_reads_each_row():
    rows = dt.row_changes("disk_queue_length").set_index("users")
    assert rows.loc[25, "monotone_up"] and not rows.loc[100, "monotone_up"]
    assert rows.loc[200, "net_change"] == pytest.approx(0.22)
    assert rows.loc[50, "best_threads"] == 50  # 0.08 at 50 and 100 threads: the fewer wins
    with pytest.raises(ValueError, match="name must be one of"):
        dt.grid("nope")


# -- DT-C4: CPU flat, memory and disk queue rising -----------------------------------------------

def test_cpu_flat_memory_rising_disk_queue_only_in_part():
    finding = audit.run("DT-C4")
    assert finding.verdict == "partly"
    v = finding.values
    assert v["cpu_flat"] and v["cpu_max_row_range"] == 2
    assert v["memory_rises"]
    assert v["memory_added_mb"] == {25: 60, 50: 80, 100: 80, 200: 80}
    assert v["disk_rises_steadily_at"] == [25]
    assert v["disk_net_up_at"] == [25, 200]
    assert v["disk_net_change"][100] == pytest.approx(-0.04)


def test_a_steadily_rising_disk_queue_would_support_all_three(altered_grid):
    altered_grid("disk_queue_length", {
        (50, 25): "0.10", (50, 50): "0.11", (50, 100): "0.12", (50, 200): "0.13",
        (100, 25): "0.20", (100, 50): "0.21", (100, 100): "0.22", (100, 200): "0.23",
        (200, 25): "0.40"})
    assert audit.run("DT-C4").verdict == "supported"


def test_cpu_moving_with_threads_is_noticed(altered_grid):
    altered_grid("cpu_utilization", {(100, 200): 30})
    finding = audit.run("DT-C4")
    assert finding.values["cpu_flat"] is False
    assert "at most 10 points" in finding.evidence


# -- DT-C5: the 10 % rule -----------------------------------------------------------------------

def test_rule_table_uses_the_rule_and_the_nearest_tested_setting():
    table = dt.rule_versus_threads_equal_users().set_index("users")
    assert table["rule_threads"].tolist() == [rules.domino_initial_threads(u)
                                             for u in (25, 50, 100, 200)]
    assert table["nearest_tested"].tolist() == [10, 10, 10, 25]
    assert table.loc[200, "at_rule"] == 1.856
    assert table.loc[200, "at_threads_equal_users"] == 2.166


def test_ten_percent_rule_is_partly_testable():
    finding = audit.run("DT-C5")
    assert finding.verdict == "partly"
    assert finding.values["example_matches"] is True
    assert finding.values["loads_where_rule_as_good"] == [25, 200]
    assert "cannot be tested" in finding.evidence


def test_rule_losing_everywhere_contradicts(altered_grid):
    altered_grid("webmail_response_time", {(25, 25): "0.400", (200, 200): "1.500"})
    assert audit.run("DT-C5").verdict == "contradicted"


def test_rule_as_good_everywhere_is_supported_with_the_untested_step_named(altered_grid):
    altered_grid("webmail_response_time", {(50, 10): "0.400", (100, 10): "0.700"})
    finding = audit.run("DT-C5")
    assert finding.verdict == "supported"
    assert "the tuning step cannot be tested" in finding.evidence


def test_rule_example_not_matching_contradicts(altered):
    altered("stated_values", edits.stated("example_initial_http_threads", "30"))
    finding = audit.run("DT-C5")
    assert finding.verdict == "contradicted"
    assert "example says 30 for 200" in finding.evidence


def test_memory_regression_slope_is_the_mean_of_the_per_load_slopes():
    # a balanced grid: the additive model's thread slope averages the per-load slopes
    joint = dt.memory_regression().set_index("term")
    per_load = dt.memory_per_thread()
    assert joint.loc["per thread", "estimate"] == pytest.approx(
        per_load["kb_per_thread"].mean())
    assert joint.loc["per thread", "low"] < joint.loc["per thread", "estimate"]
    assert joint.attrs["dof"] == 17
    crossed = dt.memory_regression(interaction=True)
    assert list(crossed["term"])[-1] == "per thread and user"
    with pytest.raises(ValueError, match="confidence"):
        dt.memory_regression(1.5)
