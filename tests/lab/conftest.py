"""Fixtures of the lab's tests."""

from __future__ import annotations

import pytest
from lab_campaigns import lab_processes


@pytest.fixture
def no_leftovers():
    """Fails the test if a server or generator process outlives it."""
    before = set(lab_processes())
    yield
    after = set(lab_processes()) - before
    assert not after, f"processes left running: {sorted(after)}"


@pytest.fixture(scope="session")
def user_server_smoke(tmp_path_factory):
    """The smoke campaign run as a user runs it against a Tomcat of their own (``--target``,
    no packet capture), once for the tests that read it: ``(folder, url, refusals)``, with
    ``refusals`` the messages of the two attempts refused first (no secret, a wrong one).
    Fails if a server or generator process outlives it."""
    from queuetune.lab import campaign, runner, tomcat
    from queuetune.lab.experiments.imre import experiment

    before = set(lab_processes())
    out = tmp_path_factory.mktemp("user-server")
    plan = campaign.load(campaign.builtin("smoke"))
    settings = tomcat.ServerSettings(threads=2, queue=1, port=tomcat.free_port(),
                                     heap_mb=128, cores=(1,))
    secret = experiment.new_secret()
    refusals = []
    with tomcat.Tomcat(settings, pages={"work.jsp": experiment.page(secret)},
                       ready_headers={experiment.SECRET_HEADER: secret}) as server:
        for wrong in (None, "wrong"):
            try:
                runner.run_campaign(plan, runner.Options(
                    out_root=out, target=server.url, secret=wrong, progress=False))
            except ValueError as refused:
                refusals.append(str(refused))
        folder = runner.run_campaign(plan, runner.Options(
            out_root=out, target=server.url, secret=secret, wire=False, progress=False))
    left = set(lab_processes()) - before
    assert not left, f"processes left running: {sorted(left)}"
    return folder, server.url, refusals
