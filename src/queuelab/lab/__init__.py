"""The lab: the Imre et al. experiment re-run on a real Tomcat under a real load generator.

* :mod:`~queuelab.lab.campaign` reads a campaign file (``campaigns/imre.toml`` is the default);
* :mod:`~queuelab.lab.runner` runs it: Tomcat (:mod:`~queuelab.lab.tomcat`) and Locust
  (:mod:`~queuelab.lab.generator`, :mod:`~queuelab.lab.locustfile`), pinned to separate cores;
* :mod:`~queuelab.lab.records` writes the data set, :mod:`~queuelab.lab.machine` its provenance;
* :mod:`~queuelab.lab.wire` shows what a client sees at Tomcat's limits;
* :mod:`~queuelab.lab.analysis` turns the stored requests into the paper's metrics.

Run a campaign from the command line: ``python -m queuelab.lab run`` (``--help`` for more).
"""
