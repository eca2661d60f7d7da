"""queuetune/models/__init__.py: the models, imported on first use."""

from __future__ import annotations

import subprocess
import sys

import pytest


def loaded_after(code: str) -> set[str]:
    script = f"import sys\n{code}\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True)
    return set(done.stdout.split())


def test_the_light_module_imports_no_model_and_no_scipy():
    loaded = loaded_after("import queuetune.models.flow_equivalent")
    assert "scipy" not in loaded
    assert not {"queuetune.models.thread_pool_server", "queuetune.models.mean_value"} & loaded


def test_every_model_is_offered_on_first_use():
    import queuetune.models as models
    for name in models.__all__:
        assert getattr(models, name).__name__ == name
    assert set(models.__all__) <= set(dir(models))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        models.nothing  # noqa: B018
