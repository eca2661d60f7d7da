"""queuetune.lab.experiments.today.convoy: the request threads' scheduler statistics, summed,
and a short probe of a one-processor Tomcat."""

from __future__ import annotations

import pytest

from queuetune.lab.experiments.today import convoy


def test_schedstat_sums_the_executors_threads_only(tmp_path):
    task = tmp_path / "42" / "task"
    for tid, name, stat in ((1, "java", "5000000000 1 1"),
                            (2, "queuetune-exec-", "2000000000 3000000000 10"),
                            (3, "queuetune-exec-", "1000000000 500000000 4"),
                            (4, "http-nio-accept", "7 7 7")):
        (task / str(tid)).mkdir(parents=True)
        (task / str(tid) / "comm").write_text(name + "\n")
        (task / str(tid) / "schedstat").write_text(stat + "\n")
    ran, waited, slices, count = convoy.schedstat(42, proc=tmp_path)
    assert (slices, count) == (14, 2)  # exact: counts
    assert ran == pytest.approx(3.0, rel=1e-12) and waited == pytest.approx(3.5, rel=1e-12)


def test_bad_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="clients"):
        convoy.where_threads_wait(threads=8, clients=4)
    with pytest.raises(ValueError, match="threads"):
        convoy.where_threads_wait(threads=0)


@pytest.mark.lab
def test_the_probe_splits_the_time_a_request_held_its_thread(no_leftovers):
    seen = convoy.where_threads_wait(threads=2, clients=6, seconds=1.0,
                                     calibration_requests=5)
    assert seen["threads seen"] == 2 and seen["answers"] > 0
    parts = seen["on the core (ms)"] + seen["on the run queue (ms)"] + seen["elsewhere (ms)"]
    assert parts == pytest.approx(seen["held (ms)"], rel=1e-9)  # the rest is what is left
    assert seen["on the core (ms)"] > 0 and seen["core busy (everything)"] > 0
