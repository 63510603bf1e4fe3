"""``JUDGE``: the judgement categories, one small file."""

from __future__ import annotations

from pmgs_testkit.catalog import REAL_ROWS
from pmgs_testkit.plan import scaled
from pmgs_testkit.writers._context import Context

__all__ = ["write_judge"]


def write_judge(ctx: Context) -> None:
    """The categories ``01``… (at least 4), one document of one segment each."""
    count = scaled(REAL_ROWS["JUDGE"], ctx.plan.scale, 4)
    with ctx.out.open("JUDGE", f"judge_{ctx.plan.date_token}.csv") as judge:
        for key in range(1, count + 1):
            ja, _ = ctx.maker.title()
            judge.row([f"{key:02d}", f"判定区分{key:02d}：{ja}"])
            ctx.segments["judge"] += 1
    ctx.documents["judge"] = 1
