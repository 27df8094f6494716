"""Apache Kafka's jars from Maven Central, fetched once into a cache (never a release tarball).

One folder per release holds `kafka_2.13` and its runtime dependencies (broker, clients, group coordinator,
raft, storage, ...) plus `slf4j-simple`, the SLF4J 1.x binding that lets the broker's log be read
(kafka_2.13's POM declares only `slf4j-api`). Maven resolves them through a throwaway `pom` project, as
`mvn dependency:copy-dependencies` does for any Java build; the folder is complete once `READY` exists.

    python -m tests.kafka.jars            # fetch the pinned release (or $KGROUP_KAFKA_VERSION)
    python -m tests.kafka.jars 4.0.0      # another release

`KGROUP_KAFKA_VERSION` picks the release the live tests run against (default: `PINNED`);
`KGROUP_KAFKA_CACHE` moves the cache (default: ~/.cache/kgroup/kafka).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# 4.2 is the first release with share groups production-ready (KIP-932) and KIP-848 GA since 4.0.
PINNED = "4.2.1"
SLF4J_BINDING = ("org.slf4j", "slf4j-simple", "1.7.36")

_POM = """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kgroup.tests</groupId><artifactId>kafka-jars</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>{version}</version></dependency>
    <dependency><groupId>{0}</groupId><artifactId>{1}</artifactId><version>{2}</version></dependency>
  </dependencies>
</project>
"""


def version() -> str:
    return os.environ.get("KGROUP_KAFKA_VERSION") or PINNED


def cache_root() -> Path:
    override = os.environ.get("KGROUP_KAFKA_CACHE")
    return Path(override) if override else Path.home() / ".cache" / "kgroup" / "kafka"


def lib_dir(release: str | None = None) -> Path:
    return cache_root() / (release or version()) / "lib"


def missing_tools() -> list[str]:
    """What this machine lacks to run Kafka from jars: java, javac (the Java test drivers) and mvn."""
    return [tool for tool in ("java", "javac", "mvn") if shutil.which(tool) is None]


def cached(release: str | None = None) -> Path | None:
    lib = lib_dir(release)
    return lib if (lib / "READY").exists() else None


def fetch(release: str | None = None) -> Path:
    """The folder of jars for `release`, fetched with Maven when not cached yet."""
    release = release or version()
    lib = lib_dir(release)
    if (lib / "READY").exists():
        return lib
    if shutil.which("mvn") is None:
        raise RuntimeError("Maven (mvn) is not installed: it fetches Apache Kafka's jars from Maven Central")
    lib.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=lib.parent) as work:
        staging = Path(work) / "lib"
        (Path(work) / "pom.xml").write_text(_POM.format(*SLF4J_BINDING, version=release))
        result = subprocess.run(
            [
                "mvn",
                "-B",
                "-q",
                "-f",
                str(Path(work) / "pom.xml"),
                "dependency:copy-dependencies",
                "-DincludeScope=runtime",
                f"-DoutputDirectory={staging}",
            ],
            capture_output=True,
            text=True,
            timeout=900,
        )
        if result.returncode != 0 or not any(staging.glob("kafka_2.13-*.jar")):
            raise RuntimeError(
                f"Maven could not fetch Apache Kafka {release}: {(result.stdout + result.stderr).strip()[-2000:]}"
            )
        (staging / "READY").write_text(release + "\n")
        if lib.exists():
            shutil.rmtree(lib)
        staging.rename(lib)
    return lib


def classpath(release: str | None = None) -> str:
    return str(lib_dir(release) / "*")


# Settings a JVM or Kafka's scripts read from the environment: a test's or a Kafka install's must not leak
# into the rig's JVMs (a broker, the oracle sidecar, the Java consumers, javac), which set their own.
_JAVA_ENV_LEAKS = (
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "JDK_JAVA_OPTIONS",
    "CLASSPATH",
    "KAFKA_OPTS",
    "KAFKA_HEAP_OPTS",
)


def java_env() -> dict[str, str]:
    """The environment for every java and javac the tests start: this process's, without `_JAVA_ENV_LEAKS`."""
    return {k: v for k, v in os.environ.items() if k not in _JAVA_ENV_LEAKS}


if __name__ == "__main__":
    for wanted in sys.argv[1:] or [version()]:
        print(fetch(wanted))
