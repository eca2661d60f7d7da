"""Command line of the lab: ``python -m queuetune.lab run [CAMPAIGN] [options]``.

Examples::

    python -m queuetune.lab run                     # the default campaign (imre), about 1 hour
    python -m queuetune.lab run smoke --out /tmp/x  # a few seconds
    python -m queuetune.lab run --target http://server:8080   # a server you started
    python -m queuetune.lab run --workers 2         # Locust master + 2 local workers
    python -m queuetune.lab run --expect-workers 3 --master-bind 0.0.0.0:5557
    python -m queuetune.lab plan                    # what the default campaign will do
    python -m queuetune.lab webapp DIR              # the test page, to deploy on your server
    python -m queuetune.lab locustfile              # path of the Locust file, for workers
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import campaign as campaign_
from .generator import locustfile


def _campaign(name: str) -> campaign_.Campaign:
    path = Path(name)
    return campaign_.load(path if path.suffix == ".toml" else campaign_.builtin(name))


def _bind(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"--master-bind must be HOST:PORT, got {text!r}")
    return host, int(port)


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
                                      "starts no Tomcat)")
    run.add_argument("--workers", type=int, default=0,
                     help="Locust's distributed mode with this many local workers")
    run.add_argument("--expect-workers", type=int, default=0,
                     help="Locust's distributed mode, waiting for this many workers that you "
                          "start on other machines")
    run.add_argument("--master-bind", type=_bind, default=None,
                     help="HOST:PORT the Locust master listens on for remote workers")
    run.add_argument("--no-wire", action="store_true",
                     help="skip the two scenarios at Tomcat's limits")
    run.add_argument("--quiet", action="store_true", help="no progress bar")
    plan = sub.add_parser("plan", help="print what a campaign will run and how long it takes")
    plan.add_argument("campaign", nargs="?", default="imre")
    webapp = sub.add_parser("webapp", help="write the test page into a folder, to deploy it "
                                           "as ROOT (or any context) of your own server")
    webapp.add_argument("folder", type=Path)
    sub.add_parser("locustfile", help="print the path of the Locust file (for workers)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "locustfile":
        print(locustfile())
        return 0
    if args.command == "webapp":
        from importlib import resources

        args.folder.mkdir(parents=True, exist_ok=True)
        page = resources.files(__package__) / "app" / "work.jsp"
        (args.folder / "work.jsp").write_bytes(page.read_bytes())
        print(f"wrote {args.folder / 'work.jsp'}")
        return 0
    try:
        plan = _campaign(args.campaign)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.command == "plan":
        runs = plan.schedule()
        minutes = plan.estimated_seconds() / 60
        print(f"{plan.name}: {len(runs)} runs, about {minutes:.0f} min")
        for run in runs:
            print(f"  {run.kind:10} {run.split.name:8} threads {run.threads:5} queue "
                  f"{run.queue:6} clients {run.clients:6}")
        return 0
    from .runner import Options, run_campaign
    from .tomcat import ServerError

    options = Options(out_root=args.out, target=args.target, workers=args.workers,
                      expect_workers=args.expect_workers, master_bind=args.master_bind,
                      wire=not args.no_wire, progress=not args.quiet)
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
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # the output was piped into a command that stopped reading
        sys.exit(0)
