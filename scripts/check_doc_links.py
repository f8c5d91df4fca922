"""Report broken relative links and anchors in the workspace's markdown (``docs/**/*.md``,
``*.md`` at the top and ``packages/*/README.md`` by default).

A link ``[text](target)`` or ``[text](target#anchor)`` whose target is not a URL must name a file
or folder that exists, relative to the page; an anchor must be a heading of the page it points
to, slugged as GitHub does (lower case, punctuation but ``-`` and ``_`` dropped, spaces to ``-``,
``-1``, ``-2`` for repeats). Links inside fenced code blocks and inline code are not read. Exit 1
when any link is broken, one line each: ``page:line: target (why)``.

    uv run python scripts/check_doc_links.py
    uv run python scripts/check_doc_links.py docs/migration.md
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LINK = re.compile(r"(?<!\!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s{0,3}(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
ANCHOR_TAG = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


def default_pages(root: Path) -> list[Path]:
    pages = sorted(root.glob("*.md")) + sorted((root / "docs").rglob("*.md"))
    pages += sorted(root.glob("packages/*/README.md"))
    return pages


def _lines(page: Path) -> Iterable[tuple[int, str]]:
    """(number, line) of a page outside fenced code blocks."""
    fence = ""
    for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
        match = FENCE.match(line)
        if match:
            if not fence:
                fence = match.group(1)
            elif match.group(1) == fence:
                fence = ""
            continue
        if not fence:
            yield number, line


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = re.sub(r"<[^>]+>", "", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """Every anchor a page offers: its headings' slugs (with repeats numbered) and <a name>."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in _lines(page):
        found.update(ANCHOR_TAG.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> Iterable[tuple[int, str]]:
    """(line, target) of every link and image of a page, outside code."""
    for number, line in _lines(page):
        text = INLINE_CODE.sub("", line)
        for pattern in (LINK, IMAGE, REFERENCE):
            for match in pattern.finditer(text):
                yield number, match.group(1)


def broken(page: Path, root: Path) -> list[str]:
    """One line per broken link of a page."""
    problems: list[str] = []
    for number, target in links(page):
        if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
            continue  # a URL (http:, mailto:, ...) is not checked: no network
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        where = f"{page.relative_to(root)}:{number}: {target}"
        if not dest.exists():
            problems.append(f"{where} (no such file)")
            continue
        if anchor and dest.is_file() and dest.suffix == ".md" and anchor not in anchors(dest):
            problems.append(f"{where} (no heading #{anchor})")
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    pages = [Path(arg).resolve() for arg in args] if args else default_pages(ROOT)
    root = ROOT if all(p.is_relative_to(ROOT) for p in pages) else Path("/")
    problems = [line for page in pages for line in broken(page, root)]
    for line in problems:
        print(line)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
