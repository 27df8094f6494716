import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * kgroup's test oracle: runs Apache Kafka's own assignor classes on group states read as JSON.
 *
 * One request per stdin line: a case object, or an array of them (a batch). One answer per stdout line,
 * in the same shape: {"assignment": {member: [[topic, partition], ...]}} or {"error": "Class: message"}.
 * A case names its assignor: range, roundrobin, sticky, cooperative-sticky (ClientAssignors) or
 * uniform, server-range (ServerAssignors). The schema is documented in tests/oracle/sidecar.py.
 */
public final class Sidecar {
    private static final ObjectMapper JSON = new ObjectMapper();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode request = JSON.readTree(line);
            JsonNode answer;
            if (request.isArray()) {
                ArrayNode answers = JSON.createArrayNode();
                request.forEach(one -> answers.add(answer(one)));
                answer = answers;
            } else {
                answer = answer(request);
            }
            out.println(JSON.writeValueAsString(answer));
            out.flush();
        }
    }

    private static ObjectNode answer(JsonNode request) {
        ObjectNode answer = JSON.createObjectNode();
        try {
            String assignor = request.get("assignor").asText();
            Map<String, List<Map.Entry<String, Integer>>> result = ServerAssignors.handles(assignor)
                ? ServerAssignors.assign(assignor, request)
                : ClientAssignors.assign(assignor, request);
            ObjectNode members = answer.putObject("assignment");
            result.forEach((member, partitions) -> {
                ArrayNode list = members.putArray(member);
                partitions.forEach(tp -> list.addArray().add(tp.getKey()).add(tp.getValue()));
            });
        } catch (Exception | StackOverflowError e) {
            answer.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        return answer;
    }

    static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
