"""A measurement campaign, read from a small declarative TOML file.

A campaign file names its experiment (a home of its own under
``queuetune/lab/experiments/<name>/``), the factors of its design and their levels, and the
experiment's own settings. The runner measures every combination of the levels (their
product, as asv runs a benchmark over the product of its ``params``); a campaign may hold
several ``[[design]]`` tables, each a product of its own, measured one after the other (a
combination that two tables share is measured once). Factor names are the experiment's (see its
``FACTORS``); a factor a design table leaves out takes the experiment's default.

Everything is checked before anything starts: a wrong value raises ``ValueError`` naming the
key (``design[0].threads[0]``) and its allowed range, and nothing is written.

    [campaign]
    format = 2                 # the campaign file format (a file without it is format 1)
    name = "imre-tomcat"
    experiment = "imre"
    description = "..."
    seed = 1

    [[design]]                 # the product of these levels
    split = ["cpu", "sleep"]
    threads = [30, 100]
    clients = [10, 20, 30]

    [validity]                 # the runner's checks of every run (all optional)
    core_margin = 0.10
    stop_after_dead_server = true

    [timing] ...               # every other table is the experiment's own

>>> from queuetune.lab import campaign
>>> plan = campaign.load(campaign.builtin("smoke"))
>>> plan.name, plan.experiment.NAME, plan.format
('smoke', 'imre', 2)
>>> [(r["threads"], r["queue"], r["clients"]) for r in plan.cells()]
[(2, 1, 2), (2, 1, 8)]
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from .._validation import real

__all__ = [
    "FORMAT_VERSION",
    "Campaign",
    "Factor",
    "Run",
    "Validity",
    "builtin",
    "builtins",
    "load",
    "only",
    "get",
    "name_of",
    "parse",
]

#: The campaign file format this version reads and writes (``[campaign] format``). Format 1:
#: the files written before experiments had homes of their own (no ``format``, no
#: ``experiment``, one ``[design]`` table, the Imre experiment); they are read as format 2.
FORMAT_VERSION = 2

_NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")


@dataclass(frozen=True)
class Factor:
    """A factor an experiment's design may vary.

    ``check(value, key, settings)`` returns the checked level or raises ``ValueError`` naming
    ``key``; ``default`` (a function of the experiment's settings) gives the level of a design
    table that leaves the factor out (``None``: the factor is required); ``server``: runs
    differing in it need a server of their own (the runner restarts the server between them).
    """

    name: str
    check: Callable[[Any, str, Any], Any]
    description: str
    default: Callable[[Any], Any] | None = None
    server: bool = True


@dataclass(frozen=True)
class Validity:
    """The runner's checks of every run (the campaign file's ``[validity]``)."""

    core_margin: float = 0.10  # the server's cores may be this much busier than its process
    probe_timeout_s: float = 10.0
    stop_after_dead_server: bool = True


@dataclass(frozen=True)
class Run:
    """One measured run: its kind (the experiment's word, e.g. ``load``) and its levels."""

    kind: str
    levels: tuple[tuple[str, Any], ...]

    def __getitem__(self, factor: str) -> Any:
        return dict(self.levels)[factor]

    def get(self, factor: str, default: Any = None) -> Any:
        return dict(self.levels).get(factor, default)

    def key(self, factors: tuple[str, ...]) -> tuple:
        """The levels of ``factors`` (runs with equal keys share a server)."""
        levels = dict(self.levels)
        return tuple(levels.get(f) for f in factors)


@dataclass(frozen=True)
class Campaign:
    name: str
    description: str
    seed: int
    experiment: Any  # the experiment's module object (see queuetune.lab.experiments)
    settings: Any  # the experiment's own settings, checked by it
    design: tuple[dict[str, tuple[Any, ...]], ...]
    validity: Validity
    format: int = FORMAT_VERSION
    source: str = field(default="", repr=False)  # the TOML text, stored with the data

    def cells(self) -> list[Run]:
        """Every combination of the design's levels, in the order measured (each design
        table's product in its factors' order, the experiment's order of factors)."""
        order = list(self.experiment.FACTORS)
        seen, cells = set(), []
        for table in self.design:
            names = [f for f in order if f in table]
            for values in itertools.product(*(table[f] for f in names)):
                levels = tuple(zip(names, values, strict=True))
                if levels not in seen:
                    seen.add(levels)
                    cells.append(Run("load", levels))
        return cells

    def schedule(self) -> list[Run]:
        """Every run in the order measured, as the experiment orders them (it may add runs of
        its own kinds, such as the Imre experiment's one-client runs)."""
        return self.experiment.schedule(self)

    def server_groups(self) -> list[list[Run]]:
        """The schedule cut into consecutive runs that share a server."""
        factors = tuple(f.name for f in self.experiment.FACTORS.values() if f.server)
        groups: list[list[Run]] = []
        for run in self.schedule():
            if groups and groups[-1][0].key(factors) == run.key(factors):
                groups[-1].append(run)
            else:
                groups.append([run])
        return groups

    def estimated_seconds(self, *, starts_server: bool = True) -> float:
        """How long the whole campaign should take."""
        return self.experiment.estimated_seconds(self, starts_server=starts_server)


# -- reading ---------------------------------------------------------------------------------


def _campaign_folders() -> Iterator[Path]:
    lab = resources.files(__package__)
    yield Path(str(lab / "campaigns"))
    for home in sorted(Path(str(lab / "experiments")).iterdir()):
        yield home / "campaigns"


def _builtin_files() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for folder in _campaign_folders():
        if folder.is_dir():
            for path in sorted(folder.glob("*.toml")):
                found.setdefault(path.stem, path)
    return found


def builtins() -> list[str]:
    """Names of the campaigns that ship with the package (``lab/campaigns/`` and each
    experiment's ``campaigns/``)."""
    return sorted(_builtin_files())


def builtin(name: str) -> Path:
    """Path of a campaign file that ships with the package (``imre``, ``smoke``, ...)."""
    known = _builtin_files()
    if name not in known:
        raise ValueError(f"campaign must be one of {sorted(known)} or a path to a .toml file, "
                         f"got {name!r}")
    return known[name]


def load(path: str | Path) -> Campaign:
    """Read and check a campaign file."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"campaign file {str(path)!r} does not exist")
    text = path.read_text(encoding="utf-8")
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"campaign file {str(path)!r} is not valid TOML: {exc}") from None
    return parse(raw, source=text)


def only(table: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    """``ValueError`` naming the first key of ``table`` not in ``allowed``."""
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ValueError(f"unknown parameter {unknown[0]!r} in {where}; allowed: "
                         f"{', '.join(allowed)}")


def get(table: Mapping[str, Any], key: str, section: str) -> Any:
    """``table[key]``, or ``ValueError`` saying that ``section.key`` is missing."""
    if key not in table:
        raise ValueError(f"{section}.{key} is missing")
    return table[key]


def name_of(value: Any, key: str) -> str:
    """A name of 1 to 60 characters of a-z, 0-9 and '-'."""
    if (not isinstance(value, str) or not value or not set(value) <= _NAME_CHARS
            or len(value) > 60):
        raise ValueError(f"{key} must be 1 to 60 characters of a-z, 0-9 and '-', "
                         f"got {value!r}")
    return value


_HEAD = ("format", "name", "experiment", "description", "seed")


def _upgrade(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A format-1 campaign (the Imre experiment, one ``[design]`` table) in format 2."""
    raw = dict(raw)
    head = raw.get("campaign")
    if not isinstance(head, Mapping) or "format" in head:
        return raw
    raw["campaign"] = {**head, "format": 1, "experiment": "imre"}
    design, work = raw.get("design"), raw.get("workload")
    if isinstance(design, Mapping):
        design = dict(design)
        splits = work.get("splits") if isinstance(work, Mapping) else None
        if "split" not in design and isinstance(splits, list):
            design["split"] = [s.get("name") for s in splits if isinstance(s, Mapping)]
        raw["design"] = [design]
    return raw


def parse(raw: Mapping[str, Any], *, source: str = "") -> Campaign:
    """Check a campaign given as nested dictionaries (what TOML gives)."""
    from . import experiments

    raw = _upgrade(raw)
    head = raw.get("campaign")
    if not isinstance(head, Mapping):
        raise ValueError("the campaign file needs a [campaign] table")
    only(head, _HEAD, "[campaign]")
    version = get(head, "format", "campaign")
    if version not in (1, FORMAT_VERSION):
        raise ValueError(f"campaign.format must be 1 or {FORMAT_VERSION}, got {version!r}")
    experiment = experiments.get(get(head, "experiment", "campaign"))
    name = name_of(get(head, "name", "campaign"), "campaign.name")
    description = get(head, "description", "campaign")
    if not isinstance(description, str):
        raise ValueError(f"campaign.description must be a string, got {description!r}")
    from .._validation import integer

    seed = integer(get(head, "seed", "campaign"), "campaign.seed", low=0, high=2**32 - 1)
    own = {k: v for k, v in raw.items() if k not in ("campaign", "design", "validity")}
    settings = experiment.parse_settings(own)
    design = _design(raw.get("design"), experiment, settings)
    return Campaign(name=name, description=description.strip(), seed=seed,
                    experiment=experiment, settings=settings, design=design,
                    validity=_validity(raw.get("validity", {})), format=int(version),
                    source=source)


def _levels(value: Any, key: str, factor: Factor, settings: Any) -> tuple[Any, ...]:
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key} must be a non-empty list of levels ({factor.description}), "
                         f"got {value!r}")
    levels = tuple(factor.check(v, f"{key}[{i}]", settings) for i, v in enumerate(value))
    if len(set(levels)) != len(levels):
        raise ValueError(f"{key} must not repeat a level, got {list(levels)}")
    return levels


