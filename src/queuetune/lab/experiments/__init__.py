"""The lab's experiments, each in a home of its own: ``experiments/<name>/`` (see README.md).

An experiment is a package that exports what is its own (the factors its design may vary, its
settings, its tables, how it starts its server, what load it sends and how a run is
summarized); the runner (:mod:`queuetune.lab.runner`) iterates a campaign's design and checks
every run, the same for every experiment. :func:`get` finds an experiment by name: adding one
needs no edit of the runner nor of this module.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

__all__ = ["REQUIRED", "get", "names"]

#: What an experiment's package must export (README.md says what each one is).
REQUIRED = ("NAME", "TITLE", "FACTORS", "TABLES", "parse_settings", "schedule",
            "estimated_seconds", "describe", "readme_lines", "server", "prepare", "measure")


def names() -> list[str]:
    """The experiments that ship with the package."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


def get(name: str) -> ModuleType:
    """The experiment called ``name`` (``ValueError`` naming the known ones otherwise)."""
    known = names()
    if not isinstance(name, str) or name not in known:
        raise ValueError(f"campaign.experiment must be one of {known}, got {name!r}")
    module = importlib.import_module(f"{__name__}.{name}")
    missing = [attr for attr in REQUIRED if not hasattr(module, attr)]
    if missing:
        raise ValueError(f"experiment {name!r} does not export {missing} (see "
                         f"queuetune/lab/experiments/README.md)")
    return module
