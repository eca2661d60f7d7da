"""One vocabulary and one story on the pages that tell a reader how to set a server: the
calculator's page, the practical chapter and the settings page (and the calculator's form, the
settings it writes and the command line's text).

* $B$ is the **admitted requests** (running on a thread or waiting for one), never a
  "connection queue", which a Tomcat engineer reads as ``acceptCount``.
* ``maxConnections`` has one piece of advice, stated in the same words on every page
  (:data:`STATEMENTS`): it bounds connections, idle keep-alive ones included, and refuses
  none; with platform threads the Executor bounds $B$; with virtual threads it is the only
  bound left.
* The threads' rule says "unlimited threads", never an "unlimited pool" (a pool is the
  database's).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from queuetune import sizing, snippets
from queuetune.__main__ import _text

ROOT = Path(__file__).resolve().parents[2]
CALCULATOR = ROOT / "book" / "size-your-server.md"
PRACTICAL = ROOT / "notebooks" / "practical.md"
SETTINGS = ROOT / "book" / "settings.md"
FORM = ROOT / "book" / "_static" / "calculator" / "form.html"
PAGES = (CALCULATOR, PRACTICAL, SETTINGS)

#: Statements each page must hold word for word (white space and list indentation aside).
STATEMENTS = {
    "maxConnections": (
        "`maxConnections` bounds connections, not requests: it counts idle keep-alive "
        "connections too, and a connection over it is not refused but waits in the kernel's "
        "backlog. With platform threads, keep it large and bound the admitted requests with "
        "the `Executor`: $B$ = `maxThreads` + `maxQueueSize`."),
    "virtual threads": (
        "With virtual threads there is no `maxThreads` and no `maxQueueSize`: "
        "`maxConnections` is the only bound Tomcat has left, a bound on connections, not "
        "requests, which refuses none; to refuse the requests beyond $B$, limit them in front "
        "of the server."),
}
#: Statements of the sizing's rules, on the pages that state the rules.
RULES = {"unlimited threads": "of unlimited threads"}
RULE_PAGES = (CALCULATOR, PRACTICAL)

#: Words that must not appear: B called a connection queue, the threads called a pool, and the
#: advice the one story replaces.
FORBIDDEN = (
    "connection queue",
    "unlimited pool",
    "limit inside B",
    "limit inside $B$",
    "never with `maxConnections`",
    "bound $B$ another way",
    "bounded elsewhere (Tomcat's `maxConnections`",
)


def _flat(text: str) -> str:
    """The text with each run of white space (line breaks, list indentation) as one space."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
@pytest.mark.parametrize("key", sorted(STATEMENTS))
def test_every_page_states_the_same_advice_word_for_word(page, key):
    assert _flat(STATEMENTS[key]) in _flat(page.read_text(encoding="utf-8")), (
        f"{page.name} does not state the {key} advice as {STATEMENTS[key]!r}")


@pytest.mark.parametrize("page", RULE_PAGES, ids=lambda p: p.name)
@pytest.mark.parametrize("key", sorted(RULES))
def test_the_rules_say_unlimited_threads(page, key):
    assert RULES[key] in _flat(page.read_text(encoding="utf-8")), (page.name, key)


def _texts() -> dict[str, str]:
    pages = {p.name: p.read_text(encoding="utf-8") for p in (*PAGES, FORM)}
    result = sizing.size(processors=18, cpu_time=0.04, wait_time=0.2, arrival_rate=300)
    pages["python -m queuetune size"] = _text(result)
    for key, text in snippets.texts(snippets.from_sizing(result)).items():
        pages[f"snippet {key}"] = text
    return pages


@pytest.mark.parametrize("phrase", FORBIDDEN)
def test_no_page_uses_the_words_the_story_replaced(phrase):
    found = [name for name, text in _texts().items()
             if phrase.lower() in _flat(text).lower()]
    assert found == [], f"{phrase!r} is on {found}"


def test_b_is_called_admitted_requests_on_every_page_and_in_the_form():
    for name, text in _texts().items():
        if name.startswith("snippet") and name not in ("snippet tomcat", "snippet spring"):
            continue
        assert "admitted" in text.lower(), name
