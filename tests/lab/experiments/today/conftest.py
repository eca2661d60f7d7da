"""The smoke campaign of today's experiment, run once for every test that reads it."""

from __future__ import annotations

import psutil
import pytest

from queuetune.lab import campaign, runner


def _children() -> set[int]:
    return {p.pid for p in psutil.Process().children(recursive=True)}


@pytest.fixture(scope="session")
def smoke(tmp_path_factory):
    before = _children()
    plan = campaign.load(campaign.builtin("today-smoke"))
    folder = runner.run_campaign(plan, runner.Options(out_root=tmp_path_factory.mktemp("lab"),
                                                      progress=False))
    assert _children() - before == set(), "Tomcat or Locust was left running"
    return plan, folder
