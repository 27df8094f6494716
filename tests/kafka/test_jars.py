"""tests/kafka/jars.py: the one environment every JVM of the rig starts with."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.kafka import jars

TESTS = Path(__file__).resolve().parents[1]


def test_java_env_keeps_the_environment_but_the_settings_a_jvm_or_kafka_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        "KAFKA_OPTS",
        "KAFKA_HEAP_OPTS",
    ):
        monkeypatch.setenv(name, "-Dleaked=1")
    monkeypatch.setenv("JAVA_HOME", "/opt/jdk")
    env = jars.java_env()
    assert not {k for k in env if "OPTS" in k or "OPTIONS" in k or k == "CLASSPATH"}
    assert env["JAVA_HOME"] == "/opt/jdk" and "PATH" in env


def test_every_jvm_the_tests_start_takes_java_env() -> None:
    """The broker, the oracle sidecar and the Java consumers once each filtered the environment their own way."""
    for path in (TESTS / "kafka" / "broker.py", TESTS / "oracle" / "sidecar.py", TESTS / "live" / "java_consumers.py"):
        tree = ast.parse(path.read_text())
        assert not [n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and "java_env" in n.name], path
        for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
            first = call.args[0] if call.args else None
            if (
                isinstance(first, ast.List)
                and first.elts
                and isinstance(first.elts[0], ast.Constant)
                and first.elts[0].value in ("java", "javac")
            ):
                env = next((k.value for k in call.keywords if k.arg == "env"), None)
                assert isinstance(env, ast.Call) and ast.unparse(env.func) == "jars.java_env", (path, call.lineno)
