#!/usr/bin/env bash
# Train a family of dice-net models on a GPU machine (the workplace's device tool), all six at once.
# Usage there, in the working tree's root, with the Byler photos carried in .carry/dice-byler:
#   OUT=/some/folder training/gpu.sh FAMILY [train.py options...]
# It writes FAMILY.onnx, FAMILY-fold{0..4}.onnx, FAMILY.json and a log to $OUT. The augmentation runs on the
# CPU (one process a model); torch's steps on the GPU. The simulated camera is scored afterwards, here
# (training/train.py --sim-seeds 0 there): rendering it would take most of the machine's time. Here, with the
# files in vision/models: `python -m training.train --score-only`, then `python -m training.quantize`.
# Pass --chunks to render the synthetic crops on all the machine's cores (the dice net's one sequence takes
# minutes on one). Measured on an H200 machine (16 cores, 2026-11-28): 40 epochs of the six models, with the
# dark dice drawn twice as often, took 432 s in all; 2026-11-30, the stride-2 net's six (--arch strided) 345 s,
# with --dark-repeats 6 372 s.
# Stopped early (`timeout` sends TERM), it still writes the log and the figures of the models that finished.
set -euo pipefail
family=$1; shift
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 TABLESIDE_BYLER=$PWD/.carry/dice-byler
common=(--family "$family" --sim-seeds 0 --device cuda --out "$OUT" "$@")
models=(all 0 1 2 3 4)

collect() {
  for m in "${models[@]}"; do cat "/tmp/$family-$m.log" >>"$OUT/log" 2>/dev/null || true; done
  python3 - "$family" "$OUT" "${models[@]}" <<'PY'
import json, sys
from pathlib import Path
family, out, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
meta = {}
for m in names:
    p = Path(f"/tmp/{family}-{m}.json")
    if p.is_file():
        one = json.loads(p.read_text())
        models = {**meta.get("models", {}), **one.pop("models")}
        meta.update(one)
        meta["models"] = models
(out / f"{family}.json").write_text(json.dumps(meta, indent=1) + "\n")
print(f"finished: {sorted(meta.get('models', {}))}")
PY
}

pids=()
stop() {
  kill "${pids[@]}" 2>/dev/null || true
  echo "stopped early after ${SECONDS} s" >>"$OUT/log"
  collect
  exit 124
}
trap stop TERM INT

python3 -m training.train "${common[@]}" --render-only --jobs 16 >"$OUT/log" 2>&1
for m in "${models[@]}"; do
  python3 -m training.train "${common[@]}" --models "$m" --meta "/tmp/$family-$m.json" >"/tmp/$family-$m.log" 2>&1 &
  pids+=($!)
done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
echo "all models done after ${SECONDS} s" >>"$OUT/log"
collect
exit $status
