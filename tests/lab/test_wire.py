"""queuetune.lab.wire: reading tcpdump's lines into packets and numbering them by request
(the scenarios themselves need Tomcat: tests/lab/test_tomcat.py)."""

from __future__ import annotations

from queuetune.lab.wire import SCENARIOS, _packet_rows, parse_tcpdump

PORT = 18080
CAPTURE = """\
reading from file wire.pcap, link-type EN10MB (Ethernet), snapshot length 262144
1700000000.000100 IP 127.0.0.1.51074 > 127.0.0.1.18080: Flags [S], seq 1, win 65495, length 0
1700000000.000150 IP 127.0.0.1.18080 > 127.0.0.1.51074: Flags [S.], seq 9, ack 2, length 0
1700000000.000200 IP 127.0.0.1.51074 > 127.0.0.1.18080: Flags [.], ack 1, win 512, length 0
1700000000.010100 IP 127.0.0.1.51080 > 127.0.0.1.18080: Flags [S], seq 5, win 65495, length 0
1700000000.010300 IP 127.0.0.1.51074 > 127.0.0.1.18080: Flags [P.], seq 1:90, length 89
1700000000.020000 IP 127.0.0.1.18080 > 127.0.0.1.51080: Flags [R.], seq 0, ack 6, length 0
1700000001.000000 IP 127.0.0.1.18080 > 127.0.0.1.51074: Flags [F.], seq 10330, length 0
1700000001.500000 IP 127.0.0.1.40000 > 127.0.0.1.18080: Flags [.], ack 1, length 0
"""


def test_each_packet_line_gives_time_client_direction_flags_and_length():
    packets = parse_tcpdump(CAPTURE, PORT)
    assert len(packets) == 8  # the header line is not a packet
    assert packets[0] == (1700000000.0001, 51074, "client>server", "S", 0)
    assert packets[1] == (1700000000.00015, 51074, "server>client", "SA", 0)  # SYN-ACK
    assert [p[3] for p in packets[2:7]] == ["A", "S", "AP", "AR", "AF"]  # order SAPFR
    assert packets[4][4] == 89 and packets[5][1] == 51080


def test_ipv6_lines_are_read_too():
    line = ("1700000000.5 IP6 ::1.51074 > ::1.18080: Flags [S], seq 1, win 65476, "
            "options [mss 65476], length 0")
    assert parse_tcpdump(line, PORT) == [(1700000000.5, 51074, "client>server", "S", 0)]


def test_nothing_to_read_gives_no_packet():
    assert parse_tcpdump("", PORT) == []
    assert parse_tcpdump("tcpdump: no such file\n", PORT) == []


def test_packets_are_numbered_by_request_in_the_order_of_their_first_syn():
    rows = _packet_rows("executor-queue", parse_tcpdump(CAPTURE, PORT))
    # the last packet's client port sent no SYN in the capture: it is left out
    assert len(rows) == 7
    assert rows[0] == ("executor-queue", 0, 0.0, "client>server", "S", 0)
    assert [r[1] for r in rows] == [0, 0, 0, 1, 0, 1, 0]
    assert rows[5][2] == 0.0199  # seconds from the first packet, to 0.1 ms
    assert rows[6][2] == 0.9999


def test_no_capture_gives_no_rows():
    assert _packet_rows("max-connections", []) == []


def test_the_two_scenarios_set_the_limits_they_name():
    by_name = {s.name: s for s in SCENARIOS}
    assert set(by_name) == {"executor-queue", "max-connections", "executor-max-connections",
                            "back-to-back"}
    assert by_name["executor-queue"].limit == "executor"
    connector = by_name["max-connections"]
    assert (connector.limit, connector.max_connections, connector.accept_count) == (
        "connector", 1, 1)
    # more requests than one thread, one queue place and one waiting connection hold
    assert connector.requests > 1 + connector.max_connections + connector.accept_count
    # more threads than admitted connections: the connections bind, the pool never fills
    both = by_name["executor-max-connections"]
    assert both.max_connections < both.threads and both.requests > both.max_connections
    assert both.requests <= both.threads + both.queue
    # two clients back to back: never more outstanding than B = threads + queue
    back = by_name["back-to-back"]
    assert back.clients > 0 and back.seconds > 0 and back.requests == 0
    assert back.clients < back.threads + back.queue
