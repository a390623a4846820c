"""Train the die spotter (vision/spotter.py) and export it to ONNX: one model per fold of the Byler photos and
the product's model on all of them, like training/train.py does for the dice net.

Usage (PyTorch is needed here only; `make spotter` installs it in .venv-train and runs this):
    .venv-train/bin/python -m training.spotter [--models 0 1 2 3 4 all] [--steps 2000] [--out vision/models]

The spotter is a small fully convolutional net (CenterNet's recipe, much shrunk): it sees the frame at a
quarter of its size and answers, for every cell of 2x2 of those pixels, the probability that a die's
centre lies in it, where in the cell, and the die's size (log of its box side). Targets come from the
labelled boxes: a Gaussian bump of probability around each centre, trained with the focal loss that
CenterNet uses, and the offset and size regressed at the centre's cell only.

Each step draws 32 patches of 128x128 spotter pixels from the training photos: each photo rescaled by
0.5-2x (so dice of 3.5-28 spotter pixels, where the Byler dice are 7-14), turned by any angle or a
quarter turn, mirrored, centred near a die most of the time, and changed in colour and light (channels
shuffled, hue turned, white balance, gamma, contrast, brightness, blur, noise, JPEG at quality 30-95) so
that a die is found by shape and contrast, not by the colour of one camera's dice or tray. The patch is
normalised by its own mean and spread, as the product normalises the whole frame.

Fold k's model never sees the photos of fold k (vision.dicenet.fold_of), so the photo tests read each photo
with a spotter and a dice net that never saw it. Everything is seeded: the same command gives the same
models on the same machine. The report (`--report`) runs the exported models through the product's
vision/spotter.py on their held-out photos and writes the figures to vision/models/spotter.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from numpy.typing import NDArray
from torch import nn

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.vision import byler_data as byler
from vision.dicenet import FOLDS, fold_of
from vision.spotter import DOWN, STRIDE, THRESHOLD, Spotter, model_name, normalise

PATCH = 128  # training patch side, spotter pixels
F64 = NDArray[np.float64]
U8 = NDArray[np.uint8]
Photo = tuple[U8, F64, F64, int]  # image, centres (N, 2), box sides (N,), fold


def make_net(width: int = 16) -> nn.Sequential:
    """Five 3x3 convolutions, the second of stride 2, the last two dilated (2, 4) so that a cell sees a whole
    die and its surroundings; a 1x1 head answers heat, x and y offsets, log size."""

    def block(i: int, o: int, stride: int = 1, dilation: int = 1) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, stride=stride, padding=dilation, dilation=dilation, bias=False),
                nn.BatchNorm2d(o), nn.ReLU(inplace=True)]

    w = width
    head = nn.Conv2d(w, 4, 1)
    with torch.no_grad():
        head.bias[0] = -2.2  # start near the rare positives' prior, as CenterNet does
    return nn.Sequential(*block(3, 8), *block(8, w, 2), *block(w, w), *block(w, w, 1, 2), *block(w, w, 1, 4), head)


def load() -> list[Photo]:
    photos = list(byler.photos())
    out = []
    for p in photos:
        c = np.array([((d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2) for d in p.dice], np.float64)
        s = np.array([0.5 * ((d.box[2] - d.box[0]) + (d.box[3] - d.box[1])) for d in p.dice], np.float64)
        out.append((p.image, c.reshape(-1, 2), s, fold_of(p.index, len(photos))))
    return out


def sample(photo: Photo, rng: np.random.Generator) -> tuple[U8, F64, F64]:
    """One augmented training patch and its dice's centres and sizes in patch pixels."""
    img, c, s = photo[0], photo[1], photo[2]
    scale = math.exp(rng.uniform(math.log(0.5), math.log(2.0))) / DOWN
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(8, round(w * scale)), max(8, round(h * scale))),
                       interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR)
    fx, fy = small.shape[1] / w, small.shape[0] / h
    c = c * [fx, fy]
    s = s * fx
    hh, ww = small.shape[:2]
    angle = rng.uniform(0, 360) if rng.random() < 0.5 else 90.0 * float(rng.integers(0, 4))
    m = cv2.getRotationMatrix2D((ww / 2, hh / 2), angle, 1.0)
    cx, cy = rng.uniform(0, ww), rng.uniform(0, hh)
    if len(c) and rng.random() < 0.7:
        cx, cy = c[rng.integers(len(c))] + rng.normal(0, PATCH / 4, 2)
    m[:, 2] += np.array([PATCH / 2, PATCH / 2]) - m @ np.array([cx, cy, 1.0])
    if rng.random() < 0.5:
        m = np.array([[-1, 0, PATCH], [0, 1, 0]], np.float64) @ np.vstack([m, [0, 0, 1]])
    patch = cv2.warpAffine(small, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    # Pixel centres sit at +0.5: map them as points, not as indices, or every centre shifts by a fraction.
    cc = (m[:, :2] @ (c - 0.5).T).T + m[:, 2] + 0.5 if len(c) else c
    return photometric(patch, rng), cc, s


def photometric(p: U8, rng: np.random.Generator) -> U8:
    x = p.astype(np.float32)
    if rng.random() < 0.5:
        x = x[..., rng.permutation(3)]
    if rng.random() < 0.25:
        hsv = cv2.cvtColor(np.clip(x, 0, 255).astype(np.uint8), cv2.COLOR_BGR2HSV)
        hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180).astype(np.uint8)
        x = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR).astype(np.float32)
    x = x * rng.uniform(0.75, 1.25, 3).astype(np.float32)
    gamma = math.exp(rng.uniform(math.log(0.6), math.log(1.7)))
    x = 255.0 * (np.clip(x, 0, 255) / 255.0) ** gamma
    x = x * rng.uniform(0.7, 1.2) + rng.uniform(-25, 25)
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 0.9))
    x = x + rng.normal(0, rng.uniform(0, 5), x.shape).astype(np.float32)
    out = np.clip(x, 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        _, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        out = cv2.imdecode(enc, cv2.IMREAD_COLOR)
    return out


def targets(cc: F64, s: F64, n: int = PATCH // STRIDE) -> tuple[NDArray[np.float32], ...]:
    heat = np.zeros((n, n), np.float32)
    reg = np.zeros((3, n, n), np.float32)
    mask = np.zeros((n, n), np.float32)
    yy, xx = np.mgrid[0:n, 0:n]
    for (x, y), size in zip(cc, s, strict=True):
        gx, gy = x / STRIDE - 0.5, y / STRIDE - 0.5  # cell i's centre lies at (i + 0.5) * STRIDE
        if not (-1 <= gx < n + 1 and -1 <= gy < n + 1):
            continue
        sigma = max(0.6, size / STRIDE / 6)
        heat = np.maximum(heat, np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * sigma * sigma)))
        ix, iy = round(gx), round(gy)
        if 0 <= ix < n and 0 <= iy < n:
            heat[iy, ix] = 1.0
            reg[:, iy, ix] = (gx - ix, gy - iy, math.log(size))
            mask[iy, ix] = 1.0
    return heat, reg, mask


