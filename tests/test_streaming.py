"""Streaming mean estimation: blocks in, the same estimate out, bounded memory."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ldp_companion import get_mechanism
from ldp_companion import hiera as H
from ldp_companion.execution.streaming import (
    ScalarSummary,
    iter_blocks,
    simulate_mean,
    stream_mean,
    uniform_users,
)
from ldp_companion.hiera.streaming import HierASummary

pytestmark = pytest.mark.determinism  # .ci/run runs these again at one BLAS thread

N = 200_000


@pytest.mark.parametrize("name", ["laplace", "pm", "hm_tp", "harmony"])
def test_stream_equals_one_call(name):
    """Blocks of 1,000, 4,096 or one block: the outputs are those of one privatize call."""
    mech = get_mechanism(name, 1.0)
    v = np.random.default_rng(1).uniform(-1, 1, N)
    y = mech.privatize(v, np.random.default_rng(2))
    for block in (1_000, 4_096, N):
        got = stream_mean(ScalarSummary(mech), v, np.random.default_rng(2), block=block)
        assert got["n"] == N and got["truth"] == pytest.approx(v.mean(), rel=1e-12)
        assert got["estimate"] == pytest.approx(y.mean(), rel=1e-11, abs=1e-15)
        assert got["se"] == pytest.approx(y.std() / math.sqrt(N), rel=1e-9)


def test_dask_array_and_iterable_inputs():
    da = pytest.importorskip("dask.array")
    v = np.random.default_rng(3).uniform(-1, 1, 50_000)
    mech = ScalarSummary(get_mechanism("pm", 2.0))
    ref = stream_mean(mech, v, np.random.default_rng(4))
    lazy = stream_mean(mech, da.from_array(v, chunks=7_000), np.random.default_rng(4))
    parts = stream_mean(mech, np.array_split(v, 9), np.random.default_rng(4))
    assert lazy["estimate"] == pytest.approx(ref["estimate"], rel=1e-12)
    assert parts["estimate"] == pytest.approx(ref["estimate"], rel=1e-12)
    assert [b.size for b in iter_blocks(v, 20_000)] == [20_000, 20_000, 10_000]


def test_simulation_is_unbiased_and_does_not_depend_on_workers():
    """10^6 users, PM at ε = 1: |estimate - truth| < 4.5 se; 1 or 2 workers, same numbers."""
    summary = ScalarSummary(get_mechanism("pm", 1.0))
    one = simulate_mean(summary, 1_000_000, seed=5, block=100_000, n_jobs=1)
    two = simulate_mean(summary, 1_000_000, seed=5, block=100_000, n_jobs=2)
    assert one == two and one["n"] == 1_000_000
    assert abs(one["estimate"] - one["truth"]) < 4.5 * one["se"]
    assert abs(one["truth"]) < 4.5 / math.sqrt(3 * 1_000_000)  # uniform users, mean 0
    # the se is the mechanism's: Var[Y] = E Var[Y | v] + Var[v]
    v = uniform_users(200_000, np.random.default_rng(0))
    var = summary.mechanism.variance(v).mean() + v.var()
    assert one["se"] == pytest.approx(math.sqrt(var / 1_000_000), rel=0.01)


def test_hiera_stream_adds_counts_and_is_unbiased():
    levels = H.paper_levels(1.0)
    summary = HierASummary(levels, mu=2)
    v = np.random.default_rng(6).uniform(-1, 1, 300_000)
    parts = [summary.block(b, np.random.default_rng(i))
             for i, b in enumerate(iter_blocks(v, 70_000))]
    total = np.sum(parts, axis=0)
    assert total[0] == v.size and total[2:].sum() == v.size  # every user reports once
    est = simulate_mean(summary, 2_000_000, seed=7, block=250_000, n_jobs=1)
    sd = H.predicted_mae(H.uniform_summary(levels), levels, 2_000_000, "hiera", mu=2) \
        * math.sqrt(math.pi / 2)
    assert abs(est["estimate"] - est["truth"]) < 4.5 * sd
    # the mutant: dropping a level's counts before Alg. 5 biases the estimate far outside that
    broken = total.copy()
    broken[2:4] = 0
    far = summary.finish(broken, np.random.default_rng(0))
    assert abs(far["estimate"] - v.mean()) > 10 * sd * math.sqrt(2_000_000 / v.size)


def test_bad_input_is_refused():
    with pytest.raises(TypeError, match="ScalarMechanism"):
        ScalarSummary("pm")
    with pytest.raises(TypeError, match="block"):
        stream_mean(object(), np.zeros(3), np.random.default_rng(0))
    with pytest.raises(ValueError, match="no values"):
        stream_mean(ScalarSummary(get_mechanism("pm", 1.0)), [], np.random.default_rng(0))
    with pytest.raises(ValueError, match="n"):
        simulate_mean(ScalarSummary(get_mechanism("pm", 1.0)), 0, seed=0)
    with pytest.raises(TypeError, match="iterable"):
        list(iter_blocks(3.0))
    with pytest.raises(ValueError, match="mu"):
        HierASummary(H.paper_levels(1.0), mu=9)
