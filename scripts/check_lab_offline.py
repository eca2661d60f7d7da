"""Check that a chapter runs in a live JupyterLab with no network and draws every chart.

    .venv/bin/python scripts/check_lab_offline.py                       # domino-threads
    .venv/bin/python scripts/check_lab_offline.py notebooks/what-if.ipynb --screenshot x.png

What ``make lab`` offers a reader, checked end to end: JupyterLab from the project's
environment with ``QUEUETUNE_LIVE=1`` (so ``charts.enable()`` picks Altair's widget renderer with
its JavaScript bundled offline), a copy of the chapter with its stored outputs removed, run
top to bottom in headless Chromium (Debian's ``chromium``) with every request to a host other
than the local JupyterLab aborted and recorded. It passes when every cell ran without an error,
every chart the stored chapter holds was drawn again by the widget renderer, and the browser
asked no other host for anything. The server runs on a free port of 127.0.0.1 in a temporary
folder and is stopped at the end; the chapter itself is never touched.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
# A chart drawn by the widget renderer: a Lumino widget holding vega-embed's view, in an output
# that is not stored HTML (the html renderer's output would carry data-mime-type="text/html").
WIDGET_CHART = (".jp-OutputArea-output:not([data-mime-type='text/html']) .lm-Widget.vega-embed "
                ":is(svg.marks, canvas.marks)")
TIMEOUT_S = 300


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stored_charts(path: Path) -> int:
    """How many outputs of the stored chapter are Altair charts."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return sum("altair-viz-" in "".join(out.get("data", {}).get("text/html", []))
               for cell in cells if cell["cell_type"] == "code" for out in cell["outputs"])


def without_outputs(path: Path, target: Path) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    target.write_text(json.dumps(nb, indent=1), encoding="utf-8")


def wait_for_server(url: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - 127.0.0.1
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise SystemExit(f"JupyterLab did not answer at {url}")


def run(notebook: Path, screenshot: Path | None) -> dict:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("Debian's chromium is not installed: run `make chromium`")
    expected = stored_charts(notebook)
    port, token = free_port(), secrets.token_hex(16)
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory(prefix="queuetune-lab-") as folder:
        without_outputs(notebook, Path(folder) / notebook.name)
        env = {**os.environ, "QUEUETUNE_LIVE": "1", "JUPYTER_TOKEN": token}
        server = subprocess.Popen(
            [str(VENV_BIN / "jupyter"), "lab", "--no-browser", "--ip=127.0.0.1",
             f"--port={port}", f"--ServerApp.root_dir={folder}",
             *(["--allow-root"] if os.geteuid() == 0 else [])],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
        outside: list[str] = []
        try:
            deadline = time.monotonic() + TIMEOUT_S
            wait_for_server(f"{base}/api/status?token={token}", deadline)
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=chromium,
                                                     args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1400, "height": 1000})

                def route(r):
                    url = r.request.url
                    if url.startswith(base) or url.split(":", 1)[0] in ("data", "blob"):
                        r.continue_()
                    else:
                        outside.append(url)
                        r.abort()

                page.route("**/*", route)
                page.goto(f"{base}/lab/tree/{notebook.name}?token={token}")
                page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=120_000)
                # JupyterLab may ask which kernel to start: the notebook's own (Python 3).
                accept = page.locator(".jp-Dialog .jp-mod-accept")
                try:
                    accept.wait_for(timeout=10_000)
                    accept.click()
                except PlaywrightTimeout:
                    pass
                page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").wait_for(
                    timeout=120_000)
                page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
                page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
                page.wait_for_function(
                    r"""() => { const p = [...document.querySelectorAll(
                                 '.jp-CodeCell .jp-InputArea-prompt')].map(e => e.textContent);
                               return p.length > 0 &&
                                 p.every(t => /^\[\d+\]:$/.test(t.trim())); }""",
                    timeout=TIMEOUT_S * 1000, polling=1000)
                page.wait_for_function(
                    "([sel, n]) => document.querySelectorAll(sel).length >= n",
                    arg=[WIDGET_CHART, expected], timeout=60_000)
                drawn = page.locator(WIDGET_CHART).count()
                errors = page.locator(".jp-OutputArea-output[data-mime-type="
                                      "'application/vnd.jupyter.stderr'], .jp-RenderedText"
                                      "[data-mime-type='application/vnd.jupyter.error']").count()
                if screenshot is not None:
                    page.set_viewport_size({"width": 1400, "height": 2000})
                    output = page.locator(WIDGET_CHART).first.locator(
                        "xpath=ancestor::div[contains(@class, 'vega-embed')][1]")
                    output.scroll_into_view_if_needed()
                    page.wait_for_timeout(500)
                    screenshot.parent.mkdir(parents=True, exist_ok=True)
                    output.screenshot(path=str(screenshot))
                browser.close()
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return {"notebook": notebook.name, "charts_stored": expected, "charts_drawn": drawn,
            "error_outputs": errors, "outside_requests": outside}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebook", nargs="?", default="notebooks/domino-threads.ipynb")
    parser.add_argument("--screenshot", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run((ROOT / args.notebook).resolve(), args.screenshot)
    print(json.dumps(result, indent=1))
    ok = (result["charts_drawn"] >= result["charts_stored"] > 0 and not result["error_outputs"]
          and not result["outside_requests"])
    print("OK: every chart drawn offline in JupyterLab" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
