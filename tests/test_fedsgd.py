"""Tests of LDP-FedSGD (Alg. 1) and the synthetic stand-in data of the PM/Three-Outputs
chapter (``shared/papers/pm-three-outputs-hmtp.brief.md``, §2.10, §5.2, §5.4 item 7).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldp_companion.mechanisms.duchi import Duchi
from ldp_companion.pm.fedsgd import (
    FedSGDResult,
    fedsgd,
    gradients,
    misclassification_rate,
    mse,
    predict,
)
from ldp_companion.pm.multidim import DUCHI_MD, LAPLACE_SPLIT
from ldp_companion.pm.synthetic import (
    CENSUS_CARDINALITIES,
    Table,
    binarize,
    census_like,
    classification_task,
    gaussian,
    regression_task,
    resample_table,
    vehicle_like,
    wisdm_like,
)

N_TRAIN, N_TEST, D, G = 100_000, 20_000, 20, 1000
PRIVATE = ["duchi", "pm", "hm", "pm_sub", "three_outputs", "hm_tp"]


@pytest.fixture(scope="module")
def linear_data():
    X, y, theta = regression_task(N_TRAIN + N_TEST, D, rng=np.random.default_rng(10))
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:], theta


@pytest.fixture(scope="module")
def logistic_data():
    X, y, theta = classification_task(N_TRAIN + N_TEST, D, rng=np.random.default_rng(11))
    return X[:N_TRAIN], y[:N_TRAIN], X[N_TRAIN:], y[N_TRAIN:], theta


# --------------------------------------------------------------------------- gradients


@pytest.mark.parametrize("task", ["linear", "logistic", "svm"])
def test_gradients_match_finite_differences(task):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(50, 4))
    y = rng.normal(size=50) if task == "linear" else np.where(rng.random(50) < 0.5, -1.0, 1.0)
    theta, lam = rng.normal(size=4), 0.3

    def loss(th):
        m = X @ th
        per = {"linear": 0.5 * (m - y) ** 2, "logistic": np.log1p(np.exp(-y * m)),
               "svm": np.maximum(0.0, 1.0 - y * m)}[task]
        return per + 0.5 * lam * th @ th

    g = gradients(theta, X, y, task, lam)
    h = 1e-6
    num = np.stack([(loss(theta + h * e) - loss(theta - h * e)) / (2 * h)
                    for e in np.eye(4)], axis=1)
    away = np.abs(1 - y * (X @ theta)) > 1e-3 if task == "svm" else np.ones(50, bool)
    np.testing.assert_allclose(g[away], num[away], rtol=1e-6, atol=1e-7)


# --------------------------------------------------------------------------- convergence


def test_nonprivate_linear_reaches_noise_floor(linear_data):
    # noise sd 0.1: the noise floor of the test MSE is 0.01
    Xtr, ytr, Xte, yte, theta_star = linear_data
    res = fedsgd(Xtr, ytr, "linear", np.random.default_rng(1), group_size=G, history=True)
    assert isinstance(res, FedSGDResult)
    assert res.rounds == N_TRAIN // G and res.n_used == N_TRAIN
    assert res.history.shape == (res.rounds + 1, D) and np.all(res.history[0] == 0)
    assert np.array_equal(res.history[-1], res.theta)
    assert mse(res.theta, Xte, yte) < 0.0105
    assert np.abs(res.theta - theta_star).max() < 0.05
    # the training loss goes down along the run
    losses = [mse(th, Xtr[:5000], ytr[:5000]) for th in res.history[::20]]
    assert np.all(np.diff(losses) < 0)


@pytest.mark.parametrize("task", ["logistic", "svm"])
def test_nonprivate_classification_near_bayes(logistic_data, task):
    Xtr, ytr, Xte, yte, theta_star = logistic_data
    bayes = misclassification_rate(theta_star, Xte, yte)
    res = fedsgd(Xtr, ytr, task, np.random.default_rng(2))
    assert misclassification_rate(res.theta, Xte, yte) < bayes + 0.01


def test_laplace_fails_linear(linear_data):
    # brief §5.4 item 7: Laplace's linear-regression MSE is >= 10x every other mechanism's at
    # eps <= 2 (the brief: about 1e3x at eps = 0.5; here > 100x the worst other). Every other
    # mechanism approaches the non-private baseline as eps grows: its error falls from
    # eps = 0.5 to 1 to 4, and at eps = 4 it is within 2x the baseline (PM-type; the brief's
    # prototype: 1.1-1.3x at n = 1.8e5) or 4x (Duchi, Duchi-md).
    Xtr, ytr, Xte, yte, _ = linear_data
    base = mse(fedsgd(Xtr, ytr, "linear", np.random.default_rng(3)).theta, Xte, yte)
    errs = {(eps, m): mse(fedsgd(Xtr, ytr, "linear", np.random.default_rng([4, int(eps * 2)]),
                                 epsilon=eps, mechanism=m).theta, Xte, yte)
            for eps in [0.5, 1.0, 2.0, 4.0] for m in PRIVATE + [LAPLACE_SPLIT, DUCHI_MD]}
    for eps in [0.5, 1.0, 2.0]:
        others = max(v for (e, m), v in errs.items() if e == eps and m != LAPLACE_SPLIT)
        assert errs[eps, LAPLACE_SPLIT] > 10 * others, (eps, errs)
        if eps == 0.5:
            assert errs[eps, LAPLACE_SPLIT] > 100 * others
    for m in PRIVATE + [DUCHI_MD]:
        assert errs[4.0, m] < errs[1.0, m] < errs[0.5, m], m
        limit = 4.0 if m in ("duchi", DUCHI_MD) else 2.0
        assert errs[4.0, m] < limit * base, (m, errs[4.0, m], base)


@pytest.mark.parametrize("task", ["logistic", "svm"])
def test_laplace_fails_classification(logistic_data, task):
    # brief §5.4 item 7: misclassification ~0.45-0.5 with Laplace at eps <= 1, well above
    # every other mechanism
    Xtr, ytr, Xte, yte, _ = logistic_data
    for eps in [0.5, 1.0]:
        lap = misclassification_rate(fedsgd(Xtr, ytr, task, np.random.default_rng(5),
                                            epsilon=eps, mechanism=LAPLACE_SPLIT).theta,
                                     Xte, yte)
        best = min(misclassification_rate(fedsgd(Xtr, ytr, task, np.random.default_rng(6),
                                                 epsilon=eps, mechanism=m).theta, Xte, yte)
                   for m in ["pm_sub", "three_outputs", "hm_tp"])
        assert lap > 0.42 and lap - best > 0.08, (eps, lap, best)


def test_duchi_no_better_than_best_pm_type(linear_data):
    # brief §5.4 item 7: averaged over seeds, Duchi is no better than the best of
    # {PM, PM-SUB, Three-Outputs} at eps >= 2, with a tolerance of one seed-sd
    Xtr, ytr, Xte, yte, _ = linear_data
    for eps in [2.0, 4.0]:
        res = {m: [mse(fedsgd(Xtr, ytr, "linear", np.random.default_rng([7, s]), epsilon=eps,
                              mechanism=m).theta, Xte, yte) for s in range(3)]
               for m in ["duchi", "pm", "pm_sub", "three_outputs"]}
        best = min(np.mean(v) for m, v in res.items() if m != "duchi")
        assert np.mean(res["duchi"]) >= best - np.std(res["duchi"], ddof=1)


# --------------------------------------------------------------------------- protocol


class CountingDuchi(Duchi):
    """Duchi's mechanism that counts the values it perturbs."""

    calls = 0

    def _privatize(self, x, rng):
        CountingDuchi.calls += x.size
        return super()._privatize(x, rng)


