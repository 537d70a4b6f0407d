"""The claims ledger: every claim a chapter checks, with a verdict computed by a comparison.

A chapter creates one :class:`Ledger`, records each claim through a method that *computes*
the verdict from the compared quantities (:meth:`Ledger.close`, :meth:`Ledger.bound`,
:meth:`Ledger.compare`, :meth:`Ledger.difference`, :meth:`Ledger.condition`), or marks it
:meth:`Ledger.not_checked` with the reason, and finally calls :meth:`Ledger.save`, which
writes ``<chapter>.ledger.json`` next to the executed notebook. The book's "Verdicts" page
reads every ledger (:func:`load_ledgers`).

Every claim names where in the paper it comes from: its ``ref``, one or several items such
as ``"Lemma 4"`` or ``"Fig. 7"`` (normalised by
:func:`ldp_companion.verdicts.coverage.normalise_ref`), given with ``ref=`` or looked up by claim id
in the ``refs`` mapping the ledger was created with (the chapter package's ``items.CLAIM_REFS``).
"""
from __future__ import annotations

import json
import math
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ldp_companion.files import CorruptFile, one_line, read_json, write_atomic
from ldp_companion.verdicts.coverage import LEDGER_DIR_ENV, normalise_ref

__all__ = ["Claim", "Ledger", "VERDICTS", "KINDS", "findings", "findings_markdown",
           "verdict_summary", "verdict_changes", "section_problems", "VERDICT_COLORS",
           "load_ledgers", "verdict_counts", "verdict_table_html", "LEDGER_DIR_ENV"]

VERDICTS = ("holds", "partly", "fails", "inconclusive", "not checked offline")
#: What a claim is about: a result the paper's conclusions rest on (a theorem, a privacy
#: guarantee, a headline result), a typo or wording slip its own results do not depend on, or a
#: question this book asks beyond the paper (its verdict is not a verdict on the paper).
KINDS = ("substantive", "erratum", "beyond the paper")
_SUFFIX = ".ledger.json"


@dataclass(frozen=True)
class Claim:
    """One checked claim. ``verdict`` is one of :data:`VERDICTS`."""

    chapter: str
    claim_id: str
    statement: str
    paper: str
    ours: str
    verdict: str
    note: str = ""
    section: str = ""
    ref: tuple = ()
    kind: str = "substantive"
    #: The quantities the verdict was computed from (name -> short text), kept in the ledger
    #: JSON so a reader can see what was compared.
    evidence: dict = field(default_factory=dict)
    #: Non-empty when the "paper" value is not printed in the paper's text but rebuilt (a lost
    #: formula or number): how it was rebuilt. The Reconstructions page lists these.
    reconstructed: str = ""

    def _ipython_display_(self):
        """A cell that ends with a ledger call shows nothing: the chapter's verdicts table
        shows every claim."""


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def _num(v: float, digits: int = 4) -> str:
    """One number as a reader wants it: 4 significant digits, ×10ⁿ rather than e-07, no
    negative zero, ∞ and — (no value) rather than inf and NaN."""
    if math.isnan(v):
        return "—"
    if math.isinf(v):
        return "∞" if v > 0 else "−∞"
    text = f"{v:.{digits}g}"
    if "e" in text:
        mant, exp = text.split("e")
        text = f"{mant}×10{str(int(exp)).translate(_SUPERSCRIPT)}"
    if text.startswith("-"):
        text = "0" if float(text.split("×")[0]) == 0 else "−" + text[1:]
    return text


