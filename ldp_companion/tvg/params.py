"""Parameters of chapter 2 per profile (placeholder: ``profile`` and ``seed`` only)."""
from ldp_companion.profiles import ChapterParams

__all__ = ["PARAMS"]

PARAMS = ChapterParams("02-tvg", {})
