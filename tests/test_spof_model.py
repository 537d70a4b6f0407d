"""Chapter 4 (SPOF): the distributed autoencoder, every training method's step and the
experiment grids.

Gradients are checked against finite differences (torch.autograd.gradcheck, float64); each
method's step against a closed form or an independent computation; each kind of check is also
shown failing on a mutant."""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp_companion.spof import experiments as ex
from ldp_companion.spof import model, noisy, sensitivity, train
from ldp_companion.spof.train import Setup


def _params(reps=2, users=2, n=5, l=3, decoder="block", bias=False, seed=0):
    gen = torch.Generator().manual_seed(seed)
    p = model.init_params(reps, users, n, l, gen, decoder=decoder, bias=bias,
                          dtype=torch.float64)
    return p


def _records(reps=2, users=2, n=5, seed=1):
    return torch.rand((reps, users, n), generator=torch.Generator().manual_seed(seed),
                      dtype=torch.float64)


def _table(rows=60, n=5, seed=2):
    return np.random.default_rng(seed).uniform(0, 1, (rows, n))


# --- the model's gradients ------------------------------------------------------------

@pytest.mark.parametrize("bias", [False, True])
def test_exact_loss_gradient_matches_finite_differences(bias):
    p = _params(bias=bias)
    x = _records()

    def loss(*tensors):
        q = dict(zip(p, tensors))
        return model.bce_sum(model.user_logits(q, model.encode(q, x), shift=0.3), x)

    assert torch.autograd.gradcheck(loss, tuple(p.values()), eps=1e-6, atol=1e-6)


def test_polynomial_and_concat_gradients_match_finite_differences():
    p = _params(decoder="concat", bias=True)
    x = _records()
    a2, a3 = 0.5 - x, 0.5 * x - 0.25

    def loss(*tensors):
        q = dict(zip(p, tensors))
        h = model.encode(q, x)
        out = torch.sigmoid(model.concat_logits(q, h))
        return model.polynomial_sum(model.user_logits({"V": q["V"]}, h, 2.5), a2, a3) \
            + out.sum()

    assert torch.autograd.gradcheck(loss, tuple(p.values()), eps=1e-6, atol=1e-6)


def test_logit_gradient_of_the_exact_loss_is_sigmoid_minus_x_and_a_mutant_is_not():
    z = torch.linspace(-3, 3, 7, dtype=torch.float64, requires_grad=True)
    x = torch.linspace(0, 1, 7, dtype=torch.float64)
    (g,) = torch.autograd.grad(model.bce_sum(z, x), z)
    assert torch.allclose(g, torch.sigmoid(z) - x, atol=1e-14)
    assert not torch.allclose(g, torch.sigmoid(torch.zeros(7)) - x, atol=1e-3)  # Eq. 14 at a


def test_replicates_never_mix():
    p = _params(reps=3)
    x = _records(reps=3)
    x2 = x.clone()
    x2[2] = 1 - x2[2]           # change replicate 2's records only

    def grads(records):
        q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
        model.bce_sum(model.user_logits(q, model.encode(q, records)), records).backward()
        return {k: v.grad for k, v in q.items()}

    a, b = grads(x), grads(x2)
    for k in a:
        assert torch.equal(a[k][:2], b[k][:2])
        assert not torch.equal(a[k][2], b[k][2])


def test_user_norms_are_each_records_gradient_norm():
    p = _params(reps=2, users=2, bias=True)
    x = _records()
    loss = model.bce_sum(model.user_logits(p, model.encode(p, x)), x)
    grads = dict(zip(p, torch.autograd.grad(loss, list(p.values()))))
    norms = model.user_norms(grads)
    for r in range(2):
        for j in range(2):      # user j's own loss, its own block only
            q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
            lj = model.bce_sum(model.user_logits(q, model.encode(q, x))[r, j], x[r, j])
            gj = torch.autograd.grad(lj, list(q.values()))
            ref = math.sqrt(sum(float(g.pow(2).sum()) for g in gj))
            assert norms[r, j].item() == pytest.approx(ref, rel=1e-12)


