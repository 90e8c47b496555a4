// Writes the graph manifest (sp-inspect/graph-v1) of a Java/Scala DataStream job without running it.
//
//   javac -cp <flink jars> -d classes SpInspectGraph.java
//   java -cp <flink jars>:<job jar>:classes SpInspectGraph [--output FILE] MAIN_CLASS [JOB ARGS...]
//
// Installs a context environment, so that StreamExecutionEnvironment.getExecutionEnvironment() in the
// job's main() returns an environment whose execute()/executeAsync() builds Flink's JobGraph from the
// job's StreamGraph (Flink's own StreamGraphHasherV2 and StreamingJobGraphGenerator, of the release on the
// classpath), writes every operator's IDs, name, uid, parallelism, explicitly configured max parallelism,
// inputs and whether it holds state (see stateful()), and stops the job's main() instead of running the
// job. Works with Flink 1.12 and later.
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

    /** Whether the class, a superclass or an interface it implements (directly or not) is named {@code name}. */
    static boolean isA(Class<?> c, String name) {
        for (String n : hierarchy(c)) if (n.equals(name)) return true;
        return false;
    }

    static boolean isA(Object o, String name) { return o != null && isA(o.getClass(), name); }

    /** Names of the class, its superclasses and every interface they implement. */
    static Set<String> hierarchy(Class<?> c) {
        Set<String> out = new LinkedHashSet<>();
        Deque<Class<?>> todo = new ArrayDeque<>();
        if (c != null) todo.add(c);
        while (!todo.isEmpty()) {
            Class<?> k = todo.poll();
            if (!out.add(k.getName())) continue;
            if (k.getSuperclass() != null) todo.add(k.getSuperclass());
            todo.addAll(Arrays.asList(k.getInterfaces()));
        }
        return out;
    }

    /** Calls a public no-argument method by name; null when it does not exist or fails. */
    static Object call(Object o, String method) {
        if (o == null) return null;
        try {
            return o.getClass().getMethod(method).invoke(o);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return null;
        }
    }

    static String simpleName(String className) {
        return className.substring(Math.max(className.lastIndexOf('.'), className.lastIndexOf('$')) + 1);
    }

    // Non-keyed operators that hold no state of their own: whatever they hold is their user function's
    // (CheckpointedFunction / ListCheckpointed), checked first. Matched exactly: a subclass may add state.
    static final Set<String> STATELESS_OPERATORS = new HashSet<>(Arrays.asList(
            "org.apache.flink.streaming.api.operators.StreamMap",
            "org.apache.flink.streaming.api.operators.StreamFilter",
            "org.apache.flink.streaming.api.operators.StreamFlatMap",
            "org.apache.flink.streaming.api.operators.ProcessOperator",
            "org.apache.flink.streaming.api.operators.StreamSink", // legacy SinkFunction sinks (print, ...)
            "org.apache.flink.streaming.runtime.operators.TimestampsAndWatermarksOperator"));

    // PyFlink DataStream function types of non-keyed Python functions, which keep nothing in Flink state
    // (Python broadcast state is the only operator state PyFlink offers, and only to broadcast functions).
    static final Set<String> STATELESS_PYTHON_FUNCTIONS = new HashSet<>(Arrays.asList(
            "PROCESS", "CO_PROCESS", "MAP", "FLAT_MAP", "CO_MAP", "CO_FLAT_MAP", "FILTER", "REVISE_OUTPUT"));

    /**
     * Whether the operator holds state in a checkpoint: TRUE for sources, keyed operators, windows, Sink V1/V2
     * writers and committers, broadcast-state operators, user functions implementing CheckpointedFunction
     * or ListCheckpointed, and keyed or broadcast Python functions; FALSE for the known stateless operators
     * above whose function declares no state; null (unknown) for everything else.
     */
    static Boolean stateful(StreamNode n, boolean source) {
        if (source) return true;
        if (call(n, "getStateKeySerializer") != null) return true; // keyed: keyed state, timers
        Object factory = call(n, "getOperatorFactory");
        if (factory == null) return null;
        Object operator = isA(factory, "org.apache.flink.streaming.api.operators.SimpleOperatorFactory")
                ? call(factory, "getOperator") : null;
        Class<?> operatorClass = operator != null ? operator.getClass() : null;
        if (operatorClass == null) {
            try {
                operatorClass = (Class<?>) factory.getClass().getMethod("getStreamOperatorClass", ClassLoader.class)
                        .invoke(factory, Thread.currentThread().getContextClassLoader());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                operatorClass = null;
            }
        }
        Object function = isA(factory, "org.apache.flink.streaming.api.operators.UdfStreamOperatorFactory")
                ? call(factory, "getUserFunction") : call(operator, "getUserFunction");
        // Flink restores a WrappingFunction's wrapped function's state.
        for (Object f = function; f != null; f = simpleNames(f.getClass()).contains("WrappingFunction")
                ? call(f, "getWrappedFunction") : null) {
            if (isA(f, "org.apache.flink.streaming.api.checkpoint.CheckpointedFunction")
                    || isA(f, "org.apache.flink.streaming.api.checkpoint.ListCheckpointed")) return true;
        }
        Set<String> names = new LinkedHashSet<>(hierarchy(factory.getClass()));
        names.addAll(hierarchy(operatorClass));
        for (String name : names) {
            String simple = simpleName(name);
            if (name.equals("org.apache.flink.streaming.api.operators.SourceOperatorFactory")
                    || name.equals("org.apache.flink.streaming.api.operators.SourceOperator")
                    || name.equals("org.apache.flink.streaming.api.operators.StreamSource")
                    // Sink V1 (1.12-1.14) and V2 writers, committers, global committers
                    || name.startsWith("org.apache.flink.streaming.runtime.operators.sink.")
                    || name.equals("org.apache.flink.streaming.api.connector.sink2.GlobalCommitterOperator")
                    || simple.contains("WindowOperator")
                    || simple.contains("Broadcast")) return true;
        }
        if (isA(operator, "org.apache.flink.streaming.api.operators.python.DataStreamPythonFunctionOperator")) {
            Set<String> types = pythonFunctionTypes(call(operator, "getPythonFunctionInfo"));
            if (types == null || types.isEmpty()) return null;
            if (STATELESS_PYTHON_FUNCTIONS.containsAll(types)) return false;
            for (String t : types) {
                if (t.contains("KEYED") || t.contains("BROADCAST") || t.contains("WINDOW") || t.contains("REDUCE")) return true;
            }
            return null;
        }
        if (operatorClass != null && STATELESS_OPERATORS.contains(operatorClass.getName()) && function != null) return false;
        return null;
    }

    static Set<String> simpleNames(Class<?> c) {
        Set<String> out = new HashSet<>();
        for (String n : hierarchy(c)) out.add(simpleName(n));
        return out;
    }

    /** The function types of a (fused) Python function chain by name, or null when one is not known. */
    static Set<String> pythonFunctionTypes(Object info) {
        Set<String> out = new HashSet<>();
        Deque<Object> todo = new ArrayDeque<>();
        if (info != null) todo.add(info);
        while (!todo.isEmpty()) {
            Object i = todo.poll();
            Object type = call(i, "getFunctionType");
            if (!(type instanceof Integer)) return null;
            try {
                Object name = Class.forName("org.apache.flink.fnexecution.v1.FlinkFnApi$UserDefinedDataStreamFunction$FunctionType",
                        false, i.getClass().getClassLoader()).getMethod("forNumber", int.class).invoke(null, type);
                if (name == null) return null;
                out.add(name.toString());
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null;
            }
            Object inputs = call(i, "getInputs");
            if (inputs instanceof Object[]) {
                for (Object in : (Object[]) inputs) {
                    if (isA(in, "org.apache.flink.streaming.api.functions.python.DataStreamPythonFunctionInfo")) todo.add(in);
                }
            }
        }
        return out;
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
                        + ", \"source\": " + sources.contains(n.getId())
                        + ", \"stateful\": " + stateful(n, sources.contains(n.getId())) + "}");
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
