"""The thread rule of Demetriou (1998), domino-threads, as a small calculator.

The rule takes the quantities the article names, checks that they are in range (raising
``ValueError`` that names the parameter and the allowed range), and returns what the article
would set. Its constant comes from the document's data package, so that the number the rule
uses is the number the source prints.

>>> domino_initial_threads(200)
20
"""

from __future__ import annotations

from fractions import Fraction

from ... import stated
from ..._validation import MAX_INTEGER, integer, real
from ...explorer import threads_at_share

__all__ = ["domino_initial_threads", "domino_starting_percent"]

DOC = "domino-threads"


def domino_starting_percent() -> Fraction:
    """The share of web users the 1998 Domino article starts the HTTP thread pool at, in %.

    Read from ``data/domino-threads/stated_values.csv`` (quantity
    ``starting_threads_share_of_web_users``).
    """
    return Fraction(stated.value(DOC, "starting_threads_share_of_web_users"))


def domino_initial_threads(users: int, *, percent: float | None = None) -> int:
    """Starting HTTP "Number of active threads" for a Domino server with ``users`` web users.

    Demetriou (1998): "a good starting value for the number of HTTP threads setting is 10% of the
    number of Web users", then tune it to the ``domino.threads.active.peak`` statistic. The
    share is rounded *up* to a whole thread, so that 25 users give 3 threads, not 2.5, and the
    pool never starts empty.

    ``users``: expected web users, an integer in [1, 2**53].
    ``percent``: the share in percent, in (0, 100]; by default the article's (10).

    >>> domino_initial_threads(25)
    3
    >>> domino_initial_threads(350, percent=20)
    70
    """
    users = integer(users, "users", low=1, high=MAX_INTEGER, unit="(expected web users)")
    if percent is None:
        share = domino_starting_percent()
    else:
        percent = real(percent, "percent", low=0, high=100, low_open=True,
                       unit="% (share of web users)")
        # The decimal text of the number, so that 12.3 % means 123/1000 and not its binary
        # neighbour (which could round 20.000000000000004 threads up to 21).
        share = Fraction(str(percent))
    return threads_at_share(clients=users, percent=share)
