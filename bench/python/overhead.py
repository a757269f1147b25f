#!/usr/bin/python3
"""Per-operation overhead of the arrvm Python layer against NumPy's own, in
one run: a loop issuing 10^5 elementwise operations (z = x * y) on
10-element float64 arrays, flushing every 1000 (NumPy has nothing to flush).
Prints one JSON line with microseconds per operation:
(medians over the 1000-operation chunks)
  numpy_us_per_op   NumPy's time per operation
  arrvm_us_per_op   arrvm's, all included
  issue_us_per_op   arrvm's time outside flush(): the Python layer, the C++
                    frontend and the VM's validation (what issuing costs)
  flush_us_per_op   arrvm's time inside flush(): merge cache, lowering,
                    kernel lookup and execution, per operation of the batch
and the ratios to NumPy; then the cost of a scalar read of that eager
work, as the same loop with `z[3]` read after each operation, less the
loop without it (medians over the chunks):
  numpy_read_us, arrvm_read_us, ratio_read
--chain makes the loop x = x * y (a 1000-long dependency chain per batch,
fused into one kernel).
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/python/overhead.py [--chain] [OPS]
"""
import json
import os
import subprocess
import sys
import time

import numpy

import arrvm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def loop(mod, ops, flush, chain):
    """Per 1000-operation chunk: (seconds issuing, seconds in flush)."""
    x = mod.ones(10)
    y = mod.ones(10) * 0.5
    z = None
    chunks = []
    for _ in range(ops // 1000):
        t0 = time.perf_counter()
        for _ in range(1000):
            if chain:
                x = x * y
            else:
                z = x * y
        t1 = time.perf_counter()
        flush()
        chunks.append((t1 - t0, time.perf_counter() - t1))
    float((x if chain else z)[0])  # sync the result
    return chunks


def read_loop(mod, ops):
    """Per 1000-operation chunk: seconds for z = x * y, then a read of z[3]."""
    x = mod.ones(10)
    y = mod.ones(10) * 0.5
    chunks = []
    for _ in range(ops // 1000):
        t0 = time.perf_counter()
        for _ in range(1000):
            z = x * y
            z[3]
        chunks.append(time.perf_counter() - t0)
    return chunks


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def p10(v):
    """The 10th percentile: on a machine other processes share, the chunks
    that ran without being descheduled (the median includes the waits)."""
    v = sorted(v)
    return v[len(v) // 10]


def main(argv):
    chain = '--chain' in argv
    argv = [a for a in argv if a != '--chain']
    ops = int(argv[0]) if argv else 100000
    loop(arrvm, 3000, arrvm.flush, chain)  # warm: kernels compiled, partitions in the merge cache
    loop(numpy, 3000, lambda: None, chain)
    # Medians over the 1000-operation chunks: robust against a busy machine.
    np_chunks = loop(numpy, ops, lambda: None, chain)
    av_chunks = loop(arrvm, ops, arrvm.flush, chain)
    t_np = median([a + b for a, b in np_chunks]) / 1000
    t_issue = median([a for a, _ in av_chunks]) / 1000
    t_flush = median([b for _, b in av_chunks]) / 1000
    us = 1e6
    row = {'ops': ops, 'chain': chain, 'backend': arrvm.config()['backend'],
           'numpy_us_per_op': t_np * us, 'arrvm_us_per_op': (t_issue + t_flush) * us,
           'issue_us_per_op': t_issue * us, 'flush_us_per_op': t_flush * us,
           'ratio_all': (t_issue + t_flush) / t_np, 'ratio_issue': t_issue / t_np,
           'p10_numpy_us_per_op': p10([a + b for a, b in np_chunks]) / 1000 * us,
           'p10_issue_us_per_op': p10([a for a, _ in av_chunks]) / 1000 * us}
    row['p10_ratio_issue'] = row['p10_issue_us_per_op'] / row['p10_numpy_us_per_op']
    if not chain:
        read_loop(arrvm, 3000)
        np_read = median(read_loop(numpy, ops)) / 1000 - t_np
        av_read = median(read_loop(arrvm, ops)) / 1000 - (t_issue + t_flush)
        row.update({'numpy_read_us': np_read * us, 'arrvm_read_us': av_read * us, 'ratio_read': av_read / np_read})
    # The same loop from C++ (build/python_overhead_cpp), when built: the
    # Python layer's own cost is the difference of the issue times.
    cpp = os.path.join(ROOT, 'build', 'python_overhead_cpp')
    if os.path.exists(cpp):
        out = subprocess.run([cpp] + (['--chain'] if chain else []) + [str(ops)], capture_output=True, text=True)
        if out.returncode == 0:
            row.update(json.loads(out.stdout))
            row['python_layer_us_per_op'] = row['issue_us_per_op'] - row['cpp_issue_us_per_op']
            row['p10_python_layer_us_per_op'] = row['p10_issue_us_per_op'] - row['cpp_p10_issue_us_per_op']
    print(json.dumps(row))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
