"""domino-keepalive (Nashed 2023): the four tests and the internal consistency check DK-C2."""

from __future__ import annotations

import pandas as pd
import pytest

from queuetune import data

DOC = "domino-keepalive"


def load_setting(name: str) -> int:
    settings = data.load(DOC, "load_settings").set_index("setting")
    return int(settings.loc[name, "value"])


def test_the_results_are_the_four_tests():
    results = data.load(DOC, "persistent_connection_results")
    assert results["test"].tolist() == ["5 requests per connection", "10 requests per connection",
                                         "100 requests per connection", "TLS connection"]
    assert results["requests_per_connection"].tolist()[:3] == [5, 10, 100]
    assert pd.isna(results["requests_per_connection"].iloc[3])


def test_load_settings():
    settings = data.load(DOC, "load_settings")
    assert settings["setting"].tolist() == ["Threads", "Requests per thread", "Total Transfer",
                                            "Data/Req"]
    assert settings["unit"].fillna("").tolist() == ["", "", "MB", "bytes"]


def test_total_transfer_is_threads_times_requests_times_size_in_mebibytes():
    """DK-C2: 10 x 1000 x 5887 bytes = 58.87e6 bytes = 56.1 MiB, printed '56 MB'."""
    total = load_setting("Threads") * load_setting("Requests per thread") * load_setting("Data/Req")
    assert round(total / 2**20) == load_setting("Total Transfer")
    assert round(total / 1e6) != load_setting("Total Transfer")  # not decimal megabytes


def test_littles_law_gives_about_the_ten_client_threads():
    """DK-C2: N = X R with X = all requests / run time should not exceed the 10 threads."""
    requests = load_setting("Threads") * load_setting("Requests per thread")
    results = data.load(DOC, "persistent_connection_results")
    for row in results.itertuples():
        throughput = requests / row.total_run_time_s
        in_flight = throughput * row.average_request_time_ms / 1000
        assert 8.5 <= in_flight <= load_setting("Threads"), (row.test, in_flight)
        # each thread runs its requests one after another
        assert row.total_run_time_s * 1000 >= load_setting("Requests per thread") * \
            row.average_request_time_ms


def test_more_requests_per_connection_is_faster():
    results = data.load(DOC, "persistent_connection_results").dropna()
    assert results["average_request_time_ms"].is_monotonic_decreasing
    assert results["total_run_time_s"].is_monotonic_decreasing


def test_default_and_recommended_settings():
    stated = data.load(DOC, "stated_values").set_index("quantity")["value"]
    settings = data.load(DOC, "server_settings").set_index("setting")["value"]
    assert stated["default_requests_per_connection"] == "5"
    assert stated["documented_default_requests_per_connection"] == "5"
    assert int(stated["recommended_min_requests_per_connection"]) == pytest.approx(40)
    assert settings["Maximum requests per persistent connection"] == "100"
    assert settings["HTTP persistent connection"] == "Enabled"


def test_figure_list():
    figures = data.load(DOC, "figures")
    assert figures["figure_id"].tolist() == ["DK-F2"]
    assert figures["stated_in_text"].tolist() == ["persistent_connection_results"]
