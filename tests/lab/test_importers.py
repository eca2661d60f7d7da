"""Locust stats histories and JMeter JTL files turned into lab data sets
(queuetune.lab.importers): the runs they give, the provenance written, and refusals by
column and line with nothing written. One test (marker ``lab``) imports the history of a
real Locust run against a real Tomcat of the smoke campaign's kind."""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap

import pytest

from queuetune.lab import datasets, importers


def _jtl_lines(levels, *, think=0.5, response=lambda k: 0.02 * k, seconds=20.0,
               success=lambda k, i: True):
    """A JTL whose K clients each send, wait ``response(K)`` and think ``think``:
    K / (R + Z) requests a second, level after level."""
    lines = ["timeStamp,elapsed,label,responseCode,success,allThreads"]
    t0 = 1_700_000_000_000
    for k in levels:
        cycle = response(k) + think
        rows = []
        for client in range(k):
            start = client * cycle / k
            i = 0
            while start + response(k) <= seconds:
                rows.append((round(t0 + start * 1000), round(response(k) * 1000),
                             success(k, i)))
                start += cycle
                i += 1
        for stamp, elapsed, ok in sorted(rows):
            lines.append(f"{stamp},{elapsed},page,200,{str(ok).lower()},{k}")
        t0 += round(seconds * 1000) + 1000
    return "\n".join(lines) + "\n"


def test_a_jtl_gives_one_run_per_thread_count(tmp_path):
    source = tmp_path / "results.jtl"
    source.write_text(_jtl_lines([1, 4, 8]))
    out = importers.import_file(source, tmp_path / "mine", today="2026-11-27")
    runs = datasets.load("runs", out)
    assert runs["clients"].tolist() == [1, 4, 8]
    # K / (R + Z) requests a second (the window runs from the first start to the last end)
    expected = [k / (0.02 * k + 0.5) for k in (1, 4, 8)]
    assert runs["throughput"].to_numpy() == pytest.approx(expected, rel=0.05)
    assert runs["response_time"].to_numpy() == pytest.approx([0.02, 0.08, 0.16])
    assert (runs["error_rate"] == 0).all() and runs["think_s"].isna().all()
    meta = datasets.metadata(out)
    assert meta["format_version"] == importers.FORMAT_VERSION
    assert meta["experiment"] == "imported" and meta["status"] == "complete"
    assert meta["source"] == {"file": "results.jtl", "tool": "JMeter (JTL, CSV)",
                              "sha256": hashlib.sha256(source.read_bytes()).hexdigest(),
                              "imported": "2026-11-27"}
    assert "threads" in meta["unknown"] and "processor time per request" in meta["unknown"]
    assert "results.jtl" in (out / "README.md").read_text()


def test_failed_samples_count_as_errors_not_as_throughput(tmp_path):
    source = tmp_path / "r.jtl"
    source.write_text(_jtl_lines([4], success=lambda k, i: i % 4 != 0))
    runs = datasets.load("runs", importers.import_file(source, tmp_path / "d"))
    assert runs["error_rate"].iloc[0] == pytest.approx(0.25, abs=0.02)
    assert runs["ok"].iloc[0] + runs["failed"].iloc[0] == runs["sent"].iloc[0]


def _history(rows):
    header = ('"Timestamp","User Count","Type","Name","Requests/s","Failures/s",'
              '"Total Request Count","Total Failure Count","Total Average Response Time"')
    return header + "\n" + "\n".join(rows) + "\n"


def test_a_locust_history_gives_one_run_per_user_count(tmp_path):
    rows = []
    count = failures = 0
    summed = 0.0
    for t in range(0, 12):
        users = 2 if t < 6 else 5          # 6 s at 2 users (10 requests a second, 40 ms),
        rate, r = (10, 40.0) if users == 2 else (20, 100.0)   # then 6 s at 5 (20, 100 ms)
        if t:
            count += rate
            summed += rate * r
            failures += 0 if users == 2 else 1
        mean = summed / count if count else 0
        rows.append(f'{1700000000 + t},{users},"","Aggregated",0,0,{count},{failures},{mean}')
        rows.append(f'{1700000000 + t},{users},"GET","/page",0,0,{count},{failures},{mean}')
    source = tmp_path / "run_stats_history.csv"
    source.write_text(_history(rows))
    runs = datasets.load("runs", importers.import_file(source, tmp_path / "d"))
    assert runs["clients"].tolist() == [2, 5]
    assert runs["throughput"].tolist() == pytest.approx([10.0, 19.0])
    assert runs["response_time"].tolist() == pytest.approx([0.040, 0.100])
    assert runs["error_rate"].tolist() == pytest.approx([0.0, 0.05])
    assert datasets.metadata(tmp_path / "d")["source"]["tool"].startswith("Locust")


