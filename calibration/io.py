"""Calibration files and the printable marker sheet on disk. The only module of `calibration` doing I/O."""

from __future__ import annotations

import os
import tempfile
import zlib
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.model import Calibration, CalibrationError, dumps, loads

U8 = npt.NDArray[np.uint8]


def save(cal: Calibration, path: str | Path) -> Path:
    """Write the versioned JSON file atomically (a crash never leaves half a calibration)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".calibration-", suffix=".json", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(dumps(cal) + "\n")
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def load(path: str | Path) -> Calibration:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise CalibrationError(f"no calibration file at {p}") from exc
    except UnicodeDecodeError as exc:
        raise CalibrationError(f"{p} is not a text file") from exc
    return loads(text)


def read_image(path: str | Path) -> U8:
    p = Path(path)
    if not p.is_file():
        raise CalibrationError(f"no image at {p}")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise CalibrationError(f"{p} is not an image OpenCV can read")
    return np.asarray(img, dtype=np.uint8)


def write_sheet(path: str | Path, page: U8, dpi: int) -> Path:
    """Write the marker sheet as PNG (with its dpi) or as a one-page PDF at true size."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".pdf":
        p.write_bytes(_pdf_page(page, dpi))
    elif suffix in (".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp"):
        if not cv2.imwrite(str(p), page):
            raise OSError(f"could not write {p}")
    else:
        raise CalibrationError(f"write the sheet as .pdf or .png, not {suffix or 'no extension'}")
    return p


def _pdf_page(page: U8, dpi: int) -> bytes:
    """A minimal PDF 1.4: one page the printed size of the image, the image as lossless grey pixels."""
    gray = page if page.ndim == 2 else cv2.cvtColor(page, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    pt_w, pt_h = w * 72.0 / dpi, h * 72.0 / dpi
    data = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    content = f"q {pt_w:.2f} 0 0 {pt_h:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pt_w:.2f} {pt_h:.2f}] "
         f"/Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>").encode(),
        (f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
         f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n").encode()
        + data + b"\nendstream",
        f"<< /Length {len(content)} >>\nstream\n".encode() + content + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)
