"""How large an install of the package is, with and without its extras.

    python benchmarks/install_size.py [--wheel WHEEL] [--extras run run,torch book,torch,test]

Builds the wheel (unless given), then for each extras set creates a fresh virtual environment,
installs the wheel with those extras and the pinned versions (``constraints.txt``) from the
package registry, and records the seconds it took and the size of the environment. Writes
``benchmarks/results/install-sizes.json`` (the rerun page shows it).
"""
from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "benchmarks" / "results" / "install-sizes.json"


def folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def measure(wheel: Path, extras: str, work: Path) -> dict:
    env = work / f"venv-{extras.replace(',', '-') or 'none'}"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    pip = [str(env / "bin" / "python"), "-m", "pip"]
    subprocess.run([*pip, "install", "-q", "--upgrade", "pip"], check=True)
    base = folder_bytes(env)
    target = f"{wheel}[{extras}]" if extras else str(wheel)
    started = time.perf_counter()
    subprocess.run([*pip, "install", "-q", "-c", str(REPO / "constraints.txt"), target],
                   check=True)
    seconds = time.perf_counter() - started
    size = folder_bytes(env)
    shutil.rmtree(env)
    return {"extras": extras or "none", "seconds": round(seconds, 1),
            "megabytes": round(size / 1e6), "megabytes_over_empty_venv": round((size - base) / 1e6)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wheel", type=Path)
    parser.add_argument("--extras", nargs="+", default=["run", "run,torch", "book,torch,test"])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        wheel = args.wheel
        if wheel is None:
            subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "-o",
                            str(work), str(REPO)], check=True, capture_output=True)
            wheel = next(work.glob("*.whl"))
        rows = []
        for extras in args.extras:
            rows.append(measure(wheel.resolve(), extras, work))
            print(rows[-1], flush=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "installs": rows}, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
