"""tools/check_docs.py: what counts as documented, what resolves, and that the check passes on this tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools import check_docs
from tools.check_docs import Reference, dangling, links_in, references_in, undocumented


def test_an_option_is_documented_by_any_of_its_names_as_a_whole_word() -> None:
    surface = [
        ("kgroup groups", []),
        ("kgroup groups", ["--output", "-o"]),
        ("kgroup groups", ["--regex", "-r"]),
        ("kgroup groups", ["--state"]),
    ]
    docs = "kgroup groups -o json\nkgroup groups --state-file X\nfrom-rack\n"
    assert undocumented(surface, docs) == ["kgroup groups --regex", "kgroup groups --state"]


def test_a_command_is_documented_when_the_docs_name_its_whole_path() -> None:
    surface = [("kgroup", []), ("kgroup offsets", []), ("kgroup offsets reset", []), ("kgroup offsets delete", [])]
    assert undocumented(surface, "`kgroup offsets reset GROUP`") == ["kgroup offsets delete"]


def test_references_are_found_with_their_section_numbers() -> None:
    text = "# see lag.md §7.1 and broker.md 2, docs/fixtures.md, inspectors/live/admin.py (coordinator.md)"
    found = [(r.target, r.section) for r in references_in(text, "x.py")]
    assert found == [
        ("lag.md", "7.1"),
        ("broker.md", "2"),
        ("docs/fixtures.md", None),
        ("coordinator.md", None),
        ("inspectors/live/admin.py", None),
    ]


def test_a_version_or_a_plain_number_after_a_name_is_not_a_section() -> None:
    refs = list(references_in("lag.md 2026-11 run; README.md: 3 lines; lag.md §7.1. Then 6.1", "x.py"))
    assert [(r.target, r.section) for r in refs] == [("lag.md", None), ("README.md", None), ("lag.md", "7.1")]


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_what_resolves_and_what_dangles(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "README.md": "See docs/guide.md and docs/gone.md.\n",
            "pyproject.toml": "",
            "docs/guide.md": "# Guide\n## 2. Numbers\n### 2.1 More\n",
            "cli/a.py": '"""guide.md §2.1 holds; guide.md §3 does not; tests/b.py is missing; cli/a.py is here."""\n',
            "tests/c.py": "# coordinator.md §9 and ../spec/oracle.md live in shared/spec; lag.md does too\n",
        },
    )
    spec, broken = dangling(root)
    assert sorted(r.key() for r in broken) == [
        "README.md: docs/gone.md",
        "cli/a.py: guide.md §3",
        "cli/a.py: tests/b.py",
    ]
    assert sorted(r.key() for r in spec) == [
        "tests/c.py: ../spec/oracle.md",
        "tests/c.py: coordinator.md §9",
        "tests/c.py: lag.md",
    ]


def test_a_spec_name_that_the_repo_has_resolves_unless_the_section_is_only_in_the_spec(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "README.md": "",
            "pyproject.toml": "",
            "docs/lag.md": "# Lag\n## Output\n",
            "cli/a.py": "# docs/lag.md and lag.md resolve; lag.md §7 is the spec's\n",
        },
    )
    spec, broken = dangling(root)
    assert broken == [] and [r.key() for r in spec] == ["cli/a.py: lag.md §7"]


def test_a_reference_resolves_from_the_citing_files_folder(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "README.md": "",
            "pyproject.toml": "",
            "tests/data/README.md": "x",
            "tests/cases.py": "# data/README.md says how\n",
        },
    )
    assert dangling(root) == ([], [])


def test_every_reference_and_link_in_this_tree_resolves_in_the_repo() -> None:
    spec, broken = dangling()
    assert [r.key() for r in spec] == [] and [r.key() for r in broken if r.key() not in check_docs.KNOWN_DANGLING] == []


def test_a_section_sign_without_a_document_names_nothing() -> None:
    refs = [(r.target, r.section) for r in references_in("as lag.md §7 says, then (§5.8) and §2", "x.py")]
    assert refs == [("lag.md", "7"), ("§", "5.8"), ("§", "2")]


def test_a_file_beside_the_repo_does_not_resolve(tmp_path: Path) -> None:
    _tree(tmp_path, {"shared/spec/coordinator.md": "# Spec\n## 9. Schema\n"})
    root = _tree(
        tmp_path / "repo",
        {"README.md": "", "pyproject.toml": "", "cli/a.py": "# ../shared/spec/coordinator.md and (§9)\n"},
    )
    spec, broken = dangling(root)
    assert [r.key() for r in spec] == ["cli/a.py: ../shared/spec/coordinator.md"]
    assert [(r.target, r.section) for r in broken] == [("§", "9")]


def test_markdown_links_resolve_from_the_linking_files_folder(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "README.md": "[lag](docs/lag.md) [gone](docs/gone.md) [web](https://kafka.apache.org) [top](#top)\n",
            "pyproject.toml": "",
            "docs/lag.md": "# Lag\n",
            "docs/commands.md": "[lag](lag.md#output), [wrong](docs/lag.md), ![x](../README.md)\n"
            "```\n[in code](nowhere/page)\n```\n[out](../../outside.md)\n",
        },
    )
    _, broken = dangling(root)  # docs/gone.md is a dangling path as well as a broken link
    assert sorted({r.key() for r in broken}) == [
        "README.md: docs/gone.md",
        "docs/commands.md: ../../outside.md",
        "docs/commands.md: docs/lag.md",
    ]


def test_links_are_read_without_their_anchor_and_outside_fenced_code() -> None:
    text = '[a](x.md#part) [b](mailto:me@example.com)\n~~~\n[c](y.md)\n~~~\n[d](z.md "title")\n'
    assert [(r.target, r.line) for r in links_in(text, "docs/a.md")] == [("x.md", 1), ("z.md", 5)]


def test_yaml_is_scanned_and_another_repositorys_path_at_a_tag_is_left_alone(tmp_path: Path) -> None:
    root = _tree(
        tmp_path,
        {
            "README.md": "",
            "pyproject.toml": "",
            "tests/data/cases.yaml": "# schema: coordinator.md §9\nalso: [docs/implementation.html@0.9.0.0]\n",
        },
    )
    spec, broken = dangling(root)
    assert [r.key() for r in spec] == ["tests/data/cases.yaml: coordinator.md §9"] and broken == []


def test_an_undocumented_option_fails_the_check_and_a_fixed_known_gap_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    surface = [("kgroup lag", []), ("kgroup lag", ["--fresh"]), ("kgroup lag", ["--listed"])]
    monkeypatch.setattr(check_docs, "cli_surface", lambda: surface)
    monkeypatch.setattr(check_docs, "documentation_text", lambda: "kgroup lag --listed")
    monkeypatch.setattr(check_docs, "KNOWN_UNDOCUMENTED", frozenset({"kgroup lag --listed"}))
    monkeypatch.setattr(check_docs, "dangling", lambda: ([], []))
    monkeypatch.setattr(check_docs, "KNOWN_DANGLING", frozenset())
    assert check_docs.main([]) == 1
    out = capsys.readouterr().out
    assert "undocumented: kgroup lag --fresh" in out
    assert "drop it from KNOWN_UNDOCUMENTED in tools/check_docs.py: kgroup lag --listed" in out


def test_a_spec_reference_fails_the_check_by_default_and_each_offender_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(check_docs, "cli_surface", list)
    monkeypatch.setattr(check_docs, "KNOWN_UNDOCUMENTED", frozenset())
    monkeypatch.setattr(check_docs, "KNOWN_DANGLING", frozenset())
    monkeypatch.setattr(check_docs, "dangling", lambda: ([], []))
    assert check_docs.main([]) == 0
    spec = [Reference("a.py", 3, "coordinator.md", "9"), Reference("c.py", 7, "lag.md", "7.1")]
    monkeypatch.setattr(check_docs, "dangling", lambda: (spec, [Reference("d.py", 2, "§", "5.8")]))
    assert check_docs.main([]) == 1
    assert check_docs.main(["--strict"]) == 1  # the old flag is still accepted
    out = capsys.readouterr().out
    assert "a.py:3: coordinator.md §9 is in shared/spec, outside the repo" in out
    assert "c.py:7: lag.md §7.1 is in shared/spec" in out
    assert "d.py:2: §5.8 names no document" in out
    monkeypatch.setattr(check_docs, "dangling", lambda: ([], [Reference("b.py", 1, "docs/gone.md", None)]))
    assert check_docs.main([]) == 1
    assert "b.py:1: docs/gone.md does not resolve in the repo" in capsys.readouterr().out


def test_references_type() -> None:
    assert Reference("a.py", 1, "lag.md", "7").key() == "a.py: lag.md §7"
    assert Reference("a.py", 1, "§", "5.8").key() == "a.py: §5.8"
