"""The code blocks of README.md and docs/*.md, for the doc test
(tests/python/test_doc_examples.py) and the doc commands
(scripts/doc_commands.py)."""
import glob
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = [os.path.join(ROOT, 'README.md')] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md')))
SHELL_START = ('./', 'PYTHONPATH=', 'cmake ', 'tests/', 'FUZZ_JOBS=', 'export ', 'cc ', 'c++ ', 'ARRVM_')


def blocks():
    """(where, language, code) of every fenced block, in document order."""
    out = []
    for path in DOCS:
        text = open(path).read()
        for m in re.finditer(r'^```(\w*)\n(.*?)^```', text, re.M | re.S):
            line = text.count('\n', 0, m.start()) + 1
            out.append(('%s:%d' % (os.path.relpath(path, ROOT), line), m.group(1), m.group(2)))
    return out


def is_shell(lang, code):
    lines = [ln for ln in code.splitlines() if ln.strip()]
    return lang in ('sh', 'bash') or (lang == '' and lines and all(ln.startswith(SHELL_START) for ln in lines))


def as_program(lang, code):
    """A C or C++ block as a whole program (a fragment without main() runs as main's body)."""
    if 'main(' in code:
        return code
    includes = [ln for ln in code.splitlines() if ln.startswith('#include')]
    body = [ln for ln in code.splitlines() if not ln.startswith('#include')]
    return '\n'.join(includes) + '\nint main() {\n' + '\n'.join(body) + '\n  return 0;\n}\n'
