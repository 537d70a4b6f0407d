"""The chapter's short summary, computed from its verdicts (nothing in it is typed by hand)."""
from __future__ import annotations

import pandas as pd

from ldp_companion.ledger import findings

__all__ = ["verdict_summary"]


def verdict_summary(claims: pd.DataFrame) -> str:
    """One Markdown paragraph from a chapter's ledger: of the paper items that its substantive
    claims test (each claim's first ref), how many hold, which do not (with their verdicts),
    and which the run cannot decide.

    Parameters
    ----------
    claims : DataFrame
        The chapter's ledger (``Ledger.table()``): columns ``claim_id``, ``ref``, ``kind``,
        ``verdict``.

    Returns
    -------
    str
        Items whose claims could not be checked offline are counted apart.
    """
    missing = {"chapter", "claim_id", "ref", "kind", "verdict"} - set(claims.columns)
    if missing:
        raise ValueError(f"claims lacks the columns {sorted(missing)}")
    found = findings(claims[claims["kind"] == "substantive"])
    if found.empty:
        return "No substantive claim was checked."
    by = {v: found.loc[found["verdict"] == v, "item"].tolist() for v in found["verdict"]}
    tested = len(found) - len(by.get("not checked offline", []))
    bad = [f"{item} ({v})" for v in ("fails", "partly") for item in by.get(v, [])]
    parts = [f"Of the {tested} paper items whose statements this run's substantive claims "
             f"test, {len(by.get('holds', []))} hold"]
    parts.append(f"{len(bad)} do not: " + ", ".join(bad) if bad else "none fails")
    if by.get("inconclusive"):
        parts.append("this run cannot decide " + ", ".join(by["inconclusive"]))
    text = "; ".join(parts) + "."
    if by.get("not checked offline"):
        text += (" Not checked offline (their data are not here): "
                 + ", ".join(by["not checked offline"]) + ".")
    return text
