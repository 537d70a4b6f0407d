"""The page: what a chapter's code cells call to show their results (floor 5).

* :mod:`~ldp_companion.page.plotting`: one plotting style for the whole book;
* :mod:`~ldp_companion.page.tables`: tables a reader can read;
* :mod:`~ldp_companion.page.numbering`: "Figure 3.2", "Table 5.1";
* :mod:`~ldp_companion.page.exercises`: exercises whose answers the package computes.

May import: floors 0–4.
"""