def _fmt(value) -> str:
    """Short text for a number, array or string (what the tables show): arrays of up to eight
    entries in full, longer ones by their ends and their count."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    arr = np.asarray(value)
    if arr.dtype == bool:
        return f"{int(arr.sum())}/{arr.size} true" if arr.ndim else str(bool(arr))
    if arr.dtype.kind not in "iuf":
        return str(value)
    if arr.ndim == 0:
        return _num(float(arr))
    flat = [_num(float(v)) for v in arr.ravel()]
    if len(flat) > 8:
        return f"[{', '.join(flat[:3])}, …, {', '.join(flat[-2:])}] ({arr.size} values)"
    return "[" + ", ".join(flat) + "]"


def _labelled(value, labels) -> str:
    """``value``'s entries each after its label ("t = ½: 0.1368; t = 3/2: 0.8649"), so
    that a list of numbers reads alone; :func:`_fmt` without labels."""
    if labels is None:
        return _fmt(value)
    flat = np.asarray(value, float).ravel()
    labels = [str(label) for label in labels]
    if len(labels) != flat.size:
        raise ValueError(f"give one label per entry: {len(labels)} labels for {flat.size} "
                         "values")
    return "; ".join(f"{label}: {_num(float(v))}" for label, v in zip(labels, flat))


def _tolerance(atol: float, rtol: float, of: str) -> str:
    if atol and rtol:
        return f"within {_num(atol)} + {_num(rtol)}·|{of}|"
    return f"within {_num(atol)}" if atol else f"within {_num(rtol)}·|{of}| (relative)"


class Ledger:
    """Claims checked in one chapter.

    Parameters
    ----------
    chapter : str
        Chapter id, e.g. ``"03-pm-three-outputs"``; it names the ledger file and the page
        the verdicts table links to.
    refs : mapping, optional
        ``claim_id -> ref or list of refs``: where in the paper each claim comes from, for
        claims recorded without ``ref=``.
    kinds : mapping, optional
        ``claim_id -> kind`` (see :data:`KINDS`) for claims recorded without ``kind=``;
        the default kind is ``"substantive"``.
    reconstructed : mapping, optional
        ``claim_id -> how the reference value was rebuilt`` for claims whose "paper" value the
        paper's text does not print (the chapter package's ``items.RECONSTRUCTED``).
    """

    def __init__(self, chapter: str, refs: dict | None = None, kinds: dict | None = None,
                 reconstructed: dict | None = None):
        if not isinstance(chapter, str) or not chapter.strip():
            raise ValueError("chapter must be a non-empty string")
        self.chapter = chapter
        self._refs = dict(refs or {})
        self._kinds = dict(kinds or {})
        self._reconstructed = dict(reconstructed or {})
        self._claims: dict[str, Claim] = {}
        self._section = ""
        self._beside = None

    def section(self, label: str) -> None:
        """Make ``label`` (a MyST label of the chapter page, ``(label)=``) the section of the
        claims recorded from now on that pass no ``section`` of their own: the Verdicts page
        links each claim to the place that decided it."""
        if not isinstance(label, str) or not re.fullmatch(r"[A-Za-z0-9][\w.-]*", label):
            raise ValueError(f"section label must be a MyST label such as 'tldp-check-p', "
                             f"got {label!r}")
        self._section = label

    def __len__(self) -> int:
        return len(self._claims)

    def _kind(self, claim_id, kind) -> str:
        kind = self._kinds.get(claim_id, "substantive") if kind is None else kind
        if kind not in KINDS:
            raise ValueError(f"claim {claim_id!r}: kind must be one of {KINDS}, got {kind!r}")
        return kind

    def _ref(self, claim_id, ref) -> tuple:
        ref = self._refs.get(claim_id) if ref is None else ref
        refs = [ref] if isinstance(ref, str) else list(ref or [])
        if not refs:
            raise ValueError(f"claim {claim_id!r} names no place in the paper: pass "
                             "ref='Lemma 4' (or a list), or list it in the ledger's refs")
        return tuple(dict.fromkeys(normalise_ref(r) for r in refs))

    def _add(self, claim_id, statement, paper, ours, verdict, note, section, ref, kind,
             evidence=None) -> Claim:
        if not isinstance(claim_id, str) or not claim_id:
            raise ValueError("claim_id must be a non-empty string")
        if claim_id in self._claims:
            raise ValueError(f"claim {claim_id!r} is already recorded in {self.chapter}")
        if verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
        claim = Claim(self.chapter, claim_id, statement, _fmt(paper), _fmt(ours), verdict,
                      note, section or self._section, self._ref(claim_id, ref),
                      self._kind(claim_id, kind),
                      {k: _fmt(v) for k, v in (evidence or {}).items()},
                      self._reconstructed.get(claim_id, ""))
        self._claims[claim_id] = claim
        return claim

    def close(self, claim_id: str, statement: str, paper, ours, *, rtol: float = 0.0,
              atol: float = 0.0, note: str = "", section: str = "", ref=None, kind=None,
              labels=None) -> Claim:
        """Claim that ``ours`` equals the paper's value within ``atol + rtol*|paper|``.

        Arrays are compared entry by entry: all close gives ``holds``, some ``partly``,
        none ``fails``. ``labels`` (one per entry) name the entries where the table and the
        findings show them.
        """
        p = np.asarray(paper, float)
        o = np.asarray(ours, float)
        ok = np.abs(o - p) <= atol + rtol * np.abs(p)
        if not (rtol or atol):
            raise ValueError("give rtol or atol: an exact float comparison is not a check")
        tol = _tolerance(atol, rtol, "paper")
        if labels is not None:
            paper, ours = _labelled(p, labels), _labelled(o, labels)
        return self._add(claim_id, statement, paper, ours, _verdict(ok),
                         f"{note} ({tol})".strip(), section, ref, kind,
                         {"paper": p, "ours": o, "tolerance": tol})

    def bound(self, claim_id: str, statement: str, paper, ours, *, relation: str = "<=",
              slack: float = 0.0, note: str = "", section: str = "", ref=None, kind=None,
              labels=None) -> Claim:
        """Claim that ``ours <= paper + slack`` (or ``>=`` with ``relation='>='``): a
        :meth:`compare` of our value with the paper's bound. ``labels`` (one per entry of
        ``ours``) name its entries where the table and the findings show them."""
        if relation not in ("<=", ">="):
            raise ValueError("relation must be '<=' or '>='")
        return self.compare(claim_id, statement, ours, relation, paper, atol=slack,
                            names=("ours", "bound"), paper=f"{_SYMBOL[relation]} {_fmt(paper)}",
                            ours=_labelled(ours, labels), note=note, section=section, ref=ref,
                            kind=kind)

    def compare(self, claim_id: str, statement: str, left, relation: str, right, *,
                atol: float = 0.0, rtol: float = 0.0, names=("left", "right"), paper="",
                ours=None, note: str = "", section: str = "", ref=None,
                kind=None, guarantee: bool = False) -> Claim:
        """Claim that ``left <relation> right`` holds, entry by entry, for two computed
        quantities.

        Parameters
        ----------
        left, right : array_like
            The quantities compared (broadcast against each other), e.g. one mechanism's
            worst-case variance and the smallest of the others' on an ε grid.
        relation : {"<", "<=", ">", ">="}
        atol, rtol : float
            Tolerance in the claim's favour, ``atol + rtol·|right|`` (for float round-off
            in exact comparisons; a Monte Carlo comparison belongs in :meth:`difference`).
        names : pair of str
            What ``left`` and ``right`` are; they label the evidence kept in the ledger.
        guarantee : bool
            The claim is a guarantee for every entry (a privacy claim: "each mechanism spends at
            most its ε"): one false entry fails it, there is no ``partly``.

        Every entry true gives ``holds``, some ``partly``, none ``fails``. Without ``ours``
        the table shows how many entries hold and the worst margin.
        """
        ok = _holds(left, relation, right, atol, rtol)
        lhs, rhs = np.broadcast_arrays(np.asarray(left, float), np.asarray(right, float))
        with np.errstate(invalid="ignore"):     # inf against inf: no margin (nan)
            margin = (rhs - lhs) if relation in ("<", "<=") else (lhs - rhs)
        if ours is None:
            exact = bool(_holds(left, relation, right, 0.0, 0.0)) if ok.ndim == 0 else True
            ours = (_relation_text(_fmt(left), relation, _fmt(right), bool(ok), exact)
                    if ok.ndim == 0 else
                    f"{int(ok.sum())} of {ok.size} entries; smallest margin "
                    f"{_fmt(np.min(margin))}")
        tol = _tolerance(atol, rtol, names[1]) if (atol or rtol) else "exact"
        verdict = _verdict(ok) if not guarantee else "holds" if np.all(ok) else "fails"
        return self._add(claim_id, statement, paper, ours, verdict, note, section, ref,
                         kind, {names[0]: left, "relation": relation, names[1]: right,
                                "tolerance": tol})

    def condition(self, claim_id: str, statement: str, ok, *, evidence: dict, paper="",
                  ours=None, note: str = "", section: str = "", ref=None, kind=None) -> Claim:
        """Claim decided by a boolean (or boolean array) the chapter computed from
        ``evidence``.

        For a test that is not a single comparison (several conditions at once, a χ² p-value
        against a level, a sign pattern). ``ok`` must be the result of a numpy comparison
        (``np.bool_`` or a boolean array), not a Python ``True``/``False``; ``evidence`` maps
        a name to each quantity it was computed from (at least one number), and is kept in
        the ledger. A single comparison of two quantities is :meth:`compare`.
        """
        if isinstance(ok, bool) or not isinstance(ok, (np.ndarray, np.bool_)):
            raise TypeError("ok must be a numpy boolean (or boolean array) computed by a "
                            "comparison, not a typed True/False; a single comparison is "
                            "Ledger.compare")
        if ok.dtype != bool:
            raise TypeError("ok must be a boolean or a boolean array computed by a comparison")
        numbers = [v for v in (evidence or {}).values() if not isinstance(v, str)
                   and np.asarray(v).dtype.kind in "iuf"]
        if not numbers:
            raise ValueError(f"claim {claim_id!r}: give the evidence, the quantities ok was "
                             "computed from (a mapping with at least one number)")
        if ours is None:
            ours = "; ".join(f"{k} {_fmt(v)}" for k, v in evidence.items())
        return self._add(claim_id, statement, paper, ours, _verdict(ok), note, section, ref,
                         kind, evidence)

    def difference(self, claim_id: str, statement: str, diffs, *, test: str = "t",
                   level: float = 0.95, paper="", note: str = "", section: str = "",
                   ref=None, kind=None) -> Claim:
        """Claim that a difference between two methods is positive, judged against the spread
        of the runs.

        Parameters
        ----------
        diffs : array_like, shape (cells, runs) or (runs,)
            Per run, the difference in the claim's favour (e.g. the error of the method the
            paper says is worse minus the error of the one it says is better), one row per
            setting (data set, ε, ...).
        test : {"t", "sign"}
            One-sample t-test of the mean difference, or sign test of the median difference
            (for a claim about medians, or heavy-tailed errors).
        level : float
            Family-wise confidence: each cell's two-sided test is at ``1 - (1 - level) / cells``
            (Bonferroni), so that with no real difference anywhere the chance of deciding any
            cell is at most ``1 - level``.

        Each cell *holds* when the test puts the difference above 0, *fails* when below 0, and
        is *undecided* otherwise (the difference is within the run-to-run spread; with one run
        per cell every cell is undecided: there is no spread to judge against). The claim
        holds when every cell holds; when some cells fail it is ``partly`` if others hold and
        ``fails`` if none do; when none fails but some cannot be decided it is ``inconclusive``:
        the run cannot tell the methods apart there.
        """
        d = np.atleast_2d(np.asarray(diffs, float))
        if d.ndim != 2 or d.size == 0 or not np.all(np.isfinite(d)):
            raise ValueError("diffs must be finite, shape (cells, runs)")
        if not 0.5 < level < 1.0:
            raise ValueError(f"level must be in (0.5, 1), got {level!r}")
        if d.shape[1] < 2:  # one run per cell: no spread to judge the difference against
            sign = np.zeros(d.shape[0], int)
        else:
            sign = _cell_signs(d, test, (1.0 - level) / d.shape[0])
        how = (f"{test} tests over {d.shape[1]} runs, family-wise {level:.0%}" if d.shape[1] > 1
               else "one run per cell gives no spread to judge the difference against")
        n_hold, n_fail = int((sign > 0).sum()), int((sign < 0).sum())
        n_undecided = len(sign) - n_hold - n_fail
        if n_fail == 0:
            verdict = "holds" if n_undecided == 0 else "inconclusive"
        else:
            verdict = "partly" if n_hold else "fails"
        ours = (f"{n_hold} cells in favour, {n_fail} against, {n_undecided} within the spread "
                f"(of {len(sign)})")
        se = d.std(axis=1, ddof=1) / np.sqrt(d.shape[1]) if d.shape[1] > 1 else \
            np.full(d.shape[0], np.nan)
        evidence = {"mean difference per cell": d.mean(axis=1), "its standard error": se,
                    "runs": d.shape[1]}
        return self._add(claim_id, statement, paper, ours, verdict,
                         f"{note} ({how})".strip(), section, ref, kind, evidence)

    def not_checked(self, claim_id: str, statement: str, reason: str, *, paper="",
                    section: str = "", ref=None, kind=None) -> Claim:
        """A claim this run could not check (e.g. its data are not available offline)."""
        if not reason:
            raise ValueError("say why the claim is not checked")
        return self._add(claim_id, statement, paper, None, "not checked offline", reason,
                         section, ref, kind)

    def claims(self) -> list[Claim]:
        return list(self._claims.values())

    def table(self) -> pd.DataFrame:
        """The claims as a DataFrame (one row per claim)."""
        return _frame(self.claims())

    def beside(self, record) -> Ledger:
        """Show another run's verdicts in a last column of the table (``record``: see
        :func:`verdict_table_html`; None shows none); returns the ledger, to display."""
        if record is not None and not (hasattr(record, "verdicts") and hasattr(record, "head")):
            raise TypeError("record must have .verdicts and .head (a PaperRecord), or be None")
        self._beside = record
        return self

    def _repr_html_(self) -> str:
        """In a notebook, the ledger shows as the coloured verdicts table (no chapter column)."""
        return verdict_table_html(self.table(), chapter_column=False,
                                  beside=self._beside)

    def save(self, directory: str | os.PathLike | None = None) -> Path:
        """Write ``<chapter>.ledger.json`` to ``directory``.

        The default is ``$LDP_COMPANION_LEDGER_DIR`` if set (the book runner sets it to the
        folder of the executed notebook), else the working directory. The file is replaced
        whole (:func:`~ldp_companion.files.write_atomic`): a full disk leaves the earlier one.
        """
        folder = Path(directory or os.environ.get(LEDGER_DIR_ENV) or ".")
        folder.mkdir(parents=True, exist_ok=True)
        return write_atomic(folder / f"{self.chapter}{_SUFFIX}", json.dumps(
            [asdict(c) for c in self.claims()], indent=1, ensure_ascii=False))


def _cell_signs(d: np.ndarray, test: str, alpha: float) -> np.ndarray:
    """+1 / -1 / 0 per row of ``d``: the two-sided test at level ``alpha`` puts the mean
    (``"t"``) or median (``"sign"``) difference above 0, below 0, or cannot decide."""
    from scipy import stats

    if test == "t":
        mean, se = d.mean(axis=1), d.std(axis=1, ddof=1) / np.sqrt(d.shape[1])
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(se > 0, mean / se, np.sign(mean) * np.inf)
        crit = stats.t.isf(alpha / 2, d.shape[1] - 1)
        return np.where(t > crit, 1, np.where(t < -crit, -1, 0))
    if test == "sign":
        pos, neg = (d > 0).sum(axis=1), (d < 0).sum(axis=1)
        p = np.array([stats.binomtest(int(a), int(a + b)).pvalue if a + b else 1.0
                      for a, b in zip(pos, neg)])
        return np.where(p < alpha, np.sign(pos - neg), 0)
    raise ValueError(f"test must be 't' or 'sign', got {test!r}")


_SYMBOL = {"<": "<", "<=": "≤", ">": ">", ">=": "≥"}
_NEGATION = {"<": "≥", "<=": ">", ">": "≤", ">=": "<"}


def _relation_text(left: str, relation: str, right: str, ok: bool, exact: bool = True) -> str:
    """What a comparison found, read as a statement that is true: ``"0.5 ≤ 1"`` when it
    holds, ``"784 > 1, not ≤"`` when it does not (never the failed relation as if it held),
    and ``"1.02 ≤ 1 within the tolerance"`` when only the tolerance makes it hold."""
    if ok:
        return f"{left} {_SYMBOL[relation]} {right}" + ("" if exact else " within the tolerance")
    return f"{left} {_NEGATION[relation]} {right}, not {_SYMBOL[relation]}"


_RELATIONS = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def _holds(left, relation: str, right, atol: float, rtol: float) -> np.ndarray:
    """``left <relation> right`` with the tolerance ``atol + rtol·|right|`` in its favour."""
    if relation not in _RELATIONS:
        raise ValueError(f"relation must be one of {tuple(_RELATIONS)}, got {relation!r}")
    if atol < 0 or rtol < 0:
        raise ValueError("tolerances must be >= 0")
    lhs, rhs = np.asarray(left, float), np.asarray(right, float)
    if np.isnan(lhs).any() or np.isnan(rhs).any():
        raise ValueError("compared quantities must not be NaN")
    tol = atol + rtol * np.abs(np.where(np.isfinite(rhs), rhs, 0.0))
    shift = tol if relation in ("<", "<=") else -tol
    return _RELATIONS[relation](lhs, rhs + shift)


def _verdict(ok: np.ndarray) -> str:
    ok = np.asarray(ok, bool)
    if ok.all():
        return "holds"
    return "partly" if ok.any() else "fails"


def _frame(claims) -> pd.DataFrame:
    cols = [f for f in Claim.__dataclass_fields__]
    return pd.DataFrame([asdict(c) for c in claims], columns=cols)


def load_ledgers(directory: str | os.PathLike) -> pd.DataFrame:
    """Read every ``*.ledger.json`` in ``directory`` into one DataFrame, sorted by chapter."""
    claims = []
    for path in sorted(Path(directory).glob(f"*{_SUFFIX}")):
        claims.extend(_read_ledger(path))
    return _frame(claims)


def _read_ledger(path: Path) -> list[Claim]:
    """The claims of one ledger file; :class:`~ldp_companion.files.CorruptFile` naming it
    when it is not a ledger (truncated, garbage, rows that are not claims)."""
    rows = read_json(path, "ledger")
    try:
        return [Claim(**{**row, "ref": tuple(row.get("ref", ())),
                         "evidence": row.get("evidence", {}),
                         "reconstructed": row.get("reconstructed", "")}) for row in rows]
    except (TypeError, AttributeError) as err:
        raise CorruptFile(f"{path} is not a readable ledger ({one_line(err)}): delete it "
                          "or run its chapter again") from None


VERDICT_COLORS = {"holds": "#d4edda", "partly": "#fff3cd", "fails": "#f8d7da",
                  "inconclusive": "#d6eaf8", "not checked offline": "#e2e3e5"}


def section_problems(claims: pd.DataFrame, page_source: str) -> list[str]:
    """Claims whose ``section`` is empty or names no label ``(label)=`` of the chapter page
    ``page_source`` (its MyST text): such a claim's link on the Verdicts page would land on the
    page's top, or nowhere.

    Returns
    -------
    list of str
        One line per faulty claim; empty when every claim links to a section of its page.
    """
    labels = set(re.findall(r"^\(([^)\s]+)\)=\s*$", page_source, flags=re.M))
    out = []
    for c in claims.itertuples():
        if not c.section:
            out.append(f"{c.chapter}/{c.claim_id}: no section (call ledger.section(label))")
        elif c.section not in labels:
            out.append(f"{c.chapter}/{c.claim_id}: section {c.section!r} is not a label of "
                       f"the page")
    return out


def findings(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims grouped into distinct findings: one row per (chapter, kind, paper item), where the
    paper item is a claim's first ref. A theorem checked three ways is one finding; its verdict
    is the worst of its claims' (fails > partly > inconclusive > holds)."""
    order = {"fails": 0, "partly": 1, "inconclusive": 2, "holds": 3, "not checked offline": 4}
    rows = claims.assign(item=[r[0] if len(r) else "" for r in claims["ref"]],
                         rank=claims["verdict"].map(order))
    grouped = rows.sort_values("rank", kind="stable").groupby(["chapter", "kind", "item"],
                                                              sort=False)
    out = grouped.agg(verdict=("verdict", "first"), claims=("claim_id", list)).reset_index()
    return out.sort_values(["chapter", "kind", "item"], ignore_index=True)


