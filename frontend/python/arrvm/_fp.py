"""NumPy's floating-point error handling: `np.seterr`, `np.errstate` and the
RuntimeWarning / FloatingPointError they give.

The VM reads the IEEE flags (divide by zero, overflow, underflow, invalid)
of the work it runs, as NumPy reads them after each ufunc, and calls
`report` when an operation that ran work raised some (libarrvm:
Vm::set_fp_report). The modes are NumPy's own (`numpy.geterr()`, which
`numpy.errstate` and `numpy.seterr` set), so code that calls NumPy's
functions directly is honoured too. Work runs when it is read or at once
for small arrays; `errstate` and `seterr` here first run what is pending, so
that the work issued inside an `errstate` block is judged by its modes
wherever it is read. The message names the operation (or, for work fused
into one kernel, its floating-point operations)."""
import os as _os
import sys as _sys
import warnings as _warnings

import numpy as _np

from . import _core

# NumPy's order and words (umath's error messages).
_CATEGORIES = ((1, 'divide', 'divide by zero'), (2, 'over', 'overflow'), (4, 'under', 'underflow'),
               (8, 'invalid', 'invalid value'))
_PACKAGE = _os.path.dirname(_os.path.abspath(__file__))

# The operations that can raise each flag, most specific first: the
# message names the first tier that the work raising it held (work fused
# into one kernel holds several operations). Bytecode names that are not
# NumPy's ufunc names are translated.
_TIERS = {
    1: ({'divide', 'floor_divide', 'log', 'log2', 'log10', 'log1p', 'power', 'arctanh', 'mod'},),
    2: ({'exp', 'exp2', 'expm1', 'power', 'cube', 'sinh', 'cosh', 'hypot', 'cast'},
        {'multiply', 'add', 'subtract', 'divide'},
        {'add_reduce', 'multiply_reduce', 'add_accumulate', 'multiply_accumulate'}),
    4: ({'exp', 'exp2', 'expm1', 'power'}, {'multiply', 'divide', 'cast'}),
    8: ({'sqrt', 'log', 'log2', 'log10', 'log1p', 'arcsin', 'arccos', 'arccosh', 'arctanh', 'sin', 'cos', 'tan',
         'power', 'mod', 'cast'}, {'divide', 'subtract', 'add', 'multiply'},
        {'add_reduce', 'multiply_reduce', 'add_accumulate', 'multiply_accumulate'}),
}
_NUMPY_NAME = {'mod': 'remainder', 'cube': 'power', 'add_reduce': 'reduce', 'multiply_reduce': 'reduce',
               'add_accumulate': 'accumulate', 'multiply_accumulate': 'accumulate'}


def _where(bit, ops):
    for tier in _TIERS[bit]:
        named = [o for o in ops if o in tier]
        if named:
            break
    else:
        named = list(ops)
    names = []
    for o in named:
        n = _NUMPY_NAME.get(o, o)
        if n not in names:
            names.append(n)
    return ', '.join(names[:3]) if names else 'an operation'


def _stacklevel():
    """The warning's frame: the first caller outside this package."""
    f, level = _sys._getframe(1), 1
    while f is not None and _os.path.dirname(_os.path.abspath(f.f_code.co_filename)) == _PACKAGE:
        f, level = f.f_back, level + 1
    return level


def report(flags, ops):
    """Acts on `flags` (bits: 1 divide, 2 overflow, 4 underflow, 8 invalid)
    raised by operations `ops` as NumPy's error modes say."""
    modes = _np.geterr()
    for bit, key, words in _CATEGORIES:
        if not flags & bit:
            continue
        mode = modes[key]
        if mode == 'ignore':
            continue
        message = '%s encountered in %s' % (words, _where(bit, ops))
        if mode == 'warn':
            _warnings.warn(message, RuntimeWarning, stacklevel=_stacklevel())
        elif mode == 'raise':
            raise FloatingPointError(message)
        elif mode == 'call':
            _np.geterrcall()(message, bit)
        elif mode == 'print':
            print('Warning: ' + message)
        elif mode == 'log':
            _np.geterrcall().write('Warning: %s\n' % message)


def _run_pending():
    _core.flush()  # (reports what it raises under the modes in force)


class errstate(_np.errstate):
    """NumPy's `errstate`; what was issued before it and inside it runs on
    entry and on exit, so each part meets the modes it was written under."""

    def __enter__(self):
        _run_pending()
        return super().__enter__()

    def __exit__(self, *exc_info):
        try:
            _run_pending()
        finally:
            super().__exit__(*exc_info)


def seterr(all=None, divide=None, over=None, under=None, invalid=None):
    """NumPy's `seterr`, after running what is pending under the old modes."""
    _run_pending()
    return _np.seterr(all=all, divide=divide, over=over, under=under, invalid=invalid)


def seterrcall(func):
    """NumPy's `seterrcall`, after running what is pending."""
    _run_pending()
    return _np.seterrcall(func)


geterr = _np.geterr
geterrcall = _np.geterrcall
errstate.__doc__ = _np.errstate.__doc__
seterr.__doc__ = _np.seterr.__doc__