def test_init_is_pytorch_uniform_and_validated():
    p = _params(reps=4, n=16, l=4)
    assert p["W"].abs().max() <= 1 / math.sqrt(16) and p["V"].abs().max() <= 1 / math.sqrt(4)
    assert p["W"].abs().max() > 0.9 / math.sqrt(16)
    with pytest.raises(ValueError, match="decoder"):
        model.init_params(1, 1, 2, 2, torch.Generator(), decoder="shared")
    with pytest.raises(ValueError, match="replicates"):
        model.init_params(0, 1, 2, 2, torch.Generator())


# --- each method's step ----------------------------------------------------------------

_SETUP = Setup()


def _ctx(method, eps=1.0, noisy_=False, setup=_SETUP, c=0.0, seed=3, sigma_mult=None):
    return train._Context(setup, method, noisy_, torch.full((2, 1, 1), eps, dtype=torch.float64),
                          5, c, sigma_mult, torch.Generator().manual_seed(seed))


def _step_grads(method, p, x, x_in, ctx, a2=None, a3=None):
    q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
    a2 = 0.5 - x if a2 is None else a2
    a3 = 0.5 * x - 0.25 if a3 is None else a3
    train._STEPS[method](q, x, x_in, a2, a3, ctx)
    return {k: v.grad for k, v in q.items()}


def test_logit_dpsgd_without_noise_is_the_exact_gradient():
    p, x = _params(), _records()
    p["V"] = (8 * p["V"]).detach().requires_grad_(True)     # logits far from 0
    ref = _step_grads("nonprivate", p, x, x, _ctx("nonprivate"))
    got = _step_grads("dpsgd_logit", p, x, x, _ctx("dpsgd_logit", eps=1e15))
    for k in ref:
        assert torch.allclose(got[k], ref[k], atol=1e-9)
    # a mutant that takes Eq. 14 at the expansion point a = 0 (σ(0) - x) is another gradient
    q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
    z = model.user_logits(q, model.encode(q, x))
    (z * (0.5 - x)).sum().backward()
    assert not torch.allclose(q["V"].grad, ref["V"], atol=1e-2)


def test_spof_step_without_noise_is_the_polynomials_gradient():
    p, x = _params(), _records()
    got = _step_grads("spof", p, x, x, _ctx("spof", eps=1e15, c=2.5))
    q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
    z = model.user_logits(q, model.encode(q, x), shift=2.5)
    model.polynomial_sum(z, 0.5 - x, 0.5 * x - 0.25).backward()
    for k in got:
        assert torch.allclose(got[k], q[k].grad, atol=1e-9)


def test_spof_noise_has_the_scale_of_prop3_and_a_mutant_scale_does_not():
    """The z-gradient's noise part, α̃₂ - α₂, has mean absolute value Δ̂/(√2 ε) (Laplace)."""
    reps, n, eps, c = 4000, 5, 2.0, 1.0
    setup = Setup(reading="public", c=c)
    p = _params(reps=reps, users=1, n=n)
    x = torch.full((reps, 1, n), 0.3, dtype=torch.float64)
    ctx = train._Context(setup, "spof", False, torch.full((reps, 1, 1), eps, dtype=torch.float64),
                         n, c, None, torch.Generator().manual_seed(0))
    q = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
    train._step_spof(q, x, x, 0.5 - x, 0.5 * x - 0.25, ctx)
    q0 = {k: v.detach().clone().requires_grad_(True) for k, v in p.items()}
    ctx.eps = torch.full((reps, 1, 1), 1e15, dtype=torch.float64)
    train._step_spof(q0, x, x, 0.5 - x, 0.5 * x - 0.25, ctx)
    # bias-free block decoder: dL/dV = h ⊗ dL/dz, so the noise reaches V through h
    h = model.encode(p, x).detach()
    dz = ((q["V"].grad - q0["V"].grad) / h[..., None]).mean(2)    # (R, 1, n)
    zhat = model.user_logits(p, model.encode(p, x), shift=c).detach()
    # dz = ν₂ + 2 ν₃ ẑ: E|·| is not closed-form; use the variance 2d² (1 + 4 ẑ²)
    var = 2 * float(sensitivity.laplace_scale(sensitivity.delta_hat(n, c), eps)) ** 2 \
        * (1 + 4 * zhat**2)
    ratio = float((dz**2 / var).mean())
    assert abs(ratio - 1) < 0.1                       # 20 000 terms, heavy tails: ±10%
    wrong = 2 * float(sensitivity.laplace_scale(sensitivity.delta_bar(n), eps)) ** 2
    assert abs(float((dz**2 / (wrong * (1 + 4 * zhat**2))).mean()) - 1) > 0.5


