"""queuetune/__init__.py: the package's names, imported on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: Modules the sizing path must not import: chart libraries and what only they need (Altair
#: alone takes seconds to import; issue 29 measured 5 to 9 s for `python -m queuetune size`).
HEAVY = ("altair", "vl_convert", "vega_datasets", "pandas", "scipy", "sympy", "simpy",
         "matplotlib", "IPython", "queuetune.charts", "queuetune.models.thread_pool_server")


def loaded_after(code: str) -> list[str]:
    """The modules of HEAVY loaded after running ``code`` in a fresh interpreter."""
    script = f"import sys\n{code}\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return done.stdout.splitlines()[-1].split()


@pytest.mark.parametrize("code", ["import queuetune", "import queuetune.sizing",
                                  "from queuetune import sizing, __version__"])
def test_importing_the_package_or_the_sizing_imports_no_chart_library(code):
    assert loaded_after(code) == []


def test_the_package_still_offers_its_names_on_first_use():
    code = ("import queuetune\n"
            "assert queuetune.thread_pool.__module__ == 'queuetune.models.thread_pool_server'\n"
            "assert queuetune.charts.__name__ == 'queuetune.charts'\n"
            "assert set(queuetune.__all__) <= set(dir(queuetune))\n"
            "from queuetune import *  # noqa: F403\n"
            "assert callable(mm1bk) and Station  # noqa: F405")
    assert "altair" in loaded_after(code)  # the charts came on first use


def test_an_unknown_name_is_an_attribute_error():
    import queuetune
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        queuetune.nothing  # noqa: B018


def test_size_fleet_is_offered_and_imports_no_chart_library():
    code = ("import queuetune\n"
            "from queuetune import size_fleet, FleetSizing\n"
            "assert size_fleet.__module__ == 'queuetune.fleet_sizing'\n"
            "assert FleetSizing.__name__ == 'FleetSizing'")
    assert [m for m in loaded_after(code) if m != "scipy"] == []
