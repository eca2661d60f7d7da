"""The simulator's event list and slots keep simpy's order of events (which the stored samples
of test_reference.py and test_legacy.py depend on)."""

from __future__ import annotations

from queuetune.simulation import _Events, _Slots


def _log_process(events, log, name, steps):
    """A process that logs ``name`` and the time at each step, yielding the steps in turn."""
    for step in steps:
        log.append((name, events.now))
        yield step
    log.append((name, events.now))


def test_events_at_one_time_run_in_the_order_scheduled():
    events, log = _Events(), []
    for name in "abc":
        events.call(1.0, log.append, name)
    events.call(0.5, log.append, "first")
    events.run(until=2.0)
    assert log == ["first", "a", "b", "c"]


def test_a_process_started_runs_before_the_events_already_due():
    """simpy's Initialize is urgent: a process started now runs before a wake-up scheduled
    earlier for now."""
    events, log = _Events(), []
    events.call(0, log.append, "due")
    events.start(_log_process(events, log, "started", []))
    events.run(until=1.0)
    assert log == [("started", 0.0), "due"]


def test_a_process_sleeps_its_delays_and_the_clock_ends_at_until():
    events, log = _Events(), []
    events.start(_log_process(events, log, "p", [1.5, 2.0, 10.0]))
    events.run(until=5.0)
    assert log == [("p", 0.0), ("p", 1.5), ("p", 3.5)]
    assert events.now == 5.0  # exact: the clock is set to until


def test_nothing_due_at_until_runs():
    events, log = _Events(), []
    events.call(1.0, log.append, "at until")
    events.run(until=1.0)
    assert log == []


def _user(events, slots, log, name, hold):
    slots.request()
    yield None
    log.append((name, "granted", events.now))
    yield hold
    slots.release()
    log.append((name, "released", events.now))


def test_slots_are_granted_first_come_first_served():
    events, log = _Events(), []
    slots = _Slots(events, capacity=1)
    for name, hold in (("a", 2.0), ("b", 1.0), ("c", 1.0)):
        events.start(_user(events, slots, log, name, hold))
    events.run(until=10.0)
    assert log == [("a", "granted", 0.0), ("a", "released", 2.0), ("b", "granted", 2.0),
                   ("b", "released", 3.0), ("c", "granted", 3.0), ("c", "released", 4.0)]


def test_a_released_slot_goes_to_the_waiting_request_after_the_events_already_due():
    """As with simpy.Resource: the release frees the slot at once, and the first request
    waiting is granted when the release's own event comes up: after the holder's zero-length
    sleep scheduled just after the release, and after the bystander due at that time."""
    events, log = _Events(), []
    slots = _Slots(events, capacity=1)

    def holder():
        slots.request()
        yield None
        log.append(("holder", "granted", events.now))
        yield 1.0
        slots.release()
        log.append(("holder", "released", events.now))
        yield 0.0
        log.append(("holder", "again", events.now))

    events.start(holder())
    events.start(_user(events, slots, log, "waiter", 1.0))
    events.start(_log_process(events, log, "bystander", [0.0, 1.0]))
    events.run(until=1.5)
    assert log == [("bystander", 0.0), ("holder", "granted", 0.0), ("bystander", 0.0),
                   ("holder", "released", 1.0), ("bystander", 1.0), ("holder", "again", 1.0),
                   ("waiter", "granted", 1.0)]
    assert slots.users == 1  # exact: a count
