"""Rich output of a chapter in a live notebook: Markdown and typeset math.

The text shown is computed by functions that return it (and that tests pin); these only hand
it to IPython's ``display``, imported when called (the package itself needs no IPython).
"""

from __future__ import annotations

from .. import stated

__all__ = ["markdown", "math_block", "math", "figure"]


def _display(*objects) -> None:
    from IPython.display import display

    display(*objects)


def markdown(text: str) -> None:
    """Display ``text`` as Markdown."""
    from IPython.display import Markdown

    if not isinstance(text, str):
        raise ValueError(f"text must be a string, got {type(text).__name__}")
    _display(Markdown(text))


def math_block(*lines: str, tag: int | None = None) -> str:
    """LaTeX ``lines`` as one display-math block (lines joined by ``\\\\``), numbered ``tag``.

    >>> print(math_block("a = b", "c = d"))
    $$
    a = b \\\\ c = d
    $$
    >>> print(math_block("E = mc^2", tag=3))
    $$
    E = mc^2 \\tag{3}
    $$
    """
    if not lines or not all(isinstance(line, str) for line in lines):
        raise ValueError("lines must be one or more LaTeX strings")
    body = r" \\ ".join(lines)
    if tag is not None:
        body += f" \\tag{{{tag}}}"
    return f"$$\n{body}\n$$"


def math(*lines: str, tag: int | None = None) -> None:
    """Display LaTeX ``lines`` as one block of typeset math (see :func:`math_block`)."""
    markdown(math_block(*lines, tag=tag))


def figure(document: str, figure_id: str) -> None:
    """Display a figure's status note and the numbers the text states about it
    (:func:`queuetune.stated.figure_statements`)."""
    note, sentences = stated.figure_statements(document, figure_id)
    markdown(note)
    if sentences is None:
        markdown("*The text states no number about this chart.*")
    else:
        _display(sentences)
