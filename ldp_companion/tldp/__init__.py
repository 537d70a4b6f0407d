"""Chapter 1: Yuan, Tang, Huang & Wang, *Local Differential Privacy for Tensors in Distributed
Computing Systems* (TLDP) — what only this paper uses. The chapter is not written yet; its
parameters (:mod:`~ldp_companion.tldp.params`) are ``profile`` and ``seed`` only.
"""
