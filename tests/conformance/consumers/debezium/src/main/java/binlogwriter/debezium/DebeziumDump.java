package binlogwriter.debezium;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the Debezium MySQL connector in the embedded engine against one binlogwriter serve
 * endpoint and prints each data change record as one JSON line on stdout:
 * {"destination": TOPIC, "key": KEY, "value": VALUE}, key and value as Kafka Connect's JsonConverter writes them (schemas
 * enabled, so the adapter sees each field's semantic type name).
 *
 * Arguments: key=value pairs. host, port, user, password, server.id, expected (stop after this
 * many change records), timeout (seconds). Any other key=value is passed to the connector as a
 * property (the adapter sets the value modes there, and may replace the in-memory offset store
 * and schema history with files to stop and resume). Exit status 0 when `expected` records were
 * printed, 2 on a timeout, 1 when the engine stopped with an error (its message on stderr as a
 * line starting "ENGINE-ERROR ").
 */
public final class DebeziumDump {
    private DebeziumDump() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException("argument not key=value: " + arg);
            }
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        final int expected = Integer.parseInt(a.remove("expected"));
        final double timeout = Double.parseDouble(a.getOrDefault("timeout", "120"));
        a.remove("timeout");

        Properties p = new Properties();
        p.setProperty("name", "binlogwriter-debezium");
        p.setProperty("connector.class", "io.debezium.connector.mysql.MySqlConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "0");
        p.setProperty("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
        p.setProperty("topic.prefix", "binlogwriter");
        p.setProperty("database.hostname", a.remove("host"));
        p.setProperty("database.port", a.remove("port"));
        p.setProperty("database.user", a.remove("user"));
        p.setProperty("database.password", a.remove("password"));
        p.setProperty("database.server.id", a.remove("server.id"));
        p.setProperty("converter.schemas.enable", "true");
        p.setProperty("key.converter.schemas.enable", "true");
        p.setProperty("value.converter.schemas.enable", "true");
        for (Map.Entry<String, String> e : a.entrySet()) {
            p.setProperty(e.getKey(), e.getValue());
        }

        final PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
                StandardCharsets.UTF_8);
        final AtomicInteger seen = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(1);
        final AtomicReference<String> failure = new AtomicReference<>();

        DebeziumEngine<ChangeEvent<String, String>> engine = DebeziumEngine.create(Json.class)
                .using(p)
                .using((success, message, error) -> {
                    if (!success || error != null) {
                        // the deepest cause first (what went wrong), then the engine's own message
                        Throwable root = error;
                        while (root != null && root.getCause() != null && root.getCause() != root) {
                            root = root.getCause();
                        }
                        String why = root == null ? String.valueOf(message)
                                : root.getClass().getName() + ": " + root.getMessage() + " (engine: " + message + ")";
                        failure.compareAndSet(null, why.replace('\n', ' '));
                    }
                    done.countDown();
                })
                .notifying((records, committer) -> {
                    // Records are marked processed up to the last one printed and no further, so
                    // offsets kept in a file (a restart test) resume exactly after it.
                    for (ChangeEvent<String, String> record : records) {
                        if (seen.get() >= expected) {
                            break;
                        }
                        // transaction BEGIN/END records (provide.transaction.metadata) are not changes
                        boolean change = record.value() != null
                                && !String.valueOf(record.destination()).endsWith(".transaction");
                        if (change) {
                            out.print("{\"destination\":");
                            out.print(quote(record.destination()));
                            out.print(",\"key\":");
                            out.print(record.key() == null ? "null" : record.key());
                            out.print(",\"value\":");
                            out.print(record.value());
                            out.print("}\n");
                            seen.incrementAndGet();
                        }
                        committer.markProcessed(record);
                    }
                    out.flush();
                    committer.markBatchFinished();
                    if (seen.get() >= expected) {
                        done.countDown();
                    }
                })
                .build();

        ExecutorService executor = Executors.newSingleThreadExecutor();
        executor.execute(engine);
        boolean finished = done.await((long) (timeout * 1000), TimeUnit.MILLISECONDS);
        out.flush();
        try {
            engine.close();
        }
        catch (Exception ignored) {
            // closing after an error or a timeout: nothing more to report
        }
        executor.shutdownNow();
        String why = failure.get();
        int status = 0;
        if (why != null && seen.get() < expected) {
            System.err.println("ENGINE-ERROR " + why);
            status = 1;
        }
        else if (!finished) {
            System.err.println("TIMEOUT after " + timeout + " s with " + seen.get() + " of " + expected + " changes");
            status = 2;
        }
        System.err.flush();
        out.flush();
        Runtime.getRuntime().halt(status);
    }

    private static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            }
            else if (c < 0x20) {
                sb.append(String.format("\\u%04x", (int) c));
            }
            else {
                sb.append(c);
            }
        }
        return sb.append('"').toString();
    }
}
