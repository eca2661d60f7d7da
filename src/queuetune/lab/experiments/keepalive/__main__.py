"""``python -m queuetune.lab.experiments.keepalive run [CAMPAIGN] [--out DIR]``: measure the
keep-alive campaign and store its data set (``plan`` prints the runs without measuring)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ...tomcat import ServerError
from . import dataset, plan
from .run import measure
from .server import KeepAliveSettings


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m queuetune.lab.experiments.keepalive")
    parser.add_argument("command", choices=("run", "plan"))
    parser.add_argument("campaign", nargs="?", default=str(plan.DEFAULT_CAMPAIGN))
    parser.add_argument("--out", default="data/lab",
                        help="folder of data sets (default: data/lab)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        campaign = plan.load(args.campaign)
        runs = plan.configurations(campaign)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for c in runs:
        print(f"run {c.run}: {c.scheme}, maxKeepAliveRequests {c.keep_alive_requests}, "
              f"{c.clients} clients x {c.requests_per_client} requests")
    if args.command == "plan":
        return 0
    folder = dataset.new_folder(Path(args.out), campaign.get("name", "keepalive-tomcat"),
                                _today())
    jvm = KeepAliveSettings(keep_alive_requests=1, port=1, warm_port=2,
                            cores=runs[0].server_cores).jvm_options()
    results, status = [], "running"
    load_average = {"start": [round(x, 2) for x in os.getloadavg()]}
    try:
        for c in runs:
            result = measure(c)
            results.append(result)
            s = result.summary
            print(f"run {c.run}: {s['average_request_time_ms']:.3f} ms per request, "
                  f"{s['total_run_time_s']:.2f} s, {s['connections_opened']} connections, "
                  f"TIME_WAIT server {s['time_wait_server']} / client {s['time_wait_client']}",
                  flush=True)
        status = "complete"
    except KeyboardInterrupt:
        status = "interrupted"
    except (ServerError, RuntimeError) as exc:
        status = f"failed: {exc}".splitlines()[0]
        print(f"error: {exc}", file=sys.stderr)
    if results:
        load_average["end"] = [round(x, 2) for x in os.getloadavg()]
        dataset.write(folder, results, plan=campaign, campaign_file=Path(args.campaign),
                      status=status, jvm_options=jvm, load_average=load_average)
        print(f"stored {len(results)} runs in {folder} ({status})")
    return 0 if status == "complete" else 1


def _today() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%d")


if __name__ == "__main__":
    sys.exit(main())
