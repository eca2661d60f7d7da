"""The Imre experiment's test page: safe to deploy (a secret per deployment; without it, 403
before any parameter is read), and the webapp command that writes it."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from queuetune.lab import tomcat
from queuetune.lab.experiments.imre import experiment


def _webapp(folder) -> tuple[str, str]:
    result = subprocess.run([sys.executable, "-m", "queuetune.lab", "webapp", str(folder)],
                            capture_output=True, text=True, timeout=60, check=True)
    secret = re.search(r"secret: (\S+)", result.stdout).group(1)
    return secret, (folder / "work.jsp").read_text(encoding="utf-8")


def test_each_deployment_gets_a_new_secret_written_into_the_page(tmp_path):
    first, page = _webapp(tmp_path / "a")
    second, other = _webapp(tmp_path / "b")
    assert first != second and len(first) >= 32
    assert f'"{first}"' in page and f'"{second}"' in other
    assert "@QUEUETUNE_SECRET@" not in page
    # the page says to remove it, and where Locust's distributed port belongs
    assert "Remove the page" in page and "trusted network only" in page


def test_the_webapp_help_says_to_remove_the_page_and_keep_locusts_port_private():
    result = subprocess.run([sys.executable, "-m", "queuetune.lab", "webapp", "--help"],
                            capture_output=True, text=True, timeout=60, check=True)
    text = " ".join(result.stdout.split())
    assert "Remove the page from your server when you have measured" in text
    assert "trusted network only" in text


@pytest.mark.parametrize("secret", ["", "with space", "semi;colon", "é"])
def test_a_secret_that_could_break_the_page_is_refused(secret):
    with pytest.raises(ValueError, match="secret must be"):
        experiment.page(secret)


def _status(url: str, headers: dict[str, str]) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=30) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.mark.lab
def test_only_requests_with_the_secret_do_any_work(no_leftovers):
    secret = experiment.new_secret()
    header = {experiment.SECRET_HEADER: secret}
    settings = tomcat.ServerSettings(threads=2, queue=2, port=tomcat.free_port(), cores=(1,))
    with tomcat.Tomcat(settings, pages={"work.jsp": experiment.page(secret)},
                       ready_headers=header) as server:
        page = f"{server.url}{tomcat.APP_PAGE}"
        assert _status(f"{page}?work=0&sleep_us=0", header) == 200
        # without the secret, or with another, 403 before any parameter is read: a
        # malformed parameter would otherwise fail the page (500), a huge one hold a thread
        for headers in ({}, {experiment.SECRET_HEADER: "not-the-secret"}):
            assert _status(f"{page}?work=not-a-number", headers) == 403
            assert _status(f"{page}?work=100000000000&sleep_us=600000000", headers) == 403
        assert _status(f"{page}?work=not-a-number", header) == 500
        counters = server.settle()
    assert counters.rejected == 0


def test_the_readme_says_what_is_pinned_and_that_the_runner_is_not():
    from queuetune.lab import datasets

    package = datasets.package(datasets.datasets("imre")[-1])
    lines = [line for line in experiment.readme_lines(package) if "Pinning" in line]
    cores = package["measurement"]["pinning"]
    assert lines == [f"- Pinning (taskset): server on cores {cores['server_cores']}, generator "
                     f"on cores {cores['generator_cores']}; the runner's own process (its "
                     f"processor monitor and the clients' bookkeeping) is not pinned"]


def test_the_pages_carry_the_request_bounds():
    from queuetune.lab.experiments.today import experiment as today

    for page in (experiment.page("s"), today.page("s", connections=3)):
        text = page.decode()
        assert "@QUEUETUNE_" not in text
        assert f"MAX_CPU_NS = {tomcat.MAX_CPU_MS}L * 1_000_000L" in text
        assert f"MAX_WAIT_US = {tomcat.MAX_WAIT_MS}L * 1_000L" in text
        assert f"MAX_HOLD_MS = {tomcat.MAX_HOLD_MS}L" in text


def _answer(url: str, headers: dict[str, str]) -> tuple[int, str | None]:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers),
                                    timeout=60) as answer:
            answer.read()
            return answer.status, answer.headers.get("X-Queuetune-Stopped")
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("X-Queuetune-Stopped")


@pytest.mark.lab
def test_a_request_past_the_pages_bounds_is_refused_or_stopped(no_leftovers):
    """With the secret: a wait above MAX_WAIT_MS is refused before any work; 10^11
    iterations (about 15 min of processor time) stop once the thread has used MAX_CPU_MS; and
    a request whose client's timeout (the deadline header) has passed stops, in the
    arithmetic and in the wait alike, where it would otherwise run for minutes."""
    secret = experiment.new_secret()
    header = {experiment.SECRET_HEADER: secret}
    settings = tomcat.ServerSettings(threads=2, queue=2, port=tomcat.free_port(), cores=(1,))
    with tomcat.Tomcat(settings, pages={"work.jsp": experiment.page(secret)},
                       ready_headers=header) as server:
        page = f"{server.url}{tomcat.APP_PAGE}"
        too_long = tomcat.MAX_WAIT_MS * 1000 + 1
        assert _answer(f"{page}?work=0&sleep_us={too_long}", header) == (500, None)
        huge = f"{page}?work=100000000000&sleep_us=0"
        assert _answer(huge, header) == (503, "processor-time")
        soon = {**header, tomcat.DEADLINE_HEADER: "200"}
        assert _answer(huge, soon) == (503, "deadline")
        assert _answer(f"{page}?work=0&sleep_us={tomcat.MAX_WAIT_MS * 1000}", soon) == (
            503, "deadline")
        assert _answer(f"{page}?work=1000&sleep_us=1000", soon) == (200, None)