#: How :func:`findings_markdown` names each kind of claim in its counts.
_KIND_NAMES = {"substantive": "on the paper's results", "erratum": "errata (the paper's text "
               "against its own results)", "beyond the paper": "beyond the paper"}


def _kind_counts(claims: pd.DataFrame) -> str:
    """The verdict counts of each kind of claim apart (an erratum failing is not a result
    failing): ``"on the paper's results 12 holds, 17 fails; errata (...) 3 fails"``."""
    parts = []
    for kind in KINDS:
        counts = claims.loc[claims["kind"] == kind, "verdict"].value_counts()
        if len(counts):
            parts.append(f"{_KIND_NAMES[kind]} " + ", ".join(
                f"{int(counts[v])} {v}" for v in VERDICTS if counts.get(v, 0)))
    return "; ".join(parts)


def findings_markdown(claims: pd.DataFrame) -> str:
    """What a chapter finds, in Markdown, from its verdicts alone: the counts (each kind of
    claim apart, :func:`_kind_counts`), then one line
    per substantive paper item that does not hold (its worst claim, what this run measured),
    then the items this run could not decide. Nothing in it is typed by hand, so it cannot
    say more than the verdicts do."""
    lines = [f"**{len(claims)} claims checked:** " + _kind_counts(claims) + "."]
    found = findings(claims[claims["kind"] == "substantive"])
    by_id = claims.set_index("claim_id")
    bad = found[found["verdict"].isin(["fails", "partly"])]
    if len(bad):
        lines.append("\nWhere the paper does not hold:\n")
    for row in bad.itertuples():
        worst = next(by_id.loc[c] for c in row.claims if by_id.loc[c, "verdict"] == row.verdict)
        paper = f"the paper: {worst['paper']}; " if worst["paper"] else ""
        lines.append(f"- **{row.item}** ({row.verdict}): {worst['statement']} — {paper}"
                     f"this run: {worst['ours']}")
    open_items = found[found["verdict"] == "inconclusive"]["item"].tolist()
    if open_items:
        lines.append("\nUndecided at this run's size (inside the seed spread): "
                     + ", ".join(open_items) + ".")
    return "\n".join(lines)


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


