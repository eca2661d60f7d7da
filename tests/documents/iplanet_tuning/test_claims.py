"""Claims audit of the iPlanet Web Server 6.0 tuning guide: IP-C1 … IP-C9, on the transcribed
data and on altered copies of it (so that every verdict can change)."""

from __future__ import annotations

import pytest
from edits import set_value, stated

from queuetune import audit
from queuetune.documents.iplanet_tuning import claims as ip

DOC = "iplanet-tuning"
IDS = [f"IP-C{i}" for i in range(1, 10)]
EXPECTED = {"IP-C1": "not testable", "IP-C2": "not testable", "IP-C3": "not testable",
            "IP-C4": "supported", "IP-C5": "partly", "IP-C6": "supported",
            "IP-C7": "not testable", "IP-C8": "not testable", "IP-C9": "supported"}


@pytest.fixture(scope="module")
def table():
    return audit.findings(DOC).set_index("id")


def test_all_nine_claims_are_registered_in_order(table):
    assert audit.registered(DOC) == IDS
    assert table.index.tolist() == IDS
    assert table["evidence"].str.len().min() > 80
    assert table["evidence"].str.contains(r"\d").all()


def test_verdicts(table):
    assert table["verdict"].to_dict() == EXPECTED


def test_scaling_factors_disagree_for_static_shtml_and_java():
    comparison = ip.factor_comparison().set_index("content")
    assert comparison.loc["static", "figure_factors"] == [65.0]
    assert comparison.loc["static", "summary"] == [60.0]
    assert not comparison.loc["static", "agree"]
    assert comparison.loc["NSAPI", "agree"] and comparison.loc["Perl-CGI and C-CGI", "agree"]
    java = comparison.loc["Java (servlets and applications)"]
    assert java["figure_factors"] == [65.0, 75.0, 80.0] and java["summary"] == [70.0, 55.0]
    assert audit.run("IP-C1").values["disagreeing"] == [
        "static", "SHTML", "Java (servlets and applications)"]


def test_four_cpu_gain_readings():
    gain = audit.run("IP-C2").values["gain_4_cpus_pct"]
    assert gain["efficiency"] == pytest.approx(140)
    assert gain["doubling"] == pytest.approx(156)
    assert gain["per_cpu"] == pytest.approx(180)


def test_keepalive_numbers():
    v = audit.run("IP-C3").values
    assert v["gain_low"] == pytest.approx(200 / 75) and v["gain_high"] == pytest.approx(4)
    assert v["flush_hit_ratio"] == pytest.approx(0.25)


def test_rqthrottle_bound_and_values_used():
    v = audit.run("IP-C4").values
    assert v["bound"] == pytest.approx(200)
    assert v["used"] == {"default": 128, "sizing magnus.conf": 256, "keep-alive study": 128}


def test_memory_example_and_additive_reading():
    v = audit.run("IP-C5").values
    assert (v["example_mb"], v["additive_mb"]) == (256, 320)


def test_bandwidth_and_lines():
    v = audit.run("IP-C6").values
    assert v["kbit_s"] == pytest.approx(1920) and v["lines"] == 2


def test_stress_test_demand_by_the_utilization_law():
    v = audit.run("IP-C7").values
    assert v["rate_per_s"] == pytest.approx(500)
    assert v["demand_s"] == pytest.approx([0.76 * 4 / 500, 0.78 * 4 / 500])
    assert v["cpu_ceiling_per_s"] == pytest.approx([4 / (0.78 * 4 / 500), 4 / (0.76 * 4 / 500)])


def test_posting_policy_run():
    v = audit.run("IP-C8").values
    assert v["peak_threads"] == 128 and v["final_threads"] == 128 and v["postings"] >= 2


def test_cache_counters_do_not_add_up():
    c = ip.cache_counters()
    assert c["entries"] * c["bytes_each"] == c["total_bytes"] == 116368
    assert c["entries"] > c["max_files"]
    assert c["outdated_deleted"] + c["replacements"] == c["total_deleted"] - 2
    assert c["info_plus_content_hits"] == 231551 != c["hits"]
    assert c["all_hits_and_misses"] == 862391 != c["lookups"]


# --- altered copies of the data: the checks must notice -----------------------------------

@pytest.mark.parametrize("quantity, printed, claim, verdict", [
    ("t1_lines_needed", "three", "IP-C6", "contradicted"),  # a wrong line count
    ("throughput_one_at_a_time", "300", "IP-C4", "contradicted"),  # a wrong throughput
    # an additive example would support the memory rule; one matching no reading contradicts
    ("memory_example_total_min", "320", "IP-C5", "supported"),
    ("memory_example_total_min", "300", "IP-C5", "contradicted"),
    ("cpu_utilization_high", "85", "IP-C7", "contradicted"),  # less idle time than stated
])
def test_an_altered_stated_number_changes_the_verdict(altered, quantity, printed, claim,
                                                      verdict):
    assert audit.run(claim).verdict != verdict
    altered("stated_values", stated(quantity, printed))
    assert audit.run(claim).verdict == verdict


def test_summary_factors_equal_to_the_figures_agree_but_test_nothing(altered):
    def figures(frame):
        frame.loc[frame["figure_id"].isin(["IP-F9", "IP-F12", "IP-F13"]), "scaling_factor"] = "65%"

    altered("stated_values",
            stated("static_scaling_peak_summary", "65"),
            stated("shtml_scaling_summary", "95"),
            stated("java_scaling_factor_up_to_4_cpus", "65"),
            stated("java_scaling_factor_beyond_4_cpus", "65"))
    altered("figures", figures)
    finding = audit.run("IP-C1")
    assert finding.verdict == "not testable"
    assert finding.values["disagreeing"] == []
    assert "agree for" in finding.evidence and "disagree" not in finding.evidence


def test_a_misprinted_hit_percentage_is_contradicted(altered):
    altered("file_cache_status",
            set_value("value", "61.00", label="Number of cache lookup hits", component="percent"))
    assert audit.run("IP-C9").verdict == "contradicted"


def test_a_pool_that_could_not_grow_is_contradicted(altered):
    # RqThrottle equal to RqThrottleMin: the policy has no room, the check must notice.
    altered("directive_defaults", set_value("default_number", "48", setting="RqThrottle"))
    assert audit.run("IP-C8").verdict == "contradicted"


def test_arithmetic_table_separates_printed_from_implied():
    table = ip.arithmetic_table()
    assert table.loc[table["kind"] == "printed", "holds"].all()
    assert set(table["kind"]) == {"printed", "implied", "units"}
    assert not table.loc[table["kind"] == "implied", "holds"].any()
    assert not table.loc[table["kind"] == "units", "holds"].any()
    row = table.set_index("check").loc["perfdump hit ratio (%)"]
    assert (row["computed"], row["printed"]) == (48.95, 48.95)


def test_a_reconciled_deletion_count_removes_one_failure(altered):
    before = audit.run("IP-C9").values["failed"]
    altered("file_cache_status",
            set_value("value", "127405", label="Total number of cache entries deleted"))
    finding = audit.run("IP-C9")
    assert finding.verdict == "supported"
    reconciled = "outdated + replaced = total deleted"
    assert reconciled in before
    assert finding.values["failed"] == [f for f in before if f != reconciled]
