"""The edition: what is made from every chapter together (floor 8, below the command line only).

* :mod:`~ldp_companion.edition.book`: the chapters in code (package, parameters, items);
* :mod:`~ldp_companion.edition.cards`, :mod:`~ldp_companion.edition.changelog`,
  :mod:`~ldp_companion.edition.citation`: reproduction cards, the changelog of verdicts, BibTeX;
* :mod:`~ldp_companion.edition.planning`: how long a profile takes, projected;
* :mod:`~ldp_companion.edition.data_fetch`: every chapter's data files and their recipes;
* :mod:`~ldp_companion.edition.pdf_edition`, :mod:`~ldp_companion.edition.student`,
  :mod:`~ldp_companion.edition.plain_markdown`: the PDF, the course's student editions;
* :mod:`~ldp_companion.edition.sphinx_exercises`, :mod:`~ldp_companion.edition.sphinx_figures`,
  :mod:`~ldp_companion.edition.sphinx_once`: the book's Sphinx extensions.

May import: every floor below (0–7), appendix C's :mod:`ldp_companion.compare` included.
"""