def verdict_changes(before: dict, after: dict) -> list[tuple[str, str, str]]:
    """``(claim, verdict before, verdict after)`` for every claim whose verdict differs between
    two runs' ``claim id -> verdict`` maps; a claim only one run has is ``"absent"`` in the
    other. In ``before``'s order, then the claims only ``after`` has."""
    ids = list(before) + [c for c in after if c not in before]
    return [(c, before.get(c, "absent"), after.get(c, "absent")) for c in ids
            if before.get(c) != after.get(c)]


def verdict_counts(claims: pd.DataFrame) -> pd.DataFrame:
    """Number of claims per chapter and verdict (one column per verdict, in order)."""
    counts = pd.crosstab(claims["chapter"], claims["verdict"])
    return counts.reindex(columns=list(VERDICTS), fill_value=0)


def _evidence_title(claim) -> str:
    """The evidence as a tooltip on the 'ours' cell (the table stays narrow)."""
    from html import escape

    ev = getattr(claim, "evidence", None) or {}
    text = "; ".join(f"{k}: {v}" for k, v in ev.items())
    return f' title="{escape(text)}"' if text else ""


def _reconstructed_tag(claim) -> str:
    """A link to the Reconstructions page under a value the paper's text does not print."""
    from html import escape

    how = getattr(claim, "reconstructed", "") or ""
    if not how:
        return ""
    return (f'<br><small><a href="reconstructions.html#{escape(claim.chapter)}" '
            f'title="{escape(how)}">reconstructed</a></small>')


