"""Derivations of the M/M/1/B/K equations with SymPy, for the book to typeset.

Imre et al. model the server as a birth-death chain on ``k = 0..C`` (``C = min(B, K)``) with
birth rate ``lambda_k = (K - k) / Z`` (each thinking client sends after a mean think time
``Z``) and death rate ``mu = 1 / S``. The functions below start from the balance equations and
return SymPy expressions:

* :func:`birth_death_product_form` - ``p_n = p_0 prod_{j=1..n} lambda(j-1) / mu(j)``, from the
  cut equations ``lambda(n-1) p_{n-1} = mu(n) p_n`` (the form the flow-equivalent-server
  method of :func:`queuetune.thread_pool` uses);
* :func:`mm1bk_state_probability` - eq. (3), by solving the cut equation as a recurrence;
* :func:`mm1bk_p0` - eq. (4), from the normalization ``sum_k p_k = 1``;
* :func:`mm1bk_mean_in_system` - eq. (5);
* :func:`solve_birth_death` and :func:`mm1bk_exact` - the exact solution of the global balance
  equations of a concrete small chain (rational numbers in, rational numbers out).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import sympy as sp

from .._validation import as_scalar_integer

__all__ = [
    "K",
    "B",
    "k",
    "n",
    "j",
    "Z",
    "S",
    "mu",
    "p0",
    "birth_rate",
    "death_rate",
    "birth_death_balance_equations",
    "solve_birth_death",
    "birth_death_product_form",
    "mm1bk_cut_equation",
    "mm1bk_state_probability",
    "mm1bk_p0",
    "mm1bk_mean_in_system",
    "mm1bk_error_rate",
    "mm1bk_exact",
]

K = sp.Symbol("K", integer=True, positive=True)  # clients
B = sp.Symbol("B", integer=True, positive=True)  # capacity
k = sp.Symbol("k", integer=True, nonnegative=True)
n = sp.Symbol("n", integer=True, nonnegative=True)
j = sp.Symbol("j", integer=True, positive=True)
Z = sp.Symbol("Z", positive=True)  # think time
S = sp.Symbol("S", positive=True)  # service time
mu = sp.Symbol("mu", positive=True)  # service rate 1/S
p0 = sp.Symbol("p_0", positive=True)
birth_rate = sp.Function("lambda")
death_rate = sp.Function("mu")


def birth_death_balance_equations(
    births: Sequence[sp.Expr], deaths: Sequence[sp.Expr]
) -> tuple[list[sp.Eq], list[sp.Symbol]]:
    """Global balance equations of a birth-death chain on ``0..C``.

    ``births[i]`` is the rate from ``i`` to ``i + 1`` (``i = 0..C-1``), ``deaths[i]`` the rate
    from ``i + 1`` to ``i``. Returns the equations (rate out of state ``i`` = rate in) and the
    unknowns ``p_0..p_C``.
    """
    size = len(births) + 1
    if len(deaths) != size - 1:
        raise ValueError("births and deaths must have the same length")
    p = list(sp.symbols(f"p_0:{size}"))
    equations = []
    for i in range(size):
        out_rate = (births[i] if i < size - 1 else 0) + (deaths[i - 1] if i > 0 else 0)
        in_flow = (births[i - 1] * p[i - 1] if i > 0 else 0) + (
            deaths[i] * p[i + 1] if i < size - 1 else 0
        )
        equations.append(sp.Eq(out_rate * p[i], in_flow))
    return equations, p


def solve_birth_death(births: Sequence[sp.Expr], deaths: Sequence[sp.Expr]) -> list[sp.Expr]:
    """``p_0..p_C`` solving the global balance equations with ``sum p = 1`` (exactly).

    One balance equation is redundant (they sum to zero) and is replaced by the normalization.
    """
    equations, p = birth_death_balance_equations(births, deaths)
    system = equations[:-1] + [sp.Eq(sum(p), 1)]
    solution = sp.solve(system, p, dict=True)
    if len(solution) != 1:
        raise ValueError("the balance equations have no unique solution")
    return [sp.simplify(solution[0][x]) for x in p]


def birth_death_product_form() -> sp.Expr:
    """``p_n = p_0 prod_{j=1..n} lambda(j - 1) / mu(j)``, the birth-death product form.

    Derived from the cut equation between states ``n - 1`` and ``n``,
    ``lambda(n - 1) p_{n-1} = mu(n) p_n`` (the flow across a cut balances in a stationary
    chain), solved for ``p_n`` and unrolled down to ``p_0``.
    """
    p = sp.Function("p")
    cut = sp.Eq(birth_rate(n - 1) * p(n - 1), death_rate(n) * p(n))
    step = sp.solve(cut, p(n))[0] / p(n - 1)  # p_n / p_{n-1}
    return p0 * sp.Product(step.subs(n, j), (j, 1, n))


def mm1bk_cut_equation() -> sp.Eq:
    """``(K - k + 1) / Z * p_{k-1} = mu * p_k``: flow across the cut between k - 1 and k."""
    p = sp.Function("p")
    return sp.Eq((K - k + 1) / Z * p(k - 1), mu * p(k))


@cache
def mm1bk_state_probability() -> sp.Expr:
    """Imre et al. eq. (3): ``p_k = p_0 K! / ((K - k)! (mu Z)^k)``.

    The cut equation :func:`mm1bk_cut_equation` is a first-order recurrence in k; SymPy's
    ``rsolve`` solves it with ``p(0) = p_0``.
    """
    p = sp.Function("p")
    recurrence = mm1bk_cut_equation()
    solution = sp.rsolve(recurrence.lhs - recurrence.rhs, p(k), {p(0): p0})
    return sp.combsimp(sp.gammasimp(solution))


@cache
def mm1bk_p0() -> sp.Expr:
    """Imre et al. eq. (4): ``p_0 = 1 / sum_{k=0..min(B, K)} K! / ((K - k)! (mu Z)^k)``.

    From the normalization ``sum_k p_k = 1`` over the reachable states (the paper writes the
    upper limit B; the terms with k > K are zero since 1/(K - k)! vanishes there).
    """
    # eq. (3) is linear in p_0: sum_k p_k = p_0 G with G = sum_k (p_k / p_0)
    g = sp.Symbol("G", positive=True)
    solution = sp.solve(sp.Eq(p0 * g, 1), p0)[0]
    return solution.subs(g, sp.Sum(_mm1bk_term(), (k, 0, sp.Min(B, K))))


def mm1bk_mean_in_system() -> sp.Expr:
    """Imre et al. eq. (5): ``N = sum_{k=0..min(B, K)} k p_k`` with eqs. (3) and (4)."""
    return mm1bk_p0() * sp.Sum(k * _mm1bk_term(), (k, 0, sp.Min(B, K)))


def mm1bk_error_rate() -> sp.Expr:
    """Imre et al.'s error rate ``e = p_B`` (for ``B <= K``): eq. (3) at k = B with eq. (4)."""
    return mm1bk_p0() * _mm1bk_term().subs(k, B)


