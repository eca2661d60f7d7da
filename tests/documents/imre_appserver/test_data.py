"""imre-appserver (Imre, Bogárdi-Mészöly, Charaf): Table 1, the equations, the model's inputs."""

from __future__ import annotations

from functools import partial

import lookup
import pytest

from queuetune import data

DOC = "imre-appserver"
stated = partial(lookup.stated, DOC)


def levels(parameter: str) -> list[int]:
    table = data.load(DOC, "tuning_parameters")
    return table.loc[table["parameter"] == parameter, "value"].tolist()


def test_table_1_levels():
    assert levels("Maximum size of the thread pool") == [30, 100]
    assert levels("Maximum size of the connection queue") == [50, 200]
    assert levels("Number of emulated clients") == list(range(10, 101, 10))
    parameters = data.load(DOC, "tuning_parameters")["parameter"].unique()
    assert len(data.load(DOC, "tuning_parameters")) == sum(len(levels(p)) for p in parameters)


def test_five_numbered_equations():
    equations = data.load(DOC, "equations")
    assert equations["equation"].tolist() == [1, 2, 3, 4, 5]
    latex = dict(zip(equations["equation"], equations["latex"], strict=True))
    assert latex[2].startswith("R_{succ} =")
    assert r"(\mu Z)^k" in latex[3] and r"(\mu Z)^k" in latex[4]
    assert latex[4].startswith("p_0 =") and latex[5].startswith("N =")


def test_think_time_is_stated_twice_alike():
    assert stated("mean_think_time") == stated("think_time_Z") == "4"


def test_saturation_throughput_is_one_over_the_service_time():
    """IM-C4: 1/S = 1/0.14 s = 7.1 requests/s, the stated saturation 'around 7'."""
    assert 1 / float(stated("service_time_S")) == pytest.approx(
        float(stated("saturation_throughput")), rel=0.05)


def test_queue_200_never_fills_and_queue_50_can():
    """IM-C3: clients never exceed the 200-place queue; they exceed the 50-place one."""
    clients = levels("Number of emulated clients")
    small, large = levels("Maximum size of the connection queue")
    assert max(clients) <= large
    assert any(c > small for c in clients)
    assert int(stated("errors_when_clients_exceed")) == small


def test_figures():
    figures = data.load(DOC, "figures").set_index("figure_id")
    assert figures.index.tolist() == [f"IM-F{i}" for i in range(1, 9)]
    assert (figures.loc[["IM-F5", "IM-F6", "IM-F7", "IM-F8"], "status"] == "recomputed").all()
    assert lookup.unknown_figure_sources(DOC) == {}
