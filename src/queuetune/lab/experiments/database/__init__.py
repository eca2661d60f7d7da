"""A real database in the lab (issue 31): Tomcat, a HikariCP pool and the PostgreSQL JDBC driver
in the test page, and a throwaway PostgreSQL cluster (:mod:`queuetune.lab.postgres`), with work
per request drawn from a distribution.

* :mod:`.experiment` - what the runner asks of it: factors, settings, servers, load, checks,
  and the advice runs (the sizing's settings deployed);
* :mod:`.tables` - its data set's tables; ``app/database.jsp`` - its test page;
* ``campaigns/`` - its campaign files; :mod:`.chapter` - its runs as the models see them.
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
    parse_settings,
    preflight,
    prepare,
    readme_lines,
    schedule,
    server,
)

__all__ = ["FACTORS", "NAME", "PAGE", "TABLES", "TITLE", "describe", "estimated_seconds",
           "locustfile", "measure", "model_quantities", "new_secret", "parse_settings",
           "preflight", "prepare", "readme_lines", "schedule", "server"]
