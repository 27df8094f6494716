import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;

import org.apache.kafka.timeline.SnapshotRegistry;
import org.apache.kafka.timeline.TimelineHashMap;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Constructor;
import java.nio.charset.StandardCharsets;

/**
 * kgroup's oracle for the order a KIP-848 coordinator iterates its members in: Kafka's own TimelineHashMap.
 *
 * stdin: one JSON array of cases per line; a case is a list of operations, ["put", key], ["remove", key] or
 * ["order"]. Each case runs on a new TimelineHashMap<String, String>(registry, 0), as ModernGroup creates its
 * members map; a put of a key already there replaces its value, as each member record replayed does.
 * stdout: one JSON array per line, for each case the list of its "order" answers, each the keys as the map's
 * entrySet() iterates them (what TargetAssignmentBuilder.build's members.forEach walks).
 */
public class TimelineOrder {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A new SnapshotRegistry(new LogContext()). LogContext moved from org.apache.kafka.common.utils (4.0-4.3) to
     * org.apache.kafka.common.utils.internals (4.4), so it is reached through the constructor's own parameter type:
     * one source compiles against every 4.x release.
     */
    private static SnapshotRegistry registry() throws Exception {
        for (Constructor<?> constructor : SnapshotRegistry.class.getConstructors()) {
            Class<?>[] types = constructor.getParameterTypes();
            if (types.length == 1 && types[0].getSimpleName().equals("LogContext")) {
                return (SnapshotRegistry) constructor.newInstance(types[0].getConstructor().newInstance());
            }
        }
        throw new IllegalStateException("this Kafka release has no SnapshotRegistry(LogContext) constructor");
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            ArrayNode answers = JSON.createArrayNode();
            for (JsonNode ops : JSON.readTree(line)) {
                TimelineHashMap<String, String> members =
                    new TimelineHashMap<>(registry(), 0);
                ArrayNode orders = answers.addArray();
                for (JsonNode op : ops) {
                    switch (op.get(0).asText()) {
                        case "put" -> members.put(op.get(1).asText(), "record");
                        case "remove" -> members.remove(op.get(1).asText());
                        case "order" -> {
                            ArrayNode order = orders.addArray();
                            members.forEach((key, value) -> order.add(key));
                        }
                        default -> throw new IllegalArgumentException("unknown operation " + op);
                    }
                }
            }
            out.println(JSON.writeValueAsString(answers));
        }
    }
}
