"""Shared test helpers."""
from __future__ import annotations

import os

import pytest

IN_CI = os.environ.get("CI", "").lower() == "true"


def skip_or_fail(reason: str):
    """Skip on a user's machine; fail under CI=true, where every tool must be present."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: this must not be skipped)")
    pytest.skip(reason)
