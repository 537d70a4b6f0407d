"""Classification tasks of chapter 1 (TLDP, Yuan et al.): images on [-1, 1], value range 2.

The paper's experiments (Sec. V-A1, Tables II-IV) use MNIST, CIFAR-10 and SVHN images scaled to
[-1, 1] (Eqs. 17-18: "the range of data is set to (-1, 1)", so Δ = 2). Offline we have two:

* ``"digits"``: scikit-learn's bundled 8x8 digits (1,797 images, grey levels 0..16 mapped by
  ``x / 8 - 1``), tensors of shape (8, 8), ``I = 64``;
* ``"mnist"``: the MNIST **test** split only (10,000 images, grey levels 0..255 mapped by
  ``x / 127.5 - 1``), tensors of shape (28, 28), ``I = 784``. The 60,000 training images are not
  in the offline cache, so the test split is itself split into train / test / public parts.

:func:`load_task` makes the stratified splits: a *public* part (clean data the Type II feature
extractor is pretrained on, standing in for the ImageNet-pretrained MobileNetV2 of Sec. V-B2),
then *test* and *train* parts of the rest.
"""
from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import train_test_split

from ldp_companion.data import datasets

__all__ = ["TASKS", "Task", "load_task", "check_task_name"]

#: Task name -> shape of one tensor (one image).
TASKS = {"digits": (8, 8), "mnist": (28, 28)}


@dataclass(frozen=True)
class Task:
    """One classification task, split into train / test / public parts.

    Attributes
    ----------
    name : str
        ``"digits"`` or ``"mnist"``.
    x_train, x_test, x_public : ndarray, shape (n_part, *tensor_shape)
        float64 images in [-1, 1]; each ``x[i]`` is one tensor (read-only arrays).
    y_train, y_test, y_public : ndarray, shape (n_part,)
        int64 labels in 0..9.
    value_range : float
        Δ, the range of the values (2 on [-1, 1]; Eqs. 17-18).
    """

    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    x_public: np.ndarray
    y_public: np.ndarray
    value_range: float = 2.0

    @property
    def tensor_shape(self) -> tuple[int, ...]:
        """Shape of one tensor (one image)."""
        return tuple(self.x_train.shape[1:])

    @property
    def n_classes(self) -> int:
        """Number of classes (10)."""
        return int(max(self.y_train.max(), self.y_test.max(), self.y_public.max())) + 1

    def sizes(self) -> dict[str, int]:
        """Number of images per part."""
        return {"train": len(self.y_train), "test": len(self.y_test),
                "public": len(self.y_public)}


def check_task_name(name) -> str:
    """Return ``name`` if it is a known task, else raise a ValueError listing them."""
    if not isinstance(name, str) or name not in TASKS:
        raise ValueError(f"task must be one of {sorted(TASKS)}, got {name!r}")
    return name


def _raw(name: str) -> tuple[np.ndarray, np.ndarray]:
    """All images of ``name`` on [-1, 1] with shape (n, *tensor_shape), and their labels."""
    if name == "digits":
        x, y = datasets.load_digits()
        return x.reshape(-1, *TASKS[name]) / 8.0 - 1.0, y
    x, y = datasets.load_mnist_test(normalize=False)
    return x.astype(np.float64) / 127.5 - 1.0, y


def _check_fraction(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    return float(value)


def load_task(name: str, *, seed: int, n_max: int | None = None, public_fraction: float = 0.3,
              test_fraction: float = 1 / 3) -> Task:
    """Load a task and split it (stratified by label).

    Parameters
    ----------
    name : {"digits", "mnist"}
    seed : int
        Seed of the splits (and of the subsample when ``n_max`` is set).
    n_max : int, optional
        Use a stratified subsample of at most ``n_max`` images (for small profiles).
    public_fraction : float
        Share of the images held out as clean public data (Type II's extractor).
    test_fraction : float
        Share of the *remaining* images used for testing; the rest is the private training set.

    Returns
    -------
    Task

    Notes
    -----
    With the defaults, digits gives 838 train / 419 test / 540 public images and MNIST (test
    split) 4,666 / 2,334 / 3,000.
    """
    name = check_task_name(name)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    public_fraction = _check_fraction(public_fraction, "public_fraction")
    test_fraction = _check_fraction(test_fraction, "test_fraction")
    if n_max is not None and (isinstance(n_max, bool) or not isinstance(n_max, numbers.Integral)
                              or n_max < 30):
        raise ValueError(f"n_max must be None or an integer >= 30, got {n_max!r}")
    x, y = _raw(name)
    state = np.random.RandomState(np.random.MT19937(np.random.SeedSequence(int(seed))))
    if n_max is not None and n_max < len(y):
        x, _, y, _ = train_test_split(x, y, train_size=int(n_max), stratify=y,
                                      random_state=state)
    rest_x, x_pub, rest_y, y_pub = train_test_split(x, y, test_size=public_fraction, stratify=y,
                                                    random_state=state)
    x_tr, x_te, y_tr, y_te = train_test_split(rest_x, rest_y, test_size=test_fraction,
                                              stratify=rest_y, random_state=state)
    parts = [np.ascontiguousarray(a) for a in (x_tr, y_tr, x_te, y_te, x_pub, y_pub)]
    for a in parts:
        a.setflags(write=False)
    return Task(name, *parts, value_range=2.0)
