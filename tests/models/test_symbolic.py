"""The SymPy derivations against the balance equations and against the numeric code."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp

from queuetune import mm1bk, thread_pool
from queuetune.models import symbolic as sym
from queuetune.models.birth_death import log_stationary_distribution

SERVICE = sp.Rational(7, 50)  # 0.14 s
THINK = sp.Integer(4)
NUMERIC = ("p0", "utilization", "throughput", "mean_in_system", "response_time", "error_rate",
           "rejection_probability")


@pytest.mark.parametrize("K,B", list(itertools.product(range(1, 7), range(1, 9))))
def test_numeric_mm1bk_equals_the_exact_solution(K, B):
    """Rational solution of the balance equations vs the floating-point code, K <= 6."""
    exact = sym.mm1bk_exact(K, B, SERVICE, THINK)
    res = mm1bk(clients=K, capacity=B, service_time=0.14, think_time=4.0)
    for name in NUMERIC:
        want = float(exact[name])
        assert float(getattr(res, name)) == pytest.approx(want, rel=1e-13, abs=1e-300), name
    np.testing.assert_allclose(res.probabilities, [float(v) for v in exact["probabilities"]],
                               rtol=1e-13)


@pytest.mark.parametrize("K,B", [(1, 1), (3, 2), (4, 4), (5, 8), (6, 3)])
def test_equations_3_to_5_solve_the_balance_equations(K, B):
    """Eqs. (3)-(5) with K, B, mu, Z substituted equal the exact solution, term for term."""
    exact = sym.mm1bk_exact(K, B, SERVICE, THINK)
    values = {sym.K: K, sym.B: B, sym.mu: 1 / SERVICE, sym.Z: THINK}
    p0 = sym.mm1bk_p0().subs(values).doit()
    assert sp.simplify(p0 - exact["p0"]) == 0
    for k in range(min(K, B) + 1):
        p_k = sym.mm1bk_state_probability().subs(sym.p0, p0).subs(values).subs(sym.k, k)
        assert sp.simplify(p_k - exact["probabilities"][k]) == 0
    mean = sym.mm1bk_mean_in_system().subs(values).doit()
    assert sp.simplify(mean - exact["mean_in_system"]) == 0
    if B <= K:
        error = sym.mm1bk_error_rate().subs(values).doit()
        assert sp.simplify(error - exact["error_rate"]) == 0


def test_equation_3_has_the_papers_form():
    expected = sym.p0 * sp.factorial(sym.K) / (sp.factorial(sym.K - sym.k) * (sym.mu * sym.Z)
                                              ** sym.k)
    assert sp.simplify(sym.mm1bk_state_probability() - expected) == 0
    # it satisfies the cut equation it was derived from
    cut = sym.mm1bk_cut_equation()
    p = sp.Function("p")
    closed = sym.mm1bk_state_probability()
    lhs = cut.lhs.subs(p(sym.k - 1), closed.subs(sym.k, sym.k - 1))
    rhs = cut.rhs.subs(p(sym.k), closed)
    assert sp.simplify(sp.gammasimp(lhs - rhs)) == 0


def test_equation_4_sums_to_min_of_b_and_k():
    p0 = sym.mm1bk_p0()
    total = p0.atoms(sp.Sum).pop()
    assert total.limits[0][2] == sp.Min(sym.B, sym.K)
    assert "\\min" in sp.latex(p0)


def test_the_product_form_solves_the_global_balance_equations():
    size = 4
    births = list(sp.symbols(f"l0:{size}", positive=True))
    deaths = list(sp.symbols(f"m1:{size + 1}", positive=True))
    solved = sym.solve_birth_death(births, deaths)
    form = sym.birth_death_product_form()
    lam = {sym.birth_rate(i): births[i] for i in range(size)}
    mu = {sym.death_rate(i + 1): deaths[i] for i in range(size)}
    for n in range(size + 1):
        candidate = form.subs(sym.n, n).doit().subs(lam).subs(mu).subs(sym.p0, solved[0])
        assert sp.simplify(candidate - solved[n]) == 0


def test_balance_equations_are_the_rate_in_equals_rate_out():
    equations, p = sym.birth_death_balance_equations([2, 3], [5, 7])
    assert [str(e) for e in equations] == [
        "Eq(2*p_0, 5*p_1)",
        "Eq(8*p_1, 2*p_0 + 7*p_2)",
        "Eq(7*p_2, 3*p_1)",
    ]
    with pytest.raises(ValueError, match="same length"):
        sym.birth_death_balance_equations([1, 2], [1])


def test_log_space_product_form_equals_the_exact_solution():
    """The numeric birth-death routine that fes uses, against the exact rational solution."""
    rng = np.random.default_rng(7)
    for size in (1, 3, 6):
        births = [sp.Rational(int(v), 7) for v in rng.integers(1, 40, size)]
        deaths = [sp.Rational(int(v), 3) for v in rng.integers(1, 40, size)]
        exact = [float(v) for v in sym.solve_birth_death(births, deaths)]
        log_ratio = np.log([float(b / d) for b, d in zip(births, deaths, strict=True)])
        got = np.exp(log_stationary_distribution(log_ratio[None, :], np.array([size]))[0])
        np.testing.assert_allclose(got, exact, rtol=1e-13)


def test_fes_with_one_thread_and_no_wait_equals_the_exact_birth_death_solution():
    K, B = 4, 3
    births = [sp.Integer(K - n) / THINK for n in range(B)]
    deaths = [1 / SERVICE] * B
    exact = [float(v) for v in sym.solve_birth_death(births, deaths)]
    pool = thread_pool(clients=K, capacity=B, threads=1, cpu_time=0.14, wait_time=0.0,
                       think_time=4.0, method="fes")
    np.testing.assert_allclose(pool.probabilities, exact, rtol=1e-13)
