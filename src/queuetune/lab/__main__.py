"""Command line of the lab: ``python -m queuetune.lab run [CAMPAIGN] [options]``.

Examples::

    python -m queuetune.lab run                     # the default campaign (imre)
    python -m queuetune.lab run smoke --out /tmp/x  # a few seconds
    python -m queuetune.lab run --target http://server:8080 --secret S   # a server you started
    python -m queuetune.lab run --workers 2         # Locust master + 2 local workers
    python -m queuetune.lab run --expect-workers 3 --master-bind 0.0.0.0:5557
    python -m queuetune.lab plan                    # what the default campaign will do
    python -m queuetune.lab repair data/lab/X       # the status of a data set whose runner died
    python -m queuetune.lab webapp DIR              # the test page, to deploy on your server
    python -m queuetune.lab locustfile              # path of the Locust file, for workers
    python -m queuetune.lab import run_stats_history.csv --out data/lab/mine  # Locust or JTL
    python -m queuetune.lab report data/lab/mine --html report.html   # parameters, settings

The test page does work only for requests that carry its secret (a new one each time
``webapp`` writes it; it prints it): pass it to ``run --secret``. Remove the page from your
server when you have measured. Locust's distributed port (``--master-bind``) belongs on a
trusted network only: anyone who reaches it can join the run as a worker.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import campaign as campaign_
from . import experiments


def _campaign(name: str) -> campaign_.Campaign:
    path = Path(name)
    return campaign_.load(path if path.suffix == ".toml" else campaign_.builtin(name))


def _bind(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"--master-bind must be HOST:PORT, got {text!r}")
    return host, int(port)


_WEBAPP_HELP = """\
Writes the experiment's test page (the path its runner asks for: work.jsp for imre,
today.jsp for today) into FOLDER, with a new random secret written into it, and
prints the secret. Deploy the page as the ROOT application (or any context) of your own
server; it does work only for requests carrying the secret (header X-Queuetune-Secret),
which `python -m queuetune.lab run --target URL --secret SECRET` sends. Any other request
gets 403 at once and costs nothing. Remove the page from your server when you have measured:
with its secret, it does as much work as it is asked. Locust's distributed port
(--master-bind) belongs on a trusted network only.
"""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m queuetune.lab", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a campaign and store its data set")
    run.add_argument("campaign", nargs="?", default="imre",
                     help=f"a built-in campaign ({', '.join(campaign_.builtins())}) or a "
                          f".toml file (default: imre)")
    run.add_argument("--out", type=Path, default=Path("data/lab"),
                     help="folder that receives the new data set (default: data/lab)")
    run.add_argument("--target", help="base URL of a server you started (the runner then "
                                      "starts no server)")
    run.add_argument("--secret", help="the secret of the test page deployed on --target "
                                      "(printed by the webapp command)")
    run.add_argument("--workers", type=int, default=0,
                     help="Locust's distributed mode with this many local workers")
    run.add_argument("--expect-workers", type=int, default=0,
                     help="Locust's distributed mode, waiting for this many workers that you "
                          "start on other machines")
    run.add_argument("--master-bind", type=_bind, default=None,
                     help="HOST:PORT the Locust master listens on for remote workers (a "
                          "trusted network only)")
    run.add_argument("--no-wire", action="store_true",
                     help="skip the scenarios at the server's limits")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    plan = sub.add_parser("plan", help="print what a campaign will run and how long it takes")
    plan.add_argument("campaign", nargs="?", default="imre")
    repair = sub.add_parser("repair", help="set the status of a data set whose runner was "
                                           "killed, from the runs on disk")
    repair.add_argument("folder", type=Path)
    webapp = sub.add_parser("webapp", help="write the test page, with a new secret, to deploy "
                                           "on your own server (remove it after measuring)",
                            description=_WEBAPP_HELP)
    webapp.add_argument("folder", type=Path)
    webapp.add_argument("--experiment", default="imre", help="whose page (default: imre)")
    locust = sub.add_parser("locustfile", help="print the path of the Locust file (for "
                                               "workers)")
    locust.add_argument("--experiment", default="imre", help="whose file (default: imre)")
    imp = sub.add_parser("import", help="turn a Locust stats history CSV or a JMeter JTL "
                                        "(CSV) into a lab data set")
    imp.add_argument("file", type=Path)
    imp.add_argument("--out", type=Path, required=True, help="the new data set's folder")
    rep = sub.add_parser("report", help="a data set's service time, fitted parameters, "
                                        "ceilings, misses and recommended settings")
    rep.add_argument("dataset", help="a data set's name under data/lab or its folder")
    rep.add_argument("--html", type=Path, help="also write the report as one HTML file")
    rep.add_argument("--processors", type=int, default=None,
                     help="the server's processors (default: as the data set records, or 1)")
    rep.add_argument("--include-invalid", action="store_true",
                     help="use the runs the runner flagged invalid too (they are left out)")
    return parser


def _import_or_report(args) -> int:
    if args.command == "import":
        from .importers import import_file

        print(import_file(args.file, args.out))
        return 0
    from . import report

    if args.html:
        report.check_html_path(args.html)
    if args.processors is not None and args.processors < 1:
        raise ValueError(f"--processors must be an integer >= 1, got {args.processors}")
    options = {"processors": args.processors, "include_invalid": args.include_invalid}
    print(report.text(args.dataset, **options))
    if args.html:
        path = report.write_html(args.dataset, args.html, **options)
        print(f"wrote {path} ({path.stat().st_size / 1024:.0f} kB)")
    return 0


def _plan(plan: campaign_.Campaign) -> int:
    runs = plan.schedule()
    minutes = plan.estimated_seconds() / 60
    print(f"{plan.name}: {len(runs)} runs, about {minutes:.0f} min "
          f"(experiment {plan.experiment.NAME})")
    for run in runs:
        levels = "  ".join(f"{k} {v}" for k, v in run.levels)
        print(f"  {run.kind:10} {levels}")
    return 0


def _webapp(args) -> int:
    experiment = experiments.get(args.experiment)
    if not all(hasattr(experiment, name) for name in ("page", "new_secret", "PAGE")):
        raise ValueError(f"experiment {args.experiment!r} has no test page to deploy (its "
                         f"server is one the runner starts and configures); experiments "
                         f"with one: {_with_page()}")
    secret = experiment.new_secret()
    args.folder.mkdir(parents=True, exist_ok=True)
    path = args.folder / experiment.PAGE.lstrip("/")
    path.write_bytes(experiment.page(secret))
    print(f"wrote {path}\nsecret: {secret}\n(send it as header X-Queuetune-Secret; "
          f"python -m queuetune.lab run --target URL --secret {secret}). Remove the page "
          f"after measuring.")
    return 0


def _with_page() -> list[str]:
    return [name for name in experiments.names()
            if hasattr(experiments.get(name), "page")]


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "locustfile":
            print(experiments.get(args.experiment).locustfile())
            return 0
        if args.command == "webapp":
            return _webapp(args)
        if args.command in ("import", "report"):
            try:
                return _import_or_report(args)
            except OSError as exc:  # a file the data set names, unreadable: say which
                raise ValueError(f"{exc.filename or args.command}: "
                                 f"{exc.strerror or exc}") from None
        if args.command == "repair":
            from .datasets import repair

            status = repair(args.folder)
            print(f"{args.folder}: {status}")
            return 0
        plan = _campaign(args.campaign)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "plan":
        return _plan(plan)
    from .runner import Options, run_campaign
    from .tomcat import ServerError

    options = Options(out_root=args.out, target=args.target, secret=args.secret,
                      workers=args.workers, expect_workers=args.expect_workers,
                      master_bind=args.master_bind, wire=not args.no_wire,
                      progress=not args.quiet)
    print(f"{plan.name}: {len(plan.schedule())} runs, about "
          f"{plan.estimated_seconds(starts_server=args.target is None) / 60:.0f} min",
          file=sys.stderr)
    try:
        directory = run_campaign(plan, options)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except ServerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        print("interrupted: the server and the load generator are stopped; the runs "
              "completed so far are stored", file=sys.stderr)
        return 130
    print(directory)
    from .datasets import metadata

    meta = metadata(directory)
    if meta["status"] != "complete":
        invalid = ", ".join(map(str, meta.get("invalid_runs") or [])) or "none"
        print(f"status: {meta['status']} (invalid runs: {invalid}; see invalid_reason in "
              f"runs.csv)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the output was piped into a command that stopped reading
        sys.exit(0)
