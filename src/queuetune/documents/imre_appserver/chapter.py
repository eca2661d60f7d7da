"""The helpers of the imre-appserver chapter: the paper's equations as printed, SymPy results
written the way the paper writes them, and the status of its figures.

>>> print(printed_equation(1))  # doctest: +ELLIPSIS
$$
... \\tag{1}
$$
"""

from __future__ import annotations

import textwrap

import sympy as sp

from ... import data
from ...chapters.show import math_block
from .claims import DOC

__all__ = ["printed_equation", "tidy", "figure_status"]


def printed_equation(number: int) -> str:
    """Equation ``number`` of the paper (``equations.csv``), typeset as printed with its number,
    as a display-math Markdown block."""
    equations = data.load(DOC, "equations").set_index("equation")
    if number not in equations.index:
        raise ValueError(f"number must be one of {sorted(equations.index)}, got {number!r}")
    return math_block(str(equations.loc[number, "latex"]), tag=number)


def tidy(expr: sp.Basic) -> sp.Basic:
    """The same expression, arranged as one fraction with positive powers wherever SymPy would
    write a product with negative powers (``K!/(Z^k mu^k ...)`` rather than
    ``Z^{-k} mu^{-k} K!/...``), unevaluated so that it prints that way.

    >>> Z, mu, k, K = sp.symbols("Z mu k K", positive=True)
    >>> p = sp.factorial(K) * Z**(-k) * mu**(-k) / sp.factorial(K - k)
    >>> print(sp.latex(p))
    \\frac{Z^{- k} \\mu^{- k} K!}{\\left(K - k\\right)!}
    >>> print(sp.latex(tidy(p)))
    \\frac{K!}{Z^{k} \\mu^{k} \\left(K - k\\right)!}
    """
    if not isinstance(expr, sp.Basic):
        raise ValueError(f"expr must be a SymPy expression, got {type(expr).__name__}")
    if not expr.args:
        return expr
    if expr.is_Mul:
        num, den = sp.fraction(expr)
        if den != 1:
            return sp.Mul(tidy(num), sp.Pow(tidy(den), -1, evaluate=False), evaluate=False)
    args = [tidy(a) for a in expr.args]
    try:
        return expr.func(*args, evaluate=False)
    except TypeError:
        return expr.func(*args)


def figure_status(figure_id: str, width: int = 72) -> str:
    """"<figure> status: <status>. <note>", wrapped at ``width`` characters."""
    figures = data.load(DOC, "figures").set_index("figure_id")
    if figure_id not in figures.index:
        raise ValueError(f"figure_id must be one of {sorted(figures.index)}, got {figure_id!r}")
    fig = figures.loc[figure_id]
    return textwrap.fill(f"{figure_id} status: {fig['status']}. {fig['note']}", width=width)
