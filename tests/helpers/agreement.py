"""How a simulation result is judged against exact values.

Each exact value should lie inside the simulation's 95 % interval, but with fixed seeds a
fair simulator still misses about one value in twenty, and the metrics of one point miss
together (throughput, utilization and response time move as one). So a test asserts:

* no exact value lies beyond twice the half-width from the estimate: with 10 replications an
  unbiased simulator does that for about one value in seven hundred, while the intervals are
  narrow enough (about 1-3 % of the value) to expose a model error of a few percent;
* over all points of a test module, at least two thirds of the exact values lie inside their
  intervals: a loose floor against intervals that are far too narrow.

The long run in ``scripts/validate_models.py`` reports the actual coverage over many points.
"""

from __future__ import annotations

from collections.abc import Mapping

from queuetune.simulation import ROUNDING, SimulationResult

GROSS_HALF_WIDTHS = 2.0
MIN_COVERAGE = 2 / 3


def outside(result: SimulationResult, exact: Mapping[str, float]) -> list[str]:
    """Metrics whose exact value lies outside the confidence interval."""
    return [name for name, value in exact.items() if not result.contains(name, value)]


def far_outside(result: SimulationResult, exact: Mapping[str, float]) -> list[str]:
    """Metrics whose exact value is more than GROSS_HALF_WIDTHS half-widths from the estimate."""
    return [
        f"{name}: exact {value:.6g}, simulated {result.estimate[name]:.6g} "
        f"+- {result.half_width(name):.3g}"
        for name, value in exact.items()
        if abs(result.estimate[name] - value)
        > GROSS_HALF_WIDTHS * result.half_width(name) + ROUNDING * max(1.0, abs(value))
    ]


def coverage(pairs: list[tuple[SimulationResult, Mapping[str, float]]]) -> tuple[int, int]:
    """(inside, total) over the metrics whose interval has positive width."""
    inside = total = 0
    for result, exact in pairs:
        for name, value in exact.items():
            if result.half_width(name) > 0:
                total += 1
                inside += result.contains(name, value)
    return inside, total


def coverage_shortfall(
    pairs: list[tuple[SimulationResult, Mapping[str, float]]], minimum_total: int
) -> str:
    """What keeps the pairs below the coverage floor ("" when nothing): fewer than
    ``minimum_total`` metrics with an interval, or fewer than MIN_COVERAGE of them inside."""
    inside, total = coverage(pairs)
    if total < minimum_total:
        return f"only {total} metrics with an interval, expected at least {minimum_total}"
    if inside < MIN_COVERAGE * total:
        return f"only {inside}/{total} exact values inside the CIs"
    return ""
