"""Paper coverage: every numbered item of a paper, and its place in the book.

A chapter's package holds its paper's list of numbered items (``<chapter>/items.py``): every
Theorem, Lemma, Proposition, Corollary, Definition, Algorithm, Figure and Table, with one
status each:

* ``checked``: the ledger claims that check it (verdicts computed in the chapter);
* ``reproduced``: a figure or table drawn from the chapter's own run with the paper's data,
  model and scale (``artifact`` is the label of the chapter section that draws it);
* ``reduced``: drawn from the chapter's run, but not at the paper's setup (``differs`` says
  what differs: stand-in data, another network, fewer runs).
* ``implemented``: a Definition or Algorithm, with the function that implements it (``code``);
* ``not reproduced``: with a specific one-sentence reason;
* ``planned``: work the chapter has not done yet, with what it will do (a placeholder
  chapter's items are all ``planned`` or ``not reproduced``). Coverage shows it as its own
  status, never as done.

A figure or table a chapter draws is listed as ``reproduced`` with the setup it needs: the
chapter parameters whose ``paper`` profile value is the paper's scale (``setup``), the data and
model files of :mod:`ldp_companion.data.paper_assets` (``assets``), and what differs from the paper
even then (``differs``). Whether a run earned ``reproduced`` is computed, not typed:
:meth:`PaperItems.resolve` compares the run's parameters and the files present with that setup
and turns every item whose setup the run did not have into ``reduced``, saying what differed
(:func:`record` does it in a chapter and saves ``<chapter>.coverage.json`` beside the ledger).

Each ledger claim names the items it checks (its ``ref``, see :func:`normalise_ref`; the first
is its primary ref, the item whose statement it tests);
:meth:`PaperItems.problems` cross-checks a ledger against the list. A claim of another chapter
that tests an item too (appendix C's claims on the papers' mechanisms, whose primary ref is
C's own section) is named beside the item with its verdict (``Item.also``, filled in by
:meth:`PaperItems.also_tested`); it changes neither the item's status nor the claim's refs.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import pandas as pd

from ldp_companion.files import CorruptFile, one_line, read_json, write_atomic
from ldp_companion.verdicts.prose import format_value

__all__ = ["STATUSES", "STATUS_COLORS", "Item", "PaperItems", "coverage_bar_html",
           "coverage_html", "items_table_html", "load_coverage", "record", "unrun",
           "normalise_ref", "ref_kind", "LEDGER_DIR_ENV"]

STATUSES = ("checked", "reproduced", "reduced", "implemented", "not reproduced", "planned")
#: Statuses of an item the chapter draws from its own run.
DRAWN = ("reproduced", "reduced")
#: Where a chapter run writes its ledger and coverage (set by the book runner).
LEDGER_DIR_ENV = "LDP_COMPANION_LEDGER_DIR"
_COVERAGE_SUFFIX = ".coverage.json"

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
    "Remark": ("remark", "rem"),
}
_ITEM_KINDS = {"Theorem": "theorem", "Lemma": "lemma", "Proposition": "proposition",
         "Corollary": "corollary", "Definition": "definition", "Alg.": "algorithm",
         "Fig.": "figure", "Table": "table", "Eq.": "equation", "Sec.": "section",
         "App.": "appendix", "Remark": "remark"}
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
    #: For a drawn item: the chapter parameters whose ``paper`` profile value is the paper's
    #: scale, the paper_assets its data and model need, and what differs from the paper even
    #: at that setup (empty: nothing). ``differs`` of a ``reduced`` item says what differed.
    setup: tuple = ()
    assets: tuple = ()
    differs: str = ""
    #: Claims of other chapters that test this item too, as ``(chapter, claim id)`` pairs:
    #: shown beside the item with their verdicts, never counted in its status.
    also: tuple = ()
    #: For a drawn item: the recorded run at the paper's scale that earned its status, when
    #: not this run (``PaperItems.with_paper_scale``); empty otherwise.
    scale: str = ""

    def __post_init__(self):
        object.__setattr__(self, "ref", normalise_ref(self.ref))
        object.__setattr__(self, "claims", tuple(self.claims))
        object.__setattr__(self, "also", tuple(tuple(pair) for pair in self.also))
        if any(len(p) != 2 or not all(isinstance(x, str) and x for x in p) for p in self.also):
            raise ValueError(f"item {self.ref}: also must hold (chapter, claim id) pairs, got "
                             f"{self.also!r}")
        object.__setattr__(self, "setup", tuple(self.setup))
        object.__setattr__(self, "assets", tuple(self.assets))
        where = f"item {self.ref}"
        if self.status not in STATUSES:
            raise ValueError(f"{where}: status must be one of {STATUSES}, got {self.status!r}")
        if not self.title:
            raise ValueError(f"{where}: give a title (what the item states or shows)")
        need = {"checked": ("claims", "the ledger claims that check it"),
                "reproduced": ("artifact", "the label of the section that draws it"),
                "reduced": ("artifact", "the label of the section that draws it"),
                "implemented": ("code", "the dotted path of the function that implements it"),
                "not reproduced": ("reason", "one specific sentence"),
                "planned": ("plan", "what the chapter will do for it")}[self.status]
        if not getattr(self, need[0]):
            raise ValueError(f"{where} is {self.status!r} but has no {need[0]} ({need[1]})")
        if self.status == "reproduced" and not (self.setup or self.assets or self.differs):
            raise ValueError(f"{where} is 'reproduced' but names no setup: give the parameters "
                             "(setup), files (assets) or differences (differs) that decide "
                             "whether a run had the paper's data, model and scale")
        if self.status == "reduced" and not self.differs:
            raise ValueError(f"{where} is 'reduced' but does not say what differs (differs)")
        if self.status == "not reproduced":
            if len(self.reason) < _MIN_REASON or _GENERIC.search(self.reason):
                raise ValueError(f"{where}: the reason {self.reason!r} is not specific; say "
                                 "what makes it out of reach (data, compute, what it restates)")

    @property
    def kind(self) -> str:
        return ref_kind(self.ref)

    def resolved(self, values: dict, paper: dict, missing_assets) -> Item:
        """This item as one run of the chapter earned it: a ``reproduced`` item whose setup
        the run did not have becomes ``reduced``, with what differed; others are unchanged.

        Parameters
        ----------
        values, paper : dict
            Parameter -> value in force in the run, and its ``paper`` profile value.
        missing_assets : collection of str
            The paper_assets whose files were missing in the run.
        """
        if self.status not in DRAWN:
            return self
        unknown = [n for n in self.setup if n not in values or n not in paper]
        if unknown:
            raise ValueError(f"item {self.ref}: setup names unknown parameters {unknown}")
        gaps = [f"{n} {format_value(values[n])} (paper setup: {format_value(paper[n])})"
                for n in self.setup if _differs(values[n], paper[n])]
        gaps += [f"{a} files missing" for a in self.assets if a in set(missing_assets)]
        if self.differs:
            gaps.append(self.differs)
        if not gaps:
            return replace(self, status="reproduced")
        return replace(self, status="reduced", differs="; ".join(gaps))


def _differs(value, paper) -> bool:
    """Whether a run's parameter value is not the paper setup's (a tuple and a list with the
    same entries are the same; a dict is compared with its values)."""
    if isinstance(value, (list, tuple)) and isinstance(paper, (list, tuple)):
        return len(value) != len(paper) or any(_differs(v, p) for v, p in zip(value, paper))
    if isinstance(value, dict) and isinstance(paper, dict):
        return value.keys() != paper.keys() or any(_differs(value[k], paper[k]) for k in value)
    try:
        return bool(value != paper)
    except (TypeError, ValueError):
        return True


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

    @property
    def assets(self) -> list[str]:
        """Every paper_asset a drawn item of the list needs (in order, once)."""
        return list(dict.fromkeys(a for it in self.items for a in it.assets))

    def also_tested(self, links) -> PaperItems:
        """This list with the claims of other chapters that test its items too.

        Parameters
        ----------
        links : mapping
            Item ref -> iterable of ``(chapter, claim id)`` pairs (added once each to the
            item's ``also``, after those it has). A ref this list lacks is left out: a list
            recorded by an older run of the chapter may lack an item that its current list
            has (:func:`ldp_companion.edition.book.cross_links` checks the links against that one).
        """
        extra = {}
        for ref, pairs in links.items():
            extra.setdefault(normalise_ref(ref), []).extend(tuple(p) for p in pairs)
        return replace(self, items=tuple(
            replace(it, also=tuple(dict.fromkeys(it.also + tuple(extra[it.ref]))))
            if it.ref in extra else it for it in self.items))

    def resolve(self, cfg, missing_assets=()) -> PaperItems:
        """The list as one run earned it (see :meth:`Item.resolved`).

        Parameters
        ----------
        cfg : ChapterConfig
            The run's parameters (``cfg = PARAMS.resolve(globals())``): their values in force
            and, from the spec, their ``paper`` profile values.
        missing_assets : collection of str
            Names of the paper_assets whose files the run did not have
            (``paper_assets.missing(items.assets)``).
        """
        paper = {name: per["paper"] for name, (_, per) in cfg.spec.items()}
        return replace(self, items=tuple(
            it.resolved(dict(cfg.values), paper, missing_assets) for it in self.items))

    def with_paper_scale(self, record) -> PaperItems:
        """The list with what a recorded run of the chapter at the paper's scale earned:
        an item ``reduced`` here and ``reproduced`` there becomes ``reproduced`` (``scale``
        names the record, ``differs`` keeps what this run lacked); an item ``reduced`` in
        both says what differed there. ``record``: an object with ``coverage`` (that run's
        resolved :class:`PaperItems`), ``stale`` and ``label``
        (:class:`~ldp_companion.execution.paper_scale.PaperRecord`); a stale record, or
        None, changes nothing."""
        if record is None or record.stale:
            return self
        there = {it.ref: it for it in record.coverage.items}
        items = []
        for it in self.items:
            other = there.get(it.ref)
            if it.status != "reduced" or other is None or other.status not in DRAWN:
                items.append(it)
            elif other.status == "reproduced":
                items.append(replace(it, status="reproduced", scale=record.label))
            else:
                items.append(replace(it, scale=record.label, differs=(
                    f"at the paper's scale: {other.differs}; in this run: {it.differs}")))
        return replace(self, items=tuple(items))

    def save(self, directory=None) -> Path:
        """Write ``<chapter>.coverage.json`` (the items with their statuses) to ``directory``,
        by default ``$LDP_COMPANION_LEDGER_DIR`` or the working directory."""
        folder = Path(directory or os.environ.get(LEDGER_DIR_ENV) or ".")
        folder.mkdir(parents=True, exist_ok=True)
        return write_atomic(folder / f"{self.chapter}{_COVERAGE_SUFFIX}", json.dumps(
            {"chapter": self.chapter, "paper": self.paper,
             "items": [asdict(i) for i in self.items]}, indent=1, ensure_ascii=False))

    def problems(self, claims: pd.DataFrame, notebook: str | None = None) -> list[str]:
        """What is wrong between this list and a chapter's ledger (empty list: nothing).

        Parameters
        ----------
        claims : DataFrame
            The chapter's ledger (columns ``claim_id`` and ``ref``, as
            :func:`ldp_companion.verdicts.ledger.load_ledgers` returns).
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
            if it.status in DRAWN and notebook is not None and \
                    f"({it.artifact})=" not in notebook and f":name: {it.artifact}" not in notebook:
                out.append(f"{it.ref} is reproduced in {it.artifact!r}, which the chapter lacks")
        cited = {r for refs in ledger_refs.values() for r in refs}
        for it in self.items:
            if it.ref in cited and it.status not in ("checked", *DRAWN):
                out.append(f"{it.ref} is cited by a claim but its status is {it.status!r}")
        return out

    def table(self, claims: pd.DataFrame | None = None) -> pd.DataFrame:
        """One row per item: chapter, ref, kind, title, status, claims, the reason (or plan,
        code, artifact) and ``also`` (the claims of other chapters that test it, with their
        chapter). With a ledger ``claims`` (this chapter's, or several chapters' with a column
        ``chapter``: :func:`ldp_companion.verdicts.ledger.load_ledgers`), each claim id shows its
        verdict.
        """
        verdicts = _verdicts(claims, self.chapter)

        def named(ids, chapter=self.chapter):
            return [f"{c} ({verdicts[chapter, c]})" if (chapter, c) in verdicts else c
                    for c in ids]

        return pd.DataFrame([{
            "chapter": self.chapter, "ref": it.ref, "kind": it.kind, "title": it.title,
            "status": it.status, "claims": ", ".join(named(it.claims)),
            "reason": it.reason or it.plan or it.code or _drawn_reason(it),
            "also": "; ".join(f"{chapter}: {named([c], chapter)[0]}" for chapter, c in it.also)}
            for it in self.items],
            columns=["chapter", "ref", "kind", "title", "status", "claims", "reason", "also"])

    def counts(self) -> dict[str, int]:
        """Number of items per status, in :data:`STATUSES` order."""
        return {s: sum(i.status == s for i in self.items) for s in STATUSES}


