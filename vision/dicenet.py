"""A small convolutional net's read of the die at a point: which face is up, a leaning die, or no die there.

The pip readers (darkpips, colourpips, faces) say a value only when round spots fit a legal layout; on the
Byler photos they leave a third of the dice unread (marbled and translucent bodies, pips merged at ~30 px,
side faces in view). The net reads a crop around a candidate die, 1.5 die sizes wide and scaled so that a
die is always the same number of pixels, and answers a probability for each of eight classes: no die's
top face centred here, each value 1..6, and a leaning (cocked) die showing two faces; `DiceNet.read` asks
about each crop as cut and turned a quarter and answers the mean (VIEWS). The reader (vision/reader.py)
combines it with the pip readers: a pip read the net confidently contradicts, or calls cocked, is refused; a
die the pip readers could not read but did not refuse for a physical reason takes the net's value when the
net is sure.

The models are trained by training/train.py (PyTorch, not a dependency of the product) and run here from
ONNX files in vision/models/ with ONNX Runtime, on one thread; OpenCV's DNN module runs them where ONNX
Runtime is not installed (it has no wheel for 32-bit ARM). Both give the same probabilities to within 1e-4
(tests/vision/test_dicenet.py). ONNX Runtime runs each model's 8-bit twin (`dicenet-int8.onnx`, made by
training/quantize.py from the float model: weights and activations as 8-bit integers), which OpenCV cannot
load: on a 2-core AMD EPYC machine with AVX-512 VNNI (2026-11-25, pairs of crops) 0.39 ms a crop, against
1.18 ms for the float model on ONNX Runtime and 1.75 ms on OpenCV. The twin answers within 0.03 of the float
model on the tests' rendered dice and within 0.18 on the held-out photos (the same class for 99.6-100% of
crops; vision/models/dicenet.json under "int8"); the reader's figures are measured with the twins.

`dicenet.onnx` is the product's, trained on all the Byler photos; `dicenet-fold{k}.onnx` are the same recipe
trained without fold k (a run of 50 consecutive photos), so the photo tests read each photo with a model that
never saw it (`DiceNet.fold`) and their figures are held-out figures. The cocked class is learned from
synthetic crops only (training/synth.py); the simulated camera's cocked dice, a renderer the net never saw,
test it. vision/models/dicenet.json records how each model was made.

Pure from the caller's side: a BGR uint8 frame, centres and a die size in, frozen reads out. Loading is
lazy and cached; one lock guards each model, as OpenCV's nets are not safe to share between threads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal, Protocol

import cv2
import numpy as np
from numpy.typing import NDArray

U8 = NDArray[np.uint8]
F32 = NDArray[np.float32]

MODEL_DIR = Path(__file__).resolve().parent / "models"
INPUT = 48  # crop side fed to the net, pixels
WINDOW = 1.5  # crop side in die sizes: the die, its side faces and a margin, little of its neighbours
# Class indices: 0 no die's top face centred here, 1..6 the value up, 7 a leaning die (two faces in view).
NO_DIE, COCKED = 0, 7
N_CLASSES = 8
FOLDS = 5
# Views of each crop the net is asked about (quarter turns): the crop as cut and turned a quarter, the answers
# averaged. A die's value does not depend on how it lies, but one view's answer does a little (the net learned
# turns from examples), and where the two views disagree the mean is less sure. Held out on the Byler photos
# in eight looks (as taken, turned a quarter and a half, mirrored, JPEG, darker, brighter, soft focus), values
# read wrong 33 -> 19 and photos `ok` and wrong 13 -> 8, coverage 0.36 points less on average (as taken
# 91.83 -> 91.67%, 154 photos `ok` and right either way, none wrong); all four quarter turns: 16 and 8, but
# one more as taken; the half turn: 23 and 12 (docs/vision.md, "Two views of a crop"). A read asks for twice
# the crops.
VIEWS = 2


@dataclass(frozen=True)
class NetRead:
    """The net's answer at one point: the most probable value 1..6 (None when "no die" or "cocked" is more
    probable than every value) with its probability, and the probability that a leaning die is there."""

    value: int | None
    confidence: float  # probability of `value`, or of the more probable of "no die" and "cocked"
    cocked: float
    probs: tuple[float, ...]  # over the N_CLASSES classes

    @staticmethod
    def of(probs: tuple[float, ...]) -> NetRead:
        k = max(range(N_CLASSES), key=lambda i: probs[i])
        value = k if 1 <= k <= 6 else None
        return NetRead(value, probs[k], probs[COCKED], probs)


def crops(frame: U8, centres: Sequence[tuple[float, float]], die: float, size: int = INPUT,
          window: float = WINDOW) -> U8:
    """(N, size, size, 3) crops, each `window` die sizes wide around its centre, edges replicated.

    Training cuts wider crops at the same pixel scale (size 72, window 2.25) to turn and shift them."""
    out = np.empty((len(centres), size, size, 3), np.uint8)
    scale = size / (window * die)  # crop pixels per frame pixel
    src = frame
    if scale < 0.67 and len(centres):
        # Shrinking by more than ~1.5x with bilinear sampling aliases pips away: average the area first
        # (once: every crop of the call has the same scale).
        k = round(1.0 / scale)
        src = np.asarray(cv2.blur(frame, (k, k)), dtype=np.uint8)
    for i, (cx, cy) in enumerate(centres):
        m = np.array([[scale, 0.0, size / 2 - scale * cx], [0.0, scale, size / 2 - scale * cy]], np.float64)
        out[i] = cv2.warpAffine(src, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out


def to_input(batch: U8 | F32) -> F32:
    """Crops (N, H, W, 3) to the net's input (N, 3, H, W): each crop less its mean, over its spread.

    Per-crop normalisation takes out exposure and white balance; the +8 keeps a flat crop from being blown
    up to noise."""
    x = np.asarray(batch, np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    std = x.std(axis=(1, 2, 3), keepdims=True) + 8.0
    return np.ascontiguousarray(((x - mean) / std).transpose(0, 3, 1, 2))


def _softmax(z: F32) -> F32:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)


Runtime = Literal["auto", "onnxruntime", "opencv"]


class _Forward(Protocol):
    def __call__(self, x: F32) -> F32: ...


def _onnxruntime(path: Path) -> _Forward:
    import onnxruntime as ort  # optional: see the module docstring

    opts = ort.SessionOptions()
    # One thread: the read is measured (and meant to run) on one core, beside the web server and the camera.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def forward(x: F32) -> F32:
        return np.asarray(session.run(None, {name: x})[0], np.float32)

    return forward


def _opencv(path: Path) -> _Forward:
    net = cv2.dnn.readNetFromONNX(str(path))

    def forward(x: F32) -> F32:
        net.setInput(x)
        return np.asarray(net.forward(), np.float32)

    return forward


def _has_onnxruntime() -> bool:
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


class DiceNet:
    """One trained model, loaded from its ONNX file, run by `runtime` ("auto": ONNX Runtime where it is
    installed, else OpenCV's DNN module)."""

    def __init__(self, path: Path, runtime: Runtime = "auto") -> None:
        if not path.is_file():
            raise FileNotFoundError(f"dice net model missing: {path}")
        if runtime not in ("auto", "onnxruntime", "opencv"):
            raise ValueError(f"unknown dice net runtime {runtime!r} (auto, onnxruntime or opencv)")
        if runtime == "auto":
            runtime = "onnxruntime" if _has_onnxruntime() else "opencv"
        self.path = path
        self.runtime = runtime
        self._forward = _onnxruntime(path) if runtime == "onnxruntime" else _opencv(path)
        self._lock = threading.Lock()

    @staticmethod
    @cache
    def shipped() -> DiceNet:
        """The model trained on all the photos: what the product reads with."""
        return DiceNet.best(MODEL_DIR / model_name(None))

    @staticmethod
    @cache
    def fold(k: int) -> DiceNet:
        """The model that never saw fold `k` of the Byler photos (for held-out scoring)."""
        if not 0 <= k < FOLDS:
            raise ValueError(f"fold {k} out of range 0..{FOLDS - 1}")
        return DiceNet.best(MODEL_DIR / model_name(k))

    @staticmethod
    def best(path: Path) -> DiceNet:
        """The float model at `path` as this machine runs it fastest: its 8-bit twin (int8_name) on ONNX Runtime
        where both are there, else the float model itself (OpenCV's DNN module cannot load the 8-bit graph)."""
        q = path.with_name(int8_name(path.name))
        if _has_onnxruntime() and q.is_file():
            return DiceNet(q, "onnxruntime")
        return DiceNet(path)

    def probabilities(self, batch: U8) -> F32:
        """(N, N_CLASSES) probabilities for (N, INPUT, INPUT, 3) crops."""
        if len(batch) == 0:
            return np.zeros((0, N_CLASSES), np.float32)
        x = to_input(batch)
        with self._lock:
            logits = self._forward(x).reshape(len(batch), -1)
        if logits.shape[1] != N_CLASSES:
            raise ValueError(f"dice net {self.path.name} gives {logits.shape[1]} classes, expected {N_CLASSES}")
        return _softmax(logits)

    def read(self, frame: U8, centres: Sequence[tuple[float, float]], die: float,
             views: int = VIEWS) -> tuple[NetRead, ...]:
        """The net's read at each centre, for dice of side `die` pixels: the mean of its answers for the crop
        turned 0, 1, ... `views` - 1 quarters."""
        if not centres:
            return ()
        cut = crops(frame, centres, die)
        probs = self.probabilities(np.concatenate([np.rot90(cut, k, axes=(1, 2)) for k in range(views)]))
        mean = probs.reshape(views, len(centres), N_CLASSES).mean(axis=0)
        return tuple(NetRead.of(tuple(float(p) for p in row)) for row in mean)


class Glance:
    """`net` asked with one view of each crop (DiceNet.read): where the net only points the way (the re-centring
    search, vision/netcheck.py), not where its answer is taken."""

    def __init__(self, net: DiceNet) -> None:
        self.net = net

    def read(self, frame: U8, centres: Sequence[tuple[float, float]], die: float) -> tuple[NetRead, ...]:
        return self.net.read(frame, centres, die, views=1)


def use_models(folder: Path) -> None:
    """Read with the models in `folder` from now on, instead of vision/models: a retrained set, scored by the
    benches (`--models`) before it is shipped. It needs the product's model and the five fold models there
    (each as its float file; the 8-bit twins are used where they are there too); otherwise it raises and
    nothing changes."""
    global MODEL_DIR
    missing = [name for name in (model_name(None), *(model_name(k) for k in range(FOLDS)))
               if not (folder / name).is_file()]
    if missing:
        raise FileNotFoundError(f"dice net models missing in {folder}: {', '.join(missing)}")
    MODEL_DIR = folder
    DiceNet.shipped.cache_clear()
    DiceNet.fold.cache_clear()


def model_name(fold: int | None, family: str = "dicenet") -> str:
    """The float model's file name: the product's (None), or the one trained without fold `fold`; `family`
    names the recipe (training/train.py --family)."""
    return f"{family}.onnx" if fold is None else f"{family}-fold{fold}.onnx"


def int8_name(name: str) -> str:
    """The file name of a float model's 8-bit twin (training/quantize.py): dicenet.onnx -> dicenet-int8.onnx."""
    stem, dot, ext = name.rpartition(".")
    return f"{stem}-int8{dot}{ext}"


def fold_of(index: int, n_photos: int) -> int:
    """Fold of the `index`-th photo (sorted by name) of `n_photos`: contiguous runs, so photos taken one after
    another (the same dice, the same light) fall in the same fold and held-out figures are not flattered."""
    return min(FOLDS - 1, index * FOLDS // max(1, n_photos))


def metadata() -> dict[str, object]:
    path = MODEL_DIR / "dicenet.json"
    data: dict[str, object] = json.loads(path.read_text()) if path.is_file() else {}
    return data