def focal(logit: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    lp = -((1 - p) ** 2 * torch.log(p) * pos).sum()
    ln = -(((1 - heat) ** 4) * p ** 2 * torch.log(1 - p) * (1 - pos)).sum()
    return (lp + ln) / pos.sum().clamp(min=1)


def train(data: list[Photo], fold: int | None, steps: int, seed: int, batch: int = 32) -> nn.Sequential:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    net = make_net()
    ids = [i for i, d in enumerate(data) if d[3] != fold]
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 4e-3, total_steps=steps)
    t0, total = time.time(), 0.0
    for step in range(steps):
        xs, hs, rs, ms = [], [], [], []
        for _ in range(batch):
            patch, cc, s = sample(data[ids[int(rng.integers(len(ids)))]], rng)
            h, r, m = targets(cc, s)
            xs.append(normalise(patch))
            hs.append(h)
            rs.append(r)
            ms.append(m)
        out = net(torch.from_numpy(np.stack(xs)))
        h_t, r_t, m_t = (torch.from_numpy(np.stack(v)) for v in (hs, rs, ms))
        loss_heat = focal(out[:, 0], h_t)
        loss_reg = (F.l1_loss(out[:, 1:4], r_t, reduction="none").sum(1) * m_t).sum() / m_t.sum().clamp(min=1)
        loss = loss_heat + loss_reg
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        total += float(loss.detach())
        if (step + 1) % 200 == 0:
            print(f"  step {step + 1}/{steps} loss {total / 200:.3f} ({time.time() - t0:.0f} s)", flush=True)
            total = 0.0
    return net.eval()


