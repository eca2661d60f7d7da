"""The settings the page writes are those of the package: ``book/_static/calculator/snippets.js``
gives the same text as :mod:`queuetune.snippets` on random numbers (every rule's branches: a
bound equal to the threads, a pool given or sized, larger or smaller than the threads, no pool,
a queue past a Java int), and the page shows, for random inputs typed into its form, the text of
the package's sizing."""

from __future__ import annotations

import math
import random

import pytest
from site_pages import open_page, unexpected
from site_pages import served as site

from queuetune import sizing, snippets

PAGE = "book/size-your-server.html"
SEED = 20261202
CASES = 300
FORM_CASES = 40


def random_numbers(n: int, seed: int) -> list[dict]:
    """Numbers over the domain of :class:`queuetune.snippets.Numbers`, every branch drawn."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        threads = max(1, round(math.exp(rng.uniform(0, math.log(10**5)))))
        extra = rng.choice([0, 0, rng.randrange(1, 1000), round(math.exp(rng.uniform(0, 30)))])
        connections = rng.choice([None, max(1, round(math.exp(rng.uniform(0, 12))))])
        out.append({"threads": threads, "capacity": threads + extra,
                    "connections": connections, "connections_given": rng.random() < 0.5,
                    "max_response_time": math.exp(rng.uniform(math.log(1e-6), math.log(3600))),
                    "keep_alive_s": rng.choice([20, rng.randrange(2, 3600)])})
    return out


def random_fields(n: int, seed: int) -> list[dict[str, str]]:
    """Form fields, as typed, for which the package has an answer."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = max(1, round(math.exp(rng.uniform(0, math.log(256)))))
        cpu = float(f"{math.exp(rng.uniform(math.log(0.5), math.log(200))):.4g}")
        wait = 0.0 if rng.random() < 0.15 else float(
            f"{math.exp(rng.uniform(0, math.log(2000))):.4g}")
        fields = {"processors": str(p), "cpu_ms": f"{cpu:g}", "wait_ms": f"{wait:g}",
                  "rate": f"{p / (cpu / 1000) * rng.uniform(0.2, 1.3):.6g}",
                  "clients": "", "think_s": "",
                  "connections": str(rng.randrange(1, 300)) if rng.random() < 0.4 else "",
                  "max_response_ms": f"{math.exp(rng.uniform(0, math.log(20000))):.5g}"
                  if rng.random() < 0.6 else ""}
        try:
            _sizing(fields)
        except ValueError:
            continue
        out.append(fields)
    return out


def _sizing(fields: dict[str, str]) -> sizing.Sizing:
    kw = {"processors": int(fields["processors"]), "cpu_time": float(fields["cpu_ms"]) / 1000,
          "wait_time": float(fields["wait_ms"]) / 1000,
          "arrival_rate": float(fields["rate"])}
    if fields["connections"]:
        kw["connections"] = int(fields["connections"])
    if fields["max_response_ms"]:
        kw["max_response_time"] = float(fields["max_response_ms"]) / 1000
    return sizing.size(**kw)


TEXTS = "cases => cases.map(n => window.QueuetuneSnippets.texts(n))"
SHOWN = """cases => cases.map(fields => {
  const form = document.getElementById('qt-calculator');
  for (const [name, value] of Object.entries(fields)) form.elements[name].value = value;
  form.elements.processors.dispatchEvent(new Event('input', {bubbles: true}));
  return Object.fromEntries([...form.querySelectorAll('[data-snippet]')].map(
    pre => [pre.dataset.snippet, pre.textContent]));
})"""


def _open(browser, site_url):
    url, origin = site(PAGE, "http", site_url)
    context, page, visit = open_page(browser, url, origin, width=1366, height=900)
    page.goto(url)
    page.wait_for_function("() => window.QueuetuneCalculator && "
                           "window.QueuetuneCalculator.updates > 0")
    return context, page, visit


@pytest.mark.browser
def test_the_page_writes_the_package_s_snippets_on_random_numbers(browser, site_url):
    cases = random_numbers(CASES, SEED)
    context, page, visit = _open(browser, site_url)
    try:
        got = page.evaluate(TEXTS, cases)
    finally:
        context.close()
    wrong = []
    for case, texts in zip(cases, got, strict=True):
        want = snippets.texts(snippets.Numbers(**case))
        assert list(texts) == list(snippets.KEYS)
        wrong += [(case, key, texts[key], want[key]) for key in want if texts[key] != want[key]]
    assert wrong == [], f"{len(wrong)} snippets differ, the first: {wrong[:1]}"
    assert unexpected(visit.console_errors) == []


@pytest.mark.browser
def test_the_page_shows_the_snippets_of_the_package_s_sizing(browser, site_url):
    cases = random_fields(FORM_CASES, SEED)
    context, page, visit = _open(browser, site_url)
    try:
        shown = page.evaluate(SHOWN, cases)
    finally:
        context.close()
    for fields, texts in zip(cases, shown, strict=True):
        assert texts == snippets.texts(snippets.from_sizing(_sizing(fields))), fields
    assert unexpected(visit.console_errors) == []
