"""A secured Apache Kafka broker for the security tests: SASL users, TLS from a throwaway CA, ACLs.

One combined KRaft node (tests/kafka/broker.py) with four listeners:

- PLAINTEXT: for setup only. Its principal is User:ANONYMOUS, a super user, because the controller and the
  broker's own registration arrive on it as ANONYMOUS, which `StandardAuthorizer` would otherwise deny.
- SASL_PLAINTEXT: PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512. The PLAIN users are in the listener's JAAS line;
  the SCRAM credentials are written into the cluster metadata by `StorageTool format --add-scram`.
- SSL: the broker's certificate is signed by a CA made for this run with `openssl` (EC P-256, PEM files,
  `ssl.keystore.type=PEM`, `ssl.truststore.type=PEM`). Client certificates are *requested*, not required:
  a client that trusts the CA and shows none is User:ANONYMOUS, **a super user** here; one that shows the
  certificate made for alice or mallory is User:alice / User:mallory (`ssl.principal.mapping.rules` takes
  the CN). Use SASL or a client certificate when an ACL should apply.
- SASL_SSL: the same SASL users over the same TLS.
- MISNAMED: a SASL_SSL listener like SASL_SSL, bound to and advertised as 127.0.0.2 (all of 127/8 is
  loopback on Linux), an address the broker's certificate does not name: a client that verifies the broker's
  host name (`ssl.endpoint.identification.algorithm=https`, the default of Kafka's clients and librdkafka)
  refuses it before any password is sent.

Topics are created on first use (`auto.create.topics.enable=true`, Kafka's default) by a principal allowed to
create them (the super users). Authorization is `StandardAuthorizer` with `allow.everyone.if.no.acl.found=false`;
`super.users=User:admin;User:ANONYMOUS`. The users (passwords are random for each run):

- admin: a super user.
- alice: DESCRIBE, READ and DELETE on groups starting with `alice-`, DESCRIBE and READ on topics starting
  with `alice-` (prefixed ACLs).
- mallory: authenticates, and has no ACL at all.

`SecuredKafka.command_config(user, mechanism)` writes a kgroup `--command-config` properties file, spelled as
a Java client (kafka-consumer-groups.sh) user writes it; `client_config` is the same user for a confluent-kafka
client in a test; `commit` and `grant` (more ACLs) act as the super user over PLAINTEXT.
"""

from __future__ import annotations

import secrets
import shutil
import subprocess
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.kafka import broker as kafka_broker

