"""Fixtures for the built-site tests: the site served on 127.0.0.1, a headless Chromium, and
the record of one visit per page and screen (see ``site_pages.record_visit``); the table of
page weights written once the whole run has weighed its pages, whichever worker weighed each."""

from __future__ import annotations

import csv
import fcntl
import functools
import pickle
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from site_pages import (
    CHROMIUM_ARGS,
    PAGE_WEIGHTS,
    SITE,
    VisitFailed,
    record_visit,
    site_pages,
)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - signature fixed by the base class
        pass


@pytest.fixture(scope="session")
def site_url():
    site_pages()  # fail early, with the reason, when the book is not built
    handler = functools.partial(_QuietHandler, directory=str(SITE))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    if executable is None:
        raise RuntimeError("Debian's chromium is not installed: run `make chromium`")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def visited(browser, site_url, tmp_path_factory, pytestconfig):
    """``visited(rel, screen)``: the record of the page ``rel`` visited on ``screen``, made once in
    the run by the first test that asks for it, whichever worker runs it, and read by the others.

    The records are kept in the run's temporary folder, which the pytest-xdist workers share
    (each worker's own is a folder in it); a lock per page and screen makes a worker that asks
    while another is visiting wait for that visit rather than make its own. (pytest-xdist's
    ``--dist loadgroup`` would send a page's tests to one worker instead, but with pytest 9.2 and
    pytest-xdist 3.8 it groups nothing: it marks a group in the node id, which pytest's
    structured ids no longer take; pytest-xdist issue 1386.)"""
    base = tmp_path_factory.getbasetemp()
    store = (base.parent if hasattr(pytestconfig, "workerinput") else base) / "page-visits"
    store.mkdir(exist_ok=True)
    read: dict[tuple[str, str], object] = {}

    def visit(rel: str, screen):
        key = (rel, screen.name)
        if key not in read:
            name = f"{rel.replace('/', '__')}@{screen.name}"
            done = store / f"{name}.pickle"
            with (store / f"{name}.lock").open("w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                if not done.exists():
                    try:
                        record = record_visit(browser, site_url, rel, screen)
                    except Exception as error:
                        record = VisitFailed(f"the visit of {rel} on the {screen.name} screen "
                                             f"failed: {type(error).__name__}: {error}")
                        _write(done, record)
                        raise
                    _write(done, record)
                # Written by this run's tests only, in a folder of this run.
                read[key] = pickle.loads(done.read_bytes())  # noqa: S301
        if isinstance(read[key], VisitFailed):
            raise read[key]
        return read[key]

    return visit


def _write(path, record) -> None:
    part = path.with_suffix(".part")
    part.write_bytes(pickle.dumps(record))
    part.replace(path)


# The rows of page_weights.csv, by page: test_weight gives each as its report's user property
# "page_weight", which pytest-xdist carries from the worker to the controlling process.
_WEIGHT_ROWS: dict[str, dict] = {}


def pytest_runtest_logreport(report):
    for name, value in report.user_properties:
        if name == "page_weight":
            _WEIGHT_ROWS[value["page"]] = value


def pytest_sessionfinish(session):
    if hasattr(session.config, "workerinput") or not _WEIGHT_ROWS:
        return  # a worker: the controlling process writes the table
    PAGE_WEIGHTS.parent.mkdir(parents=True, exist_ok=True)
    rows = [_WEIGHT_ROWS[page] for page in sorted(_WEIGHT_ROWS)]
    with PAGE_WEIGHTS.open("w", newline="", encoding="utf-8") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
