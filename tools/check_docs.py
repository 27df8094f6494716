"""The docs check: every command and option is documented, and every reference and link resolves in the repo.

1. Commands and options. It walks the real click tree behind `kgroup` (every command, every subcommand) and
   looks for each in README.md and docs/*.md: a command as `kgroup PATH`, an option by any of its names as a
   whole word (`--output` or `-o`). Typer's own completion options are left out.
2. References. It reads the Python sources, the Markdown docs, the YAML files and pyproject.toml for names of
   `.md` files, with a section number where one follows (`lag.md §7.1`, `broker.md 2`), and for paths into the
   tree (`inspectors/live/admin.py`). A path resolves from the repo root or from the citing file's folder; a
   bare `.md` name resolves to any file of that name in the repo; a section resolves to a heading that starts
   with that number. Nothing outside the repo counts: a clone has only the repo. A `§` with no document
   before it names nothing and does not resolve either.
3. Links. Every relative Markdown link (`[text](docs/lag.md)`, `[text](lag.md#output)`) in README.md and the
   other Markdown files names a file or folder of the repo, from the linking file's folder.

Everything that does not resolve fails the check, with its file and line. References into the design specs
that lived beside the repo (shared/spec: coordinator.md, broker.md, numbered sections of lag.md and the rest)
are named as such: cite the Kafka class, KIP or JIRA the rule rests on, or a doc of the repo, instead. The
few gaps listed below predate the check: drop a line once its gap is fixed (the check says which).

    python -m tools.check_docs            # the check (`--strict` is accepted: it is the default now)
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

# The design documents that live in shared/spec, outside the repo.
SPEC_DOCUMENTS = frozenset(
    {"assignors.md", "broker.md", "cli-and-style.md", "coordinator.md", "kafka-rig.md", "lag.md", "oracle.md"}
)
# Documents of other projects, cited by name (librdkafka's CONFIGURATION.md).
EXTERNAL_DOCUMENTS = frozenset({"CONFIGURATION.md"})

# Gaps the check found on its first run; document or fix one, then drop its line.
KNOWN_UNDOCUMENTED: frozenset[str] = frozenset()
KNOWN_DANGLING: frozenset[str] = frozenset()

# Options typer adds to every app for shell completion; `--help` lists them, no doc needs to.
_TYPER_OWN = frozenset({"--help", "-h", "--install-completion", "--show-completion"})

_TOP_FOLDERS = ("assignors", "inspectors", "cli", "fixtures", "tests", "bench", "docs", "tools", ".ci")
# A .md name, optionally after a path, optionally followed by a section number: `lag.md §7.1`, `broker.md 2`.
_MD_REFERENCE = re.compile(
    r"(?<![\w./-])(?P<path>(?:[\w.-]+/)*[\w.-]+\.md)(?:#[\w-]*)?"
    r"(?:,?\s?(?:§\s?|section\s)?(?P<section>\d+(?:\.\d+)*)(?!\.?\d|[\w-]))?"
)
# A path into the tree: starts with a top-level folder, ends with a file extension; `path@tag` is another
# repository's file at a tag (the conformance data cite apache/kafka's `docs/implementation.html@0.9.0.0`).
_TREE_PATH = re.compile(
    r"(?<![\w./-])(?P<path>(?:"
    + "|".join(re.escape(f) for f in _TOP_FOLDERS)
    + r")/[\w./-]*\w\.(?:py|toml|yaml|yml|json|jsonl|txt|java|html))(?![\w/@-])"
)
_HEADING_NUMBER = re.compile(r"^#+\s+§?\s?(\d+(?:\.\d+)*)\b", re.M)
# A section sign with its number: outside an `_MD_REFERENCE` it names no document.
_BARE_SECTION = re.compile(r"§\s?(?P<section>\d+(?:\.\d+)*)?")
# A Markdown link or image: `[text](target)` or `[text](target "title")`.
_MD_LINK = re.compile(r"!?\[[^\]]*\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
_EXTERNAL_LINK = re.compile(r"^(?:[a-z][a-z0-9+.-]*:|#)", re.I)  # https:, mailto:, an anchor in the same page
_SCANNED_SUFFIXES = (".py", ".md", ".yaml", ".yml")


@dataclass(frozen=True)
class Reference:
    source: str  # the citing file, relative to the repo root
    line: int
    target: str  # as written: `lag.md`, `docs/lag.md`, `inspectors/live/admin.py`
    section: str | None

    def key(self) -> str:
        if self.target == "§":  # a section sign with no document before it
            return f"{self.source}: §{self.section or ''}"
        return f"{self.source}: {self.target}" + (f" §{self.section}" if self.section else "")


# --- 1. commands and options -------------------------------------------------------------------------------


def _walk(command: Any, path: list[str]) -> Iterator[tuple[list[str], Any]]:
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _walk(sub, [*path, name])


def cli_surface() -> list[tuple[str, list[str]]]:
    """(command path, the names of each option) for the root and every command, as `kgroup` builds them."""
    import typer

    from kgroup.cli.app import COMMANDS, app, load_command

    commands: list[tuple[list[str], Any]] = [([], typer.main.get_command(app))]
    for name in COMMANDS:
        commands += list(_walk(load_command(name), [name]))
    surface: list[tuple[str, list[str]]] = []
    for path, command in commands:
        surface.append((" ".join(["kgroup", *path]), []))
        for param in getattr(command, "params", []):
            if param.param_type_name != "option" or getattr(param, "hidden", False):
                continue
            names = [name for name in param.opts if name not in _TYPER_OWN]  # `--no-x` goes with `--x`
            if names:
                surface.append((" ".join(["kgroup", *path]), names))
    return surface


def undocumented(surface: Iterable[tuple[str, list[str]]], docs: str) -> list[str]:
    """`kgroup PATH` for each command the docs never name, `kgroup PATH --option` for each option."""
    missing = []
    for command, names in surface:
        if not names:
            if command != "kgroup" and command not in docs:
                missing.append(command)
        elif not any(re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", docs) for name in names):
            long_names = [name for name in names if name.startswith("--")] or names
            missing.append(f"{command} {long_names[0]}")
    return sorted(set(missing))


def documentation_text(root: Path = ROOT) -> str:
    return "\n".join(path.read_text() for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))])


# --- 2. references -----------------------------------------------------------------------------------------


def scanned_files(root: Path = ROOT) -> list[Path]:
    files = [root / "README.md", root / "pyproject.toml", *sorted(root.glob("*.md"))]
    for folder in _TOP_FOLDERS:
        if (root / folder).is_dir():
            files += [p for p in (root / folder).rglob("*") if p.suffix in _SCANNED_SUFFIXES and p.is_file()]
    skip = {"build", ".venv", "__pycache__", "node_modules"}
    # This file and its tests cite made-up references as examples. The vendored conformance cases are a copy of
    # the shared set, kept byte for byte (their own README, ours, is checked).
    examples = {Path(__file__).resolve(), ROOT / "tests" / "tools"}
    files = [p for p in files if p.parent != root / "tests" / "conformance" / "data" or p.suffix == ".md"]
    return sorted(
        {
            p
            for p in files
            if p.exists()
            and not examples & {p.resolve(), *p.resolve().parents}
            and not skip & set(p.relative_to(root).parts)
        }
    )


def references_in(text: str, source: str) -> Iterator[Reference]:
    for number, line in enumerate(text.splitlines(), 1):
        cited: list[tuple[int, int]] = []
        for match in _MD_REFERENCE.finditer(line):
            cited.append(match.span())
            yield Reference(source, number, match["path"], match["section"])
        for match in _TREE_PATH.finditer(line):
            yield Reference(source, number, match["path"], None)
        for match in _BARE_SECTION.finditer(line):
            if not any(start <= match.start() < end for start, end in cited):
                yield Reference(source, number, "§", match["section"])


def links_in(text: str, source: str) -> Iterator[Reference]:
    """The relative links of a Markdown text, outside fenced code, without their `#anchor`."""
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in _MD_LINK.finditer(line):
            target = match["target"].split("#", 1)[0].split("?", 1)[0]
            if target and not _EXTERNAL_LINK.match(match["target"]):
                yield Reference(source, number, target, None)


def _md_files(root: Path) -> dict[str, list[Path]]:
    by_name: dict[str, list[Path]] = {}
    for path in root.rglob("*.md"):
        if not {"build", ".venv", "node_modules"} & set(path.relative_to(root).parts):
            by_name.setdefault(path.name, []).append(path)
    return by_name


def _inside(path: Path, root: Path) -> bool:
    return path.resolve().is_relative_to(root.resolve())


def resolve(reference: Reference, root: Path, md_files: dict[str, list[Path]]) -> Path | None:
    """The file the reference names, or None when there is none in the repo (or it has no such numbered
    section). A file beside the repo (../shared/spec/…) is not in a clone, so it does not count."""
    target = reference.target
    if target == "§":
        return None
    if "/" in target:
        candidates = [root / target, (root / reference.source).parent / target]
    else:
        candidates = [(root / reference.source).parent / target, *md_files.get(target, [])]
    for candidate in candidates:
        if candidate.is_file() and _inside(candidate, root):
            if reference.section is None:
                return candidate
            numbers = _HEADING_NUMBER.findall(candidate.read_text())
            if any(n == reference.section or reference.section.startswith(n + ".") for n in numbers):
                return candidate
    return None


def is_spec_reference(reference: Reference) -> bool:
    name = reference.target.rsplit("/", 1)[-1]
    return name in SPEC_DOCUMENTS and ("/" not in reference.target or "spec/" in reference.target)


def link_resolves(link: Reference, root: Path) -> bool:
    """A relative Markdown link names a file or folder of the repo, from the linking file's folder."""
    base = root if link.target.startswith("/") else (root / link.source).parent
    target = base / link.target.lstrip("/")
    return target.exists() and _inside(target, root)


