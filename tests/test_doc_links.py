"""Every relative link and anchor in the workspace's markdown resolves
(scripts/check_doc_links.py); and the check finds each kind of broken link."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from conftest import RunScript


def test_every_relative_link_of_the_docs_resolves(run_script: RunScript) -> None:
    result = run_script("check_doc_links.py")
    assert (result.returncode, result.stdout) == (0, ""), result.stdout + result.stderr


def test_the_check_finds_a_missing_file_and_a_missing_heading(
    tmp_path: Path, run_script: RunScript
) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## 4. Launching, again\n")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n## Same heading\n\n## Same heading\n\n"
        "[ok](other.md#4-launching-again) [ok](#same-heading-1) [ok](#page) [web](https://x.y/z)\n"
        "[gone](missing.md) [bad anchor](other.md#launching)\n"
        "`[in code](nowhere.md)`\n\n```\n[in a fence](nowhere.md)\n```\n"
    )
    result = run_script("check_doc_links.py", str(page), str(tmp_path / "other.md"))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout
    assert lines[0].endswith("page.md:8: missing.md (no such file)")
    assert lines[1].endswith("page.md:8: other.md#launching (no heading #launching)")
