"""A reproduction card per paper: what reproduced, what holds, what it cost, what was hard.

In the style of the ML Reproducibility Challenge's summaries, one look at a chapter's run:

- the paper's numbered items by status (:mod:`ldp_companion.verdicts.coverage`): reproduced at the
  paper's setup, reduced, checked, implemented, not reproduced;
- its claims by verdict (:mod:`ldp_companion.verdicts.ledger`);
- the compute this build spent, and the projected compute of the ``paper`` profile
  (:mod:`ldp_companion.edition.planning`) in core-hours and GPU-hours;
- the data: what the run read (with checksums), which of the paper's data are public, which
  need an account, which were replaced by stand-ins (:mod:`ldp_companion.edition.data_fetch`);
- the items reproduced at the paper's setup, and, apart (reproducing is not holding), the
  checked items whose claims all hold;
- what was hard: formulas rebuilt from a damaged text (the chapter's ``reconstructions``),
  figures and tables the run could not draw, settings the paper does not state (the
  parameter specs that say so), items that fail.

Every line is computed from the run's records; nothing is typed. :func:`card_from_folder`
makes a chapter's card from a run's files; :func:`fill` puts it into the chapter's cell tagged
``reproduction-card`` once the chapter has run (the ``book`` and ``run`` commands do), and the
Verdicts page shows all five.
"""
from __future__ import annotations

import html
import os
import re
from pathlib import Path

import pandas as pd

from ldp_companion.edition import book, data_fetch, planning
from ldp_companion.verdicts import run_records
from ldp_companion.verdicts.coverage import PaperItems, ref_kind
from ldp_companion.verdicts.ledger import findings

__all__ = ["card_html", "card_from_folder", "fill", "guessed_settings", "MACHINES", "TAG"]

#: The machines the paper profile is projected on: label, grid workers, device, cores.
MACHINES = (("2 cores", 2, "cpu"), ("16 cores", 16, "cpu"), ("the GPU machine", 16, "cuda"))
#: How a parameter's meaning says the paper leaves its value open.
_UNSTATED = re.compile(r"unstated|not stated|does not (say|state)|gives none|none stated|"
                       r"lost in the", re.I)


def guessed_settings(chapter: str) -> list[str]:
    """The chapter's parameters whose meaning says the paper does not state their value (or
    that its text lost it): the settings this book had to choose."""
    return [name for name, (meaning, _) in book.PARAMS[chapter].spec.items()
            if _UNSTATED.search(meaning)]


def _cores(machine: str) -> int:
    found = re.search(r"(\d+) cores", machine or "")
    return int(found.group(1)) if found else 1


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _hours(seconds: float) -> str:
    return f"{seconds / 60:.1f} min" if seconds < 3600 else f"{seconds / 3600:.2f} h"


def _projection(chapter: str) -> str:
    """The paper profile's projected time on each machine; a lower bound (≥) names, for that
    machine alone, the work it leaves out (two machines' records need not cover the same
    cells, so one list for all would compare unlike totals)."""
    parts = []
    for label, workers, device in MACHINES:
        p = planning.plan(chapter, "paper", workers, device)
        if p.seconds is None:
            parts.append(f"no record to project {label} from")
            continue
        bound = "≥ " if p.lower_bound else ""
        hours = p.seconds / 3600
        cost = (f"{bound}{hours:.2f} GPU-hours" if p.device == "cuda"  # the GPU it uses
                else f"{bound}{hours * workers:.1f} core-hours")
        left = p.unmeasured + (["a stopped cell"] if p.stopped else [])
        out = (f", not counting the work of {', '.join(dict.fromkeys(left))}: no record of"
               " this machine measured it") if left else ""
        parts.append(f"{bound}{hours:.2f} h on {label} ({cost}{out})")
    return "; ".join(parts)


