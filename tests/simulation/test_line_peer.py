"""LINE (``line-solver`` on PyPI) as a peer of the simulation.

LINE is not a dependency of queuetune: ``make test`` installs the version pinned in
``requirements-peers.txt`` and requires it (``tests/helpers/peers.py``). Two models LINE solves
exactly, each compared with the simulation within its intervals:

* open M/M/4 (a processor-sharing station of 4 servers, LINE's MVA): the server with no thread
  limit, no waiting phase and a capacity no request reaches;
* a closed network of 20 clients: think (a delay), 2 processors (processor sharing) and the
  wait (a delay), LINE's CTMC: the server with no thread limit and capacity >= clients,
  simulated with true processor sharing (the open case with the FCFS station of p servers).
"""

from __future__ import annotations

import pytest
from agreement import far_outside
from peers import line_solver

from queuetune.simulation import simulate_thread_pool

line = line_solver()

RUN = {"horizon": 400.0, "warmup": 40.0, "replications": 10}


def _silent():
    line.GlobalConstants.set_verbose(line.VerboseLevel.SILENT)


def _row(table, station: str):
    return table[table["Station"] == station].iloc[0]


def line_open_multiserver(arrival_rate: float, servers: int, service_time: float) -> dict:
    _silent()
    model = line.Network("open multi-server")
    source = line.Source(model, "Source")
    station = line.Queue(model, "Processors", line.SchedStrategy.PS)
    sink = line.Sink(model, "Sink")
    station.setNumberOfServers(servers)
    requests = line.OpenClass(model, "Requests")
    source.setArrival(requests, line.Exp(arrival_rate))
    station.setService(requests, line.Exp(1.0 / service_time))
    model.link(line.Network.serialRouting(source, station, sink))
    row = _row(line.MVA(model).avg_table(), "Processors")
    return {
        "throughput": float(row["Tput"]),
        "response_time": float(row["RespT"]),
        "mean_in_system": float(row["QLen"]),
        "utilization": float(row["Util"]),
    }


def line_closed_network(clients, think_time, processors, cpu_time, wait_time) -> dict:
    _silent()
    model = line.Network("closed server")
    think = line.Delay(model, "Think")
    cpu = line.Queue(model, "Processors", line.SchedStrategy.PS)
    wait = line.Delay(model, "Wait")
    cpu.setNumberOfServers(processors)
    users = line.ClosedClass(model, "Clients", clients, think)
    think.setService(users, line.Exp(1.0 / think_time))
    cpu.setService(users, line.Exp(1.0 / cpu_time))
    wait.setService(users, line.Exp(1.0 / wait_time))
    model.link(line.Network.serialRouting(think, cpu, wait))
    table = line.CTMC(model).avg_table()
    at_cpu, waiting = _row(table, "Processors"), _row(table, "Wait")
    admitted = float(at_cpu["QLen"]) + float(waiting["QLen"])
    return {
        "throughput": float(at_cpu["Tput"]),
        "response_time": float(at_cpu["RespT"]) + float(waiting["RespT"]),
        "mean_in_system": admitted,
        "busy_threads": admitted,
        "utilization": float(at_cpu["Util"]),
    }


def test_open_multiserver_against_line():
    peer = line_open_multiserver(30.0, 4, 0.1)
    result = simulate_thread_pool(arrival_rate=30.0, capacity=10**6, threads=None,
                                  processors=4, cpu_time=0.1, wait_time=0.0, seed=800, **RUN)
    assert peer["response_time"] == pytest.approx(0.150943396, rel=1e-6)  # Erlang-C by hand
    assert not far_outside(result, peer)


def test_closed_network_against_line():
    point = dict(clients=20, think_time=1.0, processors=2, cpu_time=0.1, wait_time=0.3)
    peer = line_closed_network(**point)
    result = simulate_thread_pool(**point, capacity=20, threads=None, seed=801,
                                  processor_sharing=True, **RUN)
    assert not far_outside(result, peer)
