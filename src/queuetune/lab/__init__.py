"""The lab: experiments re-run on a real Tomcat under a real load generator.

* :mod:`~queuetune.lab.campaign` reads a campaign file: its experiment, the levels of its
  factors (``[[design]]`` tables, each measured as a product), its validity settings;
* :mod:`~queuetune.lab.runner` runs it, whatever the experiment: one server per group of runs,
  every run checked (:mod:`~queuetune.lab.validity`) and stored with its verdict;
* :mod:`~queuetune.lab.experiments` holds the experiments, each in a home of its own
  (``experiments/<name>/``; ``experiments/README.md`` says how one plugs in): the Imre et al.
  experiment is :mod:`~queuetune.lab.experiments.imre`;
* :mod:`~queuetune.lab.records` writes a data set by column name, :mod:`~queuetune.lab.datasets`
  reads any of them (older formats unchanged) and repairs the status of one whose runner died;
* :mod:`~queuetune.lab.tomcat`, :mod:`~queuetune.lab.generator` (Locust),
  :mod:`~queuetune.lab.monitor` (processor time), :mod:`~queuetune.lab.wire` (what a client
  sees at Tomcat's limits) and :mod:`~queuetune.lab.machine` (provenance) serve every experiment.

Run a campaign from the command line: ``python -m queuetune.lab run`` (``--help`` for more).
"""
