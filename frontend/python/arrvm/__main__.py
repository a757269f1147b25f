"""python3 -m arrvm script.py [args]: runs an unmodified NumPy script on
libarrvm (as Bohrium's `python -m bohrium`). `import numpy` and
`from numpy import ...` resolve to arrvm; NumPy itself stays loaded for the
functions arrvm falls back to. `-m module` runs a module instead of a file."""
import os
import runpy
import sys


def main(argv):
    if not argv or argv[0] in ('-h', '--help'):
        sys.stderr.write("usage: python3 -m arrvm script.py [args...]\n"
                         "       python3 -m arrvm -m module [args...]\n")
        return 2
    import numpy  # the real one, first, so that arrvm and the fallbacks can use it
    import arrvm
    sys.modules['numpy'] = arrvm
    sys.modules['numpy.random'] = arrvm.random
    try:
        if argv[0] == '-m':
            if len(argv) < 2:
                sys.stderr.write("arrvm: -m needs a module name\n")
                return 2
            sys.argv = argv[1:]
            runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
        else:
            sys.argv = argv
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name='__main__')
    except SystemExit:
        arrvm.flush()
        raise
    arrvm.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
