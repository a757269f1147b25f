"""python3 -m arrvm [script.py | -m module | -c code | -] [args]: runs an
unmodified NumPy program on libarrvm (as Bohrium's `python -m bohrium`);
with no arguments, an interactive console.

The drop-in is scoped: `import numpy` (and `from numpy import ...`) gives
arrvm to the user's code only, that is the script, code given with -c or on
stdin, and modules that live outside the installed packages (site- and
dist-packages, the standard library). Libraries (SciPy, matplotlib, pandas
...) import the real NumPy: `sys.modules['numpy']` is NumPy's, so their
compiled modules find NumPy's C API. arrvm arrays reach them through
`__array__` (a view of the synced memory, no copy on the host backends);
their NumPy results are accepted by arrvm functions and operators."""
import builtins
import code
import os
import runpy
import sys
import types

import numpy as _np

import arrvm
from arrvm import _scope


def facade(arrvm):
    """The module user code gets for `numpy`: arrvm's names, NumPy's
    `__version__` (version checks in user code compare against NumPy's),
    arrvm's own version as `__arrvm_version__`."""
    m = types.ModuleType('numpy', arrvm.__doc__)
    m.__dict__.update({k: v for k, v in vars(arrvm).items()
                       if not k.startswith('__') or k in ('__getattr__', '__all__')})
    m.__version__ = _np.__version__
    m.__arrvm_version__ = arrvm.__version__
    m.__file__ = arrvm.__file__
    return m


class ScopedImport:
    """builtins.__import__ that resolves `numpy` and `numpy.<sub>` to arrvm
    for user code, to NumPy for everything else."""

    def __init__(self, arrvm, original):
        self.original = original
        self.numpy = facade(arrvm)
        # Submodules arrvm provides itself; others (linalg, fft, ...) are
        # NumPy's own, reached through the facade's __getattr__ as before.
        self.submodules = {'numpy.random': arrvm.random}

    def is_user(self, globals_):
        if not globals_:
            return False
        name = globals_.get('__name__')
        if name == '__main__':
            return True
        path = globals_.get('__file__')
        if not path:
            return False
        return not _scope.is_library_file(path)

    def __call__(self, name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and (name == 'numpy' or name.startswith('numpy.')) and self.is_user(globals):
            if name == 'numpy' or not fromlist:
                if name != 'numpy':
                    self.original(name, globals, locals, fromlist, level)  # NumPy's submodule loads
                return self.numpy  # `import numpy.linalg` binds `numpy`: the facade
            sub = self.submodules.get(name)
            if sub is not None:
                return sub
        return self.original(name, globals, locals, fromlist, level)


def _main_namespace(filename):
    module = types.ModuleType('__main__')
    module.__file__ = filename
    module.__builtins__ = builtins
    sys.modules['__main__'] = module
    return module.__dict__


USAGE = ("usage: python3 -m arrvm script.py [args...]\n"
         "       python3 -m arrvm -m module [args...]\n"
         "       python3 -m arrvm -c code [args...]\n"
         "       python3 -m arrvm - [args...]     (the program on standard input)\n"
         "       python3 -m arrvm                 (an interactive console)\n")


def main(argv):
    if argv and argv[0] in ('-h', '--help'):
        sys.stdout.write(USAGE)
        return 0
    if argv and argv[0] in ('-m', '-c') and len(argv) < 2:
        sys.stderr.write("arrvm: %s needs an argument\n%s" % (argv[0], USAGE))
        return 2
    builtins.__import__ = ScopedImport(arrvm, builtins.__import__)
    try:
        if not argv:
            sys.argv = ['']
            sys.path.insert(0, '')
            code.interact(banner="arrvm %s (NumPy %s drop-in); Ctrl-D exits" % (arrvm.__version__, _np.__version__),
                          local=_main_namespace(None), exitmsg='')
        elif argv[0] == '-m':
            sys.argv = argv[1:]
            sys.path.insert(0, os.getcwd())
            runpy.run_module(argv[1], run_name='__main__', alter_sys=True)
        elif argv[0] in ('-c', '-'):
            source = argv[1] if argv[0] == '-c' else sys.stdin.read()
            sys.argv = ['-c'] + argv[2:] if argv[0] == '-c' else argv
            sys.path.insert(0, '')
            filename = '<string>' if argv[0] == '-c' else '<stdin>'
            namespace = _main_namespace(None)
            exec(compile(source, filename, 'exec'), namespace)
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
