"""Train the dice net (vision/dicenet.py) and export it to ONNX: one model per fold of the Byler photos, and the
product's model on all of them.

Usage (PyTorch is needed here only, not by the product; `make model` installs it in .venv-train and runs this):
    .venv-train/bin/python -m training.train [--models all 0 1 2 3 4] [--epochs 30] [--out vision/models]
Other recipes (none shipped; docs/vision.md, "Tried and not kept"): `--family NAME` names the files,
`--tilted SHARE` draws that share of the synthetic leaning dice as training/synth.py's tilted kind, `--camera
SHARE` gives the real crops other cameras' looks, `--dark-repeats N` draws the dark dice more often, `--chunks`
renders the synthetic crops in parallel, `--arch strided` trains a net with a stride-2 stem (3 times
cheaper to run), `--device cuda` steps on a GPU; training/gpu.sh trains a family's six
models at once on a GPU machine, and `--score-only` scores them here afterwards (held out, simulated camera).

Fold k's model trains on the crops of the other four folds (training/data.py), so the photos of fold k are
unseen by it; after training it is scored on them. Every model is also scored on crops of the simulated
camera (hardware/simcam.py), a renderer none of them trained on: its flat dice must be read and its leaning
dice called cocked. The figures go to vision/models/dicenet.json beside the ONNX files. Everything is
seeded (numpy, torch): the same command gives the same models on the same machine.

Augmentation is what lets a net trained on one camera's dice read others: each crop is turned to any
angle, mirrored, scaled by 0.85-1.18, shifted by a few hundredths of a die, its colour channels shuffled,
sometimes inverted (dark pips on light become light on dark) or its hue turned, its contrast and
brightness changed, blurred and noised. A face's value survives all of these; a die's colour and the
camera's look do not, so the net cannot lean on them. Synthetic crops (training/synth.py) add dice of
other colours on other boards, and are the only source of the cocked class.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.vision import camera_looks as looks
from training.data import STORE, STORE_WINDOW, Crops, byler_crops, centred, sim_crops
from training.synth import crops as synth_crops
from vision.dicenet import COCKED, FOLDS, INPUT, N_CLASSES, WINDOW, model_name, to_input

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]
THRESHOLDS = (0.5, 0.8, 0.9, 0.95)
SYNTH_CHUNKS = 16


def _block(i: int, o: int, k: int = 3, stride: int = 1) -> list[nn.Module]:
    return [nn.Conv2d(i, o, k, stride, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True)]


def plain_net(width: int = 24) -> nn.Sequential:
    """The dice net's: three stages of two 3x3 convolutions, a fourth of one, global pooling (52 million
    multiply-adds a crop at width 24)."""
    w = width
    return nn.Sequential(
        *_block(3, w), *_block(w, w), nn.MaxPool2d(2),
        *_block(w, 2 * w), *_block(2 * w, 2 * w), nn.MaxPool2d(2),
        *_block(2 * w, 4 * w), *_block(4 * w, 4 * w), nn.MaxPool2d(2),
        *_block(4 * w, 4 * w),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * w, N_CLASSES),
    )


def strided_net(width: int = 24) -> nn.Sequential:
    """A cheaper net for the same 48 px crop: a 4x4 stem at stride 2 reads it at 24 px into 4/3 `width`
    learned channels, then 3x3 stages at 24, 12 and 6 px (19 million multiply-adds a crop at width 24, 3.1 times
    fewer than plain_net's; its 8-bit model 0.12 against 0.36 ms a crop on the AVX-512 VNNI machine). Why: the
    plain net's first two convolutions run at 48 px, where its first (3 input channels) is slow for its
    arithmetic in 8 bits, and the net is asked about 22 crops a photo read uncalibrated (docs/vision.md)."""
    a, b, c = 4 * width // 3, 8 * width // 3, 4 * width
    return nn.Sequential(
        *_block(3, a, 4, 2), *_block(a, a), nn.MaxPool2d(2),
        *_block(a, b), *_block(b, b), nn.MaxPool2d(2),
        *_block(b, c), *_block(c, c),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, N_CLASSES),
    )


ARCHS = {"plain": plain_net, "strided": strided_net}


def make_net(width: int = 24, arch: str = "plain") -> nn.Sequential:
    return ARCHS[arch](width)


def _camera(out: U8, rng: np.random.Generator, share: float) -> U8:
    """Another camera's look, each with probability `share`: fewer pixels on the die (shrunk to 0.5-0.95 and
    enlarged back), another white balance, another tone curve, JPEG. augment() calls it only for a share above
    0, so the dice net's recipe (no camera looks) draws the same numbers, and the same crops, as before."""
    if rng.random() < share:
        k = rng.uniform(0.5, 0.95)
        small = cv2.resize(out, (round(INPUT * k), round(INPUT * k)), interpolation=cv2.INTER_AREA)
        out = cv2.resize(small, (INPUT, INPUT), interpolation=cv2.INTER_CUBIC if rng.random() < 0.5
                         else cv2.INTER_LINEAR)
    # The same changes tests/vision/camera_looks.py puts on the photos, here at random strengths.
    if rng.random() < share:
        out = looks.gains(*(float(k) for k in rng.uniform(0.8, 1.25, 3)))(out)
    if rng.random() < share:
        out = looks.gamma(rng.uniform(0.6, 1.7))(out)
    if rng.random() < share:
        out = looks.jpeg(int(rng.integers(30, 91)))(out)
    return out


