"""Apache Kafka with its classic new-member JoinGroup timeout read from a system property, for replays scaled to
seconds.

Kafka fixes that timeout at 5 minutes (`GroupCoordinatorConfig.CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS`); the
coordinator reads it only through `GroupCoordinatorConfig.classicGroupNewMemberJoinTimeoutMs()`, in
`GroupMetadataManager.addMemberThenRebalanceOrCompleteJoin`. This module compiles the release's own
`GroupCoordinatorConfig.java` (its sources jar, from Maven Central) with that accessor alone changed to read
`PROPERTY`, Kafka's constant its default, against the release's jars. First on a broker's classpath
(`Node.classpath_prefix`), the class replaces Kafka's and nothing else runs differently.

    python -m tests.kafka.new_member_timeout [RELEASE]
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from tests.kafka import jars

PROPERTY = "kgroup.classicGroupNewMemberJoinTimeoutMs"
_SOURCE = "org/apache/kafka/coordinator/group/GroupCoordinatorConfig.java"
_ACCESSOR = "return CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS;"
_PATCHED = f'return Integer.getInteger("{PROPERTY}", CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS);'


def java_option(timeout_ms: int) -> str:
    return f"-D{PROPERTY}={timeout_ms}"


def classes(release: str | None = None) -> Path:
    """The folder holding the patched `GroupCoordinatorConfig` class of `release`, built when not cached yet."""
    release = release or jars.version()
    out = jars.cache_root() / release / "new-member-timeout"
    if (out / "READY").exists():
        return out
    jars.fetch(release)
    with tempfile.TemporaryDirectory(dir=out.parent) as work:
        folder = Path(work)
        _run(
            "Maven could not fetch the group coordinator's sources",
            "mvn",
            "-B",
            "-q",
            "dependency:copy",
            f"-Dartifact=org.apache.kafka:kafka-group-coordinator:{release}:jar:sources",
            f"-DoutputDirectory={folder}",
        )
        with zipfile.ZipFile(folder / f"kafka-group-coordinator-{release}-sources.jar") as sources:
            text = sources.read(_SOURCE).decode()
        if text.count(_ACCESSOR) != 1:
            raise RuntimeError(f"Kafka {release}'s {_SOURCE} no longer returns the timeout as `{_ACCESSOR}`")
        source = folder / "src" / _SOURCE
        source.parent.mkdir(parents=True)
        source.write_text(text.replace(_ACCESSOR, _PATCHED))
        staging = folder / "classes"
        _run(
            "javac could not compile the patched GroupCoordinatorConfig",
            "javac",
            "-nowarn",
            "-proc:none",
            "-cp",
            jars.classpath(release),
            "-d",
            str(staging),
            str(source),
        )
        (staging / "READY").write_text(release + "\n")
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    return out


def _run(what: str, *command: str) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, env=jars.java_env())
    if result.returncode != 0:
        raise RuntimeError(f"{what}: {(result.stdout + result.stderr).strip()[-2000:]}")


if __name__ == "__main__":
    print(classes(sys.argv[1] if len(sys.argv) > 1 else None))
