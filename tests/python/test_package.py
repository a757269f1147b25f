"""The Python package's structure: its modules import one another at module
level only, and in one direction (no cycle), so a module's dependencies are
read at its top and the package loads in one order."""
import ast
import os

import arrvm

PACKAGE = os.path.dirname(arrvm.__file__)


def _modules():
    return sorted(f[:-3] for f in os.listdir(PACKAGE) if f.endswith('.py'))


def _package_imports(node):
    """The package's modules an import statement names (relative, or
    `arrvm.x`/`import arrvm`)."""
    names = []
    if isinstance(node, ast.ImportFrom):
        if node.level > 0:
            if node.module:
                names.append(node.module.split('.')[0])
            else:
                names.extend(a.name for a in node.names)
        elif node.module and node.module.split('.')[0] == 'arrvm':
            names.append(node.module.split('.')[1] if '.' in node.module else '__init__')
    elif isinstance(node, ast.Import):
        for a in node.names:
            if a.name.split('.')[0] == 'arrvm':
                names.append(a.name.split('.')[1] if '.' in a.name else '__init__')
    return names


def _tree(name):
    with open(os.path.join(PACKAGE, name + '.py')) as f:
        return ast.parse(f.read())


def test_no_function_local_imports_between_modules():
    local = []
    for name in _modules():
        tree = _tree(name)
        top = set(id(n) for n in tree.body)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top and _package_imports(node):
                local.append('%s.py:%d' % (name, node.lineno))
    assert local == []


def test_modules_import_in_one_direction():
    modules = set(_modules())
    edges = {}
    for name in modules:
        deps = set()
        for node in _tree(name).body:
            deps.update(d for d in _package_imports(node) if d in modules and d != name)
        edges[name] = deps
    # __main__ runs the package (`python3 -m arrvm`): it is the top, and
    # nothing may import it or the package's __init__ from below.
    state, cycle = {}, []

    def visit(n, path):
        state[n] = 'open'
        for d in sorted(edges[n]):
            if state.get(d) == 'open':
                cycle.append(path + [n, d])
            elif d not in state:
                visit(d, path + [n])
        state[n] = 'done'

    for n in sorted(modules):
        if n not in state:
            visit(n, [])
    assert cycle == []
    # The order the package loads in: _core <- _ndarray <- _functions <- the rest.
    assert '_functions' not in edges['_ndarray']
    assert '_ndarray' in edges['_functions']
    assert all('__init__' not in deps for n, deps in edges.items() if n != '__main__')