def augment(crop: U8, rng: np.random.Generator, camera: float = 0.0) -> F32:
    s = crop.shape[0]
    angle, scale = rng.uniform(0, 360), rng.uniform(0.85, 1.18)
    dx, dy = rng.normal(0, 0.06 * s / STORE_WINDOW, 2)
    m = cv2.getRotationMatrix2D((s / 2 + dx, s / 2 + dy), angle, scale)
    m[:, 2] += np.array([INPUT / 2, INPUT / 2]) - m @ np.array([s / 2 + dx, s / 2 + dy, 1.0])
    out = cv2.warpAffine(crop, m, (INPUT, INPUT), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    if rng.random() < 0.5:
        out = out[:, ::-1]
    out = np.ascontiguousarray(out[..., rng.permutation(3)])
    if rng.random() < 0.3:
        hsv = cv2.cvtColor(out, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if camera:
        out = _camera(out, rng, camera)
    x = out.astype(np.float32)
    if rng.random() < 0.2:
        x = 255.0 - x
    x = x * rng.uniform(0.7, 1.3) + rng.uniform(-30, 30)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.5, 1.1))
    x += rng.normal(0, rng.uniform(0, 6), x.shape).astype(np.float32)
    return np.asarray(np.clip(x, 0, 255), np.float32)


