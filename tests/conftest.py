"""Shared test helpers."""
from __future__ import annotations

import math
import os

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture(scope="session")
def paper_asset_root(tmp_path_factory):
    """Tiny stand-ins of every paper asset (``fake_assets.write_all``), written once."""
    from fake_assets import write_all

    root = tmp_path_factory.mktemp("paper-assets")
    write_all(root)
    return root


def skip_or_fail(reason: str):
    """Skip on a user's machine; fail under CI=true, where every tool must be present."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: this must not be skipped)")
    pytest.skip(reason)


def assert_printed(value, printed: str):
    """``value`` rounds to ``printed`` at its printed decimals (a paper's or a reference
    table's value, e.g. ``"0.1839"``)."""
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    tol = 0.5 * 10.0**-decimals * (1 + 1e-9) + 1e-15
    assert abs(value - float(printed)) <= tol, f"{value!r} does not round to {printed}"


def assert_sig(value, printed: str):
    """``value`` rounds to ``printed`` at its printed significant digits (``"2.8e-74"``)."""
    mantissa = printed.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    p = float(printed)
    tol = 0.5 * 10.0 ** (math.floor(math.log10(abs(p))) - len(mantissa) + 1) * (1 + 1e-9)
    assert abs(value - p) <= tol, f"{value!r} does not round to {printed}"
