"""The lab: the Imre et al. experiment re-run on a real Tomcat under a real load generator.

* :mod:`~queuetune.lab.campaign` reads a campaign file (``campaigns/imre.toml`` is the default);
* :mod:`~queuetune.lab.runner` runs it: Tomcat (:mod:`~queuetune.lab.tomcat`) and Locust
  (:mod:`~queuetune.lab.generator`, :mod:`~queuetune.lab.locustfile`), pinned to separate cores;
* :mod:`~queuetune.lab.records` writes the data set, :mod:`~queuetune.lab.machine` its provenance;
* :mod:`~queuetune.lab.wire` shows what a client sees at Tomcat's limits;
* :mod:`~queuetune.lab.analysis` turns the stored requests into the paper's metrics.

Run a campaign from the command line: ``python -m queuetune.lab run`` (``--help`` for more).
"""
