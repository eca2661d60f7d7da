"""The keep-alive experiment: the persistent-connection test of domino-keepalive (Nashed,
2023) re-run on Apache Tomcat.

Ten client threads each send 1000 requests for a 5887-byte page, one after another, over one
connection that Tomcat closes after ``maxKeepAliveRequests`` answers; the factor is that limit
(1: no keep-alive, 5, 10, 100) and the protocol (HTTP, or HTTPS at 100). A run gives the blog's
two measures (average request time, total run time), the connections opened and the sockets
left in ``TIME_WAIT`` on each side.

* :mod:`.server`: the server's settings (``server.xml``, the page, the TLS certificate);
* :mod:`.locustfile`: the load (Locust's clients);
* :mod:`.summary`: how a run is summarized;
* :mod:`.run`, :mod:`.plan`, :mod:`.dataset`: one run, the campaign file, the data set.

``python -m queuetune.lab.experiments.keepalive run`` measures the campaign
(``campaign.toml`` here) and stores a data set under ``data/lab/``.
"""
