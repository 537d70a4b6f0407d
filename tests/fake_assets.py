"""A tiny stand-in for the paper profiles' assets, in the public archives' layouts (the real
files cannot be downloaded here): a few images, reviews, words and flows per file, and a
randomly initialised MobileNetV2 state dict in place of the ImageNet weights."""
from __future__ import annotations

import gzip
import pickle
import struct
from pathlib import Path

import numpy as np

N_TRAIN, N_TEST = 40, 20


def _idx(path: Path, array: np.ndarray) -> None:
    head = b"\x00\x00\x08" + bytes([array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(head + array.astype(np.uint8).tobytes()))


def _labels(n: int) -> np.ndarray:
    return np.arange(n) % 10


def write_mnist(root: Path, rng) -> None:
    for part, n in (("train", N_TRAIN), ("t10k", N_TEST)):
        _idx(root / f"MNIST/raw/{part}-images-idx3-ubyte.gz", rng.integers(0, 256, (n, 28, 28)))
        _idx(root / f"MNIST/raw/{part}-labels-idx1-ubyte.gz", _labels(n))


def write_cifar(root: Path, rng) -> None:
    folder = root / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    for name, n in [(f"data_batch_{i}", N_TRAIN // 5) for i in range(1, 6)] + [
            ("test_batch", N_TEST)]:
        batch = {"data": rng.integers(0, 256, (n, 3072)).astype(np.uint8),
                 "labels": _labels(n).tolist()}
        (folder / name).write_bytes(pickle.dumps(batch))


def write_svhn(root: Path, rng) -> None:
    from scipy.io import savemat

    (root / "SVHN").mkdir(parents=True, exist_ok=True)
    for part, n in (("train", N_TRAIN), ("test", N_TEST)):
        savemat(root / f"SVHN/{part}_32x32.mat",
                {"X": rng.integers(0, 256, (32, 32, 3, n)).astype(np.uint8),
                 "y": np.where(_labels(n) == 0, 10, _labels(n)).reshape(-1, 1)})  # 0 is 10


WORDS = ["the", "a", "good", "bad", "movie", "film", "great", "awful", "!", ".", ",", "it's"]


def write_glove(root: Path, rng) -> None:
    (root / "glove").mkdir(parents=True, exist_ok=True)
    lines = [w + " " + " ".join(f"{v:.4f}" for v in rng.normal(size=100)) for w in WORDS]
    (root / "glove/glove.6B.100d.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_imdb(root: Path, rng) -> None:
    for part in ("train", "test"):
        for label, words in (("pos", "good great"), ("neg", "bad awful")):
            folder = root / "aclImdb" / part / label
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(6):
                (folder / f"{i}_7.txt").write_text(
                    f"It's a {words} movie!<br />The film, zyzzyva {i}.", encoding="utf-8")


DARKNET_LABELS = ["Non-Tor", "NonVPN", "Tor", "VPN"]


def write_darknet(root: Path, rng, n: int = 50) -> None:
    import pandas as pd

    (root / "darknet").mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame({"Flow ID": [f"f{i}" for i in range(n)], "Src IP": "10.0.0.1",
                          "Src Port": rng.integers(1, 65535, n), "Dst IP": "10.0.0.2",
                          "Dst Port": 443, "Protocol": 6, "Timestamp": "24/07/2015 04:09",
                          "Flow Duration": rng.integers(1, 10**6, n),
                          "Flow Bytes/s": np.where(np.arange(n) == 3, np.inf,
                                                   rng.random(n) * 1e4),
                          "Label": [DARKNET_LABELS[i % 4] for i in range(n)],
                          "Label.1": "Browsing"})
    frame.to_csv(root / "darknet/Darknet.csv", index=False)


def write_credit(root: Path, rng, n: int = 200) -> None:
    import pandas as pd

    (root / "credit").mkdir(parents=True, exist_ok=True)
    y = (np.arange(n) % 5 == 0).astype(int)          # 20 % fraud, learnable from V1
    frame = pd.DataFrame({"Time": np.arange(n, dtype=float)})
    for i in range(1, 29):
        frame[f"V{i}"] = rng.normal(size=n) + (2.0 * y if i == 1 else 0.0)
    frame["Amount"] = rng.random(n) * 100
    frame["Class"] = y
    frame.to_csv(root / "credit/creditcard.csv", index=False)


#: Values of the stand-in Adult rows, per categorical column; "?" is the files' unknown.
ADULT_VALUES = {"workclass": ["Private", "State-gov", "?"], "education": ["Bachelors", "HS-grad"],
                "marital-status": ["Never-married", "Divorced"],
                "occupation": ["Adm-clerical", "Sales", "?"], "relationship": ["Husband", "Wife"],
                "race": ["White", "Black"], "sex": ["Male", "Female"],
                "native-country": ["United-States", "Mexico", "?"]}


def _adult_rows(rng, n: int, dot: str) -> list[str]:
    rows = []
    for i in range(n):
        cat = {c: v[i % len(v)] for c, v in ADULT_VALUES.items()}
        rich = i % 4 == 0
        rows.append(", ".join([str(20 + i % 50), cat["workclass"], str(rng.integers(10**4, 10**6)),
                               cat["education"], str(9 + 4 * rich), cat["marital-status"],
                               cat["occupation"], cat["relationship"], cat["race"], cat["sex"],
                               str(5000 * rich), "0", str(40 + 10 * rich),
                               cat["native-country"], (">50K" if rich else "<=50K") + dot]))
    return rows


def write_adult(root: Path, rng, n: int = 120) -> None:
    (root / "adult").mkdir(parents=True, exist_ok=True)
    (root / "adult/adult.data").write_text("\n".join(_adult_rows(rng, n, "")) + "\n\n")
    (root / "adult/adult.test").write_text("|1x3 Cross validator\n"
                                           + "\n".join(_adult_rows(rng, n // 2, ".")) + "\n")


def write_mobilenet(root: Path) -> None:
    import torch
    from torchvision.models import mobilenet_v2

    (root / "checkpoints").mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    torch.save(mobilenet_v2(weights=None).state_dict(),
               root / "checkpoints/mobilenet_v2-b0353104.pth")


def write_all(root: Path) -> None:
    rng = np.random.default_rng(0)
    for write in (write_mnist, write_cifar, write_svhn, write_glove, write_imdb, write_darknet,
                  write_credit, write_adult):
        write(root, rng)
    write_mobilenet(root)
