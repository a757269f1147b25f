"""A malformed ARRVM_* variable: the program's first use of the VM raises
ValueError naming it, and the message is not printed a second time when the
interpreter exits (the profile writer at exit has no VM to report on)."""
import os
import subprocess
import sys

import arrvm


def test_bad_variable_raises_once():
    env = dict(os.environ, ARRVM_BATCH='abc',
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(arrvm.__file__))))
    code = ("import arrvm\n"
            "try:\n    arrvm.ones(3).sum()\nexcept ValueError as e:\n    print('caught:', e)\n")
    r = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "caught: configuration: ARRVM_BATCH='abc' is not a positive integer" in r.stdout
    assert 'ARRVM_BATCH' not in r.stderr  # not again at exit
