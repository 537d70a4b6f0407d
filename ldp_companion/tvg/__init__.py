"""Chapter 2: Yang et al., *Differential Privacy for Tensor-Valued Queries* (TVG, IEEE TIFS 2021) —
what only this paper uses. The chapter is not written yet; its parameters
(:mod:`~ldp_companion.tvg.params`) are ``profile`` and ``seed`` only.
"""
