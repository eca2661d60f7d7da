"""queuetune.lab.experiments.keepalive.server_config: the page and the server's settings (no
server is started)."""

from __future__ import annotations

import pytest

from queuetune.lab.experiments.keepalive import server_config as server


def test_the_page_has_the_blogs_size():
    assert len(server.page_bytes(5887)) == 5887
    assert server.page_bytes(5887) == server.page_bytes(5887)
    with pytest.raises(ValueError, match="size must be at least"):
        server.page_bytes(10)


def test_server_xml_sets_the_limit_on_both_ports_and_tls_only_when_asked():
    plain = server.server_xml(server.KeepAliveSettings(keep_alive_requests=10, port=18080,
                                                       warm_port=18081))
    assert plain.count('maxKeepAliveRequests="10"') == 2
    assert 'port="18080"' in plain and 'port="18081"' in plain and "SSLHostConfig" not in plain
    tls = server.server_xml(server.KeepAliveSettings(
        keep_alive_requests=100, port=18080, warm_port=18081, tls=True,
        keystore_password="secret"))
    assert tls.count("<SSLHostConfig>") == 2 and 'type="EC"' in tls
    with pytest.raises(ValueError, match="keep_alive_requests must be between 1 and 100000"):
        server.KeepAliveSettings(keep_alive_requests=0, port=1, warm_port=2)
