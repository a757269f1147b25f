"""Which code is the user's and which a library's: the drop-in (`python3 -m
arrvm`) gives arrvm to the user's modules only, and arrvm's generators give
arrvm arrays to the user's calls only (a library such as SciPy, handed a
generator, gets NumPy's arrays from it)."""
import os
import sys
import sysconfig

import numpy as _np


def library_dirs():
    """Directories whose modules are libraries: installed packages, the
    standard library, NumPy, and arrvm itself."""
    dirs = {os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}  # arrvm's parent: arrvm is a library
    for key in ('stdlib', 'platstdlib', 'purelib', 'platlib'):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(path)
    for path in sys.path:
        if os.path.basename(path.rstrip(os.sep)) in ('site-packages', 'dist-packages'):
            dirs.add(path)
    dirs.add(os.path.dirname(os.path.dirname(os.path.abspath(_np.__file__))))
    return tuple(os.path.join(os.path.abspath(d), '') for d in dirs)


_dirs = None
_library_files = {}  # file -> whether it is a library's (cached: calls repeat)


def is_library_file(path):
    global _dirs
    lib = _library_files.get(path)
    if lib is None:
        if _dirs is None:
            _dirs = library_dirs()
        lib = _library_files[path] = os.path.abspath(path).startswith(_dirs)
    return lib


def called_from_library(depth=1):
    """Whether the caller of the function that calls this (`depth` frames
    further up) is a library module; code without a file (-c, stdin, the
    console) is the user's."""
    path = sys._getframe(depth + 1).f_globals.get('__file__')
    return bool(path) and is_library_file(path)