MECHANISMS = ("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
USERS = ("admin", "alice", "mallory")
ALICE_PREFIX = "alice-"  # alice's ACLs cover groups and topics whose names start with this
MISNAMED_HOST = "127.0.0.2"  # loopback, but not in the broker certificate's subjectAltName
ACL_TIMEOUT_S = 60.0  # created over PLAINTEXT, then awaited until the broker's authorizer lists them
_CERT_DAYS = "2"


def missing_tools() -> list[str]:
    """What this machine lacks to build the secured broker, beyond what Apache Kafka itself needs."""
    return [tool for tool in ("openssl",) if shutil.which(tool) is None]


# -- a throwaway CA ----------------------------------------------------------------------------------------


def _openssl(folder: Path, *args: str) -> None:
    result = subprocess.run(["openssl", *args], cwd=folder, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        raise RuntimeError(f"openssl {args[0]} failed: {(result.stdout + result.stderr)[-2000:]}")


@dataclass(frozen=True)
class Certificates:
    """PEM files: the CA, the broker's key+chain, and a key+certificate per client user."""

    ca: Path
    broker_keystore: Path  # private key (PKCS#8, unencrypted) followed by the certificate chain
    clients: dict[str, tuple[Path, Path]]  # user -> (certificate, key)


def make_certificates(folder: Path, client_names: Iterable[str]) -> Certificates:
    """A CA valid for two days, a broker certificate for 127.0.0.1 and localhost, one client cert per name."""
    folder.mkdir(parents=True, exist_ok=True)
    curve = ("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes")
    _openssl(
        folder,
        "req",
        "-x509",
        *curve,
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        _CERT_DAYS,
        "-subj",
        "/CN=kgroup test CA",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign,cRLSign",
    )

    def signed(name: str, subject: str, extensions: str) -> tuple[Path, Path]:
        (folder / f"{name}.ext").write_text(extensions)
        _openssl(folder, "req", *curve, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", subject)
        _openssl(
            folder,
            "x509",
            "-req",
            "-in",
            f"{name}.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            _CERT_DAYS,
            "-sha256",
            "-extfile",
            f"{name}.ext",
            "-out",
            f"{name}.pem",
        )
        return folder / f"{name}.pem", folder / f"{name}.key"

    cert, key = signed(
        "broker",
        "/CN=127.0.0.1",
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth,clientAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
    )
    keystore = folder / "broker-keystore.pem"
    keystore.write_text(key.read_text() + cert.read_text() + (folder / "ca.pem").read_text())
    clients = {
        name: signed(
            f"client-{name}",
            f"/CN={name}",
            "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n",
        )
        for name in client_names
    }
    (folder / "ca.key").unlink()  # nothing more is signed: the CA's key is not left lying around
    return Certificates(folder / "ca.pem", keystore, clients)


# -- the broker --------------------------------------------------------------------------------------------


def _jaas_plain(passwords: dict[str, str]) -> str:
    users = " ".join(f'user_{user}="{password}"' for user, password in passwords.items())
    return (
        f'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
        f'password="{passwords["admin"]}" {users};'
    )


_SCRAM_JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required;"


def security_properties(passwords: dict[str, str], certs: Certificates) -> dict[str, str]:
    """The server properties that secure a node made by broker.single with the listeners of `start`."""
    props = {
        "sasl.enabled.mechanisms": ",".join(MECHANISMS),
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "allow.everyone.if.no.acl.found": "false",
        "super.users": "User:admin;User:ANONYMOUS",
        "ssl.keystore.type": "PEM",
        "ssl.keystore.location": str(certs.broker_keystore),
        "ssl.truststore.type": "PEM",
        "ssl.truststore.location": str(certs.ca),
        # CN=alice -> User:alice; anything else keeps its whole distinguished name.
        "ssl.principal.mapping.rules": "RULE:^CN=([^,]+)$/$1/,DEFAULT",
        "listener.name.ssl.ssl.client.auth": "requested",
        # Kafka's default, which the rig's other brokers turn off: a client that asks for a topic by name with
        # allow_auto_topic_creation (a librdkafka producer, and its admin client, by default) creates it here.
        "auto.create.topics.enable": "true",
    }
    for listener in ("sasl_plaintext", "sasl_ssl", "misnamed"):
        props[f"listener.name.{listener}.plain.sasl.jaas.config"] = _jaas_plain(passwords)
        for mechanism in MECHANISMS[1:]:
            props[f"listener.name.{listener}.{mechanism.lower()}.sasl.jaas.config"] = _SCRAM_JAAS
    return props


@dataclass
class SecuredKafka:
    node: kafka_broker.Node
    setup: str  # PLAINTEXT, User:ANONYMOUS (a super user): creating topics, commits and ACLs only
    sasl_plaintext: str
    ssl: str
    sasl_ssl: str
    misnamed: str  # SASL_SSL at an address the certificate does not name (MISNAMED_HOST)
    certs: Certificates
    passwords: dict[str, str]
    folder: Path
    acls: list = field(default_factory=list)  # the confluent_kafka AclBindings created at start
    _configs: int = 0

    @property
    def ca_file(self) -> Path:
        return self.certs.ca

    def address(self, protocol: str) -> str:
        return {
            "PLAINTEXT": self.setup,
            "SASL_PLAINTEXT": self.sasl_plaintext,
            "SSL": self.ssl,
            "SASL_SSL": self.sasl_ssl,
            "MISNAMED": self.misnamed,
        }[protocol.upper()]

    def command_config(
        self,
        user: str | None = None,
        mechanism: str | None = "PLAIN",
        tls: bool = False,
        password: str | None = None,
        client_cert: bool = False,
        bootstrap: bool = False,
    ) -> Path:
        """A kgroup `--command-config` file: SASL `mechanism` as `user` (with `password`, else the user's
        own), over TLS when `tls`; `mechanism=None` is plain SSL (a client certificate for `user` when
        `client_cert`, else User:ANONYMOUS). `bootstrap` adds the matching bootstrap.servers line."""
        lines = []
        if mechanism is None:
            protocol = "SSL"
        else:
            if mechanism not in MECHANISMS:
                raise ValueError(f"mechanism {mechanism!r}: expected one of {', '.join(MECHANISMS)} or None")
            if user is None:
                raise ValueError("a SASL mechanism needs a user")
            protocol = "SASL_SSL" if tls else "SASL_PLAINTEXT"
            module = (
                "org.apache.kafka.common.security.plain.PlainLoginModule"
                if mechanism == "PLAIN"
                else "org.apache.kafka.common.security.scram.ScramLoginModule"
            )
            secret = self.passwords[user] if password is None else password
            lines += [
                f"sasl.mechanism={mechanism}",
                f'sasl.jaas.config={module} required username="{user}" password="{secret}";',
            ]
        lines.insert(0, f"security.protocol={protocol}")
        if protocol in ("SSL", "SASL_SSL"):
            lines += ["ssl.truststore.type=PEM", f"ssl.truststore.location={self.certs.ca}"]
        if client_cert:
            if mechanism is not None or user is None:
                raise ValueError("a client certificate is for SSL (mechanism=None) as a named user")
            cert, key = self.certs.clients[user]
            # librdkafka's names, which kgroup passes through; the Java client's PEM keystore form is
            # covered by tests/live/test_secured_access.py.
            lines += [f"ssl.certificate.location={cert}", f"ssl.key.location={key}"]
        if bootstrap:
            lines.append(f"bootstrap.servers={self.address(protocol)}")
        self._configs += 1
        path = self.folder / "client-configs" / f"{self._configs}-{user or 'anonymous'}-{protocol.lower()}.properties"
        path.parent.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        path.chmod(0o600)
        return path

    def client_config(self, user: str, mechanism: str = "PLAIN", tls: bool = False) -> dict[str, str]:
        """confluent-kafka settings for `user` over SASL (to act as that user in a test, not as kgroup)."""
        config = {
            "bootstrap.servers": self.sasl_ssl if tls else self.sasl_plaintext,
            "security.protocol": "SASL_SSL" if tls else "SASL_PLAINTEXT",
            "sasl.mechanism": mechanism,
            "sasl.username": user,
            "sasl.password": self.passwords[user],
        }
        if tls:
            config["ssl.ca.location"] = str(self.certs.ca)
        return config

    def commit(self, group: str, offsets: dict[tuple[str, int], int]) -> None:
        """Commit explicit offsets for `group` over the setup listener (super user), as a consumer that never
        joins (the coordinators were warmed up at start)."""
        from confluent_kafka import Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": self.setup, "group.id": group, "enable.auto.commit": False})
        try:
            consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=False)
        finally:
            consumer.close()

    def grant(self, bindings: list) -> None:
        """Create ACLs (confluent_kafka AclBindings) as the super user and wait until the broker applies them."""
        create_acls(self.setup, bindings)


def create_acls(setup: str, bindings: list) -> None:
    from confluent_kafka.admin import AclBindingFilter, AdminClient, AclOperation, AclPermissionType
    from confluent_kafka.admin import ResourcePatternType, ResourceType

    admin = AdminClient({"bootstrap.servers": setup})
    for future in admin.create_acls(bindings).values():
        future.result(ACL_TIMEOUT_S)
    # DescribeAcls is answered from the broker's own authorizer: once it lists them, they are enforced.
    every = AclBindingFilter(
        ResourceType.ANY, None, ResourcePatternType.ANY, None, None, AclOperation.ANY, AclPermissionType.ANY
    )
    deadline = time.monotonic() + ACL_TIMEOUT_S
    while True:
        present = set(admin.describe_acls(every).result(ACL_TIMEOUT_S))
        if all(b in present for b in bindings):
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"ACLs not applied within {ACL_TIMEOUT_S:.0f} s: {sorted(map(str, bindings))}")
        time.sleep(0.2)


def alice_acls() -> list:
    from confluent_kafka.admin import AclBinding, AclOperation, AclPermissionType, ResourcePatternType, ResourceType

    def allow(kind: ResourceType, operation: AclOperation) -> AclBinding:
        return AclBinding(
            kind, ALICE_PREFIX, ResourcePatternType.PREFIXED, "User:alice", "*", operation, AclPermissionType.ALLOW
        )

    return [allow(ResourceType.GROUP, op) for op in (AclOperation.DESCRIBE, AclOperation.READ, AclOperation.DELETE)] + [
        allow(ResourceType.TOPIC, op) for op in (AclOperation.DESCRIBE, AclOperation.READ)
    ]


def start(folder: Path, release: str | None = None) -> SecuredKafka:
    """Make the CA and certificates, format and start the node, create alice's ACLs and warm the group
    coordinators up. Stop with `.node.stop()`."""
    folder.mkdir(parents=True, exist_ok=True)
    passwords = {user: f"{user}-{secrets.token_hex(12)}" for user in USERS}
    certs = make_certificates(folder / "tls", ("alice", "mallory"))
    ports = {name: kafka_broker.free_port() for name in ("SASL_PLAINTEXT", "SSL", "SASL_SSL", "MISNAMED")}
    scram = [
        arg
        for user in USERS
        for mechanism in MECHANISMS[1:]
        for arg in ("--add-scram", f"{mechanism}=[name={user},password={passwords[user]}]")
    ]
    node = kafka_broker.single(
        folder / "node",
        release=release,
        listeners={name: ("SASL_SSL" if name == "MISNAMED" else name, port) for name, port in ports.items()},
        extra=security_properties(passwords, certs),
        format_args=tuple(scram),
    )
    for key in ("listeners", "advertised.listeners"):  # written out again by Node.start
        node.properties[key] = node.properties[key].replace("MISNAMED://127.0.0.1:", f"MISNAMED://{MISNAMED_HOST}:")
    node.start()
    secured = SecuredKafka(
        node,
        node.address,
        f"127.0.0.1:{ports['SASL_PLAINTEXT']}",
        f"127.0.0.1:{ports['SSL']}",
        f"127.0.0.1:{ports['SASL_SSL']}",
        f"{MISNAMED_HOST}:{ports['MISNAMED']}",
        certs,
        passwords,
        folder,
    )
    try:
        secured.acls = alice_acls()
        secured.grant(secured.acls)
        kafka_broker.warm_up_coordinators(secured.setup)  # else the first commits answer NOT_COORDINATOR
    except BaseException:
        node.stop()
        raise
    return secured
