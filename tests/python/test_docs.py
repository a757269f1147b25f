"""help() on the public API prints documentation: arrvm's note (or the
function's own text) and NumPy's documentation of the same name."""
import pydoc

import numpy

import arrvm


def text(obj):
    return pydoc.render_doc(obj, renderer=pydoc.plaintext)


def test_ufunc_help_is_numpys_with_arrvms_note():
    t = text(arrvm.add)
    assert "arrvm's ufunc add" in t
    assert 'Add arguments element-wise' in t  # NumPy's first line


def test_method_help():
    t = text(arrvm.ndarray.sum)
    assert "arrvm's method ndarray.sum" in t
    assert 'Return the sum of the array elements' in t


def test_every_implemented_function_has_documentation():
    missing = [name for name, f in arrvm._IMPLEMENTED.items()
               if getattr(numpy, name, None) is not None and getattr(numpy, name).__doc__
               and not (getattr(f, '__doc__', None) or '').strip()]
    assert missing == []
    assert "NumPy's documentation of numpy.zeros" in arrvm.zeros.__doc__
    assert "NumPy's documentation of numpy.argmax" in arrvm.argmax.__doc__
