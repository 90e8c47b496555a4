// Flink's own reader as the benchmark's reference: Checkpoints.loadCheckpointMetadata on one file, once
// (for end-to-end timing including JVM start-up) or many times in one JVM (warmed throughput).
//
//   java -cp <flink 2.3 jars>:. FlinkLoadBench <_metadata> [iterations]
import java.io.*;
import java.lang.reflect.Method;

public class FlinkLoadBench {
    public static void main(String[] args) throws Exception {
        File file = new File(args[0]);
        int iterations = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Class<?> checkpoints = Class.forName("org.apache.flink.runtime.checkpoint.Checkpoints");
        Method load = null;
        for (Method m : checkpoints.getMethods()) {
            if (m.getName().equals("loadCheckpointMetadata") && m.getParameterCount() == 3) load = m;
        }
        long best = Long.MAX_VALUE;
        int operators = 0;
        for (int i = 0; i < iterations; i++) {
            long start = System.nanoTime();
            try (DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(file), 1 << 20))) {
                Object md = load.invoke(null, in, FlinkLoadBench.class.getClassLoader(), file.getParent());
                operators = ((java.util.Collection<?>) md.getClass().getMethod("getOperatorStates").invoke(md)).size();
            }
            best = Math.min(best, System.nanoTime() - start);
        }
        double mb = file.length() / 1e6;
        System.out.printf("{\"operators\": %d, \"best_ms\": %.3f, \"mb_per_s\": %.1f}%n", operators, best / 1e6, mb / (best / 1e9));
    }
}
