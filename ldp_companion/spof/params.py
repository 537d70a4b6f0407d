"""Parameters of chapter 4 per profile (placeholder: ``profile`` and ``seed`` only)."""
from ldp_companion.profiles import ChapterParams

__all__ = ["PARAMS"]

PARAMS = ChapterParams("04-spof", {})
