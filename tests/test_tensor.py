"""ldp_companion.tensor: calibrations against closed forms and reference values, the laws of
the noise (Monte Carlo with stated n and z bounds), numpy and torch paths, bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from ldp_companion.tensor import (
    MECHANISMS,
    draw_noise,
    gaussian_mechanism,
    gaussian_sigma,
    idn_sigma,
    laplace_mechanism,
    mvg_budget,
    mvg_iid_sigma,
    mvg_mechanism,
    zeta,
)
from ldp_companion.tensor.calibration import gaussian_delta, harmonic, idn_c

MNIST = (28, 28)


def test_idn_and_mvg_match_table_v_reference_values():
    # TLDP brief C8: MNIST, Δ = 256, δ = 1e-5, s₂ = Δ√I, γ = s₂/2.
    size, s2 = 784, 256 * 28.0
    for eps, idn_ref, mvg_ref, mvg_t5 in [(0.1, 6.34e7, 6.97e9, 4.86e19),
                                          (1.0, 6.34e6, 6.97e8, 4.86e17),
                                          (10.0, 6.37e5, 6.97e7, 4.86e15)]:
        assert math.sqrt(size) * idn_sigma(size, s2, eps) == pytest.approx(idn_ref, rel=5e-3)
        assert math.sqrt(size) * mvg_iid_sigma(28, 28, s2, eps) == pytest.approx(mvg_ref,
                                                                                  rel=5e-3)
        assert 28 * size / mvg_budget(28, 28, s2, eps) == pytest.approx(mvg_t5, rel=5e-3)


def test_zeta_and_c_closed_forms():
    d = 1e-5
    assert zeta(1, d) ** 2 == pytest.approx(-2 * math.log(d) + 2 * math.sqrt(-math.log(d)) + 1,
                                            rel=1e-14)
    z = zeta(100, d)
    assert idn_c(100, 0.5, d) == pytest.approx(-z + math.sqrt(z * z + 1.0), rel=1e-10)
    assert harmonic(4) == pytest.approx(1 + 1 / 2 + 1 / 3 + 1 / 4)
    assert harmonic(4, 0.5) == pytest.approx(1 + 2**-0.5 + 3**-0.5 + 0.5)


def test_gaussian_calibrations():
    assert gaussian_sigma(2.0, 0.5, method="zcdp") == pytest.approx(2.0)
    assert gaussian_sigma(1.0, 1.0, 1e-5, "classic") == pytest.approx(
        math.sqrt(2 * math.log(1.25e5)), rel=1e-14)
    # analytic: the exact profile is met with equality, and it needs less noise than classic
    s = gaussian_sigma(1.0, 1.0, 1e-5, "analytic")
    assert gaussian_delta(s, 1.0, 1.0) == pytest.approx(1e-5, rel=1e-6)
    assert s == pytest.approx(3.7306, abs=1e-3) and s < gaussian_sigma(1.0, 1.0, 1e-5, "classic")
    with pytest.raises(ValueError, match="method"):
        gaussian_sigma(1.0, 1.0, 1e-5, "wrong")


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_each_mechanism_adds_noise_of_the_stated_scale(name):
    # n = 2000 tensors of 64 entries; the sample std of 128,000 entries is within 1 % (z < 4)
    rng = np.random.default_rng(0)
    x = np.zeros((2000, 8, 8))
    y = MECHANISMS[name](x, 1.0, 2.0, rng=rng, batched=True)
    expected = {"laplace": math.sqrt(2) * 64 * 2.0, "gaussian": 2.0 * math.sqrt(64 / 2.0),
                "idn": idn_sigma(64, 16.0, 1.0), "mvg": mvg_iid_sigma(8, 8, 16.0, 1.0)}[name]
    n = y.size
    rel_se = math.sqrt((3.0 if name == "laplace" else 0.5) / n)  # s.e. of a sample std
    assert abs(y.std() / expected - 1) < 4 * rel_se
    assert y.shape == x.shape and y.dtype == x.dtype


def test_laplace_noise_law_ks():
    rng = np.random.default_rng(1)
    z = laplace_mechanism(np.zeros((20_000, 2)), 4.0, 1.0, rng=rng, batched=True)
    assert stats.kstest(z.ravel(), stats.laplace(scale=0.5).cdf).pvalue > 1e-3
    # a mutant scale is rejected by the same test
    assert stats.kstest(z.ravel(), stats.laplace(scale=0.55).cdf).pvalue < 1e-6


def test_batched_calibration_uses_one_tensor_size():
    rng = np.random.default_rng(2)
    one = laplace_mechanism(np.zeros(MNIST), 1.0, 2.0, rng=np.random.default_rng(3))
    batch = laplace_mechanism(np.zeros((1, *MNIST)), 1.0, 2.0, rng=np.random.default_rng(3),
                              batched=True)
    assert np.array_equal(one, batch[0])
    entry = laplace_mechanism(np.zeros(MNIST), 1.0, 2.0, rng=rng, calibration="entry")
    assert entry.std() < one.std() / 100  # b = Δ/ε vs IΔ/ε


def test_torch_input_comes_back_as_torch_with_the_same_draws():
    x = np.linspace(-1, 1, 64).reshape(8, 8)
    for name, mech in MECHANISMS.items():
        y_np = mech(x, 1.0, 2.0, rng=np.random.default_rng(5))
        y_t = mech(torch.as_tensor(x), 1.0, 2.0, rng=np.random.default_rng(5))
        assert isinstance(y_t, torch.Tensor) and y_t.dtype == torch.float64, name
        assert np.allclose(y_t.numpy(), y_np), name


@pytest.mark.parametrize("kind", ["laplace", "gaussian", "uniform"])
def test_torch_generator_gives_the_same_law(kind):
    # 200,000 draws each; two-sample KS at level 1e-3
    x = torch.zeros(200_000, dtype=torch.float64)
    z_t = draw_noise(x, kind, 1.5, torch.Generator().manual_seed(0)).numpy()
    z_np = draw_noise(np.zeros(200_000), kind, 1.5, np.random.default_rng(0))
    assert stats.ks_2samp(z_t, z_np).pvalue > 1e-3
    assert stats.ks_2samp(z_t * 1.05, z_np).pvalue < 1e-3 or kind == "uniform"


def test_float32_stays_float32():
    y = gaussian_mechanism(np.zeros((3, 4), np.float32), 1.0, 2.0, rng=np.random.default_rng(0))
    assert y.dtype == np.float32
    yt = gaussian_mechanism(torch.zeros(3, 4), 1.0, 2.0, rng=torch.Generator().manual_seed(0))
    assert yt.dtype == torch.float32


def test_bad_input_is_refused_with_the_argument_named():
    rng = np.random.default_rng(0)
    x = np.zeros((4, 4))
    with pytest.raises(ValueError, match="value_range"):
        laplace_mechanism(x, 1.0, 0.0, rng=rng)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_mechanism(x, -1.0, 2.0, rng=rng)
    with pytest.raises(ValueError, match="finite"):
        laplace_mechanism(np.array([[np.nan]]), 1.0, 2.0, rng=rng)
    with pytest.raises(ValueError, match="finite"):
        laplace_mechanism(torch.tensor([[float("nan")]]), 1.0, 2.0, rng=rng)
    with pytest.raises(ValueError, match="delta"):
        idn_mechanism_bad = MECHANISMS["idn"]
        idn_mechanism_bad(x, 1.0, 2.0, rng=rng, delta=1.5)
    with pytest.raises(ValueError, match="batch"):
        laplace_mechanism(np.zeros(3), 1.0, 2.0, rng=rng, batched=True)
    with pytest.raises(TypeError, match="rng"):
        laplace_mechanism(x, 1.0, 2.0, rng=0)
    with pytest.raises(TypeError, match="real"):
        laplace_mechanism(np.array(["a"]), 1.0, 2.0, rng=rng)
    with pytest.raises(ValueError, match="calibration"):
        laplace_mechanism(x, 1.0, 2.0, rng=rng, calibration="l2")
    with pytest.raises(ValueError, match="gamma"):
        mvg_mechanism(x, 1.0, 2.0, rng=rng, gamma=-1.0)


@settings(max_examples=40, deadline=None)
@given(eps=st.one_of(st.floats(max_value=0.0), st.just(float("nan")), st.just(float("inf"))))
def test_any_non_positive_or_non_finite_epsilon_is_refused(eps):
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_mechanism(np.zeros(4), eps, 2.0, rng=np.random.default_rng(0))


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4),
       batched=st.booleans())
def test_shape_and_type_are_kept_for_any_order(shape, batched):
    if batched and len(shape) < 2:
        shape = [2, *shape]
    x = np.zeros(shape)
    for mech in MECHANISMS.values():
        assert mech(x, 1.0, 2.0, rng=np.random.default_rng(0), batched=batched).shape == x.shape


def test_fit_classifier_learns_and_its_order_follows_the_generator():
    import torch
    from torch import nn

    from ldp_companion.neural.training import as_tensor, fit_classifier

    rng = np.random.default_rng(0)
    x = rng.standard_normal((200, 2))
    y = (x[:, 0] > 0).astype(int)

    def trained(seed):
        torch.manual_seed(0)
        model = nn.Linear(2, 2)
        fit_classifier(model, as_tensor(x, "cpu"), as_tensor(y, "cpu", torch.long), epochs=20,
                       lr=0.05, batch_size=16, gen=torch.Generator().manual_seed(seed))
        return model

    m = trained(1)
    acc = (m(as_tensor(x, "cpu")).argmax(1).numpy() == y).mean()
    assert acc > 0.95
    assert torch.equal(m.weight, trained(1).weight)
    assert not torch.equal(m.weight, trained(2).weight)
