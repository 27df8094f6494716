import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * kgroup's oracle for KIP-932 share groups: Kafka's own SimpleAssignor on group states read as JSON.
 *
 * Its own main, apart from Sidecar: stdin holds one JSON array of cases per line (the schema of
 * tests/oracle/sidecar.py, server side, without racks or gone topics), stdout one array of answers per line,
 * {"assignment": {member: [[topic, partition], ...]}} or {"error": "Class: message"}.
 *
 * The GroupSpec is built as TargetAssignmentBuilder.build() builds it: members in a HashMap keyed by member
 * id; each member's subscribed topic ids in the iteration order of a HashSet of its topic names, names
 * without metadata skipped (what TopicIds iterates; a LinkedHashSet keeps that order); the current target
 * as Assignment.fromRecord reads it (HashMap of topic id to HashSet of partitions); no allowed-partitions
 * map, so every partition is assignable; ModernGroup.subscriptionType's homogeneous/heterogeneous.
 */
public final class ShareAssignor {
    private static final ObjectMapper JSON = new ObjectMapper();

    private ShareAssignor() { }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            ArrayNode answers = JSON.createArrayNode();
            JSON.readTree(line).forEach(request -> answers.add(answer(request)));
            out.println(JSON.writeValueAsString(answers));
            out.flush();
        }
    }

    private static ObjectNode answer(JsonNode request) {
        ObjectNode answer = JSON.createObjectNode();
        try {
            ObjectNode members = answer.putObject("assignment");
            assign(request).forEach((member, partitions) -> {
                ArrayNode list = members.putArray(member);
                partitions.forEach(tp -> list.addArray().add(tp.get(0)).add(Integer.parseInt(tp.get(1))));
            });
        } catch (Exception | StackOverflowError e) {
            answer.removeAll();
            answer.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return answer;
    }

    private static Map<String, List<List<String>>> assign(JsonNode request) {
        Map<String, Uuid> idOf = new HashMap<>();
        Map<Uuid, String> nameOf = new HashMap<>();
        Map<Uuid, Integer> partitionCount = new HashMap<>();
        for (JsonNode topic : request.get("topics")) {
            Uuid id = Uuid.fromString(topic.get("id").asText());
            idOf.put(topic.get("name").asText(), id);
            nameOf.put(id, topic.get("name").asText());
            partitionCount.put(id, topic.get("partitions").asInt());
        }

        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Uuid, Map<Integer, String>> invertedTarget = new HashMap<>();
        Map<String, Integer> subscribers = new HashMap<>();
        int memberCount = 0;
        for (JsonNode member : request.get("members")) {
            memberCount++;
            String memberId = member.get("member_id").asText();
            List<String> names = new ArrayList<>();
            member.get("topics").forEach(t -> names.add(t.asText()));
            Set<String> subscribedNames = new HashSet<>(names);
            Set<Uuid> subscribedIds = new LinkedHashSet<>();
            for (String name : subscribedNames) {
                subscribers.merge(name, 1, Integer::sum);
                Uuid id = idOf.get(name);
                if (id != null) {
                    subscribedIds.add(id);
                }
            }

            Map<Uuid, List<Integer>> record = new LinkedHashMap<>();
            for (JsonNode tp : member.get("owned")) {
                Uuid id = idOf.get(tp.get(0).asText());
                record.computeIfAbsent(id, k -> new ArrayList<>()).add(tp.get(1).asInt());
                invertedTarget.computeIfAbsent(id, k -> new HashMap<>()).put(tp.get(1).asInt(), memberId);
            }
            Map<Uuid, Set<Integer>> target = new HashMap<>();
            record.forEach((id, partitions) -> target.put(id, new HashSet<>(partitions)));

            members.put(memberId, new MemberSubscriptionAndAssignmentImpl(
                Optional.empty(), Optional.empty(), subscribedIds, new Assignment(target)));
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
        GroupAssignment result = new SimpleAssignor().assign(
            new GroupSpecImpl(members, type, invertedTarget), describer);

        Map<String, List<List<String>>> out = new LinkedHashMap<>();
        result.members().forEach((member, assignment) -> {
            List<List<String>> list = new ArrayList<>();
            assignment.partitions().forEach((id, partitions) -> partitions.forEach(
                p -> list.add(List.of(nameOf.getOrDefault(id, id.toString()), Integer.toString(p)))));
            out.put(member, list);
        });
        return out;
    }
}
