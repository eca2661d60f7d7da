"""queuetune.lab.experiments.keepalive.closing: which side closes a connection first, from
packets (made up here), and on the wire (``lab``-marked: a Tomcat of its own and tcpdump)."""

from __future__ import annotations

import psutil
import pytest

from queuetune.lab.experiments.keepalive import closing


def test_the_first_fin_and_reset_are_told_apart_by_side():
    seen = closing.first_closers([
        (1.0, 5, "server>client", "AF", 0), (1.1, 5, "client>server", "AF", 0),
        (2.0, 6, "client>server", "AF", 0), (2.1, 6, "server>client", "AR", 0),
        (3.0, 7, "client>server", "AR", 0), (3.1, 7, "server>client", "AF", 0),
        (4.0, 8, "client>server", "A", 10)])
    assert seen.to_dict("list") == {"client_port": [5, 6, 7, 8],
                                     "first_fin": ["server", "client", "server", ""],
                                     "reset_by": ["", "server", "client", ""]}
    assert closing.first_closers([]).empty


@pytest.mark.lab
@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_on_the_wire_http_ends_with_fins_and_https_with_the_clients_reset(tls):
    # Over HTTPS the client closes with the server's TLS closing alert unread, so its kernel
    # sends a reset, which leaves no TIME_WAIT: the 0 / 0 of the HTTPS runs.
    # (tcpdump's order of two FINs sent at once is one of them: both sides then hold it.)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    seen = closing.close_sequences(tls=tls, requests=6, keep_alive_requests=2)
    if seen is None:
        pytest.skip("tcpdump cannot capture here (needs root or CAP_NET_RAW)")
    assert len(seen) == 3, seen
    if tls:
        assert (seen["reset_by"] == "client").all() and (seen["time_wait"] == "").all(), seen
    else:
        assert (seen["reset_by"] == "").all() and (seen["first_fin"] != "").all(), seen
        # TIME_WAIT stays with the side that sent the first FIN (with both sides after a
        # simultaneous close), whichever side that was on each connection
        for closer, holder in zip(seen["first_fin"], seen["time_wait"], strict=True):
            assert holder in (closer, "both"), seen
    assert {p.pid for p in psutil.Process().children(recursive=True)} - before == set()
