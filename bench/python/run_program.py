#!/usr/bin/python3
"""Runs programs of bench/numpy/programs.py (as they are, or under
`python3 -m arrvm`) and prints one JSON line per program: name, n,
iterations, checksum, time (the mean seconds of `--repeat` runs after
`--warmup` untimed ones, and under arrvm up to two more while the last
missed the merge cache; `--warmup 1 --repeat R` is `arrvm bench --repeat
R`'s protocol: the warm-ups fill the kernel and merge caches).

Under arrvm, the programs' Philox inputs (programs.random_uniform, NumPy code
emulating the VM's `random` opcode with 64-bit integer arithmetic) come from
the `random` opcode itself, as in the C++ twins: the same numbers, so the
checksums stay NumPy's; the NumPy run subtracts its Philox time likewise.

Usage: run_program.py [--warmup W] [--repeat R] NAME N ITERATIONS [NAME N ITERATIONS ...]
"""
import importlib.util
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.environ.get('ARRVM_NUMPY_PROGRAMS',
                          os.path.join(os.path.dirname(HERE), 'numpy', 'programs.py'))


def merge_misses(np):
    """The merge cache's misses so far (the batches flushed first)."""
    np.flush()
    return np.profile()['merge_cache']['misses']


def main(argv):
    repeat, warmup = 1, 0
    while argv[:1] in (['--repeat'], ['--warmup']):
        if argv[0] == '--repeat':
            repeat = int(argv[1])
        else:
            warmup = int(argv[1])
        argv = argv[2:]
    spec = importlib.util.spec_from_file_location('programs', PROGRAMS)
    programs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(programs)
    np = programs.np
    under_arrvm = hasattr(np, '__arrvm_version__')  # the drop-in's numpy
    if under_arrvm:
        programs.random_uniform = lambda shape, seed: np._core.random_uniform(
            tuple(shape) if not isinstance(shape, int) else (shape,), seed)
    for i in range(0, len(argv), 3):
        name, n, iterations = argv[i], int(argv[i + 1]), int(argv[i + 2])
        times = []
        r, warmups = 0, warmup
        while r < warmups + repeat:
            misses = merge_misses(np) if under_arrvm else 0
            programs._philox_seconds = 0.0
            start = time.perf_counter()
            checksum = programs.PROGRAMS[name](n, iterations)
            if r >= warmups:
                times.append(time.perf_counter() - start - programs._philox_seconds)
            elif r == warmups - 1 and warmups < warmup + 2 and merge_misses(np) > misses:
                warmups += 1  # as `arrvm bench`: warm until a run misses the merge cache no more
            r += 1
        elapsed = sum(times) / len(times)
        print(json.dumps({'name': name, 'n': n, 'iterations': iterations, 'checksum': repr(checksum),
                          'time': elapsed, 'arrvm': under_arrvm}), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
