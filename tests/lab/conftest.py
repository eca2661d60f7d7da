"""Shared pieces of the lab's tests: a campaign written from the smoke campaign's settings."""

from __future__ import annotations

import tomllib
from pathlib import Path

import psutil
import pytest

from queuelab.lab import campaign


def smoke_settings() -> dict:
    return tomllib.loads(campaign.builtin("smoke").read_text(encoding="utf-8"))


def write_campaign(folder: Path, settings: dict, name: str = "test.toml") -> Path:
    """A campaign file from nested dictionaries (a tiny TOML writer for these tests)."""
    lines = []
    for section, table in settings.items():
        if section == "workload":
            lines.append("[workload]")
            lines += [f"{k} = {_toml(v)}" for k, v in table.items() if k != "splits"]
            for split in table["splits"]:
                lines.append("[[workload.splits]]")
                lines += [f"{k} = {_toml(v)}" for k, v in split.items()]
            continue
        lines.append(f"[{section}]")
        lines += [f"{k} = {_toml(v)}" for k, v in table.items()]
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return repr(value)


def lab_processes() -> list[str]:
    """Command lines of Tomcat JVMs and Locust processes that the lab started."""
    found = []
    for process in psutil.process_iter(["cmdline"]):
        line = " ".join(process.info["cmdline"] or [])
        if "queuelab-tomcat-" in line or "queuelab/lab/locustfile.py" in line:
            found.append(line[:200])
    return found


@pytest.fixture
def no_leftovers():
    """Fails the test if a server or generator process outlives it."""
    before = set(lab_processes())
    yield
    after = set(lab_processes()) - before
    assert not after, f"processes left running: {sorted(after)}"
