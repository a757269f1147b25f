#!/usr/bin/python3
"""Seed 000's greedy counterexamples as arrvm traces, for `arrvm replay`:
  greedy_bottom_up_bad.trace  n = 4, m = 10^6: is = i mod n over (n, m);
      large = gather(is, xs); ys = fold(+, large); zs = fold(*, large);
      result = ys + zs[0]
  greedy_top_down_bad.trace   n = 10^7: bs = as*2; cs = bs+1;
      ds = i + bs[0]; es = cs + ds; result = fold(+, es)
The input is computed in a first batch (range), so the traces hold no data.
The same programs at test size are tests/test_fusion_seed000.cpp.
Usage: bench/seed000_traces.py DIR, then
  build/arrvm replay DIR/greedy_top_down_bad.trace --fusers greedy,ilp --backends cpu --repeat 5
"""
import json
import os
import sys


def write(path, lines):
    with open(path, 'w') as f:
        f.write('\n'.join(json.dumps(x) for x in [{"arrvm_trace": 1}] + lines) + '\n')


def view(b, shape, stride=None, off=0):
    if stride is None:
        stride = [1] * len(shape)
        for d in range(len(shape) - 2, -1, -1):
            stride[d] = stride[d + 1] * shape[d + 1]
    return {"base": b, "offset": off, "shape": list(shape), "stride": list(stride)}


def const(x, dt='float64'):
    return {"const": x, "dtype": dt}


def bottom_up(n=4, m=10**6):
    L = [{"base": 0, "dtype": "float64", "nelem": n},
         {"op": "range", "out": view(0, [n]), "in": []},
         {"op": "multiply", "out": view(0, [n]), "in": [view(0, [n]), const(1e-7)]},
         {"op": "add", "out": view(0, [n]), "in": [view(0, [n]), const(1.0)]},
         {"op": "sync", "base": 0}]
    L += [{"base": 1, "dtype": "int64", "nelem": n * m}, {"op": "range", "out": view(1, [n, m]), "in": []},
          {"base": 2, "dtype": "int64", "nelem": n * m},
          {"op": "mod", "out": view(2, [n, m]), "in": [view(1, [n, m]), const(n, 'int64')]},
          {"op": "free", "base": 1},
          {"base": 3, "dtype": "float64", "nelem": n * m},
          {"op": "gather", "out": view(3, [n, m]), "in": [view(0, [n]), view(2, [n, m])]},
          {"op": "free", "base": 2},
          {"base": 4, "dtype": "float64", "nelem": n}, {"base": 5, "dtype": "float64", "nelem": n},
          {"op": "add_reduce", "out": view(4, [n]), "in": [view(3, [n, m])], "axis": 1},
          {"op": "multiply_reduce", "out": view(5, [n]), "in": [view(3, [n, m])], "axis": 1},
          {"op": "free", "base": 3},
          {"base": 6, "dtype": "float64", "nelem": n},
          {"op": "add", "out": view(6, [n]), "in": [view(4, [n]), view(5, [n], [0])]},
          {"op": "free", "base": 4}, {"op": "free", "base": 5}, {"op": "sync", "base": 6}]
    return L


def top_down(n=10**7):
    v = lambda b: view(b, [n])
    L = [{"base": 0, "dtype": "float64", "nelem": n},
         {"op": "range", "out": v(0), "in": []},
         {"op": "multiply", "out": v(0), "in": [v(0), const(1e-7)]},
         {"op": "sync", "base": 0}]
    for b in range(1, 6):
        L.append({"base": b, "dtype": "float64", "nelem": n})
    L += [{"op": "multiply", "out": v(1), "in": [v(0), const(2.0)]},          # bs
          {"op": "add", "out": v(2), "in": [v(1), const(1.0)]},               # cs
          {"op": "range", "out": v(3), "in": []},
          {"op": "add", "out": v(4), "in": [v(3), view(1, [n], [0])]},        # ds = i + bs[0]
          {"op": "free", "base": 3}, {"op": "free", "base": 1},
          {"op": "add", "out": v(5), "in": [v(2), v(4)]},                     # es
          {"op": "free", "base": 2}, {"op": "free", "base": 4},
          {"base": 6, "dtype": "float64", "nelem": 1},
          {"op": "add_reduce", "out": view(6, [], []), "in": [v(5)], "axis": 0},
          {"op": "free", "base": 5}, {"op": "sync", "base": 6}]
    return L


if __name__ == '__main__':
    out = sys.argv[1] if len(sys.argv) > 1 else '.'
    os.makedirs(out, exist_ok=True)
    write(os.path.join(out, 'greedy_bottom_up_bad.trace'), bottom_up())
    write(os.path.join(out, 'greedy_top_down_bad.trace'), top_down())
