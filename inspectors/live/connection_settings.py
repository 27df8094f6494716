"""Where kgroup connects, and with which client properties: flags, then environment, then a profile.

- `--bootstrap-server` / KGROUP_BOOTSTRAP_SERVERS / the profile's `bootstrap_servers`.
- `--command-config FILE` / KGROUP_COMMAND_CONFIG: a Java-style properties file, as kafka-consumer-groups.sh
  takes; the keys librdkafka spells differently are translated (`sasl.jaas.config`, PEM trust stores and
  keystores, inline PEMs re-wrapped).
- `--profile NAME` / KGROUP_PROFILE / `current_profile`: `profiles:` in $KGROUP_CONFIG_DIR/config.yaml, or
  $XDG_CONFIG_HOME/kgroup/config.yaml (~/.config/kgroup/config.yaml).

Secrets never leave this module in readable form: `redacted()` is what may be printed or logged.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kgroup.inspectors.errors import InputError

SECRET_KEY = re.compile(r"password|secret|jaas|token|credentials?|private|key\.pem|keystore\.key", re.IGNORECASE)
# Java client keys with a different (or no) librdkafka spelling.
_DROPPED = {
    "ssl.truststore.type",
    "ssl.keystore.type",
    "ssl.endpoint.identification.algorithm",
    "sasl.login.callback.handler.class",
    "client.dns.lookup",
    "isolation.level",
}
_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"')


@dataclass(frozen=True)
class ConnectionSettings:
    bootstrap_servers: str
    properties: Mapping[str, str] = field(default_factory=dict)
    origin: str = "--bootstrap-server"  # where the bootstrap address came from, for error messages

    def client_config(self) -> dict[str, str]:
        return {**self.properties, "bootstrap.servers": self.bootstrap_servers}

    def authenticated_as(self) -> str | None:
        """Who the broker will take kgroup for, when the connection authenticates: the SASL user, or "a TLS
        client certificate" (its principal is the broker's ssl.principal.mapping.rules' to decide); None for
        PLAINTEXT and for SSL without a client certificate (User:ANONYMOUS)."""
        protocol = self.properties.get("security.protocol", "PLAINTEXT").upper()
        if protocol.startswith("SASL_"):
            user = self.properties.get("sasl.username")
            return f"User:{user}" if user else f"SASL {self.properties.get('sasl.mechanism', 'GSSAPI')}"
        if protocol == "SSL" and (
            self.properties.get("ssl.certificate.location")
            or self.properties.get("ssl.certificate.pem")
            or self.properties.get("ssl.keystore.location")
        ):
            return "a TLS client certificate"
        return None

    def redacted(self) -> dict[str, str]:
        return {k: ("***" if SECRET_KEY.search(k) else v) for k, v in self.client_config().items()}


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get("KGROUP_CONFIG_DIR"):
        return Path(env["KGROUP_CONFIG_DIR"])
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kgroup"


def resolve(
    bootstrap: str | None = None,
    command_config: str | None = None,
    profile: str | None = None,
    env: Mapping[str, str] | None = None,
) -> ConnectionSettings:
    """Flags win over the environment, which wins over the profile; properties merge in the same order."""
    env = os.environ if env is None else env
    chosen = _profile(profile or env.get("KGROUP_PROFILE"), env, explicit=bool(profile or env.get("KGROUP_PROFILE")))
    properties = dict(chosen.get("properties", {}))
    config_file = command_config or env.get("KGROUP_COMMAND_CONFIG")
    if config_file:
        properties.update(read_properties(config_file))
    servers, origin = bootstrap, "--bootstrap-server"
    if not servers and env.get("KGROUP_BOOTSTRAP_SERVERS"):
        servers, origin = env["KGROUP_BOOTSTRAP_SERVERS"], "KGROUP_BOOTSTRAP_SERVERS"
    if not servers and properties.get("bootstrap.servers"):
        servers, origin = properties["bootstrap.servers"], str(config_file)
    if not servers and chosen.get("bootstrap_servers"):
        servers, origin = str(chosen["bootstrap_servers"]), f"profile {chosen['__name__']!r}"
    if not servers:
        raise InputError(
            "no broker given: use --bootstrap-server HOST:PORT, KGROUP_BOOTSTRAP_SERVERS or a profile",
            field="--bootstrap-server",
        )
    properties.pop("bootstrap.servers", None)
    bootstrap_addresses(servers, origin)
    return ConnectionSettings(servers, properties, origin)


_ADDRESS = re.compile(r"^(?:[A-Za-z_]+://)?(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+)(?::([^:]*))?$")


def bootstrap_addresses(servers: str, origin: str = "--bootstrap-server") -> list[tuple[str, int]]:
    """host:port pairs of a bootstrap list, as librdkafka reads it (`[proto://]host[:port]`, port 9092 when
    none is given); a malformed entry is bad input at once, not a connection that times out."""
    found = []
    for entry in (e.strip() for e in servers.split(",")):
        match = _ADDRESS.match(entry)
        port = match.group(2) if match else None
        if match is None or (port is not None and not (port.isdigit() and 0 < int(port) < 65536)):
            raise InputError(f"{entry!r}: expected HOST:PORT with a port from 1 to 65535", field=origin)
        found.append((match.group(1).strip("[]"), int(port) if port is not None else 9092))
    return found


def _profile(name: str | None, env: Mapping[str, str], explicit: bool) -> dict:
    path = config_dir(env) / "config.yaml"
    if not path.exists():
        if explicit:
            raise InputError(f"profile {name!r} asked for, but {path} does not exist", field="--profile")
        return {}
    from kgroup.inspectors.fixtures.yaml_doc import read_yaml

    doc = read_yaml(str(path))
    data = doc.data
    if not isinstance(data, dict):
        raise doc.error((), "expected a mapping with profiles and current_profile")
    profiles = data.get("profiles") or {}
    if not isinstance(profiles, dict):
        raise doc.error(("profiles",), "expected a mapping of profile names to profiles")
    current = data.get("current_profile")
    if current is not None and not isinstance(current, str):
        raise doc.error(("current_profile",), "expected a profile name")
    name = name or current
    if name is None:
        return {}
    if name not in profiles:
        known = ", ".join(sorted(map(str, profiles)))
        field = ("profiles",) if name != current else ("current_profile",)
        raise doc.error(field, f"no profile {name!r} (profiles: {known or 'none'})")
    body = profiles[name]
    if not isinstance(body, dict):
        raise doc.error(("profiles", name), "expected a mapping with bootstrap_servers and properties")
    unknown = sorted(map(str, body.keys() - {"bootstrap_servers", "properties"}))
    if unknown:
        raise doc.error(
            ("profiles", name, unknown[0]), f"unknown key {unknown[0]!r}; expected bootstrap_servers, properties"
        )
    servers = body.get("bootstrap_servers")
    if isinstance(servers, list) and all(isinstance(s, str) for s in servers):
        servers = ",".join(servers)
    if servers is not None and not isinstance(servers, str):
        raise doc.error(("profiles", name, "bootstrap_servers"), "expected HOST:PORT[,HOST:PORT...] or a list of them")
    properties = body.get("properties") or {}
    if not isinstance(properties, dict):
        raise doc.error(("profiles", name, "properties"), "expected a mapping of client properties")
    for key, value in properties.items():
        if isinstance(value, (dict, list)) or value is None:
            raise doc.error(("profiles", name, "properties", key), "expected a value (text, a number or true/false)")
    return {
        "__name__": name,
        "bootstrap_servers": servers,
        "properties": {str(k): _property_text(v) for k, v in properties.items()},
    }


def _property_text(value: object) -> str:
    """A YAML value as the Java client reads its property: `true`, not Python's `True`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def read_properties(path: str) -> dict[str, str]:
    """A Java properties file (key=value or key: value, # and ! comments, backslash continuations)."""
    from kgroup.inspectors.limits import MAX_PROPERTIES_BYTES

    try:
        with open(path, "rb") as handle:
            raw_bytes = handle.read(MAX_PROPERTIES_BYTES + 1)
        text = raw_bytes.decode("utf-8")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", path, field="--command-config") from None
    except UnicodeDecodeError:
        raise InputError("not a text file (expected key=value lines)", path, field="--command-config") from None
    if len(raw_bytes) > MAX_PROPERTIES_BYTES:
        raise InputError(
            f"larger than {MAX_PROPERTIES_BYTES // 1024} KB (the limit for a properties file)",
            path,
            field="--command-config",
        )
    raw: dict[str, tuple[str, int]] = {}
    pending, start = "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip() if not pending else line.lstrip()
        if not pending and (not stripped or stripped[0] in "#!"):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\") and not stripped.endswith("\\\\"):
            pending += stripped[:-1]
            continue
        entry, pending = pending + stripped, ""
        match = re.match(r"([^=:\s]+)\s*[=:]\s*(.*)$", entry) or re.match(r"([^=:\s]+)\s+(.+)$", entry)
        if match is None:
            # The file holds secrets, and a line without a key may be one: name the line, never its text.
            raise InputError("expected key=value (the line is not shown: it may hold a secret)", path, start)
        raw[match.group(1)] = (match.group(2).strip(), start)
    return _to_librdkafka(raw, path)