def _mm1bk_term() -> sp.Expr:
    """``p_k / p_0 = K! / ((K - k)! (mu Z)^k)``."""
    return mm1bk_state_probability() / p0


def mm1bk_exact(clients: int, capacity: int, service_time, think_time) -> dict[str, sp.Expr]:
    """Exact M/M/1/B/K metrics of a small chain from its global balance equations.

    Symbolic or rational ``service_time`` and ``think_time`` give exact results. Returns
    ``probabilities`` (list), ``p0``, ``utilization``, ``throughput``, ``mean_in_system``,
    ``response_time``, ``error_rate`` and ``rejection_probability``.
    """
    clients = as_scalar_integer(clients, "clients")
    capacity = as_scalar_integer(capacity, "capacity")
    s, z = sp.sympify(service_time), sp.sympify(think_time)
    for name, value in (("service_time", s), ("think_time", z)):
        if value.is_positive is False or (value.is_number and not value.is_finite):
            raise ValueError(f"{name} must be positive (a number or a positive symbol), "
                             f"got {value}")
    top = min(clients, capacity)
    births = [sp.Integer(clients - i) / z for i in range(top)]
    deaths = [1 / s] * top
    p = solve_birth_death(births, deaths)
    full = p[capacity] if capacity <= clients else sp.Integer(0)
    utilization = sp.simplify(1 - p[0])
    throughput = utilization / s
    mean = sp.simplify(sum(i * p[i] for i in range(top + 1)))
    thinking = sp.simplify(sum((clients - i) * p[i] for i in range(top + 1)))
    return {
        "probabilities": p,
        "p0": p[0],
        "utilization": utilization,
        "throughput": sp.simplify(throughput),
        "mean_in_system": mean,
        "response_time": sp.simplify(mean / throughput),
        "error_rate": full,
        "rejection_probability": sp.simplify((clients - capacity) * full / thinking)
        if capacity <= clients
        else sp.Integer(0),
    }
