"""Paper coverage: every numbered item of a paper, and its place in the book.

A chapter's package holds its paper's list of numbered items (``<chapter>/items.py``): every
Theorem, Lemma, Proposition, Corollary, Definition, Algorithm, Figure and Table, with one
status each:

* ``checked``: the ledger claims that check it (verdicts computed in the chapter);
* ``reproduced``: a figure or table drawn from the chapter's own run (``artifact`` is the
  label of the chapter section that draws it);
* ``implemented``: a Definition or Algorithm, with the function that implements it (``code``);
* ``not reproduced``: with a specific one-sentence reason;
* ``planned``: work the chapter has not done yet, with what it will do (a placeholder
  chapter's items are all ``planned`` or ``not reproduced``). Coverage shows it as its own
  status, never as done.

Each ledger claim names the items it checks (its ``ref``, see :func:`normalise_ref`);
:meth:`PaperItems.problems` cross-checks a ledger against the list.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import pandas as pd

__all__ = ["STATUSES", "STATUS_COLORS", "Item", "PaperItems", "coverage_bar_html",
           "items_table_html",
           "normalise_ref", "ref_kind"]

STATUSES = ("checked", "reproduced", "implemented", "not reproduced", "planned")

# canonical prefix -> accepted spellings (case-insensitive, optional dot)
_PREFIXES = {
    "Theorem": ("theorem", "thm"),
    "Lemma": ("lemma", "lem"),
    "Proposition": ("proposition", "prop"),
    "Corollary": ("corollary", "cor"),
    "Definition": ("definition", "def", "defn"),
    "Alg.": ("algorithm", "alg"),
    "Fig.": ("figure", "fig"),
    "Table": ("table", "tab"),
    "Eq.": ("equation", "eq", "eqs"),
    "Sec.": ("section", "sec", "§"),
    "App.": ("appendix", "app"),
}
_ITEM_KINDS = {"Theorem": "theorem", "Lemma": "lemma", "Proposition": "proposition",
         "Corollary": "corollary", "Definition": "definition", "Alg.": "algorithm",
         "Fig.": "figure", "Table": "table", "Eq.": "equation", "Sec.": "section",
         "App.": "appendix"}
_SPELLING = {s: canon for canon, spellings in _PREFIXES.items() for s in spellings}
_REF = re.compile(r"^\s*(?P<prefix>§|[A-Za-z]+)\.?\s*(?P<number>\(?[A-Za-z0-9][A-Za-z0-9.\-]*\)?)"
                  r"\s*$")
_GENERIC = re.compile(r"\b(not (done|written|implemented) yet|todo|tbd|out of scope|later|"
                      r"no time)\b", re.I)
_MIN_REASON = 40  # characters: one specific sentence, not a word


def normalise_ref(text: str) -> str:
    """The canonical form of a reference to a paper's item.

    ``"Figure 7"``, ``"fig 7"`` and ``"Fig. 7"`` are all ``"Fig. 7"``; ``"Algorithm 2"`` is
    ``"Alg. 2"``; ``"Eq. 21"`` and ``"equation (21)"`` are ``"Eq. (21)"``; ``"§6.2"`` is
    ``"Sec. 6.2"``; ``"TABLE V"`` is ``"Table V"``.

    Raises
    ------
    ValueError
        If ``text`` is not one of the recognised forms.
    """
    if not isinstance(text, str):
        raise TypeError(f"a ref must be a string, got {type(text).__name__}")
    match = _REF.match(text)
    canon = _SPELLING.get(match.group("prefix").lower()) if match else None
    if canon is None:
        known = ", ".join(_PREFIXES)
        raise ValueError(f"unrecognised ref {text!r}: write it as '<kind> <number>' with kind "
                         f"one of {known} (e.g. 'Lemma 4', 'Fig. 7', 'Eq. (21)')")
    number = match.group("number").strip("()")
    if canon == "Eq.":
        number = f"({number})"
    return f"{canon} {number}"


def ref_kind(ref: str) -> str:
    """``"figure"`` for ``"Fig. 7"``, ``"lemma"`` for ``"Lemma 4"``, ..."""
    return _ITEM_KINDS[normalise_ref(ref).split(" ", 1)[0]]


@dataclass(frozen=True)
class Item:
    """One numbered item of a paper and its place in the book."""

    ref: str
    title: str
    status: str
    claims: tuple = ()
    artifact: str = ""
    code: str = ""
    reason: str = ""
    plan: str = ""
    spec: str = ""  # for developers: where the team's working notes cover it (not shown)

    def __post_init__(self):
        object.__setattr__(self, "ref", normalise_ref(self.ref))
        object.__setattr__(self, "claims", tuple(self.claims))
        where = f"item {self.ref}"
        if self.status not in STATUSES:
            raise ValueError(f"{where}: status must be one of {STATUSES}, got {self.status!r}")
        if not self.title:
            raise ValueError(f"{where}: give a title (what the item states or shows)")
        need = {"checked": ("claims", "the ledger claims that check it"),
                "reproduced": ("artifact", "the label of the section that draws it"),
                "implemented": ("code", "the dotted path of the function that implements it"),
                "not reproduced": ("reason", "one specific sentence"),
                "planned": ("plan", "what the chapter will do for it")}[self.status]
        if not getattr(self, need[0]):
            raise ValueError(f"{where} is {self.status!r} but has no {need[0]} ({need[1]})")
        if self.status == "not reproduced":
            if len(self.reason) < _MIN_REASON or _GENERIC.search(self.reason):
                raise ValueError(f"{where}: the reason {self.reason!r} is not specific; say "
                                 "what makes it out of reach (data, compute, what it restates)")

    @property
    def kind(self) -> str:
        return ref_kind(self.ref)


@dataclass(frozen=True)
class PaperItems:
    """A paper's numbered items, in paper order, for one chapter.

    Parameters
    ----------
    chapter : str
        Chapter id (the notebook's stem).
    paper : str
        Short citation of the paper.
    items : sequence of Item
    placeholder : bool
        The chapter is not written yet: every item is ``planned`` or ``not reproduced``.
    """

    chapter: str
    paper: str
    items: tuple = field(default_factory=tuple)
    placeholder: bool = False

    def __post_init__(self):
        object.__setattr__(self, "items", tuple(self.items))
        refs = [i.ref for i in self.items]
        dupes = sorted({r for r in refs if refs.count(r) > 1})
        if dupes:
            raise ValueError(f"{self.chapter}: items listed twice: {dupes}")
        done = [i.ref for i in self.items if i.status not in ("planned", "not reproduced")]
        if done and self.placeholder:
            raise ValueError(f"{self.chapter} is a placeholder, yet items are done: {done}")

    @property
    def refs(self) -> list[str]:
        return [i.ref for i in self.items]

    def item(self, ref: str) -> Item:
        ref = normalise_ref(ref)
        for it in self.items:
            if it.ref == ref:
                return it
        raise KeyError(f"{self.chapter}: no item {ref!r} in the paper's list")

    def problems(self, claims: pd.DataFrame, notebook: str | None = None) -> list[str]:
        """What is wrong between this list and a chapter's ledger (empty list: nothing).

        Parameters
        ----------
        claims : DataFrame
            The chapter's ledger (columns ``claim_id`` and ``ref``, as
            :func:`ldp_companion.ledger.load_ledgers` returns).
        notebook : str, optional
            The chapter's source, to check that every ``reproduced`` item's artifact label
            exists in it.
        """
        out = []
        known = set(self.refs)
        ledger_refs = {}
        for row in claims.itertuples(index=False):
            refs = tuple(row.ref)
            ledger_refs[row.claim_id] = refs
            if not refs:
                out.append(f"claim {row.claim_id!r} has no ref")
            for ref in refs:
                if ref not in known:
                    out.append(f"claim {row.claim_id!r} cites {ref!r}, not in the paper's list")
        for it in self.items:
            for cid in it.claims:
                if cid not in ledger_refs:
                    out.append(f"{it.ref} names claim {cid!r}, which the ledger does not have")
                elif it.ref not in ledger_refs[cid]:
                    out.append(f"{it.ref} names claim {cid!r}, whose ref does not cite it")
            if it.status == "reproduced" and notebook is not None and \
                    f"({it.artifact})=" not in notebook and f":name: {it.artifact}" not in notebook:
                out.append(f"{it.ref} is reproduced in {it.artifact!r}, which the chapter lacks")
        cited = {r for refs in ledger_refs.values() for r in refs}
        for it in self.items:
            if it.ref in cited and it.status not in ("checked", "reproduced"):
                out.append(f"{it.ref} is cited by a claim but its status is {it.status!r}")
        return out

    def table(self, claims: pd.DataFrame | None = None) -> pd.DataFrame:
        """One row per item: chapter, ref, kind, title, status, claims, and the reason (or plan,
        code, artifact). With the chapter's ledger ``claims``, each claim id shows its verdict.
        """
        verdicts = {} if claims is None else dict(zip(claims["claim_id"], claims["verdict"]))

        def named(ids):
            return ", ".join(f"{c} ({verdicts[c]})" if c in verdicts else c for c in ids)

        return pd.DataFrame([{
            "chapter": self.chapter, "ref": it.ref, "kind": it.kind, "title": it.title,
            "status": it.status, "claims": named(it.claims),
            "reason": it.reason or it.plan or it.code or it.artifact}
            for it in self.items],
            columns=["chapter", "ref", "kind", "title", "status", "claims", "reason"])

    def counts(self) -> dict[str, int]:
        """Number of items per status, in :data:`STATUSES` order."""
        return {s: sum(i.status == s for i in self.items) for s in STATUSES}


STATUS_COLORS = {"checked": "#2e7d32", "reproduced": "#1565c0", "implemented": "#6a1b9a",
                 "not reproduced": "#9e9e9e", "planned": "#f9a825"}


def items_table_html(paper: PaperItems, claims: pd.DataFrame | None = None) -> str:
    """The paper's items as a three-column HTML table: the item, its status, and where the
    book covers it (claims with their verdicts, the artifact, the code, or the reason)."""
    from html import escape

    rows = []
    for r in paper.table(claims).itertuples(index=False):
        where = r.claims if r.status in ("checked",) else \
            "; ".join(x for x in (r.reason, r.claims) if x)
        rows.append(f"<tr><td><b>{escape(r.ref)}</b><br><small>{escape(r.title)}</small></td>"
                    f'<td style="color:{STATUS_COLORS[r.status]}"><b>{escape(r.status)}</b></td>'
                    f"<td><small>{escape(where)}</small></td></tr>")
    head = "<tr><th>item</th><th>status</th><th>where in the book, or why not</th></tr>"
    return (f'<table class="ldp-items"><thead>{head}</thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def coverage_bar_html(paper: PaperItems) -> str:
    """One horizontal bar: the share of the paper's items per status, with the counts."""
    from html import escape

    counts = paper.counts()
    total = sum(counts.values())
    parts = "".join(
        f'<span title="{n} {s}" style="width:{100 * n / total:.3f}%;'
        f'background:{STATUS_COLORS[s]}">{n}</span>' for s, n in counts.items() if n)
    legend = ", ".join(f"{n} {s}" for s, n in counts.items() if n)
    return (f'<div class="ldp-coverage"><div class="ldp-coverage-title"><b>'
            f'{escape(paper.chapter)}</b> — {escape(paper.paper)}: {total} items ({legend})'
            f'</div><div class="ldp-coverage-bar">{parts}</div></div>')
