"""Random files in the public layouts of chapter 3's external data (WISDM, IPUMS BR and MX,
Vehicle) at the paper's sizes, to time its ``paper`` profile where the real files are not at
hand. A run on them says how long the profile takes; its numbers say nothing about the data.

The sizes: WISDM v1.1 has 1,098,207 readings, LIBSVM's Vehicle 78,823 + 19,705 records, and
the paper's BR and MX extracts about 4 M people each. The IPUMS categories get 10 (BR) and 8
(MX) values, so that the tables expand to about the paper's 90 and 94 attributes. The offline
files of the data folder in use (MNIST, ...) are linked in, so the chapter finds everything.

Usage::

    python benchmarks/stand_in_files.py /tmp/paper-sized
    LDP_COMPANION_DATA=/tmp/paper-sized python -m ldp_companion run pm -p profile paper
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import dump_svmlight_file

from ldp_companion.data.datasets import cache_dir
from ldp_companion.pm import external_data as ext

SIZES = {"wisdm": 1_098_207, "ipums_br": 4_000_000, "ipums_mx": 4_000_000,
         "vehicle": (78_823, 19_705)}
CATEGORIES = {"BR": 10, "MX": 8}
ACTIVITIES = ("Walking", "Jogging", "Upstairs", "Downstairs", "Sitting", "Standing")


def write_wisdm(root: Path, n: int, rng: np.random.Generator) -> None:
    frame = pd.DataFrame({
        "user": rng.integers(1, 37, n), "activity": rng.choice(ACTIVITIES, n),
        "timestamp": np.arange(n) * 50_000_000, **{c: rng.normal(0, 5, n) for c in "xyz"}})
    path = root / ext.EXTERNAL["wisdm"]["files"][0][0]
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, header=False, index=False, lineterminator=";\n", float_format="%.6g")


def write_ipums(root: Path, country: str, n: int, rng: np.random.Generator) -> None:
    spec = ext.IPUMS_COLUMNS[country]
    data = {c: rng.integers(0, 90, n) for c in spec["numeric"]}
    data[spec["target"]] = rng.integers(0, 200_000, n)
    data.update({c: rng.integers(1, CATEGORIES[country] + 1, n) for c in spec["categorical"]})
    path = root / ext.EXTERNAL[f"ipums_{country.lower()}"]["files"][0][0]
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(data).to_csv(path, index=False)


def write_vehicle(root: Path, sizes: tuple[int, int], rng: np.random.Generator) -> None:
    for names, n in zip(ext.EXTERNAL["vehicle"]["files"], sizes):
        path = root / names[1]                      # the decompressed name
        path.parent.mkdir(parents=True, exist_ok=True)
        x = rng.uniform(-1, 1, (n, ext.VEHICLE_N_FEATURES))
        dump_svmlight_file(x, rng.integers(1, 4, n).astype(float), str(path), zero_based=False)


def write_all(root: Path, scale: float = 1.0, seed: int = 0) -> None:
    """Write every file under ``root`` at ``scale`` times the paper's sizes and link the
    offline data folder's other entries."""
    rng = np.random.default_rng(seed)

    def size(n):
        return max(10, round(n * scale))

    root.mkdir(parents=True, exist_ok=True)
    write_wisdm(root, size(SIZES["wisdm"]), rng)
    for country in ("BR", "MX"):
        write_ipums(root, country, size(SIZES[f"ipums_{country.lower()}"]), rng)
    write_vehicle(root, tuple(size(n) for n in SIZES["vehicle"]), rng)
    for entry in (cache_dir().iterdir() if cache_dir().is_dir() else []):
        if not (root / entry.name).exists():
            (root / entry.name).symlink_to(entry.resolve())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--scale", type=float, default=1.0,
                        help="fraction of the paper's sizes (a quick trial: 0.001)")
    args = parser.parse_args(argv)
    write_all(args.root, args.scale)
    print(f"wrote the stand-in files under {args.root}")


if __name__ == "__main__":
    main()
