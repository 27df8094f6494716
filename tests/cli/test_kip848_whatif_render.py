"""`simulate` on a KIP-848 group shows the reconciliation path under the new target, in the table and in JSON."""

from __future__ import annotations

from tests.cli.helpers import FIXTURES, run, run_json

# kip848-uniform: billing, group epoch 12; 6fJc and Xq3c hold payments and refunds, hZbX holds nothing yet.
ARGS = ("simulate", "kip848-uniform", "--add-member", "c4=payments,refunds")


def test_json_carries_each_members_way_to_its_new_target() -> None:
    doc = run_json(*ARGS)
    (result,) = doc["results"]
    path = result["reconciliation"]
    assert path["target_epoch"] == 13 and path["heartbeat_interval_ms"] == 5000
    current = doc["current"]
    for step in path["members"]:
        member, new = step["member_id"], set(result["assignment"][step["member_id"]])
        held = set(current.get(member, []))
        assert set(step["revokes"]) == held - new and set(step["keeps"]) == held & new
        assert set(step["receives_free"]) | set(step["receives_after_revocation"]) == new - held
    # the newcomer owns nothing, and every partition it gets is someone's now: it waits for revocations
    (c4,) = [s for s in path["members"] if s["member_id"] == "c4"]
    assert c4["state_after_first_heartbeat"] == "UNRELEASED_PARTITIONS" and c4["waits_for"]
    assert path["unconsumed_at_most_ms"] == 5000 and path["settled_within_ms"] == 10000


def test_the_table_says_who_revokes_before_whom() -> None:
    out = run(*ARGS).stdout
    assert (
        "Reconciliation to the new target (epoch 13) (uniform, heartbeat interval 5 s, Kafka's default, assumed: "
        "the group's own is not known):"
    ) in out
    assert "c4: gets " in out and "acknowledged revoking them [UNRELEASED_PARTITIONS]" in out
    assert "each goes unconsumed at most 5 s (one heartbeat interval)" in out


def test_the_groups_own_heartbeat_interval_times_the_path(tmp_path) -> None:
    """A snapshot of a live KIP-848 group carries the group's interval (read with DescribeConfigs on the
    group): the timing follows it, and the output says whose interval it is."""
    fixture = (FIXTURES / "kip848-uniform.yaml").read_text()
    assert "    generation: 12" in fixture
    path = tmp_path / "billing.yaml"
    path.write_text(fixture.replace("    generation: 12", "    generation: 12\n    heartbeat_interval_ms: 500", 1))
    args = ("simulate", str(path), "--add-member", "c4=payments,refunds")
    reconciliation = run_json(*args)["results"][0]["reconciliation"]
    assert reconciliation["heartbeat_interval_ms"] == 500 and not reconciliation["heartbeat_interval_assumed"]
    assert reconciliation["unconsumed_at_most_ms"] == 500 and reconciliation["settled_within_ms"] == 1000
    assert "(uniform, heartbeat interval 0.5 s, the group's):" in run(*args).stdout


def test_members_are_named_by_client_id_beside_their_random_member_ids() -> None:
    """A consumer-protocol member id is a random Uuid: the table has a CLIENT-ID column (the fixture's client_id,
    as kafka-consumer-groups.sh --members lists it), blank for the newcomer that has none, and each reconciliation
    line says the client.id beside the member id."""
    lines = run(*ARGS).stdout.splitlines()
    header = next(line for line in lines if line.startswith("MEMBER"))
    assert header.split()[:4] == ["MEMBER", "┃", "CLIENT-ID", "┃"]
    rows = {line.split()[0]: line.split("│")[1].strip() for line in lines if "│" in line}
    assert rows == {
        "6fJcIHAuTBKJ0bXL1tvcFw": "billing-0",
        "Xq3c3A2aTn6ROfDt2sRX9A": "billing-1",
        "hZbXj9PXQWi1mGbzkS5p3w": "billing-2",
        "c4": "",
    }
    steps = [line.strip() for line in lines if line.startswith("  ") and "[" in line]
    assert steps and all(
        s.startswith(
            (
                "6fJcIHAuTBKJ0bXL1tvcFw (billing-0): ",
                "Xq3c3A2aTn6ROfDt2sRX9A (billing-1): ",
                "hZbXj9PXQWi1mGbzkS5p3w (billing-2): ",
                "c4: ",
            )
        )
        for s in steps
    ), steps
    (c4,) = [s for s in steps if s.startswith("c4: ")]
    assert "(billing-" in c4.split(" once ")[1], c4


def test_a_classic_member_id_already_says_its_client_id() -> None:
    """A classic member id is client.id-Uuid (demo.yaml: orders-service-0-5f1c9a for orders-service-0): no
    CLIENT-ID column repeats it."""
    out = run("assign", "demo").stdout
    assert "orders-service-0-5f1c9a" in out and "CLIENT-ID" not in out


def test_where_a_client_id_column_does_not_fit_each_client_id_goes_under_its_member_id() -> None:
    """On an 80-column terminal the CLIENT-ID column left too little room to keep partition names whole; the
    client.id then goes in parentheses under its member id, and no cell splits a partition's name."""
    result = run("--width", "80", *ARGS)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.startswith("MEMBER"))
    assert "CLIENT-ID" not in header
    first = [line.split("│")[0].strip() for line in lines if "│" in line]
    assert first[:2] == ["6fJcIHAuTBKJ0bXL1tvcFw", "(billing-0)"]
    assert "(billing-1)" in first and "(billing-2)" in first and "c4" in first
    assert all(len(line) <= 80 for line in lines if "│" in line or "┃" in line)
    assert "-payments-1" in result.stdout and "+payments-6" in result.stdout


def test_a_wide_output_keeps_the_client_id_column() -> None:
    """The same table at 150 columns, as wide as it needs: the column stays."""
    result = run("--width", "150", *ARGS)
    header = next(line for line in result.stdout.splitlines() if line.startswith("MEMBER"))
    assert header.split()[:4] == ["MEMBER", "┃", "CLIENT-ID", "┃"]