def _to_librdkafka(raw: dict[str, tuple[str, int]], path: str) -> dict[str, str]:
    """Java client names to librdkafka's (rdkafka CONFIGURATION.md), as kcat users would write them."""
    out: dict[str, str] = {}
    kind = raw.get("ssl.keystore.type", ("", 0))[0].upper()
    pem_keystore = (
        kind == "PEM"
        or (not kind and raw.get("ssl.keystore.location", ("", 0))[0].endswith(".pem"))
        or any(key in raw for key in ("ssl.keystore.certificate.chain", "ssl.keystore.key"))
    )
    for key, (value, line) in raw.items():
        if key == "sasl.jaas.config":
            options = dict(_JAAS_OPTION.findall(value))
            if "username" not in options or "password" not in options:
                raise InputError(
                    'sasl.jaas.config: expected username="..." and password="..." '
                    "(PlainLoginModule or ScramLoginModule)",
                    path,
                    line,
                )
            out["sasl.username"], out["sasl.password"] = options["username"], options["password"]
        elif key == "ssl.truststore.location":
            if not value.endswith((".pem", ".crt")):
                raise InputError(
                    "ssl.truststore.location: only PEM files work with librdkafka "
                    "(convert the JKS store, or set ssl.ca.location)",
                    path,
                    line,
                )
            out["ssl.ca.location"] = value
        elif key == "ssl.truststore.certificates":
            out["ssl.ca.pem"] = pem_blocks(value, key, path, line)
        elif key in _PEM_KEYSTORE and pem_keystore:
            translated, what = _PEM_KEYSTORE[key]
            if translated == "ssl.certificate.location":  # one PEM file: the private key and the chain
                out["ssl.certificate.location"] = out["ssl.key.location"] = value
            elif translated:
                out[translated] = pem_blocks(value, key, path, line, what)
        elif key == "ssl.endpoint.identification.algorithm" and not value:
            out[key] = "none"  # Kafka's clients: empty turns host name verification off; librdkafka spells it none
        elif key in _DROPPED:
            continue
        else:
            out[key] = value
    return out