def test_each_vehicle_reports_once_and_determinism():
    X, y, _ = regression_task(10_500, 6, rng=np.random.default_rng(0))
    CountingDuchi.calls = 0
    res = fedsgd(X, y, "linear", np.random.default_rng(1), epsilon=1.0,
                 mechanism=CountingDuchi, group_size=1000)
    assert res.rounds == 10 and res.n_used == 10_000
    assert CountingDuchi.calls == 10_000  # k = 1 value per vehicle, 500 leftovers unused
    CountingDuchi.calls = 0
    fedsgd(X, y, "linear", np.random.default_rng(1), epsilon=12.0,
           mechanism=CountingDuchi, group_size=1000)
    assert CountingDuchi.calls == 4 * 10_000  # k = floor(12 / 2.5) = 4 (Eq. (36))
    a = fedsgd(X, y, "linear", np.random.default_rng(9), epsilon=2.0, mechanism="hm_tp")
    b = fedsgd(X, y, "linear", np.random.default_rng(9), epsilon=2.0, mechanism="hm_tp")
    assert np.array_equal(a.theta, b.theta) and a.history is None


def test_gradients_are_clipped():
    # one round, G = n, huge targets: the step is at most eta0 per coordinate
    X = np.ones((10, 3))
    res = fedsgd(X, np.full(10, 1e6), "linear", np.random.default_rng(0), group_size=10,
                 lam=0.0)
    np.testing.assert_allclose(res.theta, np.ones(3))


