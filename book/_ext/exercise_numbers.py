"""Number the exercises of each page from 1.

Sphinx numbers enumerable nodes per section number, and the book's table of contents is not
numbered, so without this every exercise of the book shares one counter and a chapter's first
exercise can be "Exercise 28". After Sphinx has assigned the numbers (the ``env-get-updated``
event), each page's exercises are renumbered 1, 2, 3, ... in their order on the page; the titles
of the exercises, of their solutions and of references to them all read these numbers.
"""

from __future__ import annotations

FIGTYPE = "exercise"


def per_page(fignumbers: dict[str, dict[str, dict[str, tuple[int, ...]]]]) -> list[str]:
    """Renumber the exercises of every page from 1 in place; return the pages that changed.

    >>> numbers = {"a": {"exercise": {"x": (5,), "y": (4,)}, "figure": {"f": (9,)}}}
    >>> per_page(numbers), numbers["a"]["exercise"], numbers["a"]["figure"]
    (['a'], {'y': (1,), 'x': (2,)}, {'f': (9,)})
    """
    changed = []
    for docname, kinds in fignumbers.items():
        numbers = kinds.get(FIGTYPE)
        if not numbers:
            continue
        order = sorted(numbers, key=numbers.__getitem__)
        renumbered = {ident: (rank,) for rank, ident in enumerate(order, start=1)}
        if renumbered != numbers:
            kinds[FIGTYPE] = renumbered
            changed.append(docname)
    return changed


def renumber(app, env) -> list[str]:
    return per_page(env.toc_fignumbers)


def setup(app):
    # after Sphinx's own numbering (priority 500)
    app.connect("env-get-updated", renumber, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
