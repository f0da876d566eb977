"""Rate windows and the spend cap, on a fake clock (no real waiting)."""

import threading

import pytest

from webmend.llm.limits import Limits, RateLimiter, SpendCap, SpendCapReached


class FakeClock:
    def __init__(self):
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def limiter(**limits) -> tuple[RateLimiter, FakeClock]:
    clock = FakeClock()
    return RateLimiter(Limits(**limits), clock=clock, sleep=clock.sleep), clock


def test_requests_per_minute_wait_for_the_oldest_to_leave_the_window():
    rl, clock = limiter(rpm=2)
    starts = []
    for _ in range(5):
        with rl.slot(0):
            starts.append(clock.now)
        clock.now += 1.0  # each request takes a second
    assert starts == [0.0, 1.0, 60.0, 61.0, 120.0]
    assert rl.waited_s == pytest.approx(58.0 + 58.0)


def test_tokens_per_minute_reserve_the_estimate_then_settle_the_real_usage():
    rl, clock = limiter(tpm=1000)
    with rl.slot(600) as admission:
        rl.settle(admission, 100)  # the call used far less than estimated
    with rl.slot(800):  # fits: 100 + 800 <= 1000, no wait
        pass
    assert clock.sleeps == []
    with rl.slot(500):  # 900 + 500 > 1000: waits until both earlier calls leave the window
        pass
    assert clock.sleeps == [60.0]


def test_a_request_larger_than_the_budget_goes_alone():
    rl, clock = limiter(tpm=100)
    with rl.slot(5000):
        pass
    assert clock.sleeps == []
    with rl.slot(10):
        pass
    assert clock.sleeps == [60.0]


def test_concurrency_slots_bound_requests_in_flight():
    rl = RateLimiter(Limits(concurrency=2))
    inside, peak, lock = 0, 0, threading.Lock()
    release = threading.Event()

    def call():
        nonlocal inside, peak
        with rl.slot(0):
            with lock:
                inside += 1
                peak = max(peak, inside)
            release.wait(1.0)
            with lock:
                inside -= 1

    threads = [threading.Thread(target=call) for _ in range(5)]
    for t in threads:
        t.start()
    release.set()
    for t in threads:
        t.join()
    assert peak == 2


def test_limits_are_validated():
    with pytest.raises(ValueError):
        Limits(concurrency=0)
    with pytest.raises(ValueError):
        Limits(rpm=0)


def test_spend_cap_stops_after_the_tokens_or_cost_are_spent():
    cap = SpendCap(max_tokens=100)
    cap.check()
    cap.charge(60, None)
    cap.check()
    cap.charge(40, 0.5)
    with pytest.raises(SpendCapReached, match="token cap reached: 100 of 100"):
        cap.check()
    money = SpendCap(max_cost_usd=0.01)
    money.charge(10, None)  # unknown cost counts towards tokens only
    money.check()
    money.charge(10, 0.02)
    with pytest.raises(SpendCapReached, match="cost cap"):
        money.check()