def train(real: Crops, real_ids: NDArray[np.int64], synth: Crops, epochs: int, seed: int, width: int,
          repeats: int = 3, synth_per_epoch: int = 4000, batch: int = 64, device: str = "cpu",
          camera: float = 0.0, dark_repeats: int = 0, arch: str = "plain") -> nn.Sequential:
    """Each epoch: every real training crop `repeats` times (differently augmented), the dark dice's
    `dark_repeats` times where that is more, and `synth_per_epoch` synthetic crops drawn afresh. `camera`:
    the share of the real crops given each of another camera's looks (_camera). `device`: where torch computes
    ("cuda" on a GPU machine); the augmentation stays on the CPU, in the same order, so the batches are the
    same either way. With `camera` 0 and `dark_repeats` 0 or 3 the batches are the dice net's recipe's."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = make_net(width, arch).to(device)
    dark = real_ids[real.colour[real_ids] == "dark"]
    drawn = np.concatenate([np.tile(real_ids, repeats), np.tile(dark, max(0, dark_repeats - repeats))])
    # The synthetic crops have a random camera of their own (training/synth.py); only the real ones, all from
    # one camera, are given other cameras' looks.
    n_real = len(real.labels)
    images = np.concatenate([real.images, synth.images])
    labels = np.concatenate([real.labels, synth.labels])
    per_epoch = (len(drawn) + synth_per_epoch) // batch
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 4e-3, total_steps=epochs * per_epoch)
    loss_f = nn.CrossEntropyLoss(label_smoothing=0.05)
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        extra = len(real.labels) + rng.choice(len(synth.labels), synth_per_epoch, replace=False)
        order = rng.permutation(np.concatenate([drawn, extra]))
        total = 0.0
        for b in range(per_epoch):
            ids = order[b * batch:(b + 1) * batch]
            batch_x = np.stack([augment(images[i], rng, camera if i < n_real else 0.0) for i in ids])
            x = torch.from_numpy(to_input(batch_x)).to(device)
            loss = loss_f(net(x), torch.from_numpy(labels[ids]).to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.item())
        print(f"  epoch {epoch + 1}/{epochs} loss {total / per_epoch:.3f} ({time.time() - t0:.0f} s)", flush=True)
    return net.cpu().eval()


def _render(job: tuple[int, int, float]) -> tuple[U8, NDArray[np.int64]]:
    n, seed, tilted = job
    return synth_crops(n, seed, N_CLASSES, tilted)


def synth_set(n: int, seed: int, tilted: float, jobs: int, chunks: bool = False) -> tuple[U8, NDArray[np.int64]]:
    """The synthetic crops of a recipe. With `tilted` 0 and not `chunks` (the dice net's recipe) one seeded
    sequence, as the shipped models were trained on. Else SYNTH_CHUNKS sequences of n / SYNTH_CHUNKS crops,
    chunk j seeded seed * 1000 + j, rendered by `jobs` processes: the same crops whatever `jobs` is."""
    if not tilted and not chunks:
        return synth_crops(n, seed, N_CLASSES)
    from multiprocessing import Pool

    size = n // SYNTH_CHUNKS
    work = [(size, seed * 1000 + j, tilted) for j in range(SYNTH_CHUNKS)]
    if jobs > 1:
        with Pool(jobs) as pool:
            parts = pool.map(_render, work)
    else:
        parts = [_render(w) for w in work]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def probabilities(net: nn.Sequential, images: U8) -> F32:
    with torch.no_grad():
        out = [torch.softmax(net(torch.from_numpy(to_input(centred(images[i:i + 512])))), 1).numpy()
               for i in range(0, len(images), 512)]
    return np.asarray(np.concatenate(out), np.float32)


def _is_value(pred: NDArray[np.int64]) -> NDArray[np.bool_]:
    return (pred >= 1) & (pred <= 6)


def held_out_report(labels: NDArray[np.int64], probs: F32) -> dict[str, object]:
    """Dice read (a value at or above each threshold), right among those, and negatives read as dice."""
    pred, conf = probs.argmax(1), probs.max(1)
    dice = labels > 0
    rows = {}
    for th in THRESHOLDS:
        acc = dice & (conf >= th) & _is_value(pred)
        rows[f"{th:.2f}"] = {"coverage": round(float(acc.sum() / max(1, dice.sum())), 4),
                             "accuracy": round(float((pred[acc] == labels[acc]).mean()) if acc.any() else 1.0, 4),
                             "negatives_read_as_dice": int(((~dice) & (conf >= th) & _is_value(pred)).sum())}
    cocked = probs[dice, COCKED]
    return {"dice": int(dice.sum()), "negatives": int((~dice).sum()), "by_threshold": rows,
            "flat_dice_cocked_0.3": int((cocked >= 0.3).sum())}


def sim_report(values: NDArray[np.int64], kinds: NDArray[np.str_], probs: F32) -> dict[str, object]:
    pred, conf = probs.argmax(1), probs.max(1)
    sure = conf >= 0.9
    flat, cocked, stacked = kinds == "flat", kinds == "cocked", kinds == "stacked"
    return {"flat": int(flat.sum()), "flat_read_right_0.9": int((flat & sure & (pred == values)).sum()),
            "flat_read_wrong_0.9": int((flat & sure & _is_value(pred) & (pred != values)).sum()),
            "flat_cocked_0.3": int((flat & (probs[:, COCKED] >= 0.3)).sum()),
            "cocked": int(cocked.sum()), "cocked_read_as_value_0.9": int((cocked & sure & _is_value(pred)).sum()),
            "cocked_0.3": int((cocked & (probs[:, COCKED] >= 0.3)).sum()),
            "stacked_top_dice": int(stacked.sum()),
            "stacked_read_right_0.9": int((stacked & sure & (pred == values)).sum())}


def export(net: nn.Sequential, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 3, INPUT, INPUT),), str(path), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      dynamo=False)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def score(out: Path, family: str, names: list[str], sim_seeds: int, meta_path: Path, seed: int) -> None:
    """Score models already trained (their ONNX files in `out`, run by ONNX Runtime as the product runs them):
    the held-out photos' figures and the simulated camera's, written into the figures beside them. What a GPU
    machine's run (training/gpu.sh, which leaves the simulated camera out) is completed with here."""
    from vision.dicenet import DiceNet

    real = byler_crops(seed)
    sim_x, sim_v, sim_k = sim_crops(sim_seeds)
    meta: dict[str, object] = json.loads(meta_path.read_text())
    models = dict(meta["models"])  # type: ignore[call-overload]
    for name in names:
        fold = None if name == "all" else int(name)
        net = DiceNet(out / model_name(fold, family), "onnxruntime")
        report = dict(models[name])
        if fold is not None:
            held = real.fold == fold
            report["held_out"] = held_out_report(real.labels[held], net.probabilities(centred(real.images[held])))
        report["simulated_camera"] = sim_report(sim_v, sim_k, net.probabilities(centred(sim_x)))
        print(f"model {name}: {json.dumps(report)}", flush=True)
        models[name] = report
    meta.update({"simulated_camera_seeds": sim_seeds, "models": models})
    meta_path.write_text(json.dumps(meta, indent=1) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--models", nargs="*", default=["all", *map(str, range(FOLDS))],
                    help="'all' (the product's model) and/or fold numbers")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--width", type=int, default=24)
    ap.add_argument("--arch", choices=sorted(ARCHS), default="plain",
                    help="the net's layout: plain (the dice net's) or strided (a stride-2 stem, 3 times cheaper)")
    ap.add_argument("--synth", type=int, default=16000, help="synthetic crops rendered (training/synth.py)")
    ap.add_argument("--synth-per-epoch", type=int, default=4000, help="of which drawn into each epoch")
    ap.add_argument("--sim-seeds", type=int, default=100, help="simulated-camera throws per kind to score on")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "vision" / "models")
    ap.add_argument("--family", default="dicenet", help="the models' file names: FAMILY.onnx, FAMILY-foldK.onnx")
    ap.add_argument("--tilted", type=float, default=0.0,
                    help="share of the synthetic leaning dice drawn tilted (training/synth.py); 0: the dice net's")
    ap.add_argument("--camera", type=float, default=0.0,
                    help="share of crops given each of another camera's looks (resolution, white balance, tone, JPEG)")
    ap.add_argument("--dark-repeats", type=int, default=0,
                    help="times each dark real die is drawn an epoch, where more than the others' 3")
    ap.add_argument("--chunks", action="store_true",
                    help="render the synthetic crops in seeded chunks by --jobs processes (else one sequence)")
    ap.add_argument("--device", default="cpu", help="torch device (cuda on a GPU machine)")
    ap.add_argument("--jobs", type=int, default=1, help="processes rendering the synthetic crops")
    ap.add_argument("--meta", type=Path, default=None, help="where the figures go (default OUT/FAMILY.json)")
    ap.add_argument("--render-only", action="store_true", help="render the synthetic crops to the cache and stop")
    ap.add_argument("--score-only", action="store_true",
                    help="train nothing: score the models in OUT (held out and on the simulated camera)")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    if args.score_only:
        score(args.out, args.family, args.models, args.sim_seeds, args.meta or args.out / f"{args.family}.json",
              args.seed)
        return 0
    cache = Path(__file__).resolve().parent / ".cache"
    cache.mkdir(exist_ok=True)
    tilt = f"-tilted{args.tilted:g}" if args.tilted else ""
    chunked = "-chunks" if args.chunks else ""
    synth_file = cache / f"synth-{args.synth}-{N_CLASSES}-{args.seed}{tilt}{chunked}.npz"
    if not synth_file.is_file():
        print(f"rendering {args.synth} synthetic crops", flush=True)
        images, labels = synth_set(args.synth, args.seed, args.tilted, args.jobs, args.chunks)
        np.savez(synth_file, X=images, y=labels)
    if args.render_only:
        return 0
    real = byler_crops(args.seed)
    print(f"{len(real.labels)} crops ({int((real.labels > 0).sum())} dice) from the Byler photos", flush=True)
    z = np.load(synth_file)
    n = len(z["y"])
    synth = Crops(z["X"], z["y"].astype(np.int64), np.full(n, -1), np.full(n, -1), np.full(n, ""))
    if args.sim_seeds:
        sim_x, sim_v, sim_k = sim_crops(args.sim_seeds)
    else:  # scored elsewhere (a GPU machine's run: the simulated camera is slow to render on its CPUs' share)
        sim_x, sim_v, sim_k = np.zeros((0, STORE, STORE, 3), np.uint8), np.zeros(0, np.int64), np.zeros(0, np.str_)
    meta_path = args.meta or args.out / f"{args.family}.json"
    meta: dict[str, object] = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    models = dict(meta.get("models", {}))  # type: ignore[call-overload]
    for name in args.models:
        fold = None if name == "all" else int(name)
        train_ids = np.flatnonzero(real.fold != fold) if fold is not None else np.arange(len(real.labels))
        print(f"model {name}: training on {len(train_ids)} real crops", flush=True)
        net = train(real, train_ids, synth, args.epochs, args.seed + (fold if fold is not None else FOLDS),
                    args.width, synth_per_epoch=args.synth_per_epoch, device=args.device, camera=args.camera,
                    dark_repeats=args.dark_repeats, arch=args.arch)
        path = args.out / model_name(fold, args.family)
        report: dict[str, object] = {"file": path.name, "sha256": export(net, path)}
        if fold is not None:
            held = real.fold == fold
            photos = sorted({int(i) for i in real.photo[held]})
            report["held_out_photos"] = [photos[0], photos[-1]]
            report["held_out"] = held_out_report(real.labels[held], probabilities(net, real.images[held]))
        if len(sim_x):
            report["simulated_camera"] = sim_report(sim_v, sim_k, probabilities(net, sim_x))
        print(f"model {name}: {json.dumps(report)}", flush=True)
        models[name] = report
        # Written after every model, so an interrupted run keeps the record of the models it finished.
        meta.update({"input": INPUT, "window_dice": WINDOW,
                     "classes": ["none", 1, 2, 3, 4, 5, 6, "cocked"], "epochs": args.epochs, "seed": args.seed,
                     "width": args.width, "arch": args.arch, "synthetic_crops": args.synth,
                     "synthetic_per_epoch": args.synth_per_epoch, "tilted": args.tilted,
                     "simulated_camera_seeds": args.sim_seeds, "camera": args.camera,
                     "dark_repeats": args.dark_repeats, "chunks": args.chunks, "torch": torch.__version__,
                     "models": models})
        meta.pop("folds", None)
        args.out.mkdir(parents=True, exist_ok=True)
        meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
