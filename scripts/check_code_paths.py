"""Run the numerical tests with NumPy's and OpenBLAS's other code paths.

    .venv/bin/python scripts/check_code_paths.py            # every setting below
    .venv/bin/python scripts/check_code_paths.py nehalem-baseline    # one (or a few) by name
    .venv/bin/python scripts/check_code_paths.py --tests    # the unit tests only (--nbval:
                                                            # the notebooks only)

A float computed on another processor may differ from this one's in its last bits: OpenBLAS
picks its kernels for the processor it runs on (``OPENBLAS_CORETYPE`` forces another family's)
and NumPy dispatches its loops on the processor's SIMD features (``NPY_DISABLE_CPU_FEATURES``
turns them off, down to the baseline it was built for). The tests compare stored numbers
within bounds the algorithms guarantee (CONTRIBUTING.md, *Checking the book*); this script
shows that they pass on those other paths, as they must on another machine. For each setting it
prints the OpenBLAS kernel that runs (its own report, ``openblas_get_corename``) and NumPy's
dispatched features, refuses to go on if the setting did not take, then runs the unit tests of
the models, the simulation, the fits and the sizing, and strict nbval of the chapters that
print what those compute. Exit status 1 if any run fails (or a setting did not take).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON = sys.executable

TESTS = ["tests/models", "tests/simulation", "tests/fit", "tests/test_sizing.py",
         "tests/test_fit.py", "tests/test_fit_thread_pool.py"]
NOTEBOOKS = ["notebooks/thread-pool-model.ipynb", "notebooks/what-if.ipynb",
             "notebooks/practical.ipynb"]

#: What a process reports about its code paths: the OpenBLAS kernels of NumPy's and SciPy's
#: bundled libraries, and the SIMD features NumPy dispatches on.
PROBE = r"""
import ctypes, glob, json, os
import numpy, scipy
from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
cores = {}
for package in (numpy, scipy):
    libs = os.path.join(os.path.dirname(package.__file__), os.pardir, package.__name__ + ".libs")
    for lib in sorted(glob.glob(os.path.join(libs, "*openblas*.so*"))):
        handle = ctypes.CDLL(lib)
        for name in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                     "openblas_get_corename64_", "openblas_get_corename"):
            function = getattr(handle, name, None)
            if function is not None:
                function.restype = ctypes.c_char_p
                cores[package.__name__] = function().decode()
                break
print(json.dumps({"openblas": cores,
                  "numpy_dispatch": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]}))
"""


def probe(env: dict[str, str]) -> dict:
    done = subprocess.run([PYTHON, "-c", PROBE], env=env, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def settings(native: dict) -> dict[str, tuple[dict[str, str], str | None]]:
    """name -> (environment, the OpenBLAS kernel expected). NumPy's dispatch is turned off for
    every feature this processor has beyond NumPy's baseline."""
    beyond = " ".join(native["numpy_dispatch"])
    numpy_off = {"NPY_DISABLE_CPU_FEATURES": beyond} if beyond else {}
    # AVX2 kernels in place of AVX-512 (an older Intel or an AMD Zen 2/3); where Haswell's are
    # the native ones already (an AMD Zen), Sandybridge's: AVX without AVX2 or FMA
    avx = "Sandybridge" if set(native["openblas"].values()) == {"Haswell"} else "Haswell"
    return {
        avx.lower(): ({"OPENBLAS_CORETYPE": avx}, avx),
        # SSE4.2 kernels and NumPy without AVX2 or AVX-512 (a processor of about 2010)
        "nehalem-baseline": ({"OPENBLAS_CORETYPE": "Nehalem", **numpy_off}, "Nehalem"),
        # OpenBLAS's generic SSE3 kernels (this build reports them as Katmai) and NumPy without
        # AVX2 or AVX-512
        "prescott-baseline": ({"OPENBLAS_CORETYPE": "Prescott", **numpy_off}, None),
    }


def run(name: str, extra: dict[str, str], expected_core: str | None, native: dict,
        parts: list[str]) -> bool:
    env = {**os.environ, **extra, "PYTHONHASHSEED": "0"}
    seen = probe(env)
    cores = set(seen["openblas"].values())
    print(f"== {name}: {' '.join(f'{k}={v!r}' for k, v in extra.items())}")
    print(f"   OpenBLAS kernel {sorted(cores)} "
          f"(natively {sorted(set(native['openblas'].values()))}); "
          f"NumPy dispatches on {seen['numpy_dispatch'] or 'its baseline only'}")
    took = (expected_core is None or cores == {expected_core}) and (
        "NPY_DISABLE_CPU_FEATURES" not in extra or not seen["numpy_dispatch"])
    if not took or (cores == set(native["openblas"].values())
                    and seen["numpy_dispatch"] == native["numpy_dispatch"]):
        print("   the setting did not take: nothing would be tested")
        return False
    ok = True
    commands = {"--tests": [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                            "--dist", "loadfile", *TESTS],
                "--nbval": [PYTHON, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval",
                            "--nbval-current-env", *NOTEBOOKS]}
    for part in parts:
        command = commands[part]
        start = time.monotonic()
        done = subprocess.run(["nice", "-n", "10", *command], env=env, cwd=ROOT,
                              capture_output=True, text=True)
        last = (done.stdout.strip().splitlines() or ["(no output)"])[-1]
        print(f"   {'unit tests' if part == '--tests' else 'strict nbval'}: {last} "
              f"({time.monotonic() - start:.0f} s)")
        if done.returncode != 0:
            print(done.stdout[-4000:], done.stderr[-2000:], sep="\n")
            ok = False
    return ok


def main(argv: list[str]) -> int:
    native = probe(dict(os.environ))
    chosen = settings(native)
    parts = [a for a in argv if a in ("--tests", "--nbval")] or ["--tests", "--nbval"]
    argv = [a for a in argv if a not in ("--tests", "--nbval")]
    unknown = [a for a in argv if a not in chosen]
    if unknown:
        print(f"unknown setting {unknown}; the settings are {list(chosen)}", file=sys.stderr)
        return 2
    start = time.monotonic()
    results = {name: run(name, *chosen[name], native, parts) for name in (argv or chosen)}
    print(f"{sum(results.values())} of {len(results)} settings green "
          f"in {time.monotonic() - start:.0f} s: "
          + ", ".join(f"{n} {'ok' if ok else 'FAILED'}" for n, ok in results.items()))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