def test_b_factor_in_training_is_theorem1s_b():
    p = _params(reps=1, users=2, n=5, l=3)
    x = _records(reps=1)
    noise = 2.0 * torch.randn(x.shape, generator=torch.Generator().manual_seed(5),
                              dtype=torch.float64)
    b = train._b_factor(p, x, x + noise, _ctx("spof", noisy_=True))
    h = model.encode(p, x).detach().numpy()
    w = p["W"].detach().numpy()
    _, bj = noisy.b_factors(w, h, noise.numpy())
    assert np.allclose(b[..., 0].numpy(), bj, atol=1e-10)
    assert float(train._b_factor(p, x, x, _ctx("spof"))) == 1.0    # noiseless: paper's 1


def test_param_dpsgd_clips_each_record_to_c():
    p, x = _params(), _records()
    setup = Setup(clip=0.01)
    ctx = _ctx("dpsgd_param", setup=setup, sigma_mult=torch.zeros(2, dtype=torch.float64))
    got = _step_grads("dpsgd_param", p, x, x, ctx)
    norms = model.user_norms(got)
    assert torch.allclose(norms, torch.full_like(norms, 0.01), rtol=1e-9)
    loose = _step_grads("dpsgd_param", p, x, x, _ctx(
        "dpsgd_param", setup=Setup(clip=1e6), sigma_mult=torch.zeros(2, dtype=torch.float64)))
    ref = _step_grads("nonprivate", p, x, x, _ctx("nonprivate"))
    assert all(torch.allclose(loose[k], ref[k], atol=1e-12) for k in ref)


def test_noise_multiplier_from_opacus_rdp():
    ref = {0.01: 276.6, 1.0: 4.05, 20.0: 0.305}
    for eps, sigma in ref.items():
        assert train.noise_multiplier(eps, 1, 1e-5) == pytest.approx(sigma, rel=0.01)
    assert train.noise_multiplier(1.0, 4, 1e-5) > 1.9 * train.noise_multiplier(1.0, 1, 1e-5)


# --- train(): end to end ---------------------------------------------------------------

def test_every_method_trains_and_is_deterministic():
    xt, xs = _table(40), _table(20, seed=3)
    for method in train.METHODS:
        for cond in train.CONDITIONS:
            a = train.train(method, xt, xs, [1.0, 10.0], condition=cond,
                            setup=Setup(code=3), rng=np.random.default_rng(0), device="cpu")
            b = train.train(method, xt, xs, [1.0, 10.0], condition=cond,
                            setup=Setup(code=3), rng=np.random.default_rng(0), device="cpu")
            assert a["accuracy"].shape == (2,) and np.all(a["accuracy"] <= 1)
            assert np.array_equal(a["accuracy"], b["accuracy"]), (method, cond)


