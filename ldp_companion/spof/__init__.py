"""Chapter 4: Habib, Chou & Kim, *Stabilization of Perturbed Loss Function: Differential Privacy
without Gradient Noise* (SPOF) — what only this paper uses: the loss and its polynomials
(:mod:`~ldp_companion.spof.taylor`), sensitivities, the noisy-input analysis, the privacy of the
coefficient release, operation counts, the model, training and experiment grids; the chapter's
checks (the ``*_claims`` modules), figures and tables; its parameters
(:mod:`~ldp_companion.spof.params`).
"""
