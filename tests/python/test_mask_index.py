"""Indexing by a boolean mask of the array's shape (`z[m]`, `z[m] = v`): the
true positions of the last mask are found once and reused while its base is
not written (_ndarray._mask_positions, keyed by Array::version). Every step
of a program that writes the mask between uses (an element, the whole of
it, through another view, NumPy's memory under an adopted array) gives
NumPy's values; `z[m] = z[m] ** 2 + c[m]` reads the mask once."""
import numpy

import arrvm
from arrvm import _ndarray


def program(np, host):
    out = []
    z = np.arange(10.0)
    m = z > 4
    out.append(z[m])
    m[0] = True  # an element
    out.append(z[m])
    m[...] = z < 3  # all of it
    out.append(z[m])
    m2 = m[::1]
    m2[1] = False  # through another view of its base
    out.append(z[m])
    z[m] = z[m] * 10
    out.append(z.copy())
    ms = np.asarray(host)  # NumPy's memory (arrvm adopts it where it can)
    out.append(z[ms])
    host[5] = True  # written behind the VM's back
    out.append(z[ms])
    w = np.arange(12.0).reshape(3, 4)
    mw = w % 3 == 0
    w[mw] = w[mw] + 100
    out.append(w.copy())
    t = np.arange(12.0).reshape(4, 3).T  # not row-major: the general path
    mt = t > 5
    t[mt] = t[mt] * 0
    out.append(t.copy())
    return out


def test_mask_writes_between_uses_give_numpys_values():
    def host():
        h = numpy.zeros(10, bool)
        h[2] = True
        return h
    want = program(numpy, host())
    got = program(arrvm, host())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert numpy.array_equal(numpy.asarray(g), w)


def test_one_mask_three_uses_read_it_once(monkeypatch):
    calls = []
    real = numpy.flatnonzero
    monkeypatch.setattr(_ndarray._np, 'flatnonzero', lambda a: calls.append(1) or real(a))
    zn = numpy.linspace(-2, 2, 400).reshape(20, 20)
    cn = zn[::-1] * 0.5
    z, c = arrvm.asarray(zn.copy()), arrvm.asarray(cn)
    for _ in range(3):
        m = abs(z) <= 2.0
        z[m] = z[m] ** 2 + c[m]
        mn = abs(zn) <= 2.0
        zn[mn] = zn[mn] ** 2 + cn[mn]
    assert len(calls) == 3  # one per mask, not one per use
    assert numpy.array_equal(numpy.asarray(z), zn)
