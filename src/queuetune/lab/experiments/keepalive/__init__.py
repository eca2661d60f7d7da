"""The keep-alive experiment: the persistent-connection test of domino-keepalive (Nashed,
2023) re-run on Apache Tomcat.

Ten client threads each send 1000 requests for a 5887-byte page, one after another, over one
connection that Tomcat closes after ``maxKeepAliveRequests`` answers; the factors are that limit
(1: no keep-alive, 5, 10, 100), the protocol (HTTP, or HTTPS) and the clients. A run gives the
blog's two measures (average request time, total run time), the connections opened and the
sockets left in ``TIME_WAIT`` on each side.

* :mod:`.experiment` - what the runner asks of it: factors, settings, server, load, summary;
* :mod:`.server_config` - its Tomcat (``server.xml``, the page, the TLS certificate);
* :mod:`.locust_clients` - its clients; :mod:`.summary` - how a run is summarized;
* :mod:`.quantities` - its runs as the report's models see them;
* :mod:`.tables` - its data set's tables; ``campaigns/`` - its campaign files
  (``keepalive``, ``keepalive-smoke``).

``python -m queuetune.lab run keepalive`` measures the built-in campaign and stores a data set
under ``data/lab/``. The chapter helpers are in
:mod:`queuetune.documents.domino_keepalive.remeasured`.
"""

from .experiment import (
    FACTORS,
    NAME,
    TABLES,
    TITLE,
    describe,
    estimated_seconds,
    locustfile,
    measure,
    parse_settings,
    preflight,
    prepare,
    readme_lines,
    schedule,
    server,
)
from .quantities import model_quantities

__all__ = ["FACTORS", "NAME", "TABLES", "TITLE", "describe", "estimated_seconds", "locustfile",
           "measure", "model_quantities", "parse_settings", "preflight", "prepare", "readme_lines",
           "schedule", "server"]