def _beside_cell(beside, claim_id: str, verdict: str) -> str:
    """The cell of the other run's verdict and number; marked when it differs from ours."""
    from html import escape

    if claim_id not in beside.verdicts:
        return "<td><small>not in that run</small></td>"
    other, ours = beside.verdicts[claim_id]
    mark = (' <span class="ldp-changed" title="differs from this run">changed</span>'
            if other != verdict else "")
    return (f'<td style="background:{VERDICT_COLORS.get(other, "#ffffff")}"><b>'
            f"{escape(other)}</b>{mark}<br><small>{escape(ours)}</small></td>")


def verdict_table_html(claims: pd.DataFrame, chapter_column: bool = True,
                       beside=None) -> str:
    """One HTML table (chapter, claim, where in the paper, paper, ours, verdict), rows
    coloured by verdict.

    Each claim links to its section of the chapter page: ``<chapter>.html#<section>``. Inside a
    chapter (``chapter_column=False``) the chapter column is left out and the link stays on
    the page. ``beside``, a record of another run of the chapter (an object with ``verdicts``,
    ``claim id -> (verdict, number)``, and ``head``, the column's heading, such as
    :class:`~ldp_companion.execution.paper_scale.PaperRecord`), adds a last column with that
    run's verdict and number, marked "changed" where it differs.
    """
    from html import escape

    rows = []
    for c in claims.itertuples(index=False):
        page = f"{c.chapter}.html" if chapter_column else ""
        href = page + (f"#{c.section}" if c.section else "")
        claim = f"<b>{escape(c.claim_id)}</b><br>{escape(c.statement)}"
        first = (f'<td><a href="{escape(href)}">{escape(c.chapter)}</a></td>' if chapter_column
                 else "")
        if not chapter_column and c.section:
            claim = f'<a href="{escape(href)}"><b>{escape(c.claim_id)}</b></a><br>' \
                    f"{escape(c.statement)}"
        kind = "" if c.kind == "substantive" else f" <i>({escape(c.kind)})</i>"
        rows.append(
            f'<tr style="background:{VERDICT_COLORS[c.verdict]}">{first}'
            f"<td>{claim}</td><td>{escape('; '.join(c.ref))}</td>"
            f"<td>{escape(c.paper)}{_reconstructed_tag(c)}</td>"
            f"<td{_evidence_title(c)}>{escape(c.ours)}</td>"
            f"<td><b>{escape(c.verdict)}</b>{kind}<br><small>{escape(c.note)}</small></td>"
            + (_beside_cell(beside, c.claim_id, c.verdict) if beside is not None else "")
            + "</tr>")
    names = ("chapter",) * chapter_column + ("claim", "in the paper", "paper", "ours", "verdict")
    names += (escape(beside.head),) if beside is not None else ()
    head = "".join(f"<th>{h}</th>" for h in names)
    scope = "book-wide" if chapter_column else "in-chapter"
    return (f'<table class="ldp-verdicts {scope}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')
