"""CI-native renderings of a `kgroup check` gate: a JUnit XML report and GitHub Actions annotations."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from kgroup.inspectors.simulation.gate import Case, Gate


def case_name(case: Case) -> str:
    """`shop.yaml shop (cooperative-sticky, planned)`: the file, the group and what was judged."""
    what = case.assignor + (", planned" if case.planned else "")
    return f"{case.source} {case.group_id} ({what})"


def failure_lines(gate: Gate) -> list[str]:
    """One physical line per failed check, naming the file, the group and the numbers."""
    return [
        f"check failed: {case_name(case)}: {r.name}: expected {r.expected}, actual {r.actual}"
        for case in gate.cases
        for r in case.results
        if not r.ok
    ]


def junit_xml(gate: Gate) -> str:
    """One <testsuite> per case, one <testcase> per check; a failed check carries a <failure>."""
    suites = ET.Element(
        "testsuites",
        name="kgroup check",
        tests=str(sum(len(c.results) for c in gate.cases)),
        failures=str(sum(1 for c in gate.cases for r in c.results if not r.ok)),
    )
    for case in gate.cases:
        failed = [r for r in case.results if not r.ok]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=case_name(case),
            tests=str(len(case.results)),
            failures=str(len(failed)),
            errors="0",
            skipped="0",
        )
        for result in case.results:
            testcase = ET.SubElement(
                suite,
                "testcase",
                name=result.name,
                classname=f"{case.source}:{case.group_id}:{case.assignor}",
                file=case.source,
            )
            if case.line is not None:
                testcase.set("line", str(case.line))
            if not result.ok:
                failure = ET.SubElement(
                    testcase, "failure", type=result.name, message=f"expected {result.expected}, actual {result.actual}"
                )
                failure.text = f"{case_name(case)}: {result.name}: expected {result.expected}, actual {result.actual}"
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _data(text: str) -> str:
    # GitHub's workflow-command escaping (toolkit's escapeData / escapeProperty).
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def annotations(gate: Gate) -> list[str]:
    """`::error file=…,line=…,title=…::…` per failed check, which Actions shows on the file's line."""
    lines = []
    for case in gate.cases:
        for r in case.results:
            if r.ok:
                continue
            props = [f"file={_property(case.source)}"]
            if case.line is not None:
                props.append(f"line={case.line}")
            props.append(f"title={_property(f'kgroup check {r.name} ({case.group_id}, {case.assignor})')}")
            lines.append(
                f"::error {','.join(props)}::{_data(f'{case_name(case)}: {r.name}: expected {r.expected}, actual {r.actual}')}"
            )
    return lines
