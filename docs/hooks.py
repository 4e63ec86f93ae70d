"""The documentation site's hook (mkdocs.yml `hooks:`): the pages in docs/ link to files of
the repository outside docs/ (the results tables, the record schema, the shipped models'
README) by their paths in the repository, so that the links work where the markdown is
read (a checkout, GitHub). The site holds those files too: `on_files` adds each linked
file (and what the added pages link to in turn) at its repository path, a page the nav
leaves out, and `on_page_markdown` points the links at them. A link to a folder points
at its README.md. A link that leaves the repository or names a missing file stays as it
is, so that `mkdocs build --strict` reports it."""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from mkdocs.structure.files import File, Files, InclusionLevel

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
# a markdown link's or image's target: ](target) or ](target "title"), not a URL or anchor
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)((?:\s+\"[^\"]*\")?)\)")


def _outside_target(page: Path, target: str) -> Path | None:
    """The repository file outside docs/ that `target` (a link in the file `page`) names,
    a folder's README.md for a folder; None for anything else."""
    path = (page.parent / target.split("#")[0]).resolve()
    if path.is_dir():
        path = path / "README.md"
    inside_repo = path.is_relative_to(ROOT) and not path.is_relative_to(DOCS)
    return path if inside_repo and path.is_file() else None


def _site_path(path: Path) -> str:
    """Where a file of the repository (`path`) lives in the site: docs/ is the site's
    root, any other file keeps its repository path."""
    return (
        path.relative_to(DOCS).as_posix()
        if path.is_relative_to(DOCS)
        else path.relative_to(ROOT).as_posix()
    )


def on_files(files: Files, config) -> Files:
    """Add the repository files the pages link to, following the added pages' links."""
    todo = [DOCS / f.src_uri for f in files if f.src_uri.endswith(".md")]
    added: set[Path] = set()
    while todo:
        page = todo.pop()
        for target, _ in LINK.findall(page.read_text(encoding="utf-8")):
            path = _outside_target(page, target)
            if path is None or path in added:
                continue
            added.add(path)
            files.append(
                File(
                    _site_path(path),
                    src_dir=str(ROOT),
                    dest_dir=config["site_dir"],
                    use_directory_urls=config["use_directory_urls"],
                    inclusion=InclusionLevel.NOT_IN_NAV,
                )
            )
            if path.suffix == ".md":
                todo.append(path)
    return files


def on_page_markdown(markdown: str, page, config, files: Files) -> str:
    """Point the page's links to repository files at their copies in the site."""
    source = Path(page.file.abs_src_path)
    here = PurePosixPath(page.file.src_uri).parent

    def relink(match: re.Match) -> str:
        target, title = match.groups()
        path = _outside_target(source, target)
        if path is None:
            return match.group(0)
        anchor = target[len(target.split("#")[0]) :]
        new = _relative(PurePosixPath(_site_path(path)), here)
        return f"]({new}{anchor}{title})"

    return LINK.sub(relink, markdown)


def _relative(target: PurePosixPath, folder: PurePosixPath) -> str:
    """`target` (a site path) relative to the site folder `folder`."""
    common = 0
    while (
        common < min(len(target.parts), len(folder.parts))
        and target.parts[common] == folder.parts[common]
    ):
        common += 1
    ups = [".."] * (len(folder.parts) - common)
    return "/".join([*ups, *target.parts[common:]])
