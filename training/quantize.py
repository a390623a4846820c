"""Quantize the dice net's models (vision/models/*.onnx) to 8-bit integers for ONNX Runtime.

Usage (needs the `onnx` package besides ONNX Runtime; `make quantize` runs it in .venv-train, where `make model`
installs it):
    .venv-train/bin/python -m training.quantize [--models all 0 1 2 3 4] [--out vision/models]

Why: the net is the largest single cost of a read that a library does for us (vision/dicenet.py), and its
float model runs near the CPU's arithmetic peak already (about 52 million multiply-adds a crop). With 8-bit
weights and activations ONNX Runtime does the same work in integer instructions, about three times as fast
on the CPUs measured. OpenCV's DNN module, the fallback where ONNX Runtime is not installed, cannot load the
quantized graphs; it keeps running the float models, which stay in vision/models beside them.

How: static post-training quantization (onnxruntime.quantization), a QDQ graph, weights per output channel,
activations from their observed range (MinMax) over calibration crops. Weights are held to 7 bits
(`reduce_range`): CPUs without VNNI multiply 8-bit pairs into 16-bit sums that saturate, so a full-range
model would give other answers there; at 7 bits every x86 and ARM CPU computes the same integers.

Held out like the models themselves: fold k's model is calibrated on crops of the photos its float model
trained on (training/data.py, the other four folds), never on fold k, plus synthetic crops (training/synth.py,
which also hold the only leaning dice). The simulated camera, which none of the models saw, is not used. Each
quantized model's probabilities are compared with its float model's on its held-out crops and on the
simulated camera's, and the figures go to vision/models/dicenet.json under "int8".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from training.data import byler_crops, centred, sim_crops
from training.synth import crops as synth_crops
from vision.dicenet import FOLDS, MODEL_DIR, N_CLASSES, DiceNet, int8_name, model_name, to_input

F32 = NDArray[np.float32]
CALIBRATION_SYNTH = 800  # synthetic crops in every model's calibration set (100 per class)
CALIBRATION_STEP = 3  # every third real crop of the training photos (dice and negatives alike)


def quantize(src: Path, dst: Path, calibration: F32) -> str:
    """Write the 8-bit model of `src` to `dst`, calibrated on `calibration` (the net's input, N x 3 x H x W);
    returns its sha256."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    name = onnx.load(str(src)).graph.input[0].name

    class Batches(CalibrationDataReader):
        def __init__(self) -> None:
            self.i = 0

        def get_next(self) -> dict[str, F32] | None:
            if self.i >= len(calibration):
                return None
            batch = calibration[self.i:self.i + 64]
            self.i += 64
            return {name: batch}

    with tempfile.TemporaryDirectory() as tmp:
        pre = Path(tmp) / "pre.onnx"
        # Folds the batch norms into the convolutions first, so that each is quantized as one operator.
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(dst), Batches(), quant_format=QuantFormat.QDQ,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, per_channel=True,
                        reduce_range=True, calibrate_method=CalibrationMethod.MinMax)
    return hashlib.sha256(dst.read_bytes()).hexdigest()


def compare(float_net: DiceNet, int8_net: DiceNet, images: NDArray[np.uint8]) -> dict[str, object]:
    """How far the 8-bit model's probabilities are from the float model's on `images` (N x INPUT x INPUT x 3)."""
    p0, p1 = float_net.probabilities(images), int8_net.probabilities(images)
    d = np.abs(p1 - p0).max(axis=1)
    sure0 = (p0[:, 1:7].max(axis=1) >= 0.9)
    sure1 = (p1[:, 1:7].max(axis=1) >= 0.9)
    return {"crops": len(images), "max_abs_diff": round(float(d.max()), 4),
            "p99_abs_diff": round(float(np.percentile(d, 99)), 4),
            "same_class": round(float(np.mean(p0.argmax(1) == p1.argmax(1))), 4),
            "sure_0.9_changed": int(np.sum(sure0 != sure1))}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--models", nargs="*", default=["all", *map(str, range(FOLDS))],
                    help="'all' (the product's model) and/or fold numbers")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=MODEL_DIR)
    args = ap.parse_args()
    cv2.setNumThreads(1)
    real = byler_crops(args.seed)
    images = centred(real.images)
    synth_x, _ = synth_crops(CALIBRATION_SYNTH, args.seed + 1000, N_CLASSES)
    synth_in = to_input(centred(synth_x))
    sim_x, _, _ = sim_crops(100)
    sim_x = centred(sim_x)
    meta_path = args.out / "dicenet.json"
    meta: dict[str, object] = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    int8: dict[str, object] = dict(meta.get("int8", {}))  # type: ignore[call-overload]
    for name in args.models:
        fold = None if name == "all" else int(name)
        train = real.fold != fold if fold is not None else np.ones(len(real.labels), bool)
        calibration = np.concatenate([to_input(images[np.flatnonzero(train)[::CALIBRATION_STEP]]), synth_in])
        src, dst = args.out / model_name(fold), args.out / int8_name(model_name(fold))
        report: dict[str, object] = {"file": dst.name, "sha256": quantize(src, dst, calibration),
                                     "calibration_crops": len(calibration)}
        float_net, int8_net = DiceNet(src, "onnxruntime"), DiceNet(dst, "onnxruntime")
        if fold is not None:
            report["held_out"] = compare(float_net, int8_net, images[real.fold == fold])
        report["simulated_camera"] = compare(float_net, int8_net, sim_x)
        print(f"model {name}: {json.dumps(report)}", flush=True)
        int8[name] = report
        meta["int8"] = int8
        meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
