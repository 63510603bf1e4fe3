"""The issue codes of the package as it was handed over: where the release is, the folder or
archive it came in, how the archive's names and the files' text were written.

They are a base of :class:`pmgs_build.build_issues.IssueCode` (one namespace for callers),
kept here so that each module stays one capability. Codes never change meaning; each
constant says when it is raised (docs/pmgs-source-format.md lists them by outcome).
"""

from __future__ import annotations

from typing import Final

__all__ = ["HandoverCodes"]


class HandoverCodes:
    """Codes of the source's container, names and text conventions (ADRs 0006, 0019, 0032)."""

    # -- the source directory and the release -------------------------------------------------
    SOURCE_NOT_DIRECTORY: Final = "SOURCE_NOT_DIRECTORY"
    """Error: the source is not an existing directory."""
    SOURCE_SYMLINK: Final = "SOURCE_SYMLINK"
    """Error: the package contains a symbolic link; links could point outside the package,
    whose manifest would then not describe what was read, so none is followed."""
    SOURCE_NOT_REGULAR_FILE: Final = "SOURCE_NOT_REGULAR_FILE"
    """Error: an entry that is neither a directory nor a regular file (FIFO, socket, device)."""
    SOURCE_UNREADABLE: Final = "SOURCE_UNREADABLE"
    """Error: a file or directory of the package could not be read (permissions, I/O)."""
    RELEASE_ID_INVALID: Final = "RELEASE_ID_INVALID"
    """Error: the release id (its folder's name or ``release=``) is not ``JPPM`` + digits, or
    the release has no folder (its files at the top of a ZIP) and no ``release=`` names it."""
    RELEASE_FOLDER_NOT_FOUND: Final = "RELEASE_FOLDER_NOT_FOUND"
    """Error: no folder at the top of the source or up to two levels down holds a data group
    folder; the message lists what was looked for and what the top two levels hold."""
    RELEASE_FOLDER_AMBIGUOUS: Final = "RELEASE_FOLDER_AMBIGUOUS"
    """Error: two folders at the same depth of the source each hold a release."""
    SOURCE_IGNORED: Final = "SOURCE_IGNORED"
    """Warning: a file or folder left beside the release or by an operating system (``__MACOSX``,
    ``._*``, ``.DS_Store``, ``Thumbs.db``, ``desktop.ini``, ``~$*``, read-me notes) not read."""
    REFERENCE_DATE_MISSING: Final = "REFERENCE_DATE_MISSING"
    """Error: no classification CSV name carries a ``_YYYYMMDD`` date."""
    REFERENCE_DATE_AMBIGUOUS: Final = "REFERENCE_DATE_AMBIGUOUS"
    """Error: the classification CSV names carry more than one date."""
    REFERENCE_DATE_INVALID: Final = "REFERENCE_DATE_INVALID"
    """Error: a ``_YYYYMMDD`` in a classification CSV name is not a calendar date."""
    UNKNOWN_DATA_GROUP: Final = "UNKNOWN_DATA_GROUP"
    """Warning: a file outside every known data group; kept in the manifest, not parsed."""
    UNEXPECTED_FILE: Final = "UNEXPECTED_FILE"
    """Warning: a file of a parsed group that is not of the group's format (a non-CSV file in
    a CSV directory); kept in the manifest as ``retained``, not parsed."""
    DATA_GROUP_MISSING: Final = "DATA_GROUP_MISSING"
    """Warning: a CSV data group of the package format has no file at all."""

    FORMAT_NOT_RECOGNISED: Final = "FORMAT_NOT_RECOGNISED"
    """Error: a data group's quarantined records exceed the error budget (by default 1 % of
    its records, and always more than 2), or the whole build quarantined more than
    :data:`QUARANTINE_HARD_LIMIT` records: the package is not in a format pmgs knows, and a
    database built from what was left would be misleading. The message names the group, the
    share, the reason codes, the ``quarantine_budget`` that would let it build, and a sample."""

    # -- the ZIP as downloaded ---------------------------------------------------------------
    ZIP_INVALID: Final = "ZIP_INVALID"
    """Error: the source file is not a readable ZIP archive (bad central directory, CRC
    mismatch, unsupported compression, encrypted member)."""
    ZIP_MEMBER_UNSAFE: Final = "ZIP_MEMBER_UNSAFE"
    """Error: a member name that could leave the package or harm where it is extracted
    (absolute, drive letter, ``..``, NUL, a Windows device name such as ``CON`` or ``LPT1``)
    or a symbolic-link member; nothing of the archive is read. The name is checked as
    decoded (CP932 or UTF-8, backslashes as separators; ADR 0032), never as raw bytes."""
    ZIP_TOO_LARGE: Final = "ZIP_TOO_LARGE"
    """Error: the archive's members exceed the documented bounds (total uncompressed size,
    member count, or compression ratio of one member): a zip bomb is refused unread."""
    ZIP_LAYOUT_INVALID: Final = "ZIP_LAYOUT_INVALID"
    """Error: two members have the same path, also when the names differ only in case or
    Unicode normalisation (one would replace the other on a case-insensitive or normalising
    file system), or a path is both a file and a directory."""

    # -- archives inside the source (ADR 0032) ---------------------------------------------
    SOURCE_ARCHIVE_UNSUPPORTED: Final = "SOURCE_ARCHIVE_UNSUPPORTED"
    """Error: the source, or a file inside the release (or anywhere in a source where no
    release is found), is a tar, gzip, bzip2, xz, 7-Zip, RAR or LHA archive. pmgs reads
    folders and ZIPs in place and nothing else; the message gives the ``tar -xf`` (or
    ``7z x``) command that unpacks it and the ``pmgs setup`` to run next."""
    SOURCE_ARCHIVE_NESTED: Final = "SOURCE_ARCHIVE_NESTED"
    """Error: a ZIP inside the source holds another archive (two levels of archive); one
    level is read in place, the message says which ZIP to unpack first."""

    # -- text conventions of other platforms, read (ADR 0032) ------------------------------
    CSV_EOF_MARKER: Final = "CSV_EOF_MARKER"
    """Warning (once per file): the CSV (or the COPYRGHT text) ends in 0x1A bytes, the
    end-of-file mark of DOS-era tools; they are not data (no record can hold them) and are
    left out."""
    CSV_NUL_PADDING: Final = "CSV_NUL_PADDING"
    """Warning (once per file): the CSV (or the COPYRGHT text) ends in NUL bytes, padding to
    a block size left by copy and transfer tools; left out like the end-of-file mark."""
    CSV_LINE_ENDS_MIXED: Final = "CSV_LINE_ENDS_MIXED"
    """Warning (once per file): its records end in more than one of CRLF, LF and CR (a file
    edited on two platforms); each is read as a line end, the message counts them."""
    CSV_STRAY_BOM: Final = "CSV_STRAY_BOM"
    """Warning (once per file): a byte-order mark (U+FEFF) at the start of a record beyond
    the one a UTF-8 file may begin with (files joined with a BOM each, or two tools that
    each added one); it is not part of the record's first cell and is removed."""
