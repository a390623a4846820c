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
# dark dice drawn twice as often, took 432 s in all.
set -euo pipefail
family=$1; shift
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2 TABLESIDE_BYLER=$PWD/.carry/dice-byler
common=(--family "$family" --sim-seeds 0 --device cuda --out "$OUT" "$@")
python3 -m training.train "${common[@]}" --render-only --jobs 16 >"$OUT/log" 2>&1
for m in all 0 1 2 3 4; do
  python3 -m training.train "${common[@]}" --models "$m" --meta "/tmp/$family-$m.json" >"/tmp/$family-$m.log" 2>&1 &
done
status=0
wait || status=$?
for m in all 0 1 2 3 4; do cat "/tmp/$family-$m.log" >>"$OUT/log"; done
python3 - "$family" "$OUT" <<'PY'
import json, sys
from pathlib import Path
family, out = sys.argv[1], Path(sys.argv[2])
meta = {}
for m in ("all", "0", "1", "2", "3", "4"):
    p = Path(f"/tmp/{family}-{m}.json")
    if p.is_file():
        one = json.loads(p.read_text())
        models = {**meta.get("models", {}), **one.pop("models")}
        meta.update(one)
        meta["models"] = models
(out / f"{family}.json").write_text(json.dumps(meta, indent=1) + "\n")
PY
exit $status
