"""Runs the shell commands of README.md and docs/*.md as a user would type
them (scripts/test.sh runs this after ctest, on the built tree), so that no
documented command goes untested. Each block runs as one bash script (an
`export` holds for the lines after it), from the source root, with three
stand-ins, and nothing else changed:
  - /opt/arrvm is a fresh directory (the install needs no root; arrvm.pc
    finds its prefix from its own location);
  - a block that compiles app.c / app.cpp runs beside the docs' C ABI and
    C++ examples saved under those names, and runs what it built;
  - the fuzz script's seconds are capped at FUZZ_MAX_SECONDS (10), the
    durations the docs give being for a user's long run;
  - `python3` is /usr/bin/python3, the interpreter the package is built for
    (README), as on a fresh Debian machine.
The README's two commands are what .ci/run runs (./scripts/demo.sh, then
./scripts/test.sh, which runs this), so they are not run again here."""
import os
import subprocess
import sys
import tempfile

from doc_blocks import ROOT, as_program, blocks, is_shell

RUN_BY_CI = ('./scripts/demo.sh', './scripts/test.sh')


def main():
    examples = blocks()
    c_example = next(as_program(l, c) for _, l, c in examples if l == 'c')
    cpp_example = next(as_program(l, c) for _, l, c in examples if l == 'cpp')
    failed = []
    ran = 0
    with tempfile.TemporaryDirectory(prefix='arrvm-doc-') as tmp:
        opt = os.path.join(tmp, 'opt', 'arrvm')
        apps = os.path.join(tmp, 'apps')
        os.makedirs(apps)
        open(os.path.join(apps, 'app.c'), 'w').write(c_example)
        open(os.path.join(apps, 'app.cpp'), 'w').write(cpp_example)
        for where, lang, code in examples:
            if not is_shell(lang, code):
                continue
            lines = [ln for ln in code.splitlines()
                     if ln.split('#')[0].strip() and ln.split('#')[0].split()[0] not in RUN_BY_CI]
            if not lines:
                continue
            script = '\n'.join(ln.replace('/opt/arrvm', opt) for ln in lines)
            compiles = 'app.c' in script
            if compiles:
                script += '\n./a.out\n'  # (the last line's program; LD_LIBRARY_PATH below)
            env = dict(os.environ, FUZZ_MAX_SECONDS=os.environ.get('FUZZ_MAX_SECONDS', '10'),
                       LD_LIBRARY_PATH=os.path.join(opt, 'lib'),
                       PATH='/usr/bin:' + os.environ.get('PATH', ''))
            print('== %s\n%s' % (where, script), flush=True)
            r = subprocess.run(['bash', '-eo', 'pipefail', '-c', script], cwd=apps if compiles else ROOT,
                               env=env, stdout=sys.stdout, stderr=sys.stderr)
            ran += 1
            if r.returncode != 0:
                failed.append(where)
    if failed:
        print('doc commands FAILED: %s' % ', '.join(failed), file=sys.stderr)
        return 1
    print('doc commands: %d blocks ran' % ran)
    return 0


if __name__ == '__main__':
    sys.exit(main())