def _verdicts(claims: pd.DataFrame | None, chapter: str) -> dict:
    """(chapter, claim id) -> verdict of a ledger; a ledger without a ``chapter`` column is
    ``chapter``'s."""
    if claims is None or not len(claims):
        return {}
    owners = claims["chapter"] if "chapter" in claims else [chapter] * len(claims)
    return dict(zip(zip(owners, claims["claim_id"]), claims["verdict"]))


def _drawn_reason(it: Item) -> str:
    """Where a drawn item is, and for a ``reduced`` one what differs from the paper."""
    if it.status == "reduced":
        return f"differs from the paper: {it.differs} (section {it.artifact})"
    if it.scale:
        return (f"{it.artifact}; reproduced by the {it.scale} (this run: {it.differs})"
                if it.differs else f"{it.artifact}; reproduced by the {it.scale}")
    return it.artifact


def record(paper: PaperItems, cfg, missing_assets=(), directory=None,
           paper_scale=None) -> PaperItems:
    """Resolve ``paper`` for this run (:meth:`PaperItems.resolve`), with what the chapter's
    recorded run at the paper's scale earned (``paper_scale``, see
    :meth:`PaperItems.with_paper_scale`), and save it beside the ledger
    (:meth:`PaperItems.save`): the Verdicts page and ``python -m ldp_companion coverage``
    read it. Returns the resolved list."""
    resolved = paper.resolve(cfg, missing_assets).with_paper_scale(paper_scale)
    resolved.save(directory)
    return resolved


