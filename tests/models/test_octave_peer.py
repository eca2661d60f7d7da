"""Octave's ``queueing`` package (M. Marzolla; Debian's ``octave-queueing``) as a peer of the
models: the same networks solved by Octave's code, run here, at full precision.

``tests/models/test_mva_literature.py`` and ``test_thread_pool_server.py`` hold the values that
the books print and that the package's own test blocks assert (three to six digits); here the
two implementations must agree to a bound that their exact algorithms guarantee, on the same
literature configurations:

* ``qncsmva``, exact MVA of a closed network: Jain's central server model (p. 577; queues and
  terminals, queuetune's MVA recursion) and Bolch et al.'s example 8.4 (a two-server station and
  a delay station, queuetune's load-dependent convolution);
* ``qsmmmk``, M/M/m/K by its chain: the configurations of the package's test blocks, against
  :func:`queuetune.thread_pool` with wait-only work (m threads) and with processor-only work
  (m processors, processor sharing: the same chain of counts);
* ``ctmcbd`` and ``ctmc``, the birth-death chain of M/M/1/B/K solved as a linear system, against
  :func:`queuetune.mm1bk` on Imre et al.'s server (100 clients, a queue of 50).

Runs where ``octave-cli`` and the package are installed (``make octave``); ``make test`` requires
them (see ``tests/helpers/peers.py``).
"""

from __future__ import annotations

import numpy as np
import pytest
from peers import octave_numbers

from queuetune import Station, mm1bk, mva, thread_pool

# Both MVA codes run the same recursion in double precision over at most 20 populations: a few
# units in the last place each step. The convolution (logs of normalizing constants) and the
# linear solves of a chain of at most 51 states keep about 12 correct digits.
MVA_RTOL = 1e-12
CHAIN_RTOL = 1e-10


def _octave_vector(values) -> str:
    """A row vector in Octave's syntax, each double written with every digit (repr)."""
    return "[" + " ".join(repr(float(v)) for v in values) + "]"


def _qncsmva(population: int, service, visits, servers, think_time: float) -> np.ndarray:
    """Octave's [U; R; Q; X], one row each (per visit: R is a visit's response time, X the
    center's throughput)."""
    script = (f"[U, R, Q, X] = qncsmva({population}, {_octave_vector(service)}, "
              f"{_octave_vector(visits)}, {_octave_vector(servers)}, {think_time!r}); "
              "printf('%.17g\\n', [U; R; Q; X]);")
    return np.array(octave_numbers(script)).reshape(-1, 4).T


def test_jain_central_server_model_agrees_with_octave():
    service, visits = np.array([0.125, 0.3, 0.2]), np.array([16.0, 10.0, 5.0])
    ours = mva(20, [Station.queue(d) for d in service * visits], think_time=4.0)
    u, r, q, x = _qncsmva(20, service, visits, [1, 1, 1], 4.0)
    assert ours.algorithm == "mva"
    np.testing.assert_allclose(ours.utilization[-1], u, rtol=MVA_RTOL)
    np.testing.assert_allclose(ours.residence_time[-1] / visits, r, rtol=MVA_RTOL)
    np.testing.assert_allclose(ours.queue_length[-1], q, rtol=MVA_RTOL)
    np.testing.assert_allclose(ours.throughput[-1] * visits, x, rtol=MVA_RTOL)


def test_bolch_multiserver_and_delay_network_agrees_with_octave():
    service, visits = np.array([0.5, 0.6, 0.8, 1.0]), np.array([1.0, 0.5, 0.5, 1.0])
    servers = [2, 1, 1, 0]  # Octave: a center with fewer than one server is a delay
    stations = [Station.multiserver(0.5, 2), Station.queue(0.3), Station.queue(0.4),
                Station.delay(1.0)]
    ours = mva(3, stations)
    u, r, q, x = _qncsmva(3, service, visits, servers, 0.0)
    assert ours.algorithm == "convolution"
    np.testing.assert_allclose(ours.residence_time[-1] / visits, r, rtol=CHAIN_RTOL)
    np.testing.assert_allclose(ours.queue_length[-1], q, rtol=CHAIN_RTOL)
    np.testing.assert_allclose(ours.throughput[-1] * visits, x, rtol=CHAIN_RTOL)
    # Octave's U of a multi-server center is per server; of a delay, the traffic X S
    np.testing.assert_allclose(ours.throughput[-1] * visits * service / [2, 1, 1, 1], u,
                               rtol=CHAIN_RTOL)


# (lambda, mu, m, K): the configurations of the test blocks of Octave's inst/qsmmmk.m
QSMMMK = [(40.0, 30.0, 3, 7), (50.0, 10.0, 4, 6), (3.0, 2.0, 2, 5)]


@pytest.mark.parametrize("work", ["threads", "processors"])
@pytest.mark.parametrize("case", QSMMMK, ids=str)
def test_mmmk_agrees_with_octave(case, work):
    lam, mu, m, K = case
    u, r, q, x, p0, pk = octave_numbers(
        f"[U, R, Q, X, p0, pK] = qsmmmk({lam!r}, {mu!r}, {m}, {K}); "
        "printf('%.17g\\n', [U R Q X p0 pK]);")
    if work == "threads":
        ours = thread_pool(arrival_rate=lam, capacity=K, threads=m, cpu_time=0.0,
                           wait_time=1.0 / mu)
    else:
        ours = thread_pool(arrival_rate=lam, capacity=K, threads=None, processors=m,
                           cpu_time=1.0 / mu, wait_time=0.0)
    got = [ours.response_time, ours.mean_in_system, ours.throughput, ours.p0,
           ours.error_rate]
    np.testing.assert_allclose(got, [r, q, x, p0, pk], rtol=CHAIN_RTOL)
    assert ours.throughput / (m * mu) == pytest.approx(u, rel=CHAIN_RTOL)


@pytest.mark.parametrize("capacity", [50, 100, 150])
def test_imre_server_agrees_with_octaves_birth_death_chain(capacity):
    """Imre et al.'s server (100 clients thinking 4 s, 0.14 s of service) with a connection
    queue below, at and above the number of clients."""
    K, S, Z = 100, 0.14, 4.0
    states = min(capacity, K)
    p0, p_last, in_system = octave_numbers(
        f"K = {K}; C = {states}; b = (K - (0:C-1)) / {Z!r}; d = ones(1, C) / {S!r}; "
        "p = ctmc(ctmcbd(b, d)); printf('%.17g\\n', [p(1) p(end) sum((0:C) .* p)]);")
    ours = mm1bk(clients=K, capacity=capacity, service_time=S, think_time=Z)
    assert ours.p0 == pytest.approx(p0, rel=CHAIN_RTOL)
    assert ours.mean_in_system == pytest.approx(in_system, rel=CHAIN_RTOL)
    assert ours.throughput == pytest.approx((1 - p0) / S, rel=CHAIN_RTOL)
    if capacity <= K:
        assert ours.error_rate == pytest.approx(p_last, rel=CHAIN_RTOL)
