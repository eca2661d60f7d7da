"""The settings to copy (``queuetune.snippets``): valid for the versions they name, on any
numbers of the sizing's domain. The real Tomcat reads them back in
``tests/lab/test_snippets_tomcat.py``; the page's twin is held to this module in
``tests/site/test_snippets.py``."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from queuetune import sizing, snippets

numbers = st.builds(
    lambda t, extra, c, given_, r, k: snippets.Numbers(
        threads=t, capacity=t + extra, connections=c, connections_given=given_,
        max_response_time=r, keep_alive_s=k),
    st.integers(1, 10**5), st.one_of(st.just(0), st.integers(0, 10**12)),
    st.one_of(st.none(), st.integers(1, 10**5)), st.booleans(),
    st.floats(1e-6, 3.6e3), st.integers(2, 3600))


def _properties(text: str) -> dict[str, str]:
    """A properties file as Spring Boot reads it: '#' starts a comment only at a line's
    start, so a value never carries one."""
    pairs = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, value = line.split("=", 1)
        assert re.fullmatch(r"[a-zA-Z0-9.-]+", key) and re.fullmatch(r"[0-9a-z]+", value), line
        pairs[key] = value
    return pairs


def _attr(text: str, name: str) -> int:
    return int(re.search(rf'\b{name}="([0-9]+)"', text).group(1))


@given(numbers)
def test_every_tomcat_and_spring_value_is_valid(n):
    t = snippets.texts(n)
    queue = _attr(t["tomcat"], "maxQueueSize")
    assert 1 <= queue <= snippets.JAVA_INT_MAX
    assert _attr(t["tomcat"], "maxThreads") == n.threads
    assert queue == min(snippets.JAVA_INT_MAX, max(1, n.capacity - n.threads))
    assert _attr(t["tomcat"], "maxConnections") <= snippets.JAVA_INT_MAX
    props = _properties(t["spring"])
    assert int(props["server.tomcat.threads.max-queue-capacity"]) == queue
    assert int(props["server.tomcat.threads.max"]) == n.threads
    assert props["server.tomcat.keep-alive-timeout"] == f"{n.keep_alive_s}s"
    _properties(t["virtual_spring"])
    _properties(t["hikari"])


@given(numbers)
def test_the_proxy_gives_up_on_an_idle_connection_before_tomcat(n):
    t = snippets.texts(n)
    nginx_idle = int(re.search(r"keepalive_timeout ([0-9]+)s;", t["nginx"]).group(1))
    tomcat_ms = _attr(t["tomcat"], "keepAliveTimeout")
    assert 1 <= nginx_idle and 1000 * nginx_idle < tomcat_ms == 1000 * n.keep_alive_s
    assert _attr(t["virtual_tomcat"], "keepAliveTimeout") == tomcat_ms


@given(numbers)
def test_no_pool_larger_than_the_threads_unless_given_and_then_a_warning(n):
    t = snippets.texts(n)
    props = _properties(t["spring"])
    pool = props.get("spring.datasource.hikari.maximum-pool-size")
    assert (pool is None) == (n.connections is None)
    if pool is None:
        return
    larger = n.connections > n.threads
    if n.connections_given:
        assert int(pool) == n.connections
        assert ("# warning: your pool" in t["spring"]) == larger
        assert ("# warning: your pool" in t["hikari"]) == larger
    else:
        assert int(pool) == min(n.connections, n.threads)
        assert "warning" not in t["spring"]


@pytest.mark.parametrize(("key", "lines"), [
    ("spring", {"server.tomcat.threads.max": "2.3.0",
                "server.tomcat.threads.max-queue-capacity": "3.3.0",
                "server.tomcat.max-connections": "1.5",
                "server.tomcat.accept-count": "1.5",
                "server.tomcat.keep-alive-timeout": "2.5.0",
                "spring.datasource.hikari.maximum-pool-size": "2.0.0"}),
    ("virtual_spring", {"spring.threads.virtual.enabled": "3.2.0",
                        "server.tomcat.max-connections": "1.5"}),
])
def test_each_spring_property_names_its_first_version_on_the_line_above(key, lines):
    text = snippets.texts(snippets.Numbers(threads=4, capacity=9, connections=3,
                                           max_response_time=1.0))[key]
    rows = text.splitlines()
    for prop, version in lines.items():
        at = next(i for i, row in enumerate(rows) if row.startswith(prop + "="))
        assert rows[at - 1].startswith("#") and f"Spring Boot {version}" in rows[at - 1], (
            prop, rows[at - 1])


def test_a_bound_equal_to_the_threads_gets_a_queue_of_one_with_the_reason():
    t = snippets.texts(snippets.Numbers(threads=48, capacity=48, connections=19,
                                        max_response_time=0.5))
    assert 'maxQueueSize="1"' in t["tomcat"] and "0 fails at start" in t["tomcat"]
    assert "server.tomcat.threads.max-queue-capacity=1" in t["spring"]
    assert "B = 49 admitted" in t["spring"]


def test_the_virtual_thread_variant_is_bounded_by_max_connections_only():
    t = snippets.texts(snippets.Numbers(threads=77, capacity=759, connections=65,
                                        max_response_time=2.4))["virtual_tomcat"]
    assert "maxThreads=" not in t and "maxQueueSize=" not in t and "executor=" not in t
    assert 'useVirtualThreads="true"' in t and 'maxConnections="759"' in t
    assert "only bound left" in t and "not requests" in t


def test_the_numbers_of_a_sizing():
    s = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300,
                    connections=500)
    n = snippets.from_sizing(s)
    assert (n.threads, n.capacity, n.connections, n.connections_given) == (
        s.threads, s.capacity, 500, True)
    assert n.max_response_time == s.max_response_time


@pytest.mark.parametrize(("fields", "message"), [
    ({"threads": 0}, "threads must be a whole number >= 1"),
    ({"threads": 2.5}, "threads must be a whole number >= 1"),
    ({"capacity": 3}, r"capacity must be at least threads \(4\)"),
    ({"connections": 0}, "connections must be a whole number >= 1 or None"),
    ({"max_response_time": float("nan")}, "max_response_time must be a number > 0"),
    ({"keep_alive_s": True}, "keep_alive_s must be a whole number >= 1"),
])
def test_bad_numbers_are_refused_by_name(fields, message):
    kw = {"threads": 4, "capacity": 9, "connections": 3, "max_response_time": 1.0, **fields}
    with pytest.raises(ValueError, match=message):
        snippets.Numbers(**kw)


def test_a_keep_alive_of_one_second_leaves_the_proxy_no_shorter_timeout():
    with pytest.raises(ValueError, match="keep_alive_s must be at least 2 s"):
        snippets.texts(snippets.Numbers(threads=4, capacity=9, connections=3,
                                        max_response_time=1.0, keep_alive_s=1))
