import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;

import java.lang.reflect.Proxy;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The KIP-848 server-side assignors of kafka-group-coordinator, given a GroupSpec as
 * TargetAssignmentBuilder.build() gives it: member specs in a HashMap keyed by member id; subscribed topic
 * ids as a TopicIds view over a HashSet of the member's topic names (names without metadata are skipped);
 * the current target assignment as Assignment.fromRecord reads it back (HashMap of topic id to HashSet of
 * partitions, topics in record order); the inverted target assignment for isPartitionAssigned; and the
 * subscription type of ModernGroup.subscriptionType (homogeneous when every subscribed name, known or not,
 * is subscribed by every member). Neither assignor reads partition racks (4.0 through 4.2), so the topic
 * describer serves partition counts only.
 */
final class ServerAssignors {
    private ServerAssignors() { }

    static boolean handles(String name) {
        return name.equals("uniform") || name.equals("server-range");
    }

    static Map<String, List<Map.Entry<String, Integer>>> assign(String name, JsonNode request) throws Exception {
        ConsumerGroupPartitionAssignor assignor = name.equals("uniform") ? new UniformAssignor() : new RangeAssignor();
        Map<String, Uuid> idOf = new HashMap<>();
        Map<Uuid, String> nameOf = new HashMap<>();
        Map<Uuid, Integer> partitionCount = new HashMap<>();
        for (JsonNode topic : request.get("topics")) {
            Uuid id = Uuid.fromString(topic.get("id").asText());
            idOf.put(topic.get("name").asText(), id);
            nameOf.put(id, topic.get("name").asText());
            partitionCount.put(id, topic.get("partitions").asInt());
        }
        // Owned partitions of topics without metadata keep the id they had (a deleted topic's).
        Map<String, Uuid> ownedIdOf = new HashMap<>(idOf);
        JsonNode goneIds = request.get("gone_topic_ids");
        if (goneIds != null) {
            goneIds.fields().forEachRemaining(e -> ownedIdOf.put(e.getKey(), Uuid.fromString(e.getValue().asText())));
        }
        TopicIds.TopicResolver resolver = resolver(idOf, nameOf);

        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Uuid, Map<Integer, String>> invertedTarget = new HashMap<>();
        Map<String, Integer> subscribers = new HashMap<>();
        int memberCount = 0;
        for (JsonNode member : request.get("members")) {
            memberCount++;
            String memberId = member.get("member_id").asText();
            List<String> names = new ArrayList<>();
            member.get("topics").forEach(t -> names.add(t.asText()));
            Set<String> subscribed = new HashSet<>(names);
            subscribed.forEach(n -> subscribers.merge(n, 1, Integer::sum));

            Map<Uuid, List<Integer>> record = new LinkedHashMap<>();
            for (JsonNode tp : member.get("owned")) {
                Uuid id = ownedIdOf.get(tp.get(0).asText());
                record.computeIfAbsent(id, k -> new ArrayList<>()).add(tp.get(1).asInt());
                invertedTarget.computeIfAbsent(id, k -> new HashMap<>()).put(tp.get(1).asInt(), memberId);
            }
            Map<Uuid, Set<Integer>> target = new HashMap<>();
            record.forEach((id, partitions) -> target.put(id, new HashSet<>(partitions)));

            members.put(memberId, new MemberSubscriptionAndAssignmentImpl(
                Optional.ofNullable(Sidecar.text(member, "rack")),
                Optional.ofNullable(Sidecar.text(member, "instance_id")),
                new TopicIds(subscribed, resolver),
                new Assignment(target)));
        }
        int total = memberCount;
        SubscriptionType type = subscribers.values().stream().allMatch(count -> count == total)
            ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;

        SubscribedTopicDescriber describer = new SubscribedTopicDescriber() {
            @Override
            public int numPartitions(Uuid topicId) {
                return partitionCount.getOrDefault(topicId, -1);
            }

            @Override
            public Set<String> racksForPartition(Uuid topicId, int partition) {
                return Set.of();
            }
        };
        GroupAssignment result = assignor.assign(new GroupSpecImpl(members, type, invertedTarget), describer);

        Map<String, List<Map.Entry<String, Integer>>> out = new LinkedHashMap<>();
        result.members().forEach((member, assignment) -> {
            List<Map.Entry<String, Integer>> list = new ArrayList<>();
            assignment.partitions().forEach((id, partitions) -> partitions.forEach(
                p -> list.add(new AbstractMap.SimpleEntry<>(nameOf.get(id), p))));
            out.put(member, list);
        });
        return out;
    }

    /** TopicIds' resolver over the case's topics; a proxy, since its image() type differs between releases. */
    private static TopicIds.TopicResolver resolver(Map<String, Uuid> idOf, Map<Uuid, String> nameOf) {
        return (TopicIds.TopicResolver) Proxy.newProxyInstance(
            ServerAssignors.class.getClassLoader(), new Class<?>[] {TopicIds.TopicResolver.class},
            (proxy, method, args) -> {
                switch (method.getName()) {
                    case "id": return idOf.get((String) args[0]);
                    case "name": return nameOf.get((Uuid) args[0]);
                    case "hashCode": return System.identityHashCode(proxy);
                    case "equals": return proxy == args[0];
                    case "toString": return "oracle topic resolver";
                    default: return null;   // image(), clear(): nothing to hold
                }
            });
    }
}
