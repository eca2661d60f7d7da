"""The workshop page's command for serving the site to phones works as the page says: run with
an address of this machine, it serves the site's pages at that address, and only there (not on
127.0.0.1). The command is read from ``book/workshop.md`` itself.

The test binds 127.0.0.2, a second address of the loopback interface, in place of a classroom
network's address: tests of this project send traffic to the loopback range only."""

from __future__ import annotations

import re
import shlex
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from site_pages import SITE

PAGE = Path(__file__).resolve().parents[2] / "book" / "workshop.md"
EXAMPLE_ADDRESS = "192.168.1.23"


def serve_command() -> list[str]:
    """The page's command, as a list of words (the example address and port kept)."""
    text = PAGE.read_text(encoding="utf-8")
    line = re.search(r"^python3 -m http\.server .*$", text, re.MULTILINE)
    assert line, "book/workshop.md gives no `python3 -m http.server` command"
    return shlex.split(line.group(0).split("#", 1)[0])


#: Stands for the laptop's address on the classroom network (see the module's docstring).
ADDRESS = "127.0.0.2"


def free_port(address: str) -> int:
    with socket.socket() as sock:
        sock.bind((address, 0))
        return sock.getsockname()[1]


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=5) as response:  # noqa: S310 - local addresses
        return response.read()


def test_the_command_binds_one_address_and_serves_the_site_folder():
    words = serve_command()
    assert words[:3] == ["python3", "-m", "http.server"]
    assert words[words.index("--bind") + 1] == EXAMPLE_ADDRESS
    assert words[words.index("--directory") + 1] == "site"


def test_the_command_serves_the_site_at_that_address_only(tmp_path):
    address = ADDRESS
    words = serve_command()
    words[0] = sys.executable
    words[words.index("--bind") + 1] = address
    port = free_port(address)
    words[-1] = str(port)
    (tmp_path / "site").symlink_to(SITE, target_is_directory=True)  # the kit's layout
    server = subprocess.Popen(words, cwd=tmp_path, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        page = None
        for _ in range(50):
            try:
                page = fetch(f"http://{address}:{port}/book/workshop.html")
                break
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        assert page is not None and b"Run a workshop" in page
        with pytest.raises((urllib.error.URLError, ConnectionError)):
            fetch(f"http://127.0.0.1:{port}/book/workshop.html")
    finally:
        server.terminate()
        server.wait(timeout=10)
