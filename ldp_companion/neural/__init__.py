"""Torch building blocks for the chapters that train networks (floor 1).

* :mod:`~ldp_companion.neural.models`: the layers more than one paper's network uses;
* :mod:`~ldp_companion.neural.training`: mini-batch training from an explicit generator;
* :mod:`~ldp_companion.neural.device`: the device a model runs on, and its seeded generator.

May import: :mod:`ldp_companion.validation`, :mod:`ldp_companion.files` (floor 0).
"""
