#!/usr/bin/python3
"""Per-operation overhead of the arrvm Python layer against NumPy's own, in
one run: a loop issuing 10^5 elementwise operations (z = x * y) on
10-element float64 arrays, flushing every 1000 (NumPy has nothing to flush).
Prints one JSON line with microseconds per operation:
  numpy_us_per_op   NumPy's time per operation
  arrvm_us_per_op   arrvm's, all included
  issue_us_per_op   arrvm's time outside flush(): the Python layer, the C++
                    frontend and the VM's validation (what issuing costs)
  flush_us_per_op   arrvm's time inside flush(): merge cache, lowering,
                    kernel lookup and execution, per operation of the batch
and the ratios to NumPy. --chain makes the loop x = x * y (a 1000-long
dependency chain per batch, fused into one kernel).
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
    x = mod.ones(10)
    y = mod.ones(10) * 0.5
    z = None
    in_flush = 0.0
    start = time.perf_counter()
    for i in range(ops):
        if chain:
            x = x * y
        else:
            z = x * y
        if i % 1000 == 999:
            t = time.perf_counter()
            flush()
            in_flush += time.perf_counter() - t
    t = time.perf_counter()
    flush()
    float((x if chain else z)[0])  # sync the result
    in_flush += time.perf_counter() - t
    return time.perf_counter() - start, in_flush


def main(argv):
    chain = '--chain' in argv
    argv = [a for a in argv if a != '--chain']
    ops = int(argv[0]) if argv else 100000
    loop(arrvm, 3000, arrvm.flush, chain)  # warm: kernels compiled, partitions in the merge cache
    loop(numpy, 3000, lambda: None, chain)
    t_np = min(loop(numpy, ops, lambda: None, chain)[0] for _ in range(3))
    t_av, t_flush = min(loop(arrvm, ops, arrvm.flush, chain) for _ in range(3))
    us = 1e6 / ops
    row = {'ops': ops, 'chain': chain, 'backend': arrvm.config()['backend'],
           'numpy_us_per_op': t_np * us, 'arrvm_us_per_op': t_av * us,
           'issue_us_per_op': (t_av - t_flush) * us, 'flush_us_per_op': t_flush * us,
           'ratio_all': t_av / t_np, 'ratio_issue': (t_av - t_flush) / t_np}
    # The same loop from C++ (build/python_overhead_cpp), when built: the
    # Python layer's own cost is the difference of the issue times.
    cpp = os.path.join(ROOT, 'build', 'python_overhead_cpp')
    if os.path.exists(cpp):
        out = subprocess.run([cpp] + (['--chain'] if chain else []) + [str(ops)], capture_output=True, text=True)
        if out.returncode == 0:
            row.update(json.loads(out.stdout))
            row['python_layer_us_per_op'] = row['issue_us_per_op'] - row['cpp_issue_us_per_op']
    print(json.dumps(row))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
