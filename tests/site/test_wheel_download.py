"""The site offers the package's wheel: the install page links ``downloads/<wheel>``, the build
put that file there (``book/_ext/wheel_download.py``), and it is the ``queuetune`` wheel of this
version, with its ``notebooks`` extra and its data, served like any file of the site."""

from __future__ import annotations

import urllib.request
import zipfile
from html.parser import HTMLParser
from urllib.parse import urljoin

from site_pages import SITE

import queuetune

WHEEL = f"queuetune-{queuetune.__version__}-py3-none-any.whl"
PAGE = SITE / "book" / "install.html"


class _WheelLinks(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "a" and "wheel-download" in (attrs.get("class") or "").split():
            self.hrefs.append(attrs.get("href") or "")


def wheel_links() -> list[str]:
    parser = _WheelLinks()
    parser.feed(PAGE.read_text(encoding="utf-8"))
    return parser.hrefs


def test_the_install_page_links_the_wheel_in_the_site():
    links = wheel_links()
    assert links, "book/install.html links no wheel"
    assert set(links) == {f"../downloads/{WHEEL}"}, links
    assert (PAGE.parent / links[0]).resolve() == (SITE / "downloads" / WHEEL).resolve()


def test_the_wheel_is_the_package_of_this_version_with_its_data():
    path = SITE / "downloads" / WHEEL
    assert path.is_file(), f"the build did not put {WHEEL} under downloads/"
    with zipfile.ZipFile(path) as wheel:
        names = set(wheel.namelist())
        meta = wheel.read(f"queuetune-{queuetune.__version__}.dist-info/METADATA").decode()
    assert "queuetune/__init__.py" in names
    assert any(n.startswith("queuetune/_data/") and n.endswith(".csv") for n in names)
    assert "Name: queuetune\n" in meta and f"Version: {queuetune.__version__}\n" in meta
    assert "Provides-Extra: notebooks" in meta


def test_the_wheel_downloads_over_http(site_url):
    url = urljoin(f"{site_url}/book/install.html", wheel_links()[0])
    with urllib.request.urlopen(url, timeout=30) as response:  # noqa: S310 - 127.0.0.1 only
        assert response.status == 200
        body = response.read()
    assert body == (SITE / "downloads" / WHEEL).read_bytes()
