// Writes the graph manifest (sp-inspect/graph-v1) of a Java/Scala DataStream job without running it.
//
//   javac -cp <flink jars> -d classes SpInspectGraph.java
//   java -cp <flink jars>:<job jar>:classes SpInspectGraph [--output FILE] MAIN_CLASS [JOB ARGS...]
//
// Installs a context environment, so that StreamExecutionEnvironment.getExecutionEnvironment() in the
// job's main() returns an environment whose execute()/executeAsync() builds Flink's JobGraph from the
// job's StreamGraph (Flink's own StreamGraphHasherV2 and StreamingJobGraphGenerator, of the release on the
// classpath), writes every operator's IDs, name, uid, parallelism, explicitly configured max parallelism
// and inputs, and stops the job's main() instead of running the job. Works with Flink 1.12 and later.
// Jobs that build their environment with createLocalEnvironment()/createRemoteEnvironment() bypass it.
import java.io.*;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.OperatorIDPair;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamEdge;
import org.apache.flink.streaming.api.graph.StreamGraph;
import org.apache.flink.streaming.api.graph.StreamGraphHasherV2;
import org.apache.flink.streaming.api.graph.StreamNode;

public class SpInspectGraph extends StreamExecutionEnvironment {
    /** Thrown through the job's main() once the manifest is written. */
    static final class Written extends RuntimeException {
        Written() { super("sp-inspect: graph written", null, false, false); }
    }

    static String output;

    SpInspectGraph(Configuration conf) { super(conf); }

    @Override
    public org.apache.flink.api.common.JobExecutionResult execute(StreamGraph graph) throws Exception {
        write(graph);
        throw new Written();
    }

    @Override
    public JobClient executeAsync(StreamGraph graph) throws Exception {
        write(graph);
        throw new Written();
    }

    static String hex(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) s.append(String.format("%02x", x));
        return s.toString();
    }

    static String q(Object o) {
        if (o == null) return "null";
        StringBuilder b = new StringBuilder("\"");
        for (char c : o.toString().toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }

    /** StreamNode.getMaxParallelism() is package private before Flink 1.15. */
    static int maxParallelism(StreamNode n) {
        try {
            java.lang.reflect.Method m = StreamNode.class.getDeclaredMethod("getMaxParallelism");
            m.setAccessible(true);
            return (Integer) m.invoke(n);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read the max parallelism of " + n, e);
        }
    }

    static void write(StreamGraph graph) throws IOException {
        Map<Integer, byte[]> hashes = new StreamGraphHasherV2().traverseStreamGraphAndGenerateHashes(graph);
        Map<String, StreamNode> byId = new HashMap<>();
        for (StreamNode n : graph.getStreamNodes()) byId.put(hex(hashes.get(n.getId())), n);
        Set<Integer> sources = new HashSet<>(graph.getSourceIDs());
        JobGraph jobGraph = graph.getJobGraph();
        List<String> ops = new ArrayList<>();
        for (JobVertex v : jobGraph.getVerticesSortedTopologicallyFromSources()) {
            List<OperatorIDPair> pairs = new ArrayList<>(v.getOperatorIDs());
            Collections.reverse(pairs); // head first
            for (OperatorIDPair p : pairs) {
                String id = p.getGeneratedOperatorID().toString();
                StreamNode n = byId.get(id);
                if (n == null) throw new IllegalStateException("operator " + id + " has no stream node");
                List<String> inputs = new ArrayList<>();
                for (StreamEdge e : n.getInEdges()) inputs.add(q(hex(hashes.get(e.getSourceId()))));
                int maxParallelism = maxParallelism(n);
                ops.add("    {\"id\": " + q(id)
                        + ", \"uid\": " + q(n.getTransformationUID())
                        + ", \"uid_hash\": " + (p.getUserDefinedOperatorID().isPresent() ? q(p.getUserDefinedOperatorID().get()) : "null")
                        + ", \"name\": " + q(n.getOperatorName())
                        + ", \"vertex\": " + q(v.getID())
                        + ", \"parallelism\": " + n.getParallelism()
                        // Not configured (non-positive): the job adopts the savepoint's.
                        + ", \"max_parallelism\": " + (maxParallelism > 0 ? maxParallelism : "null")
                        + ", \"inputs\": [" + String.join(", ", inputs) + "]"
                        + ", \"source\": " + sources.contains(n.getId()) + "}");
            }
        }
        String doc = "{\n  \"schema\": \"sp-inspect/graph-v1\",\n  \"generator\": \"contrib/java/SpInspectGraph.java\",\n"
                + "  \"flink_version\": " + q(org.apache.flink.runtime.util.EnvironmentInformation.getVersion()) + ",\n"
                + "  \"job_name\": " + q(graph.getJobName()) + ",\n  \"operators\": [\n" + String.join(",\n", ops) + "\n  ]\n}\n";
        if (output == null || output.equals("-")) {
            System.out.print(doc);
            System.out.flush();
        } else {
            try (Writer w = new OutputStreamWriter(new FileOutputStream(output), StandardCharsets.UTF_8)) {
                w.write(doc);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int i = 0;
        if (args.length > 1 && args[0].equals("--output")) {
            output = args[1];
            i = 2;
        }
        if (args.length <= i) {
            System.err.println("usage: SpInspectGraph [--output FILE] MAIN_CLASS [JOB ARGS...]");
            System.exit(2);
        }
        String mainClass = args[i];
        String[] jobArgs = Arrays.copyOfRange(args, i + 1, args.length);
        initializeContextEnvironment(SpInspectGraph::new);
        try {
            Class.forName(mainClass).getMethod("main", String[].class).invoke(null, (Object) jobArgs);
        } catch (InvocationTargetException e) {
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof Written) System.exit(0);
            }
            throw e;
        }
        System.err.println("SpInspectGraph: " + mainClass + " returned without calling execute() or executeAsync()");
        System.exit(2);
    }
}
