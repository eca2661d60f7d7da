"""The search page finds pages, with a summary of each, over HTTP and from file://.

Sphinx's search page reads each result's summary from the result's page with ``fetch()``,
which browsers refuse for ``file://`` URLs (a console error per result, titles only). Opened from
``file://``, the page reads the summaries from ``_static/search-pages.js`` instead (see
``book/_ext/queuetune_site.py``); served over HTTP, Sphinx's own reads are kept.
"""

from __future__ import annotations

import pytest
from site_pages import open_page, unexpected
from site_pages import served as site

pytestmark = pytest.mark.browser

QUERY = "threads"
RESULTS = "#search-results ul.search li"


@pytest.mark.parametrize("served", ["http", "file"])
def test_search_lists_pages_with_their_summaries(browser, site_url, served):
    page_url, origin = site("search.html", served, site_url)
    url = f"{page_url}?q={QUERY}"
    context, page, visit = open_page(browser, url, origin)
    try:
        page.goto(url, wait_until="load")
        page.wait_for_function(
            "() => /found/.test(document.querySelector('#search-results .search-summary')"
            "?.textContent || '')", timeout=20_000)
        page.wait_for_function(
            f"""() => {{ const items = [...document.querySelectorAll('{RESULTS}')];
                        return items.length > 0 && items.every(e => e.querySelector('p.context'));
                     }}""", timeout=20_000)
        page.wait_for_timeout(200)
        titles = page.locator(f"{RESULTS} > a").all_inner_texts()
        summaries = page.locator(f"{RESULTS} p.context").all_inner_texts()
    finally:
        context.close()
    assert len(titles) >= 3, titles
    assert len(summaries) == len(titles)
    assert all(s.strip() for s in summaries)
    assert sum(QUERY[:-1] in s.lower() for s in summaries) >= len(summaries) // 2, summaries
    assert visit.outside == [], f"the search asked another host for: {visit.outside}"
    assert unexpected(visit.console_errors) == [], visit.console_errors
