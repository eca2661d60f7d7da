"""queuetune.mva against textbook examples, with the values the books print.

The same cases are asserted by the test blocks of the Octave ``queueing`` package
(M. Marzolla, ``inst/qncsmva.m``, ``inst/qncsmvald.m``): Jain, *The Art of Computer Systems
Performance Analysis* (Wiley, 1991), example on p. 577; Bolch, Greiner, de Meer & Trivedi,
*Queueing Networks and Markov Chains* (2nd ed., Wiley, 2006), examples 8.4 (p. 333) and 8.7
(p. 349). The books print three decimals, so the tolerance is 1e-3.

Octave gives per-visit values of each station; queuetune gives each station's residence time
and queue length per passage through the system and the system throughput, so the per-visit
values are ``residence_time / V`` and ``X * V``.
"""

from __future__ import annotations

import numpy as np
import pytest

from queuetune import Station, mva

PRINTED = 1e-3


def test_jain_central_server_model_with_terminals():
    """Jain, p. 577: a CPU and two disks, 20 terminals thinking 4 s.

    Service times 0.125, 0.3 and 0.2 s, visits 16, 10 and 5 per interaction.
    """
    service, visits = np.array([0.125, 0.3, 0.2]), np.array([16, 10, 5])
    result = mva(20, [Station.queue(d) for d in service * visits], think_time=4)
    per_visit_r = result.residence_time[-1] / visits
    np.testing.assert_allclose(per_visit_r, [0.373, 4.854, 0.300], atol=PRINTED)
    np.testing.assert_allclose(result.queue_length[-1], [1.991, 16.177, 0.500], atol=PRINTED)
    # Little's law at every station
    np.testing.assert_allclose(result.queue_length[-1],
                               result.throughput[-1] * result.residence_time[-1], rtol=1e-12)


def test_bolch_example_8_4_multiserver_and_delay_stations():
    """Bolch et al., example 8.4: three jobs; a two-server station (0.5 s, one visit), two
    single servers (0.6 s and 0.8 s, half a visit each) and an infinite server (1 s)."""
    visits = np.array([1, 0.5, 0.5, 1])
    stations = [Station.multiserver(0.5 * 1, 2), Station.queue(0.6 * 0.5),
                Station.queue(0.8 * 0.5), Station.delay(1.0 * 1)]
    result = mva(3, stations)
    np.testing.assert_allclose(result.queue_length[-1], [0.624, 0.473, 0.686, 1.217],
                               atol=PRINTED)
    np.testing.assert_allclose(result.throughput[-1] * visits, [1.218, 0.609, 0.609, 1.218],
                               atol=PRINTED)


def test_bolch_example_8_7_the_same_network_with_load_dependent_rates():
    """Bolch et al., example 8.7: example 8.4 given as service rates per number of jobs
    (2, 4, 4; 1.667; 1.25; 1, 2, 3) and solved by load-dependent MVA."""
    visits = np.array([1, 0.5, 0.5, 1])
    rates = [np.array([2, 4, 4]), np.array([1.667] * 3), np.array([1.25] * 3),
             np.array([1, 2, 3])]
    stations = [Station.load_dependent(v / r[0], r / r[0])
                for v, r in zip(visits, rates, strict=True)]
    result = mva(3, stations)
    assert result.algorithm == "convolution"
    np.testing.assert_allclose(result.queue_length[-1], [0.624, 0.473, 0.686, 1.217],
                               atol=PRINTED)
    np.testing.assert_allclose(result.residence_time[-1] / visits, [0.512, 0.776, 1.127, 1],
                               atol=PRINTED)


@pytest.mark.parametrize("shift", [0.01, -0.01])
def test_a_changed_service_time_misses_the_printed_values(shift):
    """The tolerance is tight enough to tell a different network apart."""
    service, visits = np.array([0.125 + shift, 0.3, 0.2]), np.array([16, 10, 5])
    result = mva(20, [Station.queue(d) for d in service * visits], think_time=4)
    assert not np.allclose(result.queue_length[-1], [1.991, 16.177, 0.500], atol=PRINTED)
