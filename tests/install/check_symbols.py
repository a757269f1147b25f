#!/usr/bin/python3
"""Checks that libarrvm.so exports exactly its public API.

usage: check_symbols.py LIBARRVM_SO INCLUDE_DIR

Exported = `nm -D --defined-only` (demangled). It must hold every function of
the C ABI (arrvm.h) and nothing unmangled that arrvm.h does not declare; every
C++ symbol must belong to the C++ API of arrvm.hpp/types.hpp (arrvm::Vm,
arrvm::Array, the elementwise functions, operator<<, dtype_size/dtype_name,
arrvm::Error/BackendError/OutOfMemoryError/InterruptedError, set_interrupt_check); nothing of libstdc++, spdlog, fmt, nlohmann_json,
CBC or OpenSSL may leak. Prints the counts; exits 1 with the offenders.
"""
import re
import subprocess
import sys

so, include = sys.argv[1], sys.argv[2]
out = subprocess.run(["nm", "-D", "--defined-only", so], check=True, capture_output=True, text=True).stdout
raw = []
for line in out.splitlines():
    parts = line.split()
    if len(parts) >= 3:
        raw.append(parts[2])
    elif len(parts) == 2:
        raw.append(parts[1])
demangled = subprocess.run(["c++filt"], input="\n".join(raw), check=True, capture_output=True,
                           text=True).stdout.splitlines()

header_c = open(f"{include}/arrvm/arrvm.h").read()
# Functions of the C ABI: "name(" at the start of a declaration, not static inline helpers.
c_api = set(re.findall(r"^[a-z][\w \*]*?\b(arrvm_\w+)\(", header_c, re.M))
c_api -= set(re.findall(r"static inline \w+ \*?(arrvm_\w+)\(", header_c))

header_cpp = open(f"{include}/arrvm/arrvm.hpp").read()
free_functions = set(re.findall(r"ARRVM_DECLARE_(?:BINARY|UNARY)\((\w+)\)", header_cpp))
free_functions |= {"where", "make_complex", "dtype_size", "dtype_name", "operator<<", "ufunc", "ufunc_arity", "reduce",
                   "set_interrupt_check"}
cpp_ok = re.compile(
    r"^(?:(?:typeinfo|typeinfo name|vtable) for )?arrvm::(?:"
    r"Vm\b|Array\b|Error\b|BackendError\b|OutOfMemoryError\b|InterruptedError\b|"
    + "|".join(re.escape(f) + r"\(" for f in sorted(free_functions)) + ")")

bad, c_found, cpp_found = [], set(), 0
for mangled, name in zip(raw, demangled):
    if mangled == name:  # not a C++ name
        if name in c_api:
            c_found.add(name)
        else:
            bad.append(name)
    elif cpp_ok.match(name):
        cpp_found += 1
    else:
        bad.append(name)
missing = sorted(c_api - c_found)
print(f"{so}: {len(raw)} exported symbols: {len(c_found)} of the C ABI's {len(c_api)} functions, "
      f"{cpp_found} of the C++ API, {len(bad)} others")
for name in bad[:50]:
    print(f"  not public API: {name}")
for name in missing:
    print(f"  C ABI function not exported: {name}")
sys.exit(1 if bad or missing or len(c_api) < 20 else 0)