def _design(value: Any, experiment: Any, settings: Any) -> tuple[dict[str, tuple], ...]:
    if isinstance(value, Mapping):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ValueError("the campaign file needs at least one [[design]] table (each factor "
                         "with its list of levels)")
    factors: dict[str, Factor] = experiment.FACTORS
    tables = []
    for i, table in enumerate(value):
        where = f"design[{i}]" if len(value) > 1 else "design"
        if not isinstance(table, Mapping):
            raise ValueError(f"{where} must be a table of factor = [levels]")
        only(table, tuple(factors), f"[{where}] (the factors of experiment "
                                    f"{experiment.NAME!r})")
        checked = {}
        for name, factor in factors.items():
            if name in table:
                checked[name] = _levels(table[name], f"{where}.{name}", factor, settings)
            elif factor.default is None:
                raise ValueError(f"{where}.{name} is missing ({factor.description})")
            else:
                checked[name] = (factor.default(settings),)
        tables.append(checked)
    return tuple(tables)


def _validity(table: Any) -> Validity:
    if not isinstance(table, Mapping):
        raise ValueError("[validity] must be a table")
    only(table, ("core_margin", "probe_timeout_s", "stop_after_dead_server"), "[validity]")
    base = Validity()
    stop = table.get("stop_after_dead_server", base.stop_after_dead_server)
    if not isinstance(stop, bool):
        raise ValueError(f"validity.stop_after_dead_server must be true or false, got "
                         f"{stop!r}")
    return Validity(
        core_margin=real(table.get("core_margin", base.core_margin), "validity.core_margin",
                         low=0.0, high=1.0),
        probe_timeout_s=real(table.get("probe_timeout_s", base.probe_timeout_s),
                             "validity.probe_timeout_s", low=0.0, high=600.0, low_open=True,
                             unit="s"),
        stop_after_dead_server=stop,
    )
