"""Claims audit of Imre, Bogárdi-Mészöly and Charaf, "Measuring and Modelling the Effect of
Application Server Tuning Parameters on Performance" (IM-C1 … IM-C6), and the model curves of
their figures 5-8.

The measured curves (figures 2-8) are not in the text, so no claim about a measurement can be
tested against data. What can be computed is the paper's own M/M/1/B/K model
(:func:`queuetune.mm1bk`) with the stated think time ``Z`` and service time ``S``, at the client
counts and queue sizes of Table 1, and the thread-pool extension the paper names as future work
(:func:`queuetune.thread_pool`). Each check says what those compute about the claim.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ... import data, stated
from ...audit import UNTESTED_MARK, check
from ...models import mm1bk, thread_pool

DOC = "imre-appserver"
#: Two response times differ "visibly" from this relative gap on (a 1 % difference).
VISIBLE_GAP = 0.01
#: Share of the service time S spent on the CPU in the thread-pool preview (the rest is the
#: servlet's sleep()). The text does not give the split; this is an assumption.
CPU_SHARE = 0.5
#: Relative differences below this are rounding: the two results are the same.
SAME = 1e-9
#: Extra CPU time per request for each further busy thread in the thread-pool preview, as a
#: fraction of the CPU time (contention). An illustrative assumption, not a fitted value.
THREAD_OVERHEAD = 0.002

_TABLE1 = {
    "threads": "Maximum size of the thread pool",
    "queue": "Maximum size of the connection queue",
    "clients": "Number of emulated clients",
}


def _pct(value: float, digits: int = 1) -> str:
    return f"{100 * value:.{digits}f} %"


def think_time() -> float:
    """Z, the mean think time of a client (s), as stated."""
    return stated.number(DOC, "think_time_Z")


def service_time() -> float:
    """S, the mean service time of a request (s), as stated."""
    return stated.number(DOC, "service_time_S")


def table1(row: str) -> list[int]:
    """The values of one row of Table 1: ``"threads"``, ``"queue"`` or ``"clients"``."""
    if row not in _TABLE1:
        raise ValueError(f"row must be one of {sorted(_TABLE1)}, got {row!r}")
    table = data.load(DOC, "tuning_parameters")
    return sorted(int(v) for v in table.loc[table["parameter"] == _TABLE1[row], "value"])


def test_duration_s() -> float:
    """The length of one measurement run (s)."""
    if stated.unit(DOC, "test_duration") != "min":
        raise ValueError("test_duration is expected in minutes")
    return 60 * stated.number(DOC, "test_duration")


def saturation_throughput() -> float:
    """1/S, the most requests per second one server of mean service time S completes."""
    return 1 / service_time()


def model_curves(clients: Sequence[int] | None = None,
                 capacities: Sequence[int] | None = None) -> pd.DataFrame:
    """The M/M/1/B/K metrics for every (capacity, client count), with the stated Z and S.

    Defaults: every client count 1 … the largest of Table 1, and Table 1's queue sizes. One row
    per configuration, ordered by capacity then clients, with ``throughput`` (1/s),
    ``response_time`` (s), ``error_rate`` (the paper's e = p_B), ``rejection_probability``
    (the share of arriving requests dropped), ``utilization``, ``mean_in_system``,
    ``drop_rate`` (1/s) and ``dropped_per_test`` (expected drops in one run of the stated
    length).
    """
    ks = np.arange(1, max(table1("clients")) + 1) if clients is None else np.asarray(clients)
    bs = np.asarray(table1("queue") if capacities is None else capacities)
    K, B = (a.ravel() for a in np.meshgrid(ks, bs))
    res = mm1bk(clients=K, capacity=B, service_time=service_time(), think_time=think_time())
    return pd.DataFrame({
        "capacity": B.astype(int),
        "clients": K.astype(int),
        "throughput": res.throughput,
        "response_time": res.response_time,
        "error_rate": res.error_rate,
        "rejection_probability": res.rejection_probability,
        "utilization": res.utilization,
        "mean_in_system": res.mean_in_system,
        "drop_rate": res.drop_rate,
        "dropped_per_test": res.drop_rate * test_duration_s(),
    })


def response_time_gap(small: int | None = None, large: int | None = None) -> pd.DataFrame:
    """Per client count: the model response time with the ``small`` and ``large`` queue
    (default Table 1's two sizes), their gap (s) and relative gap (of the large queue's)."""
    queues = table1("queue")
    small = min(queues) if small is None else small
    large = max(queues) if large is None else large
    if not small < large:
        raise ValueError(f"small must be below large, got small={small}, large={large}")
    curves = model_curves(capacities=[small, large]).pivot(
        index="clients", columns="capacity", values="response_time")
    gap = curves[large] - curves[small]
    return pd.DataFrame({"clients": curves.index, "small_queue": curves[small].to_numpy(),
                         "large_queue": curves[large].to_numpy(), "gap": gap.to_numpy(),
                         "relative_gap": (gap / curves[large]).to_numpy()}).reset_index(drop=True)


def thread_pool_preview(capacity: int, *, threads: Sequence[int] | None = None,
                        clients: Sequence[int] | None = None, cpu_share: float = CPU_SHARE,
                        thread_overhead: float = 0.0) -> pd.DataFrame:
    """The thread-limited model for Table 1's thread-pool sizes and client counts.

    The stated S is split into ``cpu_share * S`` of CPU time and the rest of waiting without
    the CPU (the servlet's sleep()); ``thread_overhead`` adds contention. Solved exactly
    (``method="exact"``). One row per (threads, clients).
    """
    if not 0 < cpu_share <= 1:
        raise ValueError(f"cpu_share must lie in (0, 1], got {cpu_share!r}")
    ts = np.asarray(table1("threads") if threads is None else threads)
    ks = np.asarray(table1("clients") if clients is None else clients)
    T, K = (a.ravel() for a in np.meshgrid(ts, ks, indexing="ij"))
    S = service_time()
    res = thread_pool(clients=K, capacity=capacity, threads=T, cpu_time=cpu_share * S,
                      wait_time=(1 - cpu_share) * S,
                      think_time=think_time(), thread_overhead=thread_overhead, method="exact")
    return pd.DataFrame({
        "threads": T.astype(int), "clients": K.astype(int),
        "throughput": res.throughput, "response_time": res.response_time,
        "error_rate": res.error_rate, "rejection_probability": res.rejection_probability,
        "busy_threads": res.busy_threads,
    })


def _thread_effect(capacity: int, thread_overhead: float) -> dict:
    """Largest relative change from the fewest to the most threads, and the values at the
    most clients, of the thread-pool preview."""
    frame = thread_pool_preview(capacity, thread_overhead=thread_overhead)
    few, many = (frame[frame["threads"] == t].set_index("clients") for t in table1("threads"))
    rel_r = ((many["response_time"] - few["response_time"]) / few["response_time"]).abs()
    top = max(table1("clients"))
    return {
        "max_relative_response_time_change": float(rel_r.max()),
        "max_rejection_change": float((many["rejection_probability"]
                                       - few["rejection_probability"]).abs().max()),
        "response_time_few": float(few.loc[top, "response_time"]),
        "response_time_many": float(many.loc[top, "response_time"]),
        "rejection_few": float(few.loc[top, "rejection_probability"]),
        "rejection_many": float(many.loc[top, "rejection_probability"]),
    }


@check("IM-C1", document=DOC,
       statement="With a connection queue of 200 the thread-pool size does not change the "
                 "response time; with 50, 100 threads give a better response time than 30 "
                 "(Figure 2)")
def _c1():
    few, many = table1("threads")
    q_none = int(stated.number(DOC, "queue_where_thread_pool_has_no_effect"))
    q_some = int(stated.number(DOC, "queue_where_thread_pool_matters"))
    top = max(table1("clients"))
    plain = {q: _thread_effect(q, 0.0) for q in (q_none, q_some)}
    contended = _thread_effect(q_some, THREAD_OVERHEAD)
    largest = max(v["max_relative_response_time_change"] for v in plain.values())
    values = {"threads": (few, many), "queues": (q_none, q_some), "cpu_share": CPU_SHARE,
              "thread_overhead": THREAD_OVERHEAD, "no_overhead": plain,
              "with_overhead": contended, "threads_change_nothing": largest < SAME}
    same = ("give the same response time" if largest < SAME else
            f"change the response time by up to {_pct(largest, 2)}")
    evidence = (
        f"{UNTESTED_MARK}: no measured response time is printed, and M/M/1/B/K has no "
        f"thread pool. The book's illustration, not evidence about the paper: in the "
        f"thread-pool extension ({_pct(CPU_SHARE, 0)} of S on the CPU, the rest sleeping, both "
        f"assumed) "
        f"{few} and {many} threads {same} at queue {q_none} and at queue {q_some}; with a "
        f"contention overhead of {_pct(THREAD_OVERHEAD)} per busy thread, {many} threads are "
        f"slower at queue {q_some} ({contended['response_time_many']:.2f} s against "
        f"{contended['response_time_few']:.2f} s at {top} clients), the opposite of the stated "
        f"ordering."
    )
    return "not testable", evidence, values


@check("IM-C2", document=DOC,
       statement="For more than 60 clients, a connection queue of 50 gives a better response "
                 "time than one of 200 (Figure 2)")
def _c2():
    above = stated.number(DOC, "clients_above")
    better, worse = int(stated.number(DOC, "better_queue")), int(stated.number(DOC, "worse_queue"))
    gaps = response_time_gap(better, worse).set_index("clients")
    measured = table1("clients")
    same_up_to_small = bool((gaps.loc[gaps.index <= better, "relative_gap"].abs() < SAME).all())
    never_slower = bool((gaps["relative_gap"] > -SAME).all())
    visible = gaps.index[gaps["relative_gap"] >= VISIBLE_GAP]
    first_visible = int(visible.min())
    first_measured_visible = min(k for k in measured if k >= first_visible)
    first_measured_above = min(k for k in measured if k > above)
    top = max(measured)
    at = {int(k): float(gaps.loc[k, "gap"]) for k in measured}
    values = {
        "clients_above": above, "same_up_to_small_queue": same_up_to_small,
        "never_slower": never_slower, "first_clients_visible": first_visible,
        "first_measured_clients_visible": first_measured_visible,
        "first_measured_clients_above_stated": first_measured_above,
        "gap_s_at_measured": at,
        "response_time_at_top": (float(gaps.loc[top, "small_queue"]),
                                 float(gaps.loc[top, "large_queue"])),
    }
    agrees = first_measured_visible == first_measured_above
    k_stated, k_vis = int(above), first_measured_visible
    evidence = (
        f"{UNTESTED_MARK}: the measured response times are not printed. In the paper's "
        f"M/M/1/B/K, with its stated Z and S, queue {better} is never "
        f"slower than queue {worse}, the same up to {better} clients and faster above (the "
        f"states above {better} are cut off), but by less than {_pct(VISIBLE_GAP, 0)} up to "
        f"{first_visible - 1} clients: the gap is {gaps.loc[k_stated, 'gap']:.4f} s at "
        f"{k_stated} clients, {at[k_vis]:.2f} s ({_pct(gaps.loc[k_vis, 'relative_gap'])}) at "
        f"{k_vis} and {at[top]:.2f} s at {top} ({gaps.loc[top, 'small_queue']:.2f} against "
        f"{gaps.loc[top, 'large_queue']:.2f} s). "
        + (f"Of the measured client counts, {k_vis} is the first with a visible gap and the "
           f"first above the stated {above:g}: the model agrees."
           if agrees else
           f"Of the measured client counts, {k_vis} is the first with a visible gap, but "
           f"{first_measured_above} is the first above the stated {above:g}.")
    )
    return "not testable", evidence, values


@check("IM-C3", document=DOC,
       statement="With a connection queue of 200 every request is served; with 50, requests "
                 "are dropped once the clients exceed 50; the error rate is higher with 100 "
                 "threads than with 30 (Figure 3)")
def _c3():
    no_errors = int(stated.number(DOC, "queue_without_errors"))
    with_errors = int(stated.number(DOC, "queue_with_errors"))
    exceed = stated.number(DOC, "errors_when_clients_exceed")
    measured = table1("clients")
    curves = model_curves(capacities=[no_errors, with_errors])
    large = curves[curves["capacity"] == no_errors].set_index("clients")
    small = curves[curves["capacity"] == with_errors].set_index("clients")
    zero_large = bool((large["rejection_probability"] == 0).all()
                      and (large["error_rate"] == 0).all())
    first_drop = int(small.index[small["rejection_probability"] > 0].min())
    one_per_test = int(small.index[small["dropped_per_test"] >= 1].min())
    top = max(measured)
    k_low = min(k for k in measured if k > exceed)
    plain = _thread_effect(with_errors, 0.0)
    contended = _thread_effect(with_errors, THREAD_OVERHEAD)
    few, many = table1("threads")
    first_part = zero_large and top <= no_errors
    second_part = first_drop == int(exceed) + 1 and bool(
        (small.loc[small.index > exceed, "rejection_probability"] > 0).all())
    values = {
        "most_clients": top, "queue_without_errors": no_errors,
        "queue_with_errors": with_errors, "model_zero_errors_large_queue": zero_large,
        "first_clients_dropping": first_drop, "first_clients_one_drop_per_test": one_per_test,
        "dropped_per_test": {int(k): float(small.loc[k, "dropped_per_test"]) for k in measured},
        "rejection_at_top": float(small.loc[top, "rejection_probability"]),
        "threads": (few, many), "no_overhead": plain, "with_overhead": contended,
    }
    threads_same = plain["max_rejection_change"] < SAME
    evidence = (
        f"At most {top} clients never fill {no_errors} places, and M/M/1/B/K gives p_B = 0 "
        f"and no drop at every client count with queue {no_errors}. With queue {with_errors} "
        f"the model drops requests from {first_drop} clients on, but few at first: a "
        f"{test_duration_s() / 60:g}-minute run expects "
        f"{small.loc[k_low, 'dropped_per_test']:.2f} drops at {k_low} clients, at least one "
        f"from {one_per_test} clients on, and {_pct(small.loc[top, 'rejection_probability'])} "
        f"of the requests at {top}. The thread ordering lies outside M/M/1/B/K and its values "
        f"are not printed, so that part cannot be tested; the book's thread-pool extension, "
        f"with parameters the book chose, gives it only with a contention overhead "
        f"({_pct(contended['rejection_many'])} against {_pct(contended['rejection_few'])} "
        f"dropped at {top} clients with {_pct(THREAD_OVERHEAD)} per busy thread; "
        + ("the same without)." if threads_same else
           f"{_pct(plain['max_rejection_change'], 2)} apart without).")
    )
    verdict = "partly" if first_part and second_part else "contradicted"
    return verdict, evidence, values


@check("IM-C4", document=DOC,
       statement="Throughput is virtually the same in all four configurations and saturates "
                 "around 7 requests/s (Figure 4)")
def _c4():
    level = stated.number(DOC, "saturation_throughput")
    saturation = saturation_throughput()
    curves = model_curves()
    wide = curves.pivot(index="clients", columns="capacity", values="throughput")
    spread = float(((wide.max(axis=1) - wide.min(axis=1)) / wide.max(axis=1)).max())
    top = max(table1("clients"))
    at_top = float(wide.loc[top].min())
    knee = 1 + think_time() / service_time()
    # "around 7": within half a unit of the printed integer
    consistent = abs(saturation - level) <= 0.5
    values = {"stated_level": level, "one_over_S": saturation, "model_at_most_clients": at_top,
              "relative_spread_between_queues": spread, "knee_clients": knee}
    evidence = (
        f"1/S = 1/{service_time():g} s = {saturation:.2f} requests/s, "
        + ("within" if consistent else "not within")
        + f" half a request/s of the stated 'around {level:g}'; the model reaches "
        f"{at_top:.3f}/s at {top} clients, past the knee at 1 + Z/S = {knee:.1f} clients, and "
        + ("gives the same throughput for both queue sizes" if spread < SAME else
           f"its queue sizes differ by up to {_pct(spread, 2)}")
        + ". The measured curves and the thread-pool sizes are not in the text."
    )
    return ("supported" if consistent and spread < VISIBLE_GAP else "contradicted"), evidence, \
        values


@check("IM-C5", document=DOC,
       statement="The model slightly overestimates the measured throughput and overestimates "
                 "the response time (more so with queue 50); its error rate lies between the "
                 "measured 30- and 100-thread values (Figures 5-8)")
def _c5():
    top = max(table1("clients"))
    large, small = max(table1("queue")), min(table1("queue"))
    curves = model_curves(clients=[top]).set_index("capacity")
    x_model = float(curves.loc[large, "throughput"])
    r_model = float(curves.loc[large, "response_time"])
    level = stated.number(DOC, "saturation_throughput")
    Z = think_time()
    # the response-time law of a closed loop without drops: R = K / X - Z
    r_at_level = top / level - Z
    ramp = stated.number(DOC, "client_start_interval")
    ramp_share = ramp / 2 / test_duration_s()  # clients start evenly over the interval
    values = {
        "clients": top, "model_throughput": x_model, "model_response_time_large": r_model,
        "model_response_time_small": float(curves.loc[small, "response_time"]),
        "model_error_rate_small": float(curves.loc[small, "error_rate"]),
        "model_rejection_small": float(curves.loc[small, "rejection_probability"]),
        "response_time_at_stated_level": r_at_level, "ramp_up_throughput_share": ramp_share,
    }
    # With nothing dropped, R = K/X - Z binds model and measurement alike: whatever the measured
    # throughput, a model above it in throughput is below it in response time.
    drops = float(curves.loc[large, "rejection_probability"]) > 0
    over_x = x_model > level
    over_r = r_model > r_at_level
    values.update(model_drops_at_large_queue=drops, model_above_stated_throughput=over_x,
                  model_above_law_response_time=over_r)
    law = (f"with queue {large} nothing is dropped, so R = K/X − Z holds for model and "
           f"measurement alike: a measured {level:g}/s at {top} clients means R = "
           f"{r_at_level:.2f} s, {'below' if over_r else 'above'} the model's {r_model:.2f} s")
    if drops:
        verdict = "not testable"
        evidence = (f"{UNTESTED_MARK}: the measured values are not printed, and with queue "
                    f"{large} the model drops requests at {top} clients, so no law binds its "
                    f"throughput to its response time.")
    else:
        verdict = "supported" if over_x and over_r else "contradicted"
        evidence = (
            f"The measured values are not printed, but the two overestimates bind each other. "
            f"The model's throughput, {x_model:.3f}/s at {top} clients, is "
            f"{'above' if over_x else 'not above'} the stated 'around {level:g}'; {law}. "
            + ("" if over_x and over_r else
               f"A model that overestimates the throughput there underestimates the response "
               f"time, so with the stated Z = {Z:g} s the two overestimates cannot both hold "
               f"(they could only if the clients' think time exceeded {Z:g} s or the averages "
               f"included the {ramp:g} s ramp-up, about {_pct(ramp_share)} of a run's "
               f"requests). ")
            + f"The error-rate part cannot be tested: at queue {small} the model gives R = "
            f"{values['model_response_time_small']:.2f} s and e = p_B = "
            f"{values['model_error_rate_small']:.3f} ({values['model_rejection_small']:.3f} of "
            f"arriving requests dropped) at {top} clients, and no measured rate is printed.")
    return verdict, evidence, values


@check("IM-C6", document=DOC,
       statement="Extending the model with the thread pool is future work (the deviations of "
                 "the model are put down to the thread limits it lacks)")
def _c6():
    few, many = table1("threads")
    queue = int(stated.number(DOC, "queue_where_thread_pool_matters"))
    top = max(table1("clients"))
    # With the whole of S on the CPU and no overhead the extension is M/M/1/B/K exactly.
    reduced = thread_pool_preview(queue, threads=[few], cpu_share=1.0)
    plain = mm1bk(clients=reduced["clients"].to_numpy(), capacity=queue,
                  service_time=service_time(), think_time=think_time())
    reduction = float(np.max(np.abs(reduced["response_time"].to_numpy()
                                    - plain.response_time) / plain.response_time))
    no_overhead = _thread_effect(queue, 0.0)
    contended = _thread_effect(queue, THREAD_OVERHEAD)
    # orderings beyond rounding: the same value twice is no ordering
    more_errors = contended["rejection_many"] > contended["rejection_few"] + SAME
    faster = contended["response_time_many"] < contended["response_time_few"] * (1 - SAME)
    threads_same = no_overhead["max_relative_response_time_change"] < SAME
    values = {"queue": queue, "threads": (few, many), "reduction_error": reduction,
              "reduces_to_mm1bk": reduction < SAME, "no_overhead": no_overhead,
              "with_overhead": contended, "more_errors_with_more_threads": more_errors,
              "faster_with_more_threads": faster}
    # A statement of future work states nothing to test; the extension below is the book's
    # analysis, with a CPU share and an overhead the book chose, not evidence about the paper.
    evidence = (
        f"{UNTESTED_MARK}: it names future work. The book's extension "
        "(queuetune.thread_pool), an illustration with assumed parameters, "
        + ("is M/M/1/B/K exactly" if reduction < SAME else "differs from M/M/1/B/K")
        + f" when S is all CPU time. With {_pct(1 - CPU_SHARE, 0)} of S sleeping, {few} and "
        f"{many} threads "
        + ("give the same response time" if threads_same else
           f"differ by up to {_pct(no_overhead['max_relative_response_time_change'], 2)}")
        + f" at queue {queue}: the thread limit alone changes nothing here. With a contention "
        f"overhead of {_pct(THREAD_OVERHEAD)} per busy thread, {many} threads drop "
        f"{_pct(contended['rejection_many'])} of the requests against "
        f"{_pct(contended['rejection_few'])} at {top} clients "
        + ("(IM-C3's ordering)" if more_errors else "(not IM-C3's ordering)")
        + f" and answer in {contended['response_time_many']:.2f} s against "
        f"{contended['response_time_few']:.2f} s "
        + ("(IM-C1's ordering)." if faster else "(not IM-C1's ordering).")
    )
    return "not testable", evidence, values