def export(net: nn.Sequential, path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(net, (torch.zeros(1, 3, 120, 160),), str(path), input_names=["frame"],
                      output_names=["maps"], dynamic_axes={"frame": {2: "h", 3: "w"}, "maps": {2: "h2", 3: "w2"}},
                      dynamo=False)
    return hashlib.sha256(path.read_bytes()).hexdigest()


def held_out_report(data: list[Photo], fold: int, path: Path) -> dict[str, object]:
    """Recall and false spots of the exported model on its held-out photos, through vision/spotter.py."""
    spotter = Spotter(path)
    found = missed = false = 0
    errors: list[float] = []
    ratios: list[float] = []
    photos = [d for d in data if d[3] == fold]
    for img, c, s, _ in photos:
        spots = spotter.spots(img)
        used: set[int] = set()
        for sp in sorted(spots, key=lambda q: -q.score):
            d = np.hypot(c[:, 0] - sp.x, c[:, 1] - sp.y) if len(c) else np.zeros(0)
            k = int(np.argmin(d)) if len(d) else -1
            if k >= 0 and d[k] < 0.35 * s[k] and k not in used:
                used.add(k)
                errors.append(float(d[k]))
                ratios.append(sp.size / float(s[k]))
            else:
                false += 1
        found += len(used)
        missed += len(c) - len(used)
    return {"photos": len(photos), "dice": found + missed, "found": found, "missed": missed,
            "recall": round(found / max(1, found + missed), 4), "false_spots": false,
            "centre_error_px_median": round(float(np.median(errors)), 2),
            "centre_error_px_p90": round(float(np.percentile(errors, 90)), 2),
            "size_ratio_median": round(float(np.median(ratios)), 3)}


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--models", nargs="*", default=[*map(str, range(FOLDS)), "all"],
                    help="fold numbers and/or 'all' (the product's model)")
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--report", action="store_true", help="only score the exported fold models")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "vision" / "models")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    data = load()
    meta_path = args.out / "spotter.json"
    meta: dict[str, object] = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    models = dict(meta.get("models", {}))  # type: ignore[call-overload]
    for name in args.models:
        fold = None if name == "all" else int(name)
        path = args.out / model_name(fold)
        report: dict[str, object] = dict(models.get(name, {}))
        if not args.report:
            print(f"model {name}: training", flush=True)
            net = train(data, fold, args.steps, args.seed + (fold if fold is not None else FOLDS))
            report = {"file": path.name, "sha256": export(net, path)}
        if fold is not None:
            report["held_out"] = held_out_report(data, fold, path)
        print(f"model {name}: {json.dumps(report)}", flush=True)
        models[name] = report
        if not args.report:
            meta.update({"down": DOWN, "stride": STRIDE, "patch": PATCH, "steps": args.steps, "seed": args.seed,
                         "torch": torch.__version__})
        meta["models"] = models
        meta["held_out_threshold"] = THRESHOLD  # the least spot score the held-out figures count
        args.out.mkdir(parents=True, exist_ok=True)
        meta_path.write_text(json.dumps(meta, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
