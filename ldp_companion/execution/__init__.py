"""Execution: how a chapter runs, from its parameters to its executed notebook (floor 4).

* :mod:`~ldp_companion.execution.profiles`: parameters by profile (smoke, default, paper);
* :mod:`~ldp_companion.execution.grid`, :mod:`~ldp_companion.execution.grid_store`: experiment
  grids, serial or parallel with the same numbers, and their resumable store;
* :mod:`~ldp_companion.execution.streaming`: mean estimation over a stream of users;
* :mod:`~ldp_companion.execution.threads`, :mod:`~ldp_companion.execution.processes`: one thread
  count for every number shown, and no worker outliving its run;
* :mod:`~ldp_companion.execution.figure_data`: each figure's data as CSV, with its provenance;
* :mod:`~ldp_companion.execution.runner`: a chapter executed with papermill, the book built;
* :mod:`~ldp_companion.execution.reach`: the package modules a page's imports reach (what its
  cache key and its paper-scale record's digest hash).

May import: floors 0–3.
"""
