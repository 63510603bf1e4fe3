"""``generate_package``: runs the writers of a synthetic package in order.

The package follows the real layout and irregularities at a chosen fraction of the size; one
IPC base tree per section feeds every group in one streaming pass, every count a correct
build must reproduce is tallied while writing, and the same arguments give byte-identical
files. How it hangs together: docs/synthetic-packages.md.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Final

from pmgs_testkit._output import Output
from pmgs_testkit.catalog import (
    CSV_COLUMNS,
    DATA_GROUPS,
    NOT_TRANSLATED,
    REAL_FILES,
    REAL_ROWS,
)
from pmgs_testkit.documents import DOCUMENT_GROUPS, DocumentWriter
from pmgs_testkit.expected import ExpectedCounts, GeneratedPackage
from pmgs_testkit.plan import Plan
from pmgs_testkit.tree import iter_tree
from pmgs_testkit.writers._context import Context
from pmgs_testkit.writers.classification import write_classification
from pmgs_testkit.writers.copyright import write_copyright
from pmgs_testkit.writers.fi_codes import write_facets
from pmgs_testkit.writers.fterm import write_fterms
from pmgs_testkit.writers.fterm_theme import write_themes
from pmgs_testkit.writers.judge import write_judge

__all__ = [
    "CSV_COLUMNS",
    "DATA_GROUPS",
    "NOT_TRANSLATED",
    "REAL_FILES",
    "REAL_ROWS",
    "ExpectedCounts",
    "GeneratedPackage",
    "generate_package",
    "write_compact_package",
]

_RELEASE_RE: Final = re.compile(r"JPPM[0-9]+")
_MAX_INDEXING_SHARE: Final = 0.2


def generate_package(
    parent_dir: Path,
    *,
    scale: float = 0.001,
    seed: int = 0,
    release: str = "JPPM2026002",
    reference_date: date = date(2026, 3, 31),
    with_quirks: bool = True,
    with_documents: bool = False,
    ipc_indexing_share: float = 0.0,
) -> GeneratedPackage:
    """Write a synthetic PMGS package to ``parent_dir/<release>/`` and describe it.

    ``scale`` is the fraction of the real release's rows (1.0 ≈ the real sizes, see
    :data:`REAL_ROWS`); small scales keep minimum sizes so that every feature and quirk is
    present (8 themes, one theme ``4C083`` with more than 200 F-term rows, every section,
    2 of each irregularity). ``with_quirks=False`` leaves out the irregularities that cause
    warnings or need repair (unquoted commas, ja/en depth and theme sequence differences), so a
    build of it must report zero warnings. The reference date appears as ``_YYYYMMDD`` in every
    CSV name and bounds the IPC validity windows; it must be in 2012 or later.

    ``with_documents=True`` also writes the XML, HTML and PDF groups (:data:`DOCUMENT_GROUPS`,
    see :mod:`pmgs_testkit.documents`); it is off by default so that packages (and every
    CSV byte of them) stay what they were before those groups existed. Switching it on changes
    no CSV byte either.

    ``ipc_indexing_share`` (0 to 0.2) makes that share of the IPC 4-7 rows indexing codes
    written with ``:`` (``A61K 103:    00``), one block at the end of each subclass (see
    :mod:`pmgs_testkit.writers.ipc_indexing`); 0, the default, writes none and leaves
    every byte as before. The real editions hold a few percent.
    """
    if not 0 < scale <= 2:
        raise ValueError(f"scale must be in (0, 2], got {scale}")
    if not _RELEASE_RE.fullmatch(release):
        raise ValueError(f"release must be JPPM followed by digits, got {release!r}")
    if not 0 <= ipc_indexing_share <= _MAX_INDEXING_SHARE:
        raise ValueError(f"ipc_indexing_share must be in [0, 0.2], got {ipc_indexing_share}")
    if reference_date.year < 2012:
        raise ValueError("reference_date must be 2012-01-01 or later (IPC validity windows)")
    root = Path(parent_dir) / release
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty")
    root.mkdir(parents=True, exist_ok=True)
    plan = Plan.make(
        scale,
        seed,
        with_quirks,
        reference_date,
        with_documents=with_documents,
        ipc_indexing_share=ipc_indexing_share,
    )
    return _write_package(root, plan)


def write_compact_package(
    parent_dir: Path, *, seed: int = 0, with_documents: bool = False
) -> GeneratedPackage:
    """The smallest package that still has every group, forced example and quirk.

    Used once to produce the embedded sample (``pmgs_build.sample``): the same writer with
    lower minimum sizes (4 codes per IPC section, 4 themes, a 24-row "large" theme), so the
    sample stays a few hundred kilobytes at most while showing everything. With documents: one
    small XML per subclass (3 ``infor`` each), 1 IPC_KAISEI and 1 + 1 ADD_CODE HTML files, and
    only the two forced PDFs (``G06F.pdf``, ``G06F___3-048.pdf``).
    """
    root = Path(parent_dir) / "JPPM2026002"
    if root.exists() and any(root.iterdir()):
        raise FileExistsError(f"{root} exists and is not empty")
    root.mkdir(parents=True, exist_ok=True)
    plan = Plan.make(
        0.00001, seed, True, date(2026, 3, 31), compact=True, with_documents=with_documents
    )
    return _write_package(root, plan)


def _write_package(root: Path, plan: Plan) -> GeneratedPackage:
    """Run every group's writer in the fixed order the bytes depend on; describe the result."""
    ctx = Context(root, plan)
    if plan.with_documents:
        ctx.docs = _document_writer(ctx.out, plan)
    write_themes(ctx)
    write_fterms(ctx)
    write_classification(ctx)
    write_facets(ctx)
    write_judge(ctx)
    write_copyright(ctx)
    docs = ctx.docs
    if docs is not None:
        # The document groups that need the whole pass; their tallies are folded in.
        docs.finish()
        add_code = ctx.out.files["FTERM/ADD_CODE"] + ctx.out.files["FTERM/ADD_CODE_E"]
        ctx.add_documents(docs.counts(), add_code, docs.examples)
    groups = DATA_GROUPS if docs is None else (*DATA_GROUPS, *DOCUMENT_GROUPS)
    return GeneratedPackage(
        path=root,
        release=root.name,
        reference_date=plan.reference_date,
        scale=plan.scale,
        seed=plan.seed,
        with_quirks=plan.with_quirks,
        files={g: ctx.out.files[g] for g in groups},
        rows={g: ctx.out.rows[g] for g in groups},
        expected=ctx.expected(None if docs is None else docs.counts()),
        examples=dict(sorted(ctx.examples.items())),
        bom_files=tuple(sorted(ctx.out.bom_files)),
    )


def _document_writer(out: Output, plan: Plan) -> DocumentWriter:
    """The document writer of a plan; it needs two facts about the trees up front.

    The CP932 file is ``B60T.xml`` when section B has B60T (as in the real release), else the
    first subclass of section B: finding out costs one extra walk of section B's tree, which
    is cheap (no rows are written) and keeps the choice independent of writing order.
    """
    b_subclasses = [b.code.canonical for b in iter_tree(plan, "B") if b.code.kind == "subclass"]
    cp932 = "B60T" if "B60T" in b_subclasses else b_subclasses[0]
    return DocumentWriter(out, plan, cp932_subclass=cp932)
