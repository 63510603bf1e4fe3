"""What every group writer shares: the output directory, the plan, the text maker, the tallies."""

from __future__ import annotations

from pathlib import Path

from pmgs_testkit._output import Output
from pmgs_testkit.documents import DocumentWriter
from pmgs_testkit.expected import Tally
from pmgs_testkit.plan import Plan
from pmgs_testkit.vocabulary import TextMaker

__all__ = ["Context"]


class Context(Tally):
    """One package being written: a :class:`Tally` that also knows where and what to write.

    The text maker is one stream shared by all CSV writers (the order in which the groups are
    written is part of what makes the bytes reproducible); ``docs`` is the XML/HTML/PDF
    writer, or ``None`` when the package is written without documents.
    """

    def __init__(self, root: Path, plan: Plan) -> None:
        super().__init__()
        self.plan = plan
        self.out = Output(root, plan.seed)
        self.maker = TextMaker(plan.rng("text"))
        self.docs: DocumentWriter | None = None
