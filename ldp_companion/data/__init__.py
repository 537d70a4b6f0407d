"""Data: the real data sets, downloaded once and verified every time, and the papers' own
files that cannot be downloaded here (floor 3).

* :mod:`~ldp_companion.data.datasets`: the registry and the loaders;
* :mod:`~ldp_companion.data.paper_assets`: the data and weights of the papers' own experiments.

May import: floors 0–2 (a loader records the files it read in the run record).
"""
