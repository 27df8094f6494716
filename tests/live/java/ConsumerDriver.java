import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;

import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Real Kafka Java consumers for kgroup's live tests, several in one JVM, each on its own thread (a
 * KafkaConsumer is not thread-safe; one JVM keeps a 2-core machine from starting five).
 *
 * Commands, one JSON object a line on stdin:
 *   {"op":"join","name":N,"bootstrap":B,"group":G,"strategy":CLASS,"topics":[..],"instance":ID|null,"config":{..}}
 *   {"op":"leave","name":N}   close the consumer: a dynamic member sends LeaveGroup, a static one does not
 *   {"op":"stall","name":N,"ms":MS,"batches":B}  the next poll() comes MS later (a long batch); B (default 1)
 *                             batches in all, each further one starting at the member's next assignment
 *   {"op":"subscribe","name":N,"topics":[..]}  the member's thread calls subscribe() with these topics after
 *                             its current poll() (the consumer rejoins with the new subscription)
 *   {"op":"quit"}             close every consumer, then exit
 *   {"op":"describe","id":I,"bootstrap":B,"groups":[..]}  Admin.describeConsumerGroups, Kafka's own reading
 *                             of the groups (epochs, current and target assignments), answered on stdout
 * "strategy" may be null: a KIP-848 consumer (group.protocol=consumer) refuses partition.assignment.strategy.
 * Events, one JSON object a line on stdout, as they happen (callbacks run on the consumer's own thread):
 *   {"event":"assigned"|"revoked"|"lost","name":N,"member_id":M,"generation":G,"partitions":[[topic,p],..]}
 *   {"event":"closed","name":N}, {"event":"error","name":N,"message":..}, {"event":"ready"}
 *   {"event":"described","id":I,"groups":{G:{"state":..,"group_epoch":..,"target_assignment_epoch":..,
 *    "assignor":..,"type":..,"members":[{"member_id","instance_id","client_id","host","member_epoch",
 *    "upgraded","assignment":[[t,p],..],"target_assignment":[[t,p],..]|null},..]}}}
 */
public final class ConsumerDriver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Member> MEMBERS = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        emit(JSON.createObjectNode().put("event", "ready"));
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode command = JSON.readTree(line);
            String op = command.path("op").asText();
            if (op.equals("join")) {
                try {
                    Member member = new Member(command);
                    MEMBERS.put(member.name, member);
                    member.thread.start();
                } catch (RuntimeException e) {  // a configuration KafkaConsumer refuses
                    emit(JSON.createObjectNode().put("event", "error").put("name", command.path("name").asText())
                            .put("message", e.toString()));
                }
            } else if (op.equals("leave")) {
                Member member = MEMBERS.remove(command.path("name").asText());
                if (member != null) {
                    member.stop();
                }
            } else if (op.equals("stall")) {
                // the application stops calling poll() for `ms` (a long batch): max.poll.interval.ms tests
                Member member = MEMBERS.get(command.path("name").asText());
                if (member != null) {
                    // optional "batches": N>1 slow batches, each further one from the next assignment
                    member.slowBatches = Math.max(0, command.path("batches").asInt(1) - 1);
                    member.slowMs = command.path("ms").asLong();
                    member.stallMs = member.slowMs;
                }
            } else if (op.equals("subscribe")) {
                Member member = MEMBERS.get(command.path("name").asText());
                if (member != null) {
                    List<String> topics = new ArrayList<>();
                    command.path("topics").forEach(t -> topics.add(t.asText()));
                    member.resubscribe = topics;
                }
            } else if (op.equals("describe")) {
                describe(command);
            } else if (op.equals("quit")) {
                break;
            }
        }
        // stdin closed or quit: close every consumer (each on its own thread), then exit.
        List<Member> left = new ArrayList<>(MEMBERS.values());
        for (Member member : left) {
            member.stop();
        }
        for (Member member : left) {
            member.thread.join(30_000);
        }
        System.exit(0);
    }

    /** Kafka's own reading of the groups, independent of kgroup: Admin.describeConsumerGroups. */
    static void describe(JsonNode command) {
        Properties props = new Properties();
        props.put("bootstrap.servers", command.path("bootstrap").asText());
        List<String> groups = new ArrayList<>();
        command.path("groups").forEach(g -> groups.add(g.asText()));
        ObjectNode out = JSON.createObjectNode().put("event", "described").put("id", command.path("id").asText());
        try (Admin admin = Admin.create(props)) {
            Map<String, ConsumerGroupDescription> described =
                admin.describeConsumerGroups(groups).all().get(30, TimeUnit.SECONDS);
            ObjectNode byGroup = out.putObject("groups");
            for (Map.Entry<String, ConsumerGroupDescription> entry : described.entrySet()) {
                ConsumerGroupDescription group = entry.getValue();
                ObjectNode body = byGroup.putObject(entry.getKey());
                body.put("state", String.valueOf(group.groupState()));
                body.put("type", String.valueOf(group.type()));
                body.put("assignor", group.partitionAssignor());
                putOptional(body, "group_epoch", group.groupEpoch());
                putOptional(body, "target_assignment_epoch", group.targetAssignmentEpoch());
                ArrayNode members = body.putArray("members");
                for (MemberDescription member : group.members()) {
                    ObjectNode m = members.addObject();
                    m.put("member_id", member.consumerId());
                    m.put("instance_id", member.groupInstanceId().orElse(null));
                    m.put("client_id", member.clientId());
                    m.put("host", member.host());
                    putOptional(m, "member_epoch", member.memberEpoch());
                    if (member.upgraded().isPresent()) {
                        m.put("upgraded", member.upgraded().get());
                    } else {
                        m.putNull("upgraded");
                    }
                    putPartitions(m, "assignment", member.assignment().topicPartitions());
                    if (member.targetAssignment().isPresent()) {
                        putPartitions(m, "target_assignment", member.targetAssignment().get().topicPartitions());
                    } else {
                        m.putNull("target_assignment");
                    }
                }
            }
        } catch (Exception e) {
            emit(JSON.createObjectNode().put("event", "error").put("name", "describe " + command.path("id").asText())
                    .put("message", e.toString()));
            return;
        }
        emit(out);
    }

    private static void putOptional(ObjectNode node, String key, Optional<Integer> value) {
        if (value.isPresent()) {
            node.put(key, value.get());
        } else {
            node.putNull(key);
        }
    }

    private static void putPartitions(ObjectNode node, String key, Collection<TopicPartition> partitions) {
        ArrayNode listed = node.putArray(key);
        for (TopicPartition tp : partitions) {
            listed.addArray().add(tp.topic()).add(tp.partition());
        }
    }

    static void emit(ObjectNode event) {
        synchronized (System.out) {
            System.out.println(event.toString());
            System.out.flush();
        }
    }

    static final class Member implements ConsumerRebalanceListener {
        final String name;
        final Thread thread;
        private final KafkaConsumer<byte[], byte[]> consumer;
        private final List<String> topics = new ArrayList<>();
        private volatile boolean stopping;
        volatile long stallMs;
        volatile long slowMs;
        volatile int slowBatches;
        volatile List<String> resubscribe;  // subscribe() with these, on the member's own thread

        Member(JsonNode command) {
            name = command.path("name").asText();
            Properties props = new Properties();
            props.put("bootstrap.servers", command.path("bootstrap").asText());
            props.put("group.id", command.path("group").asText());
            props.put("client.id", name);
            if (command.hasNonNull("strategy")) {
                props.put("partition.assignment.strategy", command.path("strategy").asText());
            }
            if (command.hasNonNull("instance")) {
                props.put("group.instance.id", command.path("instance").asText());
            }
            command.path("config").properties().forEach(e -> props.put(e.getKey(), e.getValue().asText()));
            props.put("key.deserializer", ByteArrayDeserializer.class.getName());
            props.put("value.deserializer", ByteArrayDeserializer.class.getName());
            command.path("topics").forEach(t -> topics.add(t.asText()));
            consumer = new KafkaConsumer<>(props);
            thread = new Thread(this::run, "consumer-" + name);
        }

        void stop() {
            stopping = true;
            consumer.wakeup();
        }

        private void run() {
            try {
                consumer.subscribe(topics, this);
                while (!stopping) {
                    try {
                        consumer.poll(Duration.ofMillis(100));
                    } catch (WakeupException e) {
                        // stop() woke the poll up; the loop condition ends it
                    }
                    List<String> next = resubscribe;
                    if (next != null) {
                        resubscribe = null;
                        consumer.subscribe(next, this);
                    }
                    long stall = stallMs;
                    if (stall > 0) {
                        stallMs = 0;
                        long until = System.currentTimeMillis() + stall;
                        while (!stopping && System.currentTimeMillis() < until) {
                            Thread.sleep(20);  // no poll(): the consumer's poll timer runs out
                        }
                    }
                }
            } catch (Exception e) {
                emit(JSON.createObjectNode().put("event", "error").put("name", name).put("message", e.toString()));
            } finally {
                try {
                    // A dynamic member sends LeaveGroup, a static one stays until its session times out
                    // (GroupMembershipOperation.DEFAULT); close() rather than close(CloseOptions), which is 4.1+.
                    consumer.close();
                } catch (Exception e) {
                    emit(JSON.createObjectNode().put("event", "error").put("name", name).put("message", e.toString()));
                }
                emit(JSON.createObjectNode().put("event", "closed").put("name", name));
            }
        }

        private void report(String event, Collection<TopicPartition> partitions) {
            ObjectNode out = JSON.createObjectNode().put("event", event).put("name", name);
            if (!stopping) {
                // groupMetadata() is read on the consumer's own thread, inside its callback.
                out.put("member_id", consumer.groupMetadata().memberId());
                out.put("generation", consumer.groupMetadata().generationId());
            }
            ArrayNode listed = out.putArray("partitions");
            for (TopicPartition tp : partitions) {
                listed.addArray().add(tp.topic()).add(tp.partition());
            }
            emit(out);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            report("assigned", partitions);
            if (slowBatches > 0 && stallMs == 0) {
                // a slow batch past max.poll.interval.ms cost the member its place: the next one starts
                // once it is back in the group, as the poll() that rejoined returns with its assignment
                slowBatches--;
                stallMs = slowMs;
            }
        }

        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            report("revoked", partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            report("lost", partitions);
        }
    }
}
