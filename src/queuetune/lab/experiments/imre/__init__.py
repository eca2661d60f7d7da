"""The Imre et al. experiment re-run on Tomcat under Locust: the lab's first experiment.

* :mod:`.experiment` - what the runner asks of it: factors, settings, server, load, summary;
* :mod:`.tables` - its data set's tables; :mod:`.locust_clients` - its clients; ``app/work.jsp``
  - its test page; ``campaigns/`` - its campaign files (``imre``, ``smoke``);
* :mod:`.analysis` - the stored requests turned into the paper's metrics;
* :mod:`.models` - the book's models against them; :mod:`.chapter` - the chapter's helpers.
"""

from .experiment import (
    FACTORS,
    NAME,
    PAGE,
    TABLES,
    TITLE,
    before_campaign,
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
from .models import model_quantities

__all__ = ["FACTORS", "NAME", "PAGE", "TABLES", "TITLE", "before_campaign", "describe",
           "estimated_seconds", "locustfile", "measure", "model_quantities", "new_secret", "page",
           "parse_settings", "preflight", "prepare", "readme_lines", "schedule", "server"]
