"""Today's server in the lab (issue 22): two processors, an arrival rate, a database pool and
virtual threads, on Tomcat.

* :mod:`.experiment` - what the runner asks of it: factors, settings, server, load, summary;
* :mod:`.tables` - its data set's tables; ``app/today.jsp`` - its test page (a fair semaphore
  of C permits held for the wait phase);
* :mod:`.arrivals` - the seeded Poisson schedule of an open-loop run; ``locust_open.py`` and
  ``locust_closed.py`` - its Locust files (:mod:`.locust_common`: what they share);
* ``campaigns/`` - its campaign files; :mod:`.analysis` - a data set turned into per-run
  metrics; :mod:`.chapter` - what the chapter "Today's server" shows (the model predicted
  and fitted, its error by regime, the sizing's advice).
"""

from .chapter import model_quantities
from .experiment import (
    FACTORS,
    NAME,
    PAGE,
    TABLES,
    TITLE,
    describe,
    estimated_seconds,
    locustfile,
    measure,
    new_secret,
    page,
    parse_settings,
    preflight,
    prepare,
    readme_lines,
    schedule,
    server,
)

__all__ = ["FACTORS", "NAME", "PAGE", "TABLES", "TITLE", "describe", "estimated_seconds",
           "locustfile", "measure", "model_quantities", "new_secret", "page", "parse_settings",
           "preflight", "prepare", "readme_lines", "schedule", "server"]
