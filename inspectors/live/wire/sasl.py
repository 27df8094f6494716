"""SASL exchanges as generators: each yields a client message and is sent the broker's answer.

PLAIN (RFC 4616), SCRAM-SHA-256/512 (RFC 5802, RFC 7677), OAUTHBEARER (RFC 7628; a token from an OIDC
client-credentials endpoint, or librdkafka's unsecured JWT for tests). Secrets never enter a message.
"""

from __future__ import annotations

import base64
import os
import time

from kgroup.inspectors.live.wire.errors import AuthenticationFailed, UnsupportedConfig


def sasl_messages(mechanism: str, config: dict[str, str], timeout_s: float):
    """A generator: yields each client message, is sent each server answer; returns when done."""
    if mechanism == "PLAIN":
        user, password = _credentials(config, mechanism)
        yield b"\x00" + user.encode() + b"\x00" + password.encode()
        return
    if mechanism.startswith("SCRAM-"):
        yield from _scram(mechanism, *_credentials(config, mechanism))
        return
    token = _oauth_token(config, timeout_s)
    extensions = ""
    for pair in filter(None, (config.get("sasl.oauthbearer.extensions") or "").split(",")):
        key, _, value = pair.partition("=")
        extensions += f"{key.strip()}={value.strip()}\x01"
    yield f"n,,\x01auth=Bearer {token}\x01{extensions}\x01".encode()


def _credentials(config: dict[str, str], mechanism: str) -> tuple[str, str]:
    user, password = config.get("sasl.username"), config.get("sasl.password")
    if not user or password is None:
        raise UnsupportedConfig(f"sasl.mechanism={mechanism} needs sasl.username and sasl.password")
    return user, password


def _scram(mechanism: str, user: str, password: str):
    import hashlib
    import hmac

    digest = hashlib.sha256 if mechanism == "SCRAM-SHA-256" else hashlib.sha512
    nonce = base64.b64encode(os.urandom(24)).decode().rstrip("=")
    name = user.replace("=", "=3D").replace(",", "=2C")
    first_bare = f"n={name},r={nonce}"
    server_first = (yield f"n,,{first_bare}".encode()).decode()
    fields = dict(item.split("=", 1) for item in server_first.split(",") if "=" in item)
    if "e" in fields:
        raise AuthenticationFailed(f"SCRAM: the broker refused: {fields['e']}")
    if not fields.get("r", "").startswith(nonce) or "s" not in fields or "i" not in fields:
        raise AuthenticationFailed(f"SCRAM: unexpected server-first message {server_first!r}")
    salted = hashlib.pbkdf2_hmac(digest().name, password.encode(), base64.b64decode(fields["s"]), int(fields["i"]))
    client_key = hmac.new(salted, b"Client Key", digest).digest()
    without_proof = f"c=biws,r={fields['r']}"
    auth_message = f"{first_bare},{server_first},{without_proof}".encode()
    signature = hmac.new(digest(client_key).digest(), auth_message, digest).digest()
    proof = base64.b64encode(bytes(a ^ b for a, b in zip(client_key, signature))).decode()
    server_final = (yield f"{without_proof},p={proof}".encode()).decode()
    server_key = hmac.new(salted, b"Server Key", digest).digest()
    expected = base64.b64encode(hmac.new(server_key, auth_message, digest).digest()).decode()
    final = dict(item.split("=", 1) for item in server_final.split(",") if "=" in item)
    if final.get("v") != expected:
        raise AuthenticationFailed(f"SCRAM: the broker's signature does not match ({final.get('e', 'no error')})")


def _oauth_token(config: dict[str, str], timeout_s: float) -> str:
    method = (config.get("sasl.oauthbearer.method") or "default").lower()
    if method == "oidc":
        import json
        import urllib.parse
        import urllib.request

        url = config.get("sasl.oauthbearer.token.endpoint.url")
        client, secret = config.get("sasl.oauthbearer.client.id"), config.get("sasl.oauthbearer.client.secret")
        if not (url and client and secret):
            raise UnsupportedConfig(
                "sasl.oauthbearer.method=oidc needs sasl.oauthbearer.token.endpoint.url, "
                "sasl.oauthbearer.client.id and sasl.oauthbearer.client.secret"
            )
        form = {"grant_type": "client_credentials"}
        if config.get("sasl.oauthbearer.scope"):
            form["scope"] = config["sasl.oauthbearer.scope"]
        basic = base64.b64encode(f"{urllib.parse.quote(client)}:{urllib.parse.quote(secret)}".encode()).decode()
        request = urllib.request.Request(
            url,
            data=urllib.parse.urlencode(form).encode(),
            method="POST",
            headers={
                "Authorization": f"Basic {basic}",
                "Content-Type": "application/x-www-form-urlencoded",
                "Accept": "application/json",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as answer:
                body = json.loads(answer.read())
        except Exception as exc:  # urllib raises several unrelated types
            raise AuthenticationFailed(f"OAUTHBEARER: token request to {url} failed: {exc}") from None
        if "access_token" not in body:
            raise AuthenticationFailed(f"OAUTHBEARER: no access_token from {url}")
        return body["access_token"]
    if config.get("enable.sasl.oauthbearer.unsecure.jwt", "false").lower() == "true":
        import json

        options = dict(p.split("=", 1) for p in (config.get("sasl.oauthbearer.config") or "").split() if "=" in p)
        now = int(time.time())
        claims = {"sub": options.get("principal", ""), "iat": now, "exp": now + int(options.get("lifeSeconds", "3600"))}
        if options.get("scope"):
            claims["scope"] = options["scope"].split(",")
        part = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")  # noqa: E731
        return f"{part({'alg': 'none'})}.{part(claims)}."
    raise UnsupportedConfig(
        "sasl.mechanism=OAUTHBEARER: set sasl.oauthbearer.method=oidc (client credentials) "
        "or enable.sasl.oauthbearer.unsecure.jwt=true; a token callback cannot be given in "
        "a properties file"
    )
