"""Apache Kafka with its classic new-member JoinGroup timeout read from a system property, for replays scaled to
seconds.

Kafka fixes that timeout at 5 minutes (`GroupCoordinatorConfig.CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS`); the
coordinator reads it only through `GroupCoordinatorConfig.classicGroupNewMemberJoinTimeoutMs()`, in
`GroupMetadataManager.addMemberThenRebalanceOrCompleteJoin`. This module rewrites that one method of the release's
own compiled class (from its kafka-group-coordinator jar) to read `PROPERTY`, Kafka's constant its default
(java/PatchNewMemberTimeout.java, with the JDK's own copy of ASM): every other byte of the class stays the
release's. First on a broker's classpath (`Node.classpath_prefix`), the class replaces Kafka's and nothing else
runs differently. It works from the binary jar alone: Maven Central serves no sources jar for some releases
(4.3.2 and 4.4.0 here), which an earlier version of this module compiled the class from.

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
_CLASS = "org/apache/kafka/coordinator/group/GroupCoordinatorConfig.class"
_PATCHER = Path(__file__).parent / "java" / "PatchNewMemberTimeout.java"
_ASM = ("--add-exports", "java.base/jdk.internal.org.objectweb.asm=ALL-UNNAMED")


def java_option(timeout_ms: int) -> str:
    return f"-D{PROPERTY}={timeout_ms}"


def classes(release: str | None = None) -> Path:
    """The folder holding the patched `GroupCoordinatorConfig` class of `release`, built when not cached yet."""
    release = release or jars.version()
    out = jars.cache_root() / release / "new-member-timeout"
    if (out / "READY").exists():
        return out
    lib = jars.fetch(release)
    with tempfile.TemporaryDirectory(dir=out.parent) as work:
        folder = Path(work)
        with zipfile.ZipFile(lib / f"kafka-group-coordinator-{release}.jar") as jar:
            (folder / "Original.class").write_bytes(jar.read(_CLASS))
        _run("javac could not compile the patcher", "javac", *_ASM, "-d", str(folder), str(_PATCHER))
        staging = folder / "classes"
        patched = staging / _CLASS
        patched.parent.mkdir(parents=True)
        _run(
            f"Kafka {release}'s GroupCoordinatorConfig could not be patched",
            "java",
            *_ASM,
            "-cp",
            str(folder),
            "PatchNewMemberTimeout",
            str(folder / "Original.class"),
            str(patched),
            PROPERTY,
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
