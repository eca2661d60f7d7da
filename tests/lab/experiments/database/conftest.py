"""The database experiment's smoke campaign, run once for every test that reads it."""

from __future__ import annotations

import pytest
from lab_database import lab_children

from queuetune.lab import campaign, runner


@pytest.fixture(scope="session")
def database_smoke(tmp_path_factory):
    before = lab_children()
    plan = campaign.load(campaign.builtin("database-smoke"))
    folder = runner.run_campaign(plan, runner.Options(out_root=tmp_path_factory.mktemp("lab"),
                                                      progress=False))
    assert lab_children() - before == set(), "PostgreSQL, Tomcat or Locust was left running"
    return plan, folder