# A Java client's PEM keystore (KIP-651, ssl.keystore.type=PEM) in librdkafka's words: a file holding the
# private key and the certificate chain is both ssl.certificate.location and ssl.key.location (OpenSSL reads
# each kind of block from it); inline PEMs are ssl.certificate.pem / ssl.key.pem. ssl.key.password keeps its
# name; a PEM keystore has no store password (Java rejects one), so it is not passed on.
_PEM_KEYSTORE = {
    "ssl.keystore.location": ("ssl.certificate.location", ""),
    "ssl.keystore.certificate.chain": ("ssl.certificate.pem", "certificates"),
    "ssl.keystore.key": ("ssl.key.pem", "a private key"),
    "ssl.keystore.password": ("", ""),
}
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \1-----", re.DOTALL)


def pem_blocks(value: str, key: str, path: str, line: int, what: str = "certificates") -> str:
    """An inline PEM value as OpenSSL reads it. Kafka documents these values on one properties line, or with
    backslash continuations, which the properties format joins into one line: the BEGIN/END lines are
    restored and the base64 body re-wrapped at 64 columns (RFC 7468), as Java's PemParser ignores the
    whitespace (DefaultSslEngineFactory.PemParser)."""
    blocks = _PEM_BLOCK.findall(value)
    if not blocks:
        raise InputError(
            f"{key}: expected {what} in PEM (-----BEGIN ...----- base64 -----END ...-----); the "
            "value is not shown: it may hold a secret",
            path,
            line,
        )
    out = []
    for label, body in blocks:
        packed = re.sub(r"\s+", "", body)
        if not re.fullmatch(r"[A-Za-z0-9+/=]*", packed) or not packed:
            raise InputError(
                f"{key}: the PEM block {label!r} is not base64 (headers such as Proc-Type are not "
                "supported; give PKCS#8)",
                path,
                line,
            )
        out.append(
            f"-----BEGIN {label}-----\n"
            + "".join(packed[i : i + 64] + "\n" for i in range(0, len(packed), 64))
            + f"-----END {label}-----\n"
        )
    return "".join(out)