def dangling(root: Path = ROOT) -> tuple[list[Reference], list[Reference]]:
    """(references into shared/spec, every other reference or Markdown link that does not resolve)."""
    md_files = _md_files(root)
    spec: list[Reference] = []
    broken: list[Reference] = []
    for path in scanned_files(root):
        source = path.relative_to(root).as_posix()
        text = path.read_text(errors="replace")
        for reference in references_in(text, source):
            if reference.target.rsplit("/", 1)[-1] in EXTERNAL_DOCUMENTS:
                continue
            if resolve(reference, root, md_files) is None:
                (spec if is_spec_reference(reference) else broken).append(reference)
        if path.suffix == ".md":
            broken += [link for link in links_in(text, source) if not link_resolves(link, root)]
    return spec, broken


def _where(reference: Reference) -> str:
    """`file:line: target §section`, as an editor jumps to it."""
    return f"{reference.source}:{reference.line}: " + reference.key().split(": ", 1)[1]


# --- the check ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strict", action="store_true", help="accepted for old scripts: the check is strict")
    parser.parse_args(argv)
    problems, notes = [], []

    missing = undocumented(cli_surface(), documentation_text())
    problems += [
        f"undocumented: {item} (add it to README.md or docs/)" for item in missing if item not in KNOWN_UNDOCUMENTED
    ]
    # A fixed gap is said, not failed: several people document at once, and the list is trimmed after.
    notes += [
        f"documented now, drop it from KNOWN_UNDOCUMENTED in tools/check_docs.py: {item}"
        for item in sorted(KNOWN_UNDOCUMENTED - set(missing))
    ]

    spec, broken = dangling()
    broken_keys = {reference.key() for reference in broken}
    problems += [
        f"{_where(r)} is in shared/spec, outside the repo (cite Kafka's class, KIP or JIRA, or a doc of the repo)"
        for r in spec
    ]
    problems += [
        f"{_where(r)} " + ("names no document" if r.target == "§" else "does not resolve in the repo")
        for r in broken
        if r.key() not in KNOWN_DANGLING
    ]
    notes += [
        f"resolves now, drop it from KNOWN_DANGLING in tools/check_docs.py: {key}"
        for key in sorted(KNOWN_DANGLING - broken_keys)
    ]

    for line in notes + problems:
        print(line)
    print(
        f"docs: {len(missing)} undocumented options ({len(KNOWN_UNDOCUMENTED & set(missing))} known gaps), "
        f"{len(broken)} broken references and links ({len(KNOWN_DANGLING & broken_keys)} known), "
        f"{len(spec)} references into shared/spec"
    )
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
