"""The reproduction-status page accounts for every inventory item, and says where it is shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import inventory
import pytest

from queuetune import audit, data, status

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "notebooks" / "reproduction-status.ipynb"


@pytest.fixture(scope="module")
def table():
    return status.status_table()


def stored_html(path: Path) -> str:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(o.get("data", {}).get("text/html", ""))
                     for c in cells if c["cell_type"] == "code" for o in c.get("outputs", []))


def test_every_inventory_id_has_a_status(table):
    if not inventory.available():
        pytest.skip("../shared/INVENTORY.md is not beside the repository")
    missing = sorted(set(inventory.all_ids()) - set(table["id"]))
    assert missing == [], f"no status for {missing}"


def test_no_status_for_an_unknown_id(table):
    if not inventory.available():
        pytest.skip("../shared/INVENTORY.md is not beside the repository")
    unknown = sorted(set(table["id"]) - set(inventory.all_ids()))
    assert unknown == [], f"status rows for IDs the inventory does not have: {unknown}"


def test_every_item_has_a_place_in_the_book(table):
    nowhere = table.loc[table["where"] == "", "id"].tolist()
    assert nowhere == [], f"no chapter labels these items: {nowhere}"


def test_status_words_are_the_inventory_ones(table):
    assert set(table["status"]) <= set(status.STATUS_WORDS)


def test_the_stored_page_lists_every_item(table):
    html = stored_html(PAGE)
    listed = set(re.findall(r"<tr><td>(?:<a [^>]*>)?([A-Z]{2}-[A-Z]\d+)", html))
    assert listed == set(table["id"]), "re-run notebooks/reproduction-status.ipynb"


def test_relative_links():
    assert status._relative("notebooks/a.html#x", "notebooks/b.html") == "a.html#x"
    assert status._relative("book/a.html#x", "notebooks/b.html") == "../book/a.html#x"


def test_labels_are_found(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "p.md").write_text("(dt-t3)=\n## Table\n")
    assert status.locations(tmp_path) == {"DT-T3": "book/p.html#dt-t3"}


def test_re_measured_items_are_found_beside_their_status(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "p.md").write_text("(im-f2)=\n## Figure 2\n")
    (tmp_path / "book" / "lab.md").write_text("(lab-im-f2)=\n## Figure 2 again\n")
    assert status.locations(tmp_path) == {"IM-F2": "book/p.html#im-f2",
                                          "re-measured:IM-F2": "book/lab.html#lab-im-f2"}


def test_the_html_table_links_a_re_measured_item(table):
    frame = table.head(2).assign(remeasured=["notebooks/lab.html#lab-x", ""])
    html = status.html_table(frame, page="notebooks/reproduction-status.html")
    assert '<a href="lab.html#lab-x">re-measured</a>' in html


def test_stored_locations_match_the_book():
    assert status.locations() == status.scan_locations(ROOT), (
        "the places of the inventory items changed: run make execute-notebooks "
        "(status.write_locations)")


def test_documents_follow_the_book_order_in_the_table(table):
    prefixes = list(dict.fromkeys(table["id"].str[:2]))
    assert prefixes == [data.prefix(d) for d in data.documents()]


def test_inventory_prefixes_are_the_documents_in_the_same_order():
    if not inventory.available():
        pytest.skip("../shared/INVENTORY.md is not beside the repository")
    assert inventory.inventory_prefixes() == [data.prefix(d) for d in data.documents()]


def test_a_claim_nothing_could_test_is_not_called_recomputed():
    table = status.status_table().set_index("id")
    for finding in audit.findings().itertuples():
        untested = finding.evidence.startswith(audit.UNTESTED_MARK)
        expected = "not reproducible" if untested else "recomputed"
        assert table.loc[finding.id, "status"] == expected, finding.id
