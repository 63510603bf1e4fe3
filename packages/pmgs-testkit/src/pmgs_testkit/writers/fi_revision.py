"""``FI/FI_KAISEI_DOC``: Shift_JIS revision XML, one per FI subclass, and one stylesheet.

One file holds CP932-only characters, so a strict Shift_JIS parse of it fails and decoding as
CP932 succeeds. Some ``<FI>`` codes exist only here (deleted codes: reference-only), some
``<trans>`` are non-empty ("amended to" edges).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from html import escape
from typing import Final

from pmgs_core import ClassificationCode
from pmgs_testkit._output import LINE_END, Output
from pmgs_testkit.plan import Plan
from pmgs_testkit.tree import as_fi
from pmgs_testkit.vocabulary import SYNTHETIC_MARK_JA, TextMaker

__all__ = ["CP932_ONLY_TEXT", "FI_REVISION_STYLESHEET", "FiRevisions"]

FI_REVISION_STYLESHEET: Final = "FI_KAISEI.xsl"
"""Name of the one stylesheet of ``FI/FI_KAISEI_DOC`` (our guess; retained, never parsed)."""

CP932_ONLY_TEXT: Final = "髙①型㈱方式Ⅲ"
"""Characters that CP932 (Windows-31J) has and strict Shift_JIS (JIS X 0208) has not:
an IBM extension kanji, NEC special characters (circled digit, ㈱, Roman numeral)."""

_FORCED_REVISED_FI: Final = "G06F3/048"
_HISTORICAL_DEV_BASE: Final = 800
"""Deleted FI codes get development codes 800-999, which the FI table never uses (its
development codes are 101-730), so they can never collide with a current code."""
_STYLESHEET: Final = (
    '<?xml version="1.0" encoding="Shift_JIS"?>',
    '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">',
    '<xsl:template match="/data">',
    '<html><body><h1>FI改正情報 <xsl:value-of select="@trg"/></h1>',
    '<table border="1"><xsl:for-each select="infor"><tr>',
    '<td><xsl:value-of select="FI"/></td><td><xsl:value-of select="FI/@attr"/></td>',
    '<td><xsl:value-of select="title"/></td><td><xsl:value-of select="trans"/></td>',
    '<td><xsl:value-of select="date"/></td>',
    "</tr></xsl:for-each></table></body></html>",
    "</xsl:template>",
    "</xsl:stylesheet>",
)

_Entry = tuple[str, ClassificationCode, ClassificationCode | None]
"""(attr, code, amended-to target) of one ``infor`` element."""


class FiRevisions:
    """The revision XML of a package and its tallies."""

    def __init__(
        self,
        out: Output,
        plan: Plan,
        examples: dict[str, str],
        *,
        infor_mean: float,
        cp932_subclass: str,
    ) -> None:
        self._out = out
        self._plan = plan
        self._last_year = plan.reference_date.year - 1
        self._infor_mean = infor_mean
        self._cp932_subclass = cp932_subclass
        self._examples = examples
        self.files = 0
        self.entries = 0
        self.amended_to = 0
        self.cp932_files = 0
        self.historical: set[str] = set()

    def _entries(
        self,
        rng: random.Random,
        fi_codes: Sequence[ClassificationCode],
        links: Sequence[ClassificationCode],
    ) -> list[_Entry]:
        """Links and the forced code changed, about a fifth deleted, the rest changed or new."""
        groups = [c for c in fi_codes if c.development_code is None and c.file_symbol is None]
        count = 3 if self._plan.compact else max(4, round(self._infor_mean * rng.uniform(0.5, 1.5)))
        count = max(count, len(links) + 2)
        entries: list[_Entry] = [("chg", link, None) for link in links]
        entries.extend(("chg", c, None) for c in fi_codes if c.canonical == _FORCED_REVISED_FI)
        for index in range(max(1, round(count * 0.2)) if groups else 0):
            dev = _HISTORICAL_DEV_BASE + index // len(groups)
            if dev > 999:
                break
            old = as_fi(groups[index % len(groups)], f"{dev:03d}")
            target = None
            if fi_codes and (index == 0 or rng.random() < 0.6):
                target = fi_codes[int(rng.random() * len(fi_codes))]
            entries.append(("del", old, target))
        while len(entries) < count and fi_codes:
            code = fi_codes[int(rng.random() * len(fi_codes))]
            entries.append(("chg" if rng.random() < 0.8 else "new", code, None))
        return entries

    def subclass(
        self,
        subclass: ClassificationCode,
        fi_codes: Sequence[ClassificationCode],
        links: Sequence[ClassificationCode],
    ) -> None:
        """Write ``FI/FI_KAISEI_DOC/<subclass>.xml`` for the FI codes of one subclass.

        Every code of ``links`` (the subclass's ``FI_KAISEI_LINK`` rows) gets a ``chg`` entry,
        so the links always point at a document that mentions their code.
        """
        name = subclass.canonical
        rng = self._plan.rng(f"kaisei:{name}")
        maker = TextMaker(rng)
        examples = self._examples
        dated = [
            (f"{rng.randint(2010, self._last_year)}{rng.choice(('01', '04', '07', '10'))}01", e)
            for e in self._entries(rng, fi_codes, links)
        ]
        dated.sort(key=lambda item: item[0])
        cp932 = name == self._cp932_subclass
        lines = [
            '<?xml version="1.0" encoding="Shift_JIS"?>',
            f'<?xml-stylesheet type="text/xsl" href="{FI_REVISION_STYLESHEET}"?>',
            f'<data trg="{name}">',
        ]
        for position, (day, (attr, code, target)) in enumerate(dated):
            title, _ = maker.title()
            other, _ = maker.title()
            if cp932 and position == 0:
                # Both titles, so the characters are there whatever the entry's attr drops.
                title = other = f"{SYNTHETIC_MARK_JA}{CP932_ONLY_TEXT}の電池"
                examples["cp932_text"] = other
            old_title = "" if attr == "new" else title
            new_title = "" if attr == "del" else other
            trans = target.canonical if target is not None else ""
            lines += [
                "<infor>",
                f'<FI attr="{attr}">{code.canonical}</FI>',
                f"<title>{escape(new_title or old_title)}</title>",
                f"<oldtitle>{escape(old_title)}</oldtitle>",
                f"<newtitle>{escape(new_title)}</newtitle>",
                f"<trans>{trans}</trans>",
                f"<date>{day}</date>",
                "</infor>",
            ]
            self.entries += 1
            if attr == "del":
                self.historical.add(code.canonical)
                examples.setdefault("fi_revision_historical_code", code.canonical)
            if trans:
                self.amended_to += 1
                if "fi_revision_amended_from" not in examples:
                    examples["fi_revision_amended_from"] = code.canonical
                    examples["fi_revision_amended_to"] = trans
        lines.append("</data>")
        data = (LINE_END.join(lines) + LINE_END).encode("cp932" if cp932 else "shift_jis")
        self._out.write_bytes("FI/FI_KAISEI_DOC", f"{name}.xml", data, rows=len(dated))
        self.files += 1
        if cp932:
            self.cp932_files += 1
            examples["cp932_xml"] = f"FI/FI_KAISEI_DOC/{name}.xml"
        if name == "G06F" or "fi_revision_document" not in examples:
            examples["fi_revision_document"] = f"fi_revision:{name}"
            examples["fi_revision_file"] = f"FI/FI_KAISEI_DOC/{name}.xml"

    def stylesheet(self) -> None:
        """The one ``.xsl`` of the group: retained by the builder, never parsed."""
        text = LINE_END.join(_STYLESHEET) + LINE_END
        self._out.write_bytes(
            "FI/FI_KAISEI_DOC", FI_REVISION_STYLESHEET, text.encode("shift_jis"), 0
        )
