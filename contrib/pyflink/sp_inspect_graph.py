#!/usr/bin/env python3
"""Write the graph manifest (sp-inspect/graph-v1) of a PyFlink job without running the job.

    python sp_inspect_graph.py [--output FILE] JOB.py [JOB ARGS...]

Runs JOB.py with StreamExecutionEnvironment.execute() and execute_async() intercepted: at the first call
the stream graph is generated exactly as PyFlink's own execute() generates it (Python operator
configuration and fusion included), turned into Flink's JobGraph, and each operator's IDs, name, uid,
parallelism, explicitly configured max parallelism and inputs are written as JSON. Then the script exits
(status 0) instead of running the job. Use the PyFlink release the job will be deployed on: the IDs are
computed by that release's own code (StreamGraphHasherV2, StreamingJobGraphGenerator).
"""
import argparse
import json
import os
import runpy
import sys


class _GraphWritten(BaseException):
    """Raised to stop the job script once the manifest is written."""


def manifest(env):
    from pyflink.java_gateway import get_gateway
    from pyflink.version import __version__

    jvm = get_gateway().jvm
    # The same preparation as StreamExecutionEnvironment.execute(): configPythonOperator, Python
    # operator fusion, then Java's getStreamGraph.
    sg = env._generate_stream_graph(False)
    hashes = jvm.org.apache.flink.streaming.api.graph.StreamGraphHasherV2() \
        .traverseStreamGraphAndGenerateHashes(sg)
    nodes = {}
    for node in sg.getStreamNodes().toArray():
        nodes[bytes(hashes.get(node.getId())).hex()] = node
    sources = set(sg.getSourceIDs().toArray())
    job_graph = sg.getJobGraph()
    operators = []
    for vertex in job_graph.getVerticesSortedTopologicallyFromSources().toArray():
        # getOperatorIDs lists the chain head last.
        for pair in reversed(list(vertex.getOperatorIDs().toArray())):
            generated = pair.getGeneratedOperatorID().toString()
            user = pair.getUserDefinedOperatorID()
            node = nodes.get(generated)
            if node is None:
                raise SystemExit("sp_inspect_graph: operator %s of vertex %s has no stream node"
                                 % (generated, vertex.getName()))
            max_parallelism = node.getMaxParallelism()
            operators.append({
                "id": generated,
                "uid": node.getTransformationUID(),
                "uid_hash": user.get().toString() if user.isPresent() else None,
                "name": node.getOperatorName(),
                "vertex": vertex.getID().toString(),
                "parallelism": node.getParallelism(),
                # Flink marks "not configured" with a non-positive value; the job then adopts the savepoint's.
                "max_parallelism": max_parallelism if max_parallelism > 0 else None,
                "inputs": [bytes(hashes.get(e.getSourceId())).hex() for e in node.getInEdges().toArray()],
                "source": node.getId() in sources,
            })
    return {
        "schema": "sp-inspect/graph-v1",
        "generator": "contrib/pyflink/sp_inspect_graph.py",
        "flink_version": __version__,
        "job_name": sg.getJobName(),
        "operators": operators,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", "-o", help="write the manifest here (default: stdout)")
    parser.add_argument("job", help="the PyFlink job script")
    parser.add_argument("job_args", nargs=argparse.REMAINDER, help="arguments of the job script")
    args = parser.parse_args(argv)

    from pyflink.datastream import StreamExecutionEnvironment

    def intercept(env, *_args, **_kwargs):
        doc = manifest(env)
        text = json.dumps(doc, indent=2) + "\n"
        if args.output and args.output != "-":
            with open(args.output, "w") as f:
                f.write(text)
        else:
            sys.__stdout__.write(text)
            sys.__stdout__.flush()
        raise _GraphWritten()

    StreamExecutionEnvironment.execute = intercept
    StreamExecutionEnvironment.execute_async = intercept
    sys.argv = [args.job] + args.job_args
    sys.path.insert(0, os.path.dirname(os.path.abspath(args.job)))
    try:
        runpy.run_path(args.job, run_name="__main__")
    except _GraphWritten:
        return 0
    print("sp_inspect_graph: %s finished without calling execute() or execute_async()" % args.job,
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
