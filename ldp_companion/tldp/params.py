"""Parameters of chapter 1 per profile (placeholder: ``profile`` and ``seed`` only)."""
from ldp_companion.profiles import ChapterParams

__all__ = ["PARAMS"]

PARAMS = ChapterParams("01-tldp", {})
