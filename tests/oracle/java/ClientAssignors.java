import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.GroupSubscription;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.consumer.RoundRobinAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The classic-protocol assignors of kafka-clients, driven as a group leader drives them.
 *
 * Each member's Subscription is built as ConsumerCoordinator.metadata() builds it: its own assignor
 * instance first sees the previous assignment through onAssignment (after a ConsumerProtocol round trip,
 * as SyncGroup delivers it) and then writes subscriptionUserData, so StickyAssignor's user data carries
 * the owned partitions and generation. Only COOPERATIVE assignors report ownedPartitions (an EAGER member
 * revoked everything in onJoinPrepare). The subscription goes through ConsumerProtocol (latest version)
 * as JoinGroup carries it, and the leader keys them by member id in a HashMap
 * (ConsumerCoordinator.onLeaderElected). Replicas sit on one broker per rack; a partition without racks
 * has one replica on a broker without a rack.
 */
final class ClientAssignors {
    private ClientAssignors() { }

    static ConsumerPartitionAssignor create(String name) {
        switch (name) {
            case "range": return new RangeAssignor();
            case "roundrobin": return new RoundRobinAssignor();
            case "sticky": return new StickyAssignor();
            case "cooperative-sticky": return new CooperativeStickyAssignor();
            default: throw new IllegalArgumentException("unknown assignor " + name);
        }
    }

    static Map<String, List<Map.Entry<String, Integer>>> assign(String name, JsonNode request) {
        ConsumerPartitionAssignor leader = create(name);
        boolean cooperative = leader.supportedProtocols().contains(ConsumerPartitionAssignor.RebalanceProtocol.COOPERATIVE);
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (JsonNode member : request.get("members")) {
            String memberId = member.get("member_id").asText();
            subscriptions.put(memberId, subscription(name, member, cooperative));
        }
        ConsumerPartitionAssignor.GroupAssignment result =
            leader.assign(cluster(request.get("topics")), new GroupSubscription(subscriptions));
        Map<String, List<Map.Entry<String, Integer>>> out = new LinkedHashMap<>();
        result.groupAssignment().forEach((member, assignment) -> {
            List<Map.Entry<String, Integer>> list = new ArrayList<>();
            assignment.partitions().forEach(tp -> list.add(new AbstractMap.SimpleEntry<>(tp.topic(), tp.partition())));
            out.put(member, list);
        });
        return out;
    }

    @SuppressWarnings("removal")   // the only public way to hand onAssignment a generation
    private static Subscription subscription(String name, JsonNode member, boolean cooperative) {
        String memberId = member.get("member_id").asText();
        Optional<String> instanceId = Optional.ofNullable(Sidecar.text(member, "instance_id"));
        List<String> topics = new ArrayList<>();
        member.get("topics").forEach(t -> topics.add(t.asText()));
        List<TopicPartition> owned = new ArrayList<>();
        member.get("owned").forEach(tp -> owned.add(new TopicPartition(tp.get(0).asText(), tp.get(1).asInt())));
        JsonNode generationNode = member.get("generation");
        boolean assignedBefore = generationNode != null && !generationNode.isNull();
        int generation = assignedBefore ? generationNode.asInt() : -1;

        ConsumerPartitionAssignor local = create(name);
        if (assignedBefore) {
            Assignment previous = ConsumerProtocol.deserializeAssignment(
                ConsumerProtocol.serializeAssignment(new Assignment(owned)));
            local.onAssignment(previous, new ConsumerGroupMetadata("group", generation, memberId, instanceId));
        }
        Subscription sent = new Subscription(topics, local.subscriptionUserData(new HashSet<>(topics)),
            cooperative ? owned : Collections.emptyList(), generation,
            Optional.ofNullable(Sidecar.text(member, "rack")));
        Subscription received = ConsumerProtocol.deserializeSubscription(ConsumerProtocol.serializeSubscription(sent));
        received.setGroupInstanceId(instanceId);
        return received;
    }

    private static Cluster cluster(JsonNode topics) {
        Map<String, Node> brokerOfRack = new LinkedHashMap<>();
        Node rackless = new Node(0, "broker-0", 9092);
        List<Node> nodes = new ArrayList<>(List.of(rackless));
        List<PartitionInfo> partitions = new ArrayList<>();
        for (JsonNode topic : topics) {
            String name = topic.get("name").asText();
            JsonNode racks = topic.get("replica_racks");
            for (int p = 0; p < topic.get("partitions").asInt(); p++) {
                List<Node> replicas = new ArrayList<>();
                if (racks != null && !racks.isNull() && p < racks.size()) {
                    for (JsonNode rack : racks.get(p)) {
                        replicas.add(brokerOfRack.computeIfAbsent(rack.asText(), r -> {
                            Node node = new Node(nodes.size(), "broker-" + nodes.size(), 9092, r);
                            nodes.add(node);
                            return node;
                        }));
                    }
                }
                if (replicas.isEmpty()) {
                    replicas.add(rackless);
                }
                Node[] array = replicas.toArray(new Node[0]);
                partitions.add(new PartitionInfo(name, p, array[0], array, array));
            }
        }
        return new Cluster("oracle", nodes, partitions, Collections.emptySet(), Collections.emptySet());
    }
}
