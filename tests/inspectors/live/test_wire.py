"""kgroup's DescribeGroups transport: clear, fast failures naming the address, and SCRAM as RFC 7677 says."""

from __future__ import annotations

import time
import socket

import pytest

from kgroup.inspectors.live.wire import describe_groups, sasl
from kgroup.inspectors.live.wire.errors import AuthenticationFailed, BrokerUnreachable, UnsupportedConfig


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_names_the_address_at_once() -> None:
    address = f"127.0.0.1:{_closed_port()}"
    start = time.monotonic()
    with pytest.raises(BrokerUnreachable, match=f"{address}: cannot connect: Connection refused"):
        describe_groups.describe_classic_members({"bootstrap.servers": address}, ["g"], 60)
    assert time.monotonic() - start < 30  # not the 60 s budget: a refusal is final (bound generous on purpose)


def test_a_silent_listener_times_out_within_the_budget() -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        address = "127.0.0.1:%d" % silent.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(BrokerUnreachable, match=f"{address}: no answer within 1 s"):
            describe_groups.describe_classic_members({"bootstrap.servers": address}, ["g"], 1.0)
        assert 0.9 < time.monotonic() - start < 30  # it waited for its budget, and not for ever


def test_unsupported_settings_are_clear() -> None:
    with pytest.raises(UnsupportedConfig, match="expected HOST:PORT"):
        describe_groups.describe_classic_members({"bootstrap.servers": "nohost"}, ["g"], 1)


def test_scram_client_proof_matches_rfc7677() -> None:
    """RFC 7677 section 3 test vector (SCRAM-SHA-256, user "user", password "pencil")."""
    import base64
    from unittest import mock

    with mock.patch.object(sasl.os, "urandom", return_value=base64.b64decode("rOprNGfwEbeRWgbNEkqO")):
        steps = sasl._scram("SCRAM-SHA-256", "user", "pencil")
        assert next(steps) == b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
    server_first = b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    assert steps.send(server_first) == (
        b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
    )
    with pytest.raises(StopIteration):
        steps.send(b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=")


def test_scram_rejects_a_wrong_server_signature() -> None:
    steps = sasl._scram("SCRAM-SHA-512", "u", "p")
    nonce = next(steps).decode().split("r=", 1)[1]
    steps.send(f"r={nonce}xyz,s=c2FsdA==,i=4096".encode())
    with pytest.raises(AuthenticationFailed, match="signature"):
        steps.send(b"v=AAAA")
