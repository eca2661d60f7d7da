"""LINE (``line-solver`` on PyPI, the Python edition of the LINE solver; not a dependency of
queuetune: ``make test`` installs it from ``requirements-peers.txt`` and requires it, see
``tests/helpers/peers.py``) as a peer of the general server.

Without a thread limit and with room for every request, the server is a product-form network:
a processor-sharing station of p servers and a first-come first-served station of C
connections, fed by an open Poisson stream or by K clients behind a think-time delay. LINE's
exact MVA solves it; queuetune's exact chain (truncated at a capacity the load never reaches)
and its flow-equivalent server must give the same answers."""

from __future__ import annotations

import pytest
from peers import line_solver

from queuetune import thread_pool

line = line_solver()

CPU, WAIT, P, C = 0.04, 0.2, 4, 16


def _line_times(model, stations) -> tuple[float, float]:
    """(sum of the stations' mean response times, throughput) of LINE's exact MVA (its
    default method for closed multi-server stations is an approximation)."""
    solver = line.SolverMVA(model, method="exact")
    table = solver.getAvgTable()
    rows = table[table["Station"].isin(stations)]
    return float(rows["RespT"].sum()), float(rows["Tput"].iloc[0])


def _stations(model):
    cpu = line.Queue(model, "CPU", line.SchedStrategy.PS)
    cpu.setNumberOfServers(P)
    db = line.Queue(model, "DB", line.SchedStrategy.FCFS)
    db.setNumberOfServers(C)
    return cpu, db


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_open_server_without_limits_agrees_with_line(method):
    lam = 50.0
    model = line.Network("open")
    source = line.Source(model, "Source")
    cpu, db = _stations(model)
    sink = line.Sink(model, "Sink")
    job = line.OpenClass(model, "Requests")
    source.setArrival(job, line.Exp(lam))
    cpu.setService(job, line.Exp(1 / CPU))
    db.setService(job, line.Exp(1 / WAIT))
    model.link(line.Network.serialRouting(source, cpu, db, sink))
    response, throughput = _line_times(model, ["CPU", "DB"])
    ours = thread_pool(arrival_rate=lam, capacity=300, threads=None, processors=P,
                       connections=C, cpu_time=CPU, wait_time=WAIT, method=method)
    assert ours.response_time == pytest.approx(response, rel=1e-4)
    assert ours.throughput == pytest.approx(throughput, rel=1e-6)


@pytest.mark.parametrize("method", ["exact", "fes"])
def test_closed_server_without_limits_agrees_with_line(method):
    K, Z = 40, 0.5
    model = line.Network("closed")
    think = line.Delay(model, "Think")
    cpu, db = _stations(model)
    job = line.ClosedClass(model, "Requests", K, think)
    think.setService(job, line.Exp(1 / Z))
    cpu.setService(job, line.Exp(1 / CPU))
    db.setService(job, line.Exp(1 / WAIT))
    model.link(line.Network.serialRouting(think, cpu, db))
    response, throughput = _line_times(model, ["CPU", "DB"])
    ours = thread_pool(clients=K, think_time=Z, capacity=K, threads=None, processors=P,
                       connections=C, cpu_time=CPU, wait_time=WAIT, method=method)
    assert ours.response_time == pytest.approx(response, rel=1e-4)  # LINE prints 5 digits
    assert ours.throughput == pytest.approx(throughput, rel=1e-4)
