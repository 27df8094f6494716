import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListShareGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.admin.SharePartitionOffsetInfo;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Real Kafka share consumers (KIP-932, KafkaShareConsumer) for kgroup's live tests, several in one JVM, each
 * on its own thread, and Kafka's own Admin reading of share groups.
 *
 * Commands, one JSON object a line on stdin:
 *   {"op":"config","id":I,"bootstrap":B,"group":G,"configs":{..}}  set group configs (share.auto.offset.reset)
 *   {"op":"join","name":N,"bootstrap":B,"group":G,"topics":[..],"config":{..}}  a share consumer that polls,
 *                             its records acknowledged (implicit mode) by its next poll
 *   {"op":"pause","name":N}   acknowledge what the last poll delivered (commitSync), then stop polling; the
 *                             consumer stays a member (its heartbeats go on in the background)
 *   {"op":"leave","name":N}   close the consumer (it leaves the group)
 *   {"op":"prepare","name":N,"bootstrap":B,"group":G,"topics":[..],"config":{..}}  a share consumer made and
 *                             subscribed but not polled (so not joined yet), its member id answered:
 *                             {"event":"prepared","name":N,"member_id":M}
 *   {"op":"start","name":N}   start polling a prepared consumer: it joins with that member id
 *   {"op":"holdings","id":I,"bootstrap":B,"group":G}  Admin.describeShareGroups alone, on an Admin kept open:
 *                             {"event":"holdings","id":I,"group":{"state","group_epoch","assignment_epoch",
 *                             "members":[{"member_id","member_epoch","assignment":[[t,p],..]},..]}}
 *   {"op":"describe","id":I,"bootstrap":B,"groups":[..]}  Admin.describeShareGroups and
 *                             Admin.listShareGroupOffsets, answered on stdout
 *   {"op":"list","id":I,"bootstrap":B}  the share groups Admin.listGroups(ListGroupsOptions.forShareGroups())
 *                             lists: {"event":"listed","id":I,"groups":[G,..]} (sorted)
 *   {"op":"quit"}             close every consumer, then exit
 * Events, one JSON object a line on stdout:
 *   {"event":"ready"}, {"event":"configured","id":I}, {"event":"consumed","name":N,"total":T},
 *   {"event":"paused","name":N,"total":T}, {"event":"closed","name":N}, {"event":"error","name":N,"message":..}
 *   {"event":"described","id":I,"groups":{G:{"state","group_epoch","assignment_epoch","coordinator":{id,host,port},
 *    "members":[{"member_id","rack","client_id","host","member_epoch","assignment":[[t,p],..]},..],
 *    "offsets":[{"topic","partition","start_offset","leader_epoch","lag"},..]}}}
 */