def _data(chapter: str, profile: str, read: dict) -> str:
    lines = []
    if read:
        lines.append("read in this run: " + ", ".join(
            f"{n} (sha256 {e.get('sha256', '?')[:10]})" for n, e in sorted(read.items())))
    recipes = data_fetch.recipes_for([chapter], "paper")
    public = [r.title for r in recipes if not r.manual and not r.bundled]
    account = [r.title for r in recipes if r.manual]
    if public:
        lines.append("public, fetched by python -m ldp_companion data fetch: " + ", ".join(public))
    if account:
        lines.append("not fetched by a program (an account, a form or a conversion by hand): "
                     + ", ".join(account))
    replaced = [r.title for r in recipes if r.paper_only
                and (profile != "paper" or not data_fetch.present(r))]
    if replaced:
        lines.append("the paper's data replaced by stand-ins in this run: " + ", ".join(replaced))
    for data, stand_in in book.STAND_INS.get(chapter, ()):
        lines.append(f"the paper's data replaced in every run (no profile reads them): {data}, "
                     f"by {stand_in}")
    return "; ".join(lines) or "simulated data only"


def _easy_hard(chapter: str, items: PaperItems, claims: pd.DataFrame) -> tuple[dict, list]:
    """What reproduced and what holds (two separate things: an item can reproduce and fail),
    and what was hard."""
    verdict = claims.set_index("claim_id")["verdict"] if len(claims) else pd.Series(dtype=str)
    checked = [i for i in items.items if i.status == "checked" and i.claims]
    held = [i.ref for i in checked if all(verdict.get(c) == "holds" for c in i.claims)]
    reproduced = [i.ref + (" (the recorded run at the paper's scale)" if i.scale else "")
                  for i in items.items if i.status == "reproduced"]
    easy = {"Reproduced at the paper's setup": ", ".join(reproduced) or "none in this run",
            "Checked here": f"{len(held)} of {len(checked)} checked items hold in every claim "
                            "that tests them"}
    hard = []
    rec = book.RECONSTRUCTIONS.get(chapter)
    if rec is not None and rec.RECONSTRUCTED:
        hard.append(_count(len(rec.RECONSTRUCTED), "reference value", "reference values")
                    + " rebuilt from a damaged text (Reconstructions page)")
    lost = [i.ref for i in items.items if i.status == "not reproduced"
            and ref_kind(i.ref) in ("figure", "table")]
    if lost:
        hard.append(_count(len(lost), "figure or table", "figures or tables")
                    + " not reproduced: " + ", ".join(lost))
    guessed = guessed_settings(chapter)
    if guessed:
        hard.append(_count(len(guessed), "setting", "settings")
                    + " the paper does not state, chosen here: " + ", ".join(guessed))
    if len(claims):
        found = findings(claims[claims["kind"] == "substantive"])
        bad = found[found["verdict"].isin(["fails", "partly"])]["item"].tolist()
        if bad:
            hard.append(_count(len(bad), "item", "items") + " of the paper that "
                        + ("does" if len(bad) == 1 else "do") + " not hold: " + ", ".join(bad))
    return easy, hard


def _item_text(items: PaperItems) -> str:
    """The items by status; of the reproduced and the reduced ones, how many the chapter's
    recorded run at the paper's scale drew (a reduced one there had other data: the item's
    ``differs`` says which)."""
    parts = []
    for status, n in items.counts().items():
        if not n:
            continue
        text = f"{n} {status}" + (" at the paper's setup" if status == "reproduced" else "")
        scaled = sum(i.status == status and bool(i.scale) for i in items.items)
        if scaled and status == "reproduced":
            text += f" ({scaled} of them by the recorded run at the paper's scale)"
        elif scaled:
            text += f" ({scaled} of them run at the paper's scale too, with other data)"
        parts.append(text)
    return " · ".join(parts)


def _elsewhere(items: PaperItems, others: pd.DataFrame | None) -> str:
    """The items that other chapters' claims test too, each with those claims' verdicts
    (``others``: their ledgers; a claim whose ledger is absent shows its id alone)."""
    table = items.table(others)
    return "; ".join(f"{r.ref}: {r.also}" for r in table.itertuples(index=False) if r.also)


