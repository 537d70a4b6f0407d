"""Chapter 4: Habib, Chou & Kim, *Stabilization of Perturbed Loss Function: Differential Privacy
without Gradient Noise* (SPOF) — what only this paper uses. The chapter is not written yet; its
parameters (:mod:`~ldp_companion.spof.params`) are ``profile`` and ``seed`` only.
"""
