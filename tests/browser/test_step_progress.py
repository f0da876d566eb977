"""step_progress: past its cap a call is hung by the CPU its page used, so a busy machine that
slows a page down does not change whether it hung. Snapshots are made up here: (seconds since the
call began, renderer CPU seconds, GPU CPU seconds)."""

from __future__ import annotations

import pytest

from webmend.browser.step_progress import GPU_SPIN_FACTOR, CpuSnapshot, StepWatch

CAP, WATCH_AT = 8.0, 2.0


def snap(at: float, renderer: float, gpu: float = 0.0) -> CpuSnapshot:
    return CpuSnapshot(at, {101: renderer}, gpu)


def first_stuck(share: float, needs_cpu_s: float | None = None, gpu_rate: float = 0.0, until: float = 400.0):
    """Check as guard does (at the cap, then every 0.1 cap) a call whose renderer gets `share` of a
    core; it returns once it used needs_cpu_s (None: never). Returns (when, why) or (when, 'done')."""
    watch = StepWatch(CAP, WATCH_AT, snap(WATCH_AT, share * WATCH_AT, gpu_rate * WATCH_AT))
    t = CAP
    while t < until:
        if needs_cpu_s is not None and share * t >= needs_cpu_s:
            return round(needs_cpu_s / share, 1), "done"
        why = watch.stuck(snap(t, share * t, gpu_rate * t))
        if why:
            return round(t, 1), why
        t += 0.1 * CAP
    return t, None


@pytest.mark.parametrize("share", [1.0, 0.5, 0.25])
def test_a_script_that_never_returns_hangs_at_any_load_after_a_cap_of_cpu(share):
    when, why = first_stuck(share)
    assert why == "spinning" and CAP / share <= when <= (CAP + 0.1 * CAP + 0.1) / share


@pytest.mark.parametrize("share", [1.0, 0.5, 0.25])
def test_a_call_that_needs_less_than_the_cap_in_cpu_finishes_at_any_load(share):
    assert first_stuck(share, needs_cpu_s=7.5)[1] == "done"  # on a quiet machine: 7.5 s, within the cap


def test_a_renderer_waiting_on_gpu_work_is_not_hung_until_the_gpu_spun_for_caps():
    when, why = first_stuck(0.05, gpu_rate=1.0)  # the renderer waits, the GPU process renders
    assert why == "gpu" and when >= GPU_SPIN_FACTOR * CAP
    assert first_stuck(0.05, needs_cpu_s=1.0, gpu_rate=1.0)[1] == "done"  # the backlog ends: done


def test_a_call_waiting_on_nothing_hangs_after_a_cap_without_cpu():
    watch = StepWatch(CAP, WATCH_AT, snap(WATCH_AT, 0.3))
    assert watch.stuck(snap(CAP, 0.3)) is None  # not a whole cap watched yet
    assert watch.stuck(snap(WATCH_AT + CAP, 0.32)) == "idle"


def test_a_snapshot_reads_the_cpu_of_this_process_s_chromium_from_proc():
    now = CpuSnapshot.now()
    assert now.total() >= 0 and all(cpu >= 0 for cpu in now.renderers.values())