def test_the_values_handed_to_the_mechanism_are_the_clipped_gradients():
    """fedsgd-clip holds for Alg. 1 as written; clipping to [-0.5, 1] instead of [-1, 1] (the
    generated mutant that no claim caught: the literal of -1.0 halved) fails it, and so does a
    clip to [-1, 0.5]."""
    from ldp_companion.pm import fedsgd as fl
    from ldp_companion.pm import fedsgd_checks as fc
    from ldp_companion.verdicts.ledger import Ledger

    task = fc.learning_tasks(3_000, 8, np.random.default_rng(4))[0]

    def verdict():
        table = fc.clip_inputs(task, 4.0, 1e-4, np.random.default_rng(5))
        led = Ledger("03-pm-three-outputs", refs={"fedsgd-clip": ["Alg. 1"]})
        outside = fc.record_clip(led, table)
        return led.table().iloc[0]["verdict"], outside

    ok, outside = verdict()
    assert ok == "holds" and 0.05 < outside < 1
    for lo, hi in ((-0.5, 1.0), (-1.0, 0.5)):
        class NarrowClip:  # numpy, with fedsgd's clip to [lo, hi]
            def __getattr__(self, name):
                return getattr(np, name)

            @staticmethod
            def clip(a, a_min, a_max, lo=lo, hi=hi):
                return np.clip(a, lo, hi)

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(fl, "np", NarrowClip())
            assert verdict()[0] == "fails"
    with pytest.raises(TypeError, match="LearningTask"):
        fc.clip_inputs("task", 4.0, 1e-4, np.random.default_rng(0))


def test_evaluation_helpers():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])
    theta = np.array([2.0, -1.0])
    np.testing.assert_allclose(predict(theta, X), [2.0, -1.0, 0.5])
    assert mse(theta, X, [2.0, 0.0, 0.5]) == pytest.approx(1 / 3)
    assert misclassification_rate(theta, X, [1, 1, -1]) == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="-1 or 1"):
        misclassification_rate(theta, X, [1, 0, 1])
    with pytest.raises(ValueError):
        mse(theta, X, [1.0, 2.0])


# --------------------------------------------------------------------------- validation


def test_validation_errors():
    rng = np.random.default_rng(0)
    X, y = np.zeros((20, 3)), np.ones(20)
    with pytest.raises(ValueError, match="2-D"):
        fedsgd(np.zeros(20), y, "linear", rng)
    with pytest.raises(ValueError, match="shape"):
        fedsgd(X, np.ones(19), "linear", rng)
    with pytest.raises(ValueError, match="-1 or 1"):
        fedsgd(X, np.r_[np.zeros(10), np.ones(10)], "logistic", rng)
    with pytest.raises(ValueError, match="-1 or 1"):
        fedsgd(X, np.full(20, 2.0), "svm", rng)
    with pytest.raises(ValueError, match="group_size must be >= 1"):
        fedsgd(X, y, "linear", rng, group_size=0)
    with pytest.raises(ValueError, match="group_size must be <="):
        fedsgd(X, y, "linear", rng, group_size=21)
    with pytest.raises(TypeError):
        fedsgd(X, y, "linear", rng, group_size=2.5)
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        fedsgd(X + 1.5, y, "linear", rng, group_size=5)
    assert fedsgd(X + 1.5, y, "linear", rng, group_size=5, clip=True).theta.shape == (3,)
    with pytest.raises(ValueError, match="task"):
        fedsgd(X, y, "ridge", rng)
    with pytest.raises(ValueError, match="mechanism is None"):
        fedsgd(X, y, "linear", rng, epsilon=1.0, group_size=5)
    with pytest.raises(ValueError, match="needs epsilon"):
        fedsgd(X, y, "linear", rng, mechanism="pm", group_size=5)
    with pytest.raises(ValueError, match="unknown mechanism"):
        fedsgd(X, y, "linear", rng, epsilon=1.0, mechanism="pmx", group_size=5)
    with pytest.raises(ValueError, match="lam"):
        fedsgd(X, y, "linear", rng, lam=-1.0, group_size=5)
    with pytest.raises(ValueError, match="eta0"):
        fedsgd(X, y, "linear", rng, eta0=0.0, group_size=5)
    with pytest.raises(ValueError, match="theta"):
        fedsgd(X, y, "linear", rng, theta0=np.zeros(2), group_size=5)
    with pytest.raises(ValueError, match="finite"):
        fedsgd(X, np.r_[np.nan, np.ones(19)], "linear", rng, group_size=5)
    with pytest.raises(TypeError, match="Generator"):
        fedsgd(X, y, "linear", 0, group_size=5)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.sampled_from([-1.0, 1.0, 0.0, 2.0, -0.5]), min_size=4, max_size=12),
       st.sampled_from(["logistic", "svm"]))
