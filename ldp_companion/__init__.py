"""ldp_companion: the package behind the LDP companion book.

Scalar mechanisms on [-1, 1] share one interface (see :mod:`ldp_companion.mechanisms`),
looked up by name with :func:`get_mechanism`.
"""
from ldp_companion.mechanisms import get_mechanism, mechanism_names

__version__ = "0.1.0"
__all__ = ["get_mechanism", "mechanism_names", "__version__"]
