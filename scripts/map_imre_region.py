"""Map where the thread-limited model reproduces Imre et al.'s statements IM-C1 … IM-C3.

For every cell of the default grid of :mod:`queuetune.documents.imre_appserver.region` (CPU share
of the stated service time x thread overhead x pool overhead) the model is solved exactly at
Table 1's 40 configurations and the six statements are checked. Writes
``results/imre_region.csv``, one row
per cell in a fixed order; the file is the same on every run (no randomness, no timestamps).

Usage: ``python scripts/map_imre_region.py``  (about five minutes on a 2-core machine).
"""

from __future__ import annotations

import time
from pathlib import Path

from tqdm import tqdm

from queuetune.documents.imre_appserver import region as imre_region

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "results" / "imre_region.csv"


def main() -> None:
    start = time.perf_counter()
    table = imre_region.region_map(progress=lambda cells: tqdm(cells, desc="cells",
                                                               unit="cell"))
    OUT.parent.mkdir(exist_ok=True)
    table.to_csv(OUT, index=False, float_format="%.10g", lineterminator="\n")
    held = table["statements_held"]
    print(f"{len(table)} cells in {time.perf_counter() - start:.0f} s; most statements held in "
          f"one cell: {held.max()} of {len(imre_region.STATEMENTS)}; cells holding all: "
          f"{int((held == len(imre_region.STATEMENTS)).sum())}")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