def test_labels_property(labels, task):
    y = np.array(labels)
    X = np.zeros((y.size, 2))
    rng = np.random.default_rng(0)
    if np.all(np.abs(y) == 1):
        assert fedsgd(X, y, task, rng, group_size=2).theta.shape == (2,)
    else:
        with pytest.raises(ValueError, match="-1 or 1"):
            fedsgd(X, y, task, rng, group_size=2)


@settings(max_examples=50, deadline=None)
@given(st.integers(-3, 40), st.integers(1, 30))
def test_group_size_property(G_, n):
    X, y = np.zeros((n, 2)), np.zeros(n)
    rng = np.random.default_rng(0)
    if 1 <= G_ <= n:
        res = fedsgd(X, y, "linear", rng, group_size=G_, history=True)
        assert res.rounds == n // G_ and res.history.shape == (n // G_ + 1, 2)
    else:
        with pytest.raises(ValueError, match="group_size"):
            fedsgd(X, y, "linear", rng, group_size=G_)


# --------------------------------------------------------------------------- synthetic data


def test_synthetic_shapes_and_ranges():
    rng = np.random.default_rng(0)
    g = gaussian(1000, 7, rng=rng)
    assert g.shape == (1000, 7) and np.abs(g).max() <= 1 and abs(g.std() - 0.25) < 0.02
    w = wisdm_like(5000, rng=rng)
    assert w.numeric.shape == (5000, 3) and w.design_matrix().shape == (5000, 43)
    freq = np.bincount(w.categorical[:, 1], minlength=6) / 5000
    assert abs(freq[0] - 0.386) < 0.03
    for country, dim in [("BR", 90), ("MX", 94)]:
        t = census_like(country, 3000, rng=rng)
        Xd = t.design_matrix()
        assert Xd.shape == (3000, dim) and np.abs(Xd).max() <= 1
        assert t.categorical.shape[1] == len(CENSUS_CARDINALITIES[country])
        assert np.abs(t.target).max() <= 1 and set(np.unique(t.label)) == {-1.0, 1.0}
    v = vehicle_like(2000, rng=rng)
    assert v.numeric.shape == (2000, 100) and np.abs(v.numeric).max() <= 1
    assert set(np.unique(v.label)) == {-1.0, 1.0}
    assert np.corrcoef(v.numeric[:, :5].T)[np.triu_indices(5, 1)].__abs__().mean() > 0.2
    for t in [w, v]:
        assert isinstance(t, Table) and np.all(np.isfinite(t.design_matrix()))


def test_synthetic_is_seeded():
    a = census_like("MX", 500, rng=np.random.default_rng(3))
    b = census_like("MX", 500, rng=np.random.default_rng(3))
    assert np.array_equal(a.design_matrix(), b.design_matrix())
    assert np.array_equal(a.target, b.target)


def test_binarize_is_the_papers_encoding():
    out = binarize(np.array([0, 1, 2]), 3)
    np.testing.assert_array_equal(out, [[1, -1], [-1, 1], [-1, -1]])
    with pytest.raises(ValueError):
        binarize(np.array([3]), 3)
    with pytest.raises(ValueError):
        binarize(np.array([0]), 1)


def test_resample_sklearn_tables():
    rng = np.random.default_rng(0)
    for name, d in [("breast_cancer", 30), ("diabetes", 10), ("digits", 64)]:
        X, y = resample_table(name, 3000, rng=rng)
        assert X.shape == (3000, d) and y.shape == (3000,) and np.abs(X).max() <= 1
    X, y = resample_table("breast_cancer", 3000, rng=rng)
    assert set(np.unique(y)) == {-1.0, 1.0}
    res = fedsgd(X, y, "svm", rng, group_size=100)  # features usable as-is
    assert misclassification_rate(res.theta, X, y) < 0.15
    with pytest.raises(ValueError, match="name"):
        resample_table("iris", 10, rng=rng)
    with pytest.raises(ValueError, match="BR"):
        census_like("US", 10, rng=rng)
