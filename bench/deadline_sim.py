"""Discrete-event simulation of a deadline: p50/p95 wait (submit -> judging starts) against the number of CPU slots.

A class of --students (300) submits in the last --window-min (60) minutes before a deadline, arrivals rising
linearly towards it; after each verdict a student resubmits with probability --resubmit (0.6) after a think
time (exponential, mean --think-min minutes), while the deadline allows. Each judgement holds one slot (a
worker's --concurrency counts as that many slots) for a service time drawn from a lognormal distribution
whose mean is --service-s: by default 2.6 s, what bench/batch_throughput.py measures on this repository's
2-core machine for exercise 100 (1.3 s a submission at --jobs 2, two slots), with --sigma 0.5 for the spread
between quick wrong answers and full accepted runs. Pass --service-s from your own hosts' measurement.

Prints one row per slot count: submissions, p50 and p95 wait, the largest wait, and the last ten minutes'
p95 (when the rush is). Deterministic for a given --seed. Run: python bench/deadline_sim.py [--slots 1,2,4,8]
"""

from __future__ import annotations

import argparse
import heapq
import math
import random
import statistics


def arrivals(rng: random.Random, students: int, window_s: float) -> list[float]:
    # density rising linearly to the deadline: t = window * sqrt(u) has density 2t/window^2
    return sorted(window_s * math.sqrt(rng.random()) for _ in range(students))


def simulate(
    slots: int,
    students: int,
    window_s: float,
    service_s: float,
    sigma: float,
    resubmit: float,
    think_s: float,
    seed: int,
) -> list[tuple[float, float]]:
    """(arrival time, wait) of every submission, FIFO over `slots` identical servers."""
    rng = random.Random(seed)
    mu = math.log(service_s) - sigma**2 / 2  # lognormal with this mean
    events: list[tuple[float, int, str]] = [(t, n, "arrive") for n, t in enumerate(arrivals(rng, students, window_s))]
    heapq.heapify(events)
    free, waiting, out = slots, [], []
    while events:
        now, student, kind = heapq.heappop(events)
        if kind == "arrive":
            waiting.append((now, student))
        else:  # a judgement ended: the slot frees, the student may resubmit
            free += 1
            if rng.random() < resubmit:
                again = now + rng.expovariate(1 / think_s)
                if again < window_s:
                    heapq.heappush(events, (again, student, "arrive"))
        while free and waiting:
            arrived, who = waiting.pop(0)
            free -= 1
            out.append((arrived, now - arrived))
            heapq.heappush(events, (now + rng.lognormvariate(mu, sigma), who, "done"))
    return out


def p(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=300)
    parser.add_argument("--window-min", type=float, default=60)
    parser.add_argument("--service-s", type=float, default=2.6, help="mean seconds one judgement holds a slot")
    parser.add_argument("--sigma", type=float, default=0.5)
    parser.add_argument("--resubmit", type=float, default=0.6)
    parser.add_argument("--think-min", type=float, default=4)
    parser.add_argument("--slots", default="1,2,4,8,16,32")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print_table(
        [int(s) for s in args.slots.split(",")],
        args.students,
        args.window_min,
        args.service_s,
        args.sigma,
        args.resubmit,
        args.think_min,
        args.seed,
    )


def print_table(
    slot_counts: list[int],
    students: int = 300,
    window_min: float = 60,
    service_s: float = 2.6,
    sigma: float = 0.5,
    resubmit: float = 0.6,
    think_min: float = 4,
    seed: int = 1,
) -> None:
    """The simulation's table, one row per slot count (bench/queue_throughput.py calls it with what it measured)."""
    window = window_min * 60
    print(
        f"deadline: {students} students over {window_min:.0f} min, service mean {service_s:.2f} s "
        f"(lognormal sigma {sigma:.2f}), resubmit {resubmit}, think {think_min} min"
    )
    print(f"{'CPU slots':>9} {'subs':>6} {'p50 wait':>10} {'p95 wait':>10} {'max wait':>10} {'p95 last 10 min':>16}")
    for slots in slot_counts:
        rows = simulate(slots, students, window, service_s, sigma, resubmit, think_min * 60, seed)
        waits = [w for _, w in rows]
        late = [w for t, w in rows if t > window - 600]
        print(
            f"{slots:>9} {len(rows):>6} {p(waits, 50):>9.1f}s {p(waits, 95):>9.1f}s {max(waits):>9.1f}s "
            f"{p(late, 95):>15.1f}s"
        )


if __name__ == "__main__":
    main()
