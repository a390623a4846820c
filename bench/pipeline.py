"""Cost of the roll watcher per frame and latency from rest to event, on the simulated camera at 640x480.

    .venv/bin/python bench/pipeline.py [--throws 6] [--fps 30] [--seed 1] [--oracle]

Quiet frames: nothing moving (the watcher's cheapest and by far most common path). Settling frames: the
dice have stopped and the watcher is waiting out `rest_s` (the read itself is excluded there and reported
separately). Rest-to-event: from the first frame showing the dice at their final pose (ground truth) to
the frame of the event, in frames and in frame time, plus the wall time of the read. By default the real
reader (`vision.read_dice`) reads; `--oracle` uses the simulator's truth instead to time the watcher
alone. Targets (issue 5): quiet frames under 2 ms, settle-to-event under 250 ms at 30 fps.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.simcam import SimulatedCamera
from vision.reading import DiceReading
from vision.watcher import RollWatcher, WatchState


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--throws", type=int, default=6)
    ap.add_argument("--fps", type=float, default=30.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--oracle", action="store_true", help="use the simulator's truth instead of read_dice")
    args = ap.parse_args()

    kinds = ["ok", "off_board", "ok", "cocked", "ok", "stacked"] * (args.throws // 6 + 1)
    cam = SimulatedCamera(seed=args.seed, fps=args.fps, script=kinds[: args.throws])
    cal = cam.calibration()
    if args.oracle:
        def reader(_img: object) -> DiceReading:
            return cam.truth_reading()
        reader_name = "simulator oracle"
    else:
        from vision import read_dice

        def reader(img: object) -> DiceReading:
            return read_dice(img, calibration=cal, expect=2)  # type: ignore[arg-type]
        reader_name = "vision.read_dice"

    # Frames are rendered lazily (the oracle reads the scene of the current frame); only feed() is timed.
    watcher = RollWatcher(reader=reader, calibration=cal)
    cost: dict[str, list[float]] = {"quiet": [], "moving": [], "settling": []}
    events = []
    n_frames = 0
    for frame in cam:
        n_frames += 1
        if n_frames == 1:
            watcher.feed(frame)  # the first frame reads what is lying there at start: not a steady cost
            continue
        before = watcher.state
        t0 = time.perf_counter()
        event = watcher.feed(frame)
        ms = (time.perf_counter() - t0) * 1000
        if event is not None:
            events.append(event)
            ms -= event.read_ms
        after = watcher.state
        if before in (WatchState.QUIET, WatchState.SETTLED) and after is before:
            cost["quiet"].append(ms)
        elif before is WatchState.SETTLING and event is None and after is WatchState.SETTLING:
            cost["settling"].append(ms)
        elif before is WatchState.MOVING:
            cost["moving"].append(ms)

    print(f"simulated camera 640x480 @ {args.fps:g} fps, seed {args.seed}, {len(cam.throws)} throws, "
          f"{n_frames} frames; reader: {reader_name}")
    for name, values in cost.items():
        print(f"  watcher per frame, {name:9s}: median {statistics.median(values):.3f} ms, "
              f"p95 {pct(values, 0.95):.3f} ms, max {max(values):.3f} ms  ({len(values)} frames)")
    print(f"  events: {len(events)} for {len(cam.throws)} throws")
    lat_frames, lat_ms, reads = [], [], []
    for truth in cam.throws:
        match = [e for e in events if truth.t_rest - 0.05 <= e.t <= truth.t_rest + 1.0]
        verdict = match[0].reading.verdict.value if match else "-"
        if match:
            e = match[0]
            lat_frames.append(round((e.t - truth.t_rest) * args.fps))
            lat_ms.append((e.t - truth.t_rest) * 1000 + e.read_ms)
            reads.append(e.read_ms)
        print(f"    throw {truth.index} {truth.kind:9s} truth {truth.verdict.value:10s} {truth.values}  "
              f"event {verdict:10s} {match[0].reading.values if match else ''}")
    if lat_ms:
        print(f"  rest -> event: {statistics.median(lat_frames):.0f} frames median, frame time + read "
              f"median {statistics.median(lat_ms):.0f} ms, max {max(lat_ms):.0f} ms; "
              f"read median {statistics.median(reads):.1f} ms")
    print("rerun: .venv/bin/python bench/pipeline.py " + " ".join(sys.argv[1:]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
