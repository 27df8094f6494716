"""tools/typecheck.py: which mypy errors are new against the baseline."""

from __future__ import annotations

from collections import Counter

from tools.typecheck import compare, parse_errors

OUTPUT = """\
build/typecheck/kgroup/cli/app.py:85: error: Cannot infer type of lambda  [misc]
build/typecheck/kgroup/cli/app.py:90: note: See https://mypy.rtfd.io
build/typecheck/kgroup/cli/app.py:120: error: Cannot infer type of lambda  [misc]
build/typecheck/kgroup/assignors/base.py:7: error: Unused "type: ignore" comment  [unused-ignore]
Found 3 errors in 2 files (checked 160 source files)
"""


def test_errors_are_keyed_by_source_path_without_the_line() -> None:
    assert parse_errors(OUTPUT) == [
        ("cli/app.py:85: Cannot infer type of lambda  [misc]", "cli/app.py: Cannot infer type of lambda  [misc]"),
        ("cli/app.py:120: Cannot infer type of lambda  [misc]", "cli/app.py: Cannot infer type of lambda  [misc]"),
        (
            'assignors/base.py:7: Unused "type: ignore" comment  [unused-ignore]',
            'assignors/base.py: Unused "type: ignore" comment  [unused-ignore]',
        ),
    ]


def test_a_baseline_entry_allows_one_occurrence_and_moved_lines_stay_allowed() -> None:
    errors = parse_errors(OUTPUT)
    baseline = Counter(
        {
            "cli/app.py: Cannot infer type of lambda  [misc]": 1,
            'assignors/base.py: Unused "type: ignore" comment  [unused-ignore]': 1,
            "cli/gone.py: fixed since  [misc]": 1,
        }
    )
    new, gone = compare(errors, baseline)
    assert new == ["cli/app.py:120: Cannot infer type of lambda  [misc]"]
    assert gone == ["cli/gone.py: fixed since  [misc]"]


def test_no_errors_and_no_baseline_is_clean() -> None:
    assert compare(parse_errors("Success: no issues found in 160 source files\n"), Counter()) == ([], [])
