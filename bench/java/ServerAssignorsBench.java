import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * bench/server_assignors.py's Java side: Kafka's own UniformAssignor and RangeAssignor on Kafka's scale-test
 * shape, timed warm in one long-lived JVM so the Python side can interleave its runs with these.
 *
 * The GroupSpec is built as TargetAssignmentBuilder builds it: members in a HashMap by member id, each
 * member's subscription a TopicIds over a HashSet of names resolved through a map (as CachedTopicResolver
 * does once warm), the current target as Assignment.fromRecord reads it back (HashMap of topic id to
 * HashSet of partitions, inserted in record order) and the inverted target assignment. Only
 * assignor.assign() is timed.
 *
 * Arguments: a file of "name id" lines (the topic ids kgroup derives, so ties break alike), the partition
 * count, the member count. One command per stdin line, "ASSIGNOR ROUND DIGEST" (uniform|server-range,
 * first|steady, 0|1); one answer per line: "NANOS DIGEST" (DIGEST is "-" when not asked for).
 */
public final class ServerAssignorsBench {
    private final List<String> names = new ArrayList<>();
    private final Map<String, Uuid> idOf = new HashMap<>();
    private final Map<Uuid, String> nameOf = new HashMap<>();
    private final Map<Uuid, Integer> partitionCount = new HashMap<>();
    private final TopicIds.TopicResolver resolver;
    private final SubscribedTopicDescriber describer;
    private final int memberCount;
    private final Map<String, GroupSpecImpl> specs = new HashMap<>();

    private ServerAssignorsBench(Path ids, int partitions, int memberCount) throws Exception {
        for (String line : Files.readAllLines(ids, StandardCharsets.UTF_8)) {
            if (line.isBlank()) {
                continue;
            }
            String[] parts = line.trim().split(" ");
            Uuid id = Uuid.fromString(parts[1]);
            names.add(parts[0]);
            idOf.put(parts[0], id);
            nameOf.put(id, parts[0]);
            partitionCount.put(id, partitions);
        }
        this.memberCount = memberCount;
        resolver = new TopicIds.TopicResolver() {
            @Override
            public CoordinatorMetadataImage image() {
                return null;
            }

            @Override
            public String name(Uuid id) {
                return nameOf.get(id);
            }

            @Override
            public Uuid id(String name) {
                return idOf.get(name);
            }

            @Override
            public void clear() { }
        };
        describer = new Partitions(partitionCount);
        specs.put("first", spec(Collections.emptyMap()));
    }

    private static String memberId(int i) {
        return String.format("c%04d", i);
    }

    /** Shape b: every member on every topic but the last member, on the first topic only. */
    private GroupSpecImpl spec(Map<String, Map<Uuid, Set<Integer>>> owned) {
        Set<String> everything = new HashSet<>(names);
        Set<String> firstOnly = new HashSet<>(List.of(names.get(0)));
        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (int i = 0; i < memberCount; i++) {
            String id = memberId(i);
            Set<String> subscribed = i == memberCount - 1 ? firstOnly : everything;
            Map<Uuid, Set<Integer>> target = owned.getOrDefault(id, Map.of());
            target.forEach((topic, parts) -> parts.forEach(
                p -> inverted.computeIfAbsent(topic, k -> new HashMap<>()).put(p, id)));
            members.put(id, new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(),
                new TopicIds(subscribed, resolver), new Assignment(target)));
        }
        SubscriptionType type = memberCount > 1 && names.size() > 1
            ? SubscriptionType.HETEROGENEOUS : SubscriptionType.HOMOGENEOUS;
        return new GroupSpecImpl(members, type, inverted);
    }

    /** The steady round: every member but the first reports its first-round assignment, in record order. */
    private GroupSpecImpl steady(GroupAssignment first) {
        Map<String, Map<Uuid, Set<Integer>>> owned = new HashMap<>();
        first.members().forEach((member, assignment) -> {
            if (member.equals(memberId(0))) {
                return;
            }
            // The record lists partitions in TopicPartition order; Assignment.fromRecord inserts in that order.
            TreeMap<String, List<Integer>> byName = new TreeMap<>();
            assignment.partitions().forEach((id, parts) -> {
                List<Integer> sorted = new ArrayList<>(parts);
                Collections.sort(sorted);
                byName.put(nameOf.get(id), sorted);
            });
            Map<Uuid, Set<Integer>> target = new HashMap<>();
            byName.forEach((name, parts) -> target.put(idOf.get(name), new HashSet<>(parts)));
            owned.put(member, target);
        });
        return spec(owned);
    }

    private String digest(GroupAssignment result) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        TreeMap<String, MemberAssignment> members = new TreeMap<>(result.members());
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, MemberAssignment> entry : members.entrySet()) {
            TreeMap<String, List<Integer>> byName = new TreeMap<>();
            entry.getValue().partitions().forEach((id, parts) -> {
                if (!parts.isEmpty()) {
                    List<Integer> sorted = new ArrayList<>(parts);
                    Collections.sort(sorted);
                    byName.put(nameOf.get(id), sorted);
                }
            });
            if (byName.isEmpty()) {
                continue;
            }
            text.setLength(0);
            text.append(entry.getKey()).append(':');
            boolean comma = false;
            for (Map.Entry<String, List<Integer>> topic : byName.entrySet()) {
                for (int p : topic.getValue()) {
                    if (comma) {
                        text.append(',');
                    }
                    text.append(topic.getKey()).append('-').append(p);
                    comma = true;
                }
            }
            text.append('\n');
            sha.update(text.toString().getBytes(StandardCharsets.UTF_8));
        }
        StringBuilder hex = new StringBuilder();
        for (byte b : sha.digest()) {
            hex.append(String.format("%02x", b));
        }
        return hex.toString();
    }

    /** The topics' partition counts; neither assignor reads racks (4.0 through 4.2). */
    private record Partitions(Map<Uuid, Integer> counts) implements SubscribedTopicDescriber {
        @Override
        public int numPartitions(Uuid topicId) {
            Integer count = counts.get(topicId);
            return count == null ? -1 : count;
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            return Set.of();
        }
    }

    public static void main(String[] args) throws Exception {
        ServerAssignorsBench bench = new ServerAssignorsBench(Path.of(args[0]), Integer.parseInt(args[1]),
            Integer.parseInt(args[2]));
        Map<String, ConsumerGroupPartitionAssignor> assignors = new LinkedHashMap<>();
        assignors.put("uniform", new UniformAssignor());
        assignors.put("server-range", new RangeAssignor());
        // The steady round's input comes from Kafka's own first round.
        bench.specs.put("steady", bench.steady(assignors.get("uniform").assign(bench.specs.get("first"), bench.describer)));

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ready");
        System.out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            String[] command = line.trim().split(" ");
            ConsumerGroupPartitionAssignor assignor = assignors.get(command[0]);
            GroupSpecImpl spec = bench.specs.get(command[1]);
            long start = System.nanoTime();
            GroupAssignment result = assignor.assign(spec, bench.describer);
            long nanos = System.nanoTime() - start;
            String digest = command[2].equals("1") ? bench.digest(result) : "-";
            System.out.println(nanos + " " + digest);
            System.out.flush();
        }
    }
}
