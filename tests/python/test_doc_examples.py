"""The code examples of README.md and docs/*.md run: every ```cpp and ```c
block is compiled against the built library and run (a fragment without
main() runs as main's body), every ```python block and every
`python3 -c '...'` command of a shell block runs with the built package, and
the scripts and files the shell blocks name exist. The shell blocks
themselves run in scripts/doc_commands.py, which scripts/test.sh runs after
ctest (the install, its pkg-config consumers, the fuzz runs capped at 10 s;
the README's two commands are .ci/run). Blocks of other languages (text,
cmake, trace lines, diagrams) are formats and outputs, not programs."""
import os
import re
import shlex
import subprocess
import sys

import pytest

import arrvm

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, 'scripts'))
from doc_blocks import as_program, blocks, is_shell  # noqa: E402 (the scripts' folder, just above)

BUILD = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(arrvm.__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, **kw)


def compile_and_run(tmp_path, lang, code):
    code = as_program(lang, code)
    src = tmp_path / ('example.' + ('cpp' if lang == 'cpp' else 'c'))
    src.write_text(code)
    exe = tmp_path / 'example'
    compiler = ['c++', '-std=c++17'] if lang == 'cpp' else ['cc', '-std=c99']
    c = run(compiler + ['-Wall', '-I', os.path.join(ROOT, 'include'), '-I', os.path.join(BUILD, 'include'),
                        str(src), '-o', str(exe), '-L', BUILD, '-larrvm', '-Wl,-rpath,' + BUILD, '-lm'])
    assert c.returncode == 0, c.stderr[-3000:]
    r = run([str(exe)], cwd=str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return r.stdout


EXAMPLES = blocks()
PROGRAMS = [(where, lang, code) for where, lang, code in EXAMPLES if lang in ('cpp', 'c', 'python')]
SHELLS = [(where, lang, code) for where, lang, code in EXAMPLES if is_shell(lang, code)]


def test_the_docs_have_examples_of_each_kind():
    langs = {lang for _, lang, _ in PROGRAMS}
    assert {'cpp', 'c'} <= langs
    assert any('python3 -c' in code for _, _, code in SHELLS)


@pytest.mark.parametrize('where,lang,code', PROGRAMS, ids=[w for w, _, _ in PROGRAMS])
def test_program_example_runs(tmp_path, where, lang, code):
    if lang == 'python':
        env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, 'python'))
        r = run([sys.executable, '-c', code], env=env, cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr[-2000:]
        return
    out = compile_and_run(tmp_path, lang, code)
    # A printf whose comment gives its output (`printf(...);  /* 7.5 */`) prints it.
    for want in re.findall(r'printf\(.*\);\s*/\* ([^*]+?) \*/', code):
        assert want in out.split(), (want, out)


@pytest.mark.parametrize('where,lang,code', SHELLS, ids=[w for w, _, _ in SHELLS])
def test_shell_example_commands(tmp_path, where, lang, code):
    for line in code.splitlines():
        command = line.split('#')[0].strip()
        if not command:
            continue
        if 'python3 -c' in command:
            words = shlex.split(command)
            env = dict(os.environ, PYTHONPATH=os.path.join(BUILD, 'python'))
            i = words.index('python3')
            r = run([sys.executable] + words[i + 1:], env=env, cwd=ROOT)
            assert r.returncode == 0, (command, r.stderr[-2000:])
            assert r.stdout.strip(), command
            continue
        # Scripts and files a command names exist (relative to the source root).
        for word in shlex.split(command):
            word = word.split('=')[-1]
            if word.startswith(('./', 'scripts/', 'tests/', 'bench/', 'examples/')) and '*' not in word:
                assert os.path.exists(os.path.join(ROOT, word)), (where, word)