def card_html(chapter: str, items: PaperItems, claims: pd.DataFrame, *, profile: str,
              seconds: float | None, machine: str, read: dict,
              others: pd.DataFrame | None = None) -> str:
    """The card of ``chapter`` as an HTML table.

    Parameters
    ----------
    items : PaperItems
        The run's coverage (``resolve``-d: reproduced or reduced as the run earned).
    claims : DataFrame
        The run's ledger (:meth:`Ledger.table`).
    profile, seconds, machine : the run's profile, its seconds so far and its machine.
    read : dict
        The data files it read (``<chapter>.data.json``).
    others : DataFrame, optional
        Other chapters' ledgers: the verdicts of their claims that test this paper's items
        too (the items' ``also``; a row "Tested in another chapter too" when there are any).
    """
    item_text = _item_text(items)
    tally = claims["verdict"].value_counts() if len(claims) else pd.Series(dtype=int)
    names = {"holds": "hold", "partly": "hold partly", "fails": "fail",
             "inconclusive": "undecided", "not checked offline": "not checked offline"}
    claim_text = " · ".join(f"{int(tally[v])} {w}" for v, w in names.items() if tally.get(v, 0))
    if seconds is None:
        spent = "not recorded"
    else:
        core_hours = seconds / 3600 * _cores(machine)
        spent = (f"{_hours(seconds)} on {machine} ({core_hours:.2f} core-hours), "
                 f"profile {profile}")
    easy, hard = _easy_hard(chapter, items, claims)
    rows = [(f"Items of the paper ({len(items.items)})", item_text),
            (f"Claims ({len(claims)})", claim_text or "none"),
            ("Compute of this build", spent),
            ("The paper profile, projected", _projection(chapter)),
            ("Data", _data(chapter, profile, read)),
            *easy.items(),
            ("Hard to reproduce", "; ".join(hard) or "nothing recorded")]
    elsewhere = _elsewhere(items, others)
    if elsewhere:
        rows.append(("Tested in another chapter too", elsewhere))
    body = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in rows)
    return (f'<table class="ldp-card"><caption>Reproduction card: {html.escape(items.paper)}'
            f"</caption><tbody>{body}</tbody></table>")


def card_from_folder(chapter: str, folder: str | os.PathLike = ".") -> str:
    """The card of ``chapter`` from a build's files in ``folder`` (ledger, coverage, run and
    data records), as HTML."""
    from ldp_companion.verdicts.coverage import load_coverage
    from ldp_companion.verdicts.ledger import load_ledgers

    folder = Path(folder)
    items = load_coverage(folder)[chapter].also_tested(book.cross_links().get(chapter, {}))
    every = load_ledgers(folder)
    claims = every[every["chapter"] == chapter] if len(every) else every
    run = run_records.read(folder / f"{chapter}.run.json")
    resolved = run.get("resolved", run.get("parameters", {}))
    return card_html(chapter, items, claims, profile=resolved.get("profile", "?"),
                     seconds=run.get("seconds"), machine=run.get("machine", ""),
                     read=run_records.read(folder / f"{chapter}.data.json"), others=every)


#: The tag of the chapter cell (near its top) that shows the card.
TAG = "reproduction-card"


def fill(notebook: str | os.PathLike, folder: str | os.PathLike | None = None) -> bool:
    """Put the card of an executed chapter into its cell tagged :data:`TAG`, from the records
    beside the notebook (or in ``folder``); False when the notebook has no such cell."""
    import nbformat

    notebook = Path(notebook)
    nb = nbformat.read(notebook, as_version=4)
    cells = [c for c in nb.cells if TAG in c.get("metadata", {}).get("tags", [])]
    if not cells:
        return False
    card = card_from_folder(notebook.stem, folder or notebook.parent)
    cells[0].outputs = [nbformat.v4.new_output("display_data", data={
        "text/html": card, "text/plain": "Reproduction card (HTML)"})]
    nbformat.write(nb, notebook)
    return True