public final class ShareDriver {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, Member> MEMBERS = new ConcurrentHashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        emit(JSON.createObjectNode().put("event", "ready"));
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode command = JSON.readTree(line);
            String op = command.path("op").asText();
            try {
                if (op.equals("join")) {
                    Member member = new Member(command);
                    MEMBERS.put(member.name, member);
                    member.thread.start();
                } else if (op.equals("pause")) {
                    Member member = MEMBERS.get(command.path("name").asText());
                    if (member != null) {
                        member.pause = true;
                    }
                } else if (op.equals("leave")) {
                    Member member = MEMBERS.remove(command.path("name").asText());
                    if (member != null) {
                        member.stop();
                    }
                } else if (op.equals("prepare")) {
                    Member member = new Member(command);
                    MEMBERS.put(member.name, member);
                    emit(JSON.createObjectNode().put("event", "prepared").put("name", member.name)
                            .put("member_id", memberId(member.consumer)));
                } else if (op.equals("holdings")) {
                    holdings(command);
                } else if (op.equals("start")) {
                    MEMBERS.get(command.path("name").asText()).thread.start();
                } else if (op.equals("config")) {
                    configure(command);
                } else if (op.equals("list")) {
                    listShareGroups(command);
                } else if (op.equals("describe")) {
                    describe(command);
                } else if (op.equals("quit")) {
                    break;
                }
            } catch (Exception e) {
                emit(JSON.createObjectNode().put("event", "error").put("name", command.path("name").asText())
                        .put("id", command.path("id").asText()).put("message", e.toString()));
            }
        }
        for (Member member : MEMBERS.values()) {
            member.stop();
        }
        System.exit(0);
    }

    static synchronized void emit(ObjectNode event) {
        System.out.println(event.toString());
        System.out.flush();
    }

    /**
     * The member id a KafkaShareConsumer made for itself (KIP-1082: AbstractMembershipManager's random Uuid, made
     * when its background thread builds the request managers, before it joins). KafkaShareConsumer does not
     * expose it, so it is read through the client's internals (4.2.1: delegate, applicationEventHandler,
     * networkThread, requestManagers, shareMembershipManager), waiting for the background thread to build them.
     */
    private static String memberId(KafkaShareConsumer<byte[], byte[]> consumer) throws Exception {
        Object delegate = field(consumer, "delegate");
        Object handler = field(delegate, "applicationEventHandler");
        Object thread = field(handler, "networkThread");
        long end = System.currentTimeMillis() + 60000;
        Object managers = field(thread, "requestManagers");
        while (managers == null && System.currentTimeMillis() < end) {
            Thread.sleep(20);
            managers = field(thread, "requestManagers");
        }
        if (managers == null) {
            throw new IllegalStateException("the share consumer's request managers were not built within 60 s");
        }
        java.util.Optional<?> manager = (java.util.Optional<?>) field(managers, "shareMembershipManager");
        return (String) field(manager.get(), "memberId");
    }

    private static final Map<String, Admin> ADMINS = new ConcurrentHashMap<>();

    private static void holdings(JsonNode command) throws Exception {
        Admin admin = ADMINS.computeIfAbsent(command.path("bootstrap").asText(), b -> admin(command));
        String groupId = command.path("group").asText();
        ShareGroupDescription d = admin.describeShareGroups(List.of(groupId)).all().get(30, TimeUnit.SECONDS)
                .get(groupId);
        ObjectNode g = JSON.createObjectNode();
        g.put("state", d.groupState().toString());
        g.put("group_epoch", d.groupEpoch());
        g.put("assignment_epoch", d.targetAssignmentEpoch());
        ArrayNode members = g.putArray("members");
        for (ShareMemberDescription m : d.members()) {
            ObjectNode member = members.addObject();
            member.put("member_id", m.consumerId());
            member.put("member_epoch", m.memberEpoch());
            ArrayNode parts = member.putArray("assignment");
            m.assignment().topicPartitions().forEach(tp -> parts.addArray().add(tp.topic()).add(tp.partition()));
        }
        ObjectNode event = JSON.createObjectNode().put("event", "holdings").put("id", command.path("id").asText());
        event.set("group", g);
        emit(event);
    }

    private static Object field(Object owner, String name) throws Exception {
        for (Class<?> c = owner.getClass(); c != null; c = c.getSuperclass()) {
            try {
                java.lang.reflect.Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(owner);
            } catch (NoSuchFieldException e) {
                // declared higher up
            }
        }
        throw new NoSuchFieldException(name);
    }

    private static Admin admin(JsonNode command) {
        Properties props = new Properties();
        props.put("bootstrap.servers", command.path("bootstrap").asText());
        props.put("default.api.timeout.ms", "30000");
        return Admin.create(props);
    }

    private static void configure(JsonNode command) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        command.path("configs").fields().forEachRemaining(e -> ops.add(
                new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue().asText()), AlterConfigOp.OpType.SET)));
        try (Admin admin = admin(command)) {
            ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, command.path("group").asText());
            admin.incrementalAlterConfigs(Map.of(group, ops)).all().get(30, TimeUnit.SECONDS);
        }
        emit(JSON.createObjectNode().put("event", "configured").put("id", command.path("id").asText()));
    }

    private static void listShareGroups(JsonNode command) throws Exception {
        ObjectNode event = JSON.createObjectNode().put("event", "listed").put("id", command.path("id").asText());
        ArrayNode names = event.putArray("groups");
        try (Admin admin = admin(command)) {
            admin.listGroups(org.apache.kafka.clients.admin.ListGroupsOptions.forShareGroups()).all()
                    .get(30, TimeUnit.SECONDS).stream().map(g -> g.groupId()).sorted().forEach(names::add);
        }
        emit(event);
    }

    private static void describe(JsonNode command) throws Exception {
        List<String> groups = new ArrayList<>();
        command.path("groups").forEach(g -> groups.add(g.asText()));
        ObjectNode out = JSON.createObjectNode();
        try (Admin admin = admin(command)) {
            Map<String, ShareGroupDescription> described =
                    admin.describeShareGroups(groups).all().get(30, TimeUnit.SECONDS);
            for (String groupId : groups) {
                ShareGroupDescription d = described.get(groupId);
                ObjectNode g = out.putObject(groupId);
                g.put("state", d.groupState().toString());
                g.put("group_epoch", d.groupEpoch());
                g.put("assignment_epoch", d.targetAssignmentEpoch());
                g.putObject("coordinator").put("id", d.coordinator().id()).put("host", d.coordinator().host())
                        .put("port", d.coordinator().port());
                ArrayNode members = g.putArray("members");
                List<ShareMemberDescription> sorted = new ArrayList<>(d.members());
                sorted.sort(Comparator.comparing(ShareMemberDescription::consumerId));
                for (ShareMemberDescription m : sorted) {
                    ObjectNode member = members.addObject();
                    member.put("member_id", m.consumerId());
                    member.put("rack", m.rackId().orElse(null));
                    member.put("client_id", m.clientId());
                    member.put("host", m.host());
                    member.put("member_epoch", m.memberEpoch());
                    ArrayNode parts = member.putArray("assignment");
                    m.assignment().topicPartitions().stream()
                            .sorted(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition))
                            .forEach(tp -> parts.addArray().add(tp.topic()).add(tp.partition()));
                }
                Map<TopicPartition, SharePartitionOffsetInfo> offsets = admin.listShareGroupOffsets(
                        Map.of(groupId, new ListShareGroupOffsetsSpec())).partitionsToOffsetInfo(groupId)
                        .get(30, TimeUnit.SECONDS);
                ArrayNode rows = g.putArray("offsets");
                offsets.entrySet().stream()
                        .sorted(Map.Entry.comparingByKey(Comparator.comparing(TopicPartition::topic)
                                .thenComparingInt(TopicPartition::partition)))
                        .forEach(e -> {
                            ObjectNode row = rows.addObject();
                            row.put("topic", e.getKey().topic());
                            row.put("partition", e.getKey().partition());
                            SharePartitionOffsetInfo info = e.getValue();  // null: no start offset yet
                            if (info == null) {
                                row.putNull("start_offset");
                                row.putNull("leader_epoch");
                                row.putNull("lag");
                            } else {
                                row.put("start_offset", info.startOffset());
                                row.put("leader_epoch", info.leaderEpoch().orElse(null));
                                row.put("lag", info.lag().orElse(null));
                            }
                        });
            }
        }
        ObjectNode event = JSON.createObjectNode().put("event", "described").put("id", command.path("id").asText());
        event.set("groups", out);
        emit(event);
    }

    static final class Member implements Runnable {
        final String name;
        final Thread thread;
        final KafkaShareConsumer<byte[], byte[]> consumer;
        volatile boolean running = true;
        volatile boolean pause = false;
        long total = 0;

        Member(JsonNode command) {
            name = command.path("name").asText();
            Properties props = new Properties();
            props.put("bootstrap.servers", command.path("bootstrap").asText());
            props.put("group.id", command.path("group").asText());
            props.put("client.id", name);
            command.path("config").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
            consumer = new KafkaShareConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            List<String> topics = new ArrayList<>();
            command.path("topics").forEach(t -> topics.add(t.asText()));
            consumer.subscribe(topics);
            thread = new Thread(this, "share-" + name);
        }

        @Override
        public void run() {
            boolean paused = false;
            try {
                while (running) {
                    if (pause) {
                        if (!paused) {
                            consumer.commitSync(Duration.ofSeconds(30));  // acknowledges the last poll's records
                            paused = true;
                            emit(JSON.createObjectNode().put("event", "paused").put("name", name).put("total", total));
                        }
                        Thread.sleep(50);
                        continue;
                    }
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
                    if (!records.isEmpty()) {
                        total += records.count();
                        emit(JSON.createObjectNode().put("event", "consumed").put("name", name).put("total", total));
                    }
                }
            } catch (WakeupException e) {
                // stop() wakes a blocked poll
            } catch (Exception e) {
                emit(JSON.createObjectNode().put("event", "error").put("name", name).put("message", e.toString()));
            } finally {
                consumer.close(Duration.ofSeconds(20));
                emit(JSON.createObjectNode().put("event", "closed").put("name", name));
            }
        }

        void stop() throws InterruptedException {
            running = false;
            consumer.wakeup();
            thread.join(30000);
        }
    }
}
