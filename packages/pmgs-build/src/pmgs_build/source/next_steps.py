"""The next step a refusal of the source gives (issue 43: "every refusal of the source names
the member or path, says why, and gives a next step that works").

The checks that refuse a source are spread over the container, the ZIP checks and the walk of
the release; their messages say what and why. The step a user can take is the same for every
issue of one code, so it is written once here and added where the errors leave the source
stage (:func:`pmgs_build.source.container.open_package` and the inventory), unless the
message already carries its own (the archive refusals and the release finder's).
"""

from __future__ import annotations

import dataclasses
from typing import Final

from pmgs_build.build_issues import BuildError, IssueCode

__all__ = ["NEXT_STEPS", "with_next_steps"]

NEXT_STEPS: Final[dict[str, str]] = {
    IssueCode.SOURCE_NOT_DIRECTORY: "give the JPPM… release folder or the ZIP as downloaded",
    IssueCode.SOURCE_SYMLINK: "replace the link by a copy of what it points to, or give a "
    "copy of the folder made without links (cp -rL FOLDER COPY; Explorer's copy and paste)",
    IssueCode.SOURCE_NOT_REGULAR_FILE: "move it out of the folder and run setup again",
    IssueCode.SOURCE_UNREADABLE: "make it readable by you (permissions; a disk or share "
    "still attached) and run setup again",
    IssueCode.ZIP_INVALID: "the archive is damaged, incomplete or encrypted (an interrupted "
    "download?): download the package again from the JPO, or unpack it with a tool that "
    "reads it and give the folder",
    IssueCode.ZIP_MEMBER_UNSAFE: "this archive is not as the JPO ships it and is not read; "
    "download the package again from the JPO",
    IssueCode.ZIP_TOO_LARGE: "the archive declares far more than a PMGS package holds; "
    "download the package again from the JPO",
    IssueCode.ZIP_LAYOUT_INVALID: "two files would have one path once unpacked; remove or "
    "rename the one that is not the package's and give the folder (or zip it again)",
}
"""The step added to each refusal of these codes."""

_MARK: Final = "Next step: "


def with_next_steps(error: BuildError) -> BuildError:
    """``error`` with the next step of its code added to each issue that has none."""
    issues = tuple(
        dataclasses.replace(issue, message=f"{issue.message}. {_MARK}{NEXT_STEPS[issue.code]}")
        if issue.code in NEXT_STEPS and _MARK not in issue.message
        else issue
        for issue in error.issues
    )
    if issues == error.issues:
        return error
    return BuildError(issues)