@pytest.mark.parametrize(("text", "message"), [
    ("timeStamp,elapsed,success\n1,2,true\n", "no column 'allThreads'"),
    ("timeStamp,elapsed,success,allThreads\n1,2,true,1\n1,x,true,1\n",
     "column 'elapsed' of line 3 must be"),
    ("timeStamp,elapsed,success,allThreads\n1,2,maybe,1\n", "column 'success' of line 2"),
    ("timeStamp,elapsed,success,allThreads\n1,2,true\n", "line 2 of the JTL file has 3"),
    ("timeStamp,elapsed,success,allThreads\n1,-2,true,1\n", "column 'elapsed' of line 2"),
    ("timeStamp,elapsed,success,allThreads\n", "no sample"),
    ("a,b\n1,2\n", "neither a Locust stats history"),
    ('"Timestamp","User Count","Name","Total Request Count","Total Failure Count"\n',
     "no column 'Total Average Response Time'"),
    (_history(['1,2,"","Aggregated",0,0,10,0,5', '2,2,"","Aggregated",0,0,8,0,5']),
     "line 3 of the Locust stats history goes back"),
    (_history(['1,2,"","Aggregated",0,0,10,11,5']), "'Total Failure Count' of line 2"),
    (_history(['1,2,"","Aggregated",0,0,10,0,5', '2,2,"","Aggregated",0,0,20,0,5']),
     "no stretch of at least"),
])
def test_a_malformed_file_is_refused_by_name_and_nothing_is_written(tmp_path, text,
                                                                    message):
    source = tmp_path / "bad.csv"
    source.write_text(text)
    with pytest.raises(ValueError, match=message):
        importers.import_file(source, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_an_existing_data_set_is_not_overwritten(tmp_path):
    source = tmp_path / "r.jtl"
    source.write_text(_jtl_lines([1, 2]))
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep").write_text("x")
    with pytest.raises(ValueError, match="out .* exists"):
        importers.import_file(source, tmp_path / "out")
    with pytest.raises(ValueError, match="does not exist"):
        importers.import_file(tmp_path / "missing.jtl", tmp_path / "new")


def test_the_command_imports_and_refuses(tmp_path, capsys):
    from queuetune.lab.__main__ import main

    source = tmp_path / "r.jtl"
    source.write_text(_jtl_lines([1, 2]))
    assert main(["import", str(source), "--out", str(tmp_path / "d")]) == 0
    source.write_text("timeStamp,elapsed\n")
    assert main(["import", str(source), "--out", str(tmp_path / "e")]) == 2
    assert "no column 'success'" in capsys.readouterr().err and not (tmp_path / "e").exists()


LOCUSTFILE = textwrap.dedent('''
    from locust import HttpUser, LoadTestShape, constant, task

    SECRET = {secret!r}

    class Client(HttpUser):
        wait_time = constant(0.05)

        @task
        def work(self):
            self.client.get("/work.jsp?work=0&sleep_us=5000&bytes=1000",
                            headers={{"X-Queuetune-Secret": SECRET, "Connection": "close"}})

    class Steps(LoadTestShape):
        steps = ((4, 1), (8, 4), (12, 8))   # (until second, users)

        def tick(self):
            t = self.get_run_time()
            for end, users in self.steps:
                if t < end:
                    return users, 100
            return None
''')


@pytest.mark.lab
def test_the_history_of_a_real_locust_run_imports_and_reports(tmp_path, no_leftovers):
    from queuetune.lab import report, tomcat
    from queuetune.lab.experiments.imre import experiment

    secret = experiment.new_secret()
    settings = tomcat.ServerSettings(threads=4, queue=50, port=tomcat.free_port(),
                                     heap_mb=128, cores=(1,))
    locustfile = tmp_path / "steps.py"
    locustfile.write_text(LOCUSTFILE.format(secret=secret))
    with tomcat.Tomcat(settings, pages={"work.jsp": experiment.page(secret)},
                       ready_headers={experiment.SECRET_HEADER: secret}) as server:
        subprocess.run([sys.executable, "-m", "locust", "-f", str(locustfile), "--headless",
                        "--host", server.url, "--csv", str(tmp_path / "run"),
                        "--csv-full-history", "--only-summary", "--loglevel", "WARNING"],
                       check=True, timeout=120, capture_output=True)
    out = importers.import_file(tmp_path / "run_stats_history.csv", tmp_path / "imported")
    runs = datasets.load("runs", out)
    assert runs["clients"].tolist() == [1, 4, 8]
    assert (runs["error_rate"] == 0).all() and (runs["response_time"] > 0.005).all()
    text = report.text(out)
    assert "Recommended settings" in text and "no processor time in the data" in text
