#!/usr/bin/python3
"""The first and second call of a corpus program in one process: the first
pays for reading the merge cache from disk (and checking each partition it
reads), the second does not. Prints "FIRST SECOND" in seconds.

Usage: PYTHONPATH=build/python /usr/bin/python3 -m arrvm bench/python/first_call.py NAME
(NumPy's own times: the same without `-m arrvm` and PYTHONPATH.)"""
import importlib
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'corpus'))
program = importlib.import_module(sys.argv[1])
kwargs = program.SIZES['full']
times = []
for _ in range(2):
    start = time.perf_counter()
    program.main(**kwargs)
    times.append(time.perf_counter() - start)
print('%.4f %.4f' % tuple(times))
