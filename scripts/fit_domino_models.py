"""Fit the thread-pool model to the Domino HTTP-threads grids, with intervals and
leave-one-out errors (the slow part of the fitting chapter).

For every case of :data:`queuetune.documents.domino_threads.fits.CASES` (WebMail or probe
response time, alone or with the CPU utilization) the five thread-pool parameters are fitted
with profile-likelihood intervals, and each of the 20 grid cells is left out in turn. Writes

* ``results/domino_thread_pool_fits.csv`` - one row per (case, parameter): estimate, interval
  and whether the data close each side;
* ``results/domino_thread_pool_summary.csv`` - one row per case: information criteria, noise
  levels, leave-one-out RMSE, the largest difference between the flow-equivalent solution and
  the exact chain at the estimate, and the identifiability sentence. Leave-one-out errors are
  log(observed / predicted): their RMSE and their largest absolute value.

Deterministic (no randomness, fixed order). Usage: ``python scripts/fit_domino_models.py``
(about 15 minutes on a 2-core machine).
"""

from __future__ import annotations

import time
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from queuetune.documents.domino_threads import fits as domino
from queuetune.fit import leave_one_out, loo_summary

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"
FITS = RESULTS / "domino_thread_pool_fits.csv"
SUMMARY = RESULTS / "domino_thread_pool_summary.csv"


def main() -> None:
    start = time.perf_counter()
    params, summary = [], []
    for case in tqdm(list(domino.CASES), desc="cases", unit="case"):
        fit = domino.fit_case(case, "thread_pool", intervals="profile")
        for name in domino.THREAD_POOL_FREE:
            low, high = fit.intervals[name]
            lo_open, hi_open = fit.open_sides.get(name, (False, False))
            params.append({"case": case, "parameter": name, "estimate": fit.estimates[name],
                           "low": low, "high": high, "low_open": lo_open,
                           "high_open": hi_open})
        loo = loo_summary(leave_one_out(fit)).set_index("quantity")
        row = {"case": case, "n": fit.n, "k": fit.k, "loglik": fit.loglik, "aic": fit.aic,
               "aicc": fit.aicc}
        for q in ("response_time", "utilization"):
            row[f"noise_{q}"] = fit.noise.get(q, float("nan"))
            row[f"loo_rmse_{q}"] = loo["loo_rmse"].get(q, float("nan"))
            row[f"loo_max_{q}"] = loo["loo_max"].get(q, float("nan"))
        row["exact_max_relative_difference"] = float(
            fit.exact_check["max_relative_difference"].max())
        row["identifiability"] = fit.identifiability
        summary.append(row)
    RESULTS.mkdir(exist_ok=True)
    pd.DataFrame(params).to_csv(FITS, index=False, float_format="%.10g", lineterminator="\n")
    pd.DataFrame(summary).to_csv(SUMMARY, index=False, float_format="%.10g",
                                 lineterminator="\n")
    print(f"{len(summary)} cases in {time.perf_counter() - start:.0f} s")
    print(f"wrote {FITS.relative_to(ROOT)} and {SUMMARY.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