def load_coverage(directory) -> dict[str, PaperItems]:
    """Every ``<chapter>.coverage.json`` in ``directory``: chapter -> its resolved list."""
    out = {}
    for path in sorted(Path(directory).glob(f"*{_COVERAGE_SUFFIX}")):
        items = _read_coverage(path)
        out[items.chapter] = items
    return out


def _read_coverage(path: Path) -> PaperItems:
    """One coverage file; :class:`~ldp_companion.files.CorruptFile` naming it when it is not
    one (truncated, garbage, fields missing)."""
    data = read_json(path, "coverage list")
    try:
        return PaperItems(data["chapter"], data["paper"], [Item(**i) for i in data["items"]])
    except (TypeError, KeyError, ValueError) as err:
        raise CorruptFile(f"{path} is not a readable coverage list ({one_line(err)}): "
                          "delete it or run its chapter again") from None


def unrun(paper: PaperItems) -> PaperItems:
    """``paper`` when no run of its chapter recorded coverage: no drawn item is counted as
    reproduced (each is ``reduced``, saying that no run was recorded)."""
    return replace(paper, items=tuple(
        replace(it, status="reduced", differs="no run of the chapter recorded its coverage")
        if it.status in DRAWN else it for it in paper.items))


STATUS_COLORS = {"checked": "#2e7d32", "reproduced": "#1565c0", "reduced": "#4a90c2",
                 "implemented": "#6a1b9a",
                 "not reproduced": "#9e9e9e", "planned": "#f9a825"}


def items_table_html(paper: PaperItems, claims: pd.DataFrame | None = None) -> str:
    """The paper's items as a three-column HTML table: the item, its status, and where the
    book covers it (claims with their verdicts, the artifact, the code, or the reason)."""
    from html import escape

    rows = []
    for r in paper.table(claims).itertuples(index=False):
        where = r.claims if r.status in ("checked",) else \
            "; ".join(x for x in (r.reason, r.claims) if x)
        if r.also:
            where = "; ".join(x for x in (where, f"also tested in {r.also}") if x)
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


def coverage_html(paper: PaperItems, claims: pd.DataFrame | None = None,
                  open_list: bool = False) -> str:
    """The coverage bar with the list of items beneath it (folded unless ``open_list``): what
    a chapter page and the Verdicts page show."""
    listing = items_table_html(paper, claims)
    state = " open" if open_list else ""
    return (f"{coverage_bar_html(paper)}<details{state}><summary>The {len(paper.items)} items"
            f"</summary>{listing}</details>")