def test_nonprivate_beats_all_zeros_on_a_learnable_table():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.2, 0.8, (1, 6))
    xt = np.clip(base + 0.02 * rng.standard_normal((600, 6)), 0, 1)
    out = train.train("nonprivate", xt, xt[:100], [1.0], setup=Setup(code=3, lr=0.01),
                      rng=rng, device="cpu")
    zeros = 1 - np.mean(xt[:100] ** 2)
    assert out["accuracy"][0] > zeros + 0.2


@settings(max_examples=25, deadline=None)
@given(bad=st.sampled_from([
    {"method": "dpsgd"}, {"condition": "loud"}, {"epsilons": [0.0]}, {"epsilons": [np.nan]},
    {"epsilons": []}, {"x_train": -0.1}, {"x_test": 1.5}, {"x_test_cols": 4}]))
def test_train_refuses_bad_input(bad):
    xt, xs = _table(20), _table(10)
    if "x_train" in bad:
        xt = xt + bad["x_train"]
    if "x_test" in bad:
        xs = xs * bad["x_test"] + 0.2
    if "x_test_cols" in bad:
        xs = xs[:, :bad["x_test_cols"]]
    with pytest.raises(ValueError):
        train.train(bad.get("method", "spof"), xt, xs, bad.get("epsilons", [1.0]),
                    condition=bad.get("condition", "noiseless"), rng=np.random.default_rng(0))


@pytest.mark.parametrize("field,value", [("users", 0), ("c", -1.0), ("clip", 0.0),
                                         ("reading", "private"), ("split", "half"),
                                         ("delta", 1.0), ("sigma_env", float("nan"))])
def test_setup_refuses_bad_values(field, value):
    with pytest.raises(ValueError, match=field if field not in ("clip",) else "clip"):
        Setup(**{field: value})


# --- the grids -------------------------------------------------------------------------

@pytest.mark.determinism  # the BLAS free here, one thread in .ci/run's second pass
def test_grids_serial_and_parallel_agree_and_gains_are_relative():
    xt, xs = _table(30), _table(10, seed=4)
    kw = dict(x_train=xt, x_test=xs, setup=Setup(code=3), device="cpu")
    a = ex.fig3_grid(["spof", "dpsgd_logit"], ["noiseless"], [1.0, 10.0], 2, 0, n_jobs=1, **kw)
    b = ex.fig3_grid(["spof", "dpsgd_logit"], ["noiseless"], [1.0, 10.0], 2, 0, n_jobs=2, **kw)
    pd.testing.assert_frame_equal(a.drop(columns="seconds_per_epoch"),
                                  b.drop(columns="seconds_per_epoch"))
    assert len(a) == 2 * 2 * 2
    gain = ex.relative_gain(a, "spof", "dpsgd_logit", "noiseless")
    sp, sg = ex.per_run(a, "spof", "noiseless"), ex.per_run(a, "dpsgd_logit", "noiseless")
    assert np.allclose(gain, (sp - sg) / sg)
    assert not np.allclose(gain, sp - sg)         # the absolute gain is another number
    f2 = ex.fig2_grid(["spof"], [0.0, 1.0], 10.0, 2, 0, **kw)
    assert sorted(f2["c"].unique()) == [0.0, 1.0]
    t = ex.timing(["spof", "dpsgd_param"], 1.0, 1, 0, **kw)
    assert (t["seconds_per_epoch"] > 0).all() and len(t) == 2


def test_grids_refuse_unknown_names():
    xt, xs = _table(30), _table(10)
    with pytest.raises(ValueError, match="methods"):
        ex.fig3_grid(["sgd"], ["noiseless"], [1.0], 1, 0, x_train=xt, x_test=xs)
    with pytest.raises(ValueError, match="c_grid"):
        ex.fig2_grid(["spof"], [-1.0], 1.0, 1, 0, x_train=xt, x_test=xs)
    with pytest.raises(ValueError, match="source"):
        ex.prepare("kaggle", 1, 0)
