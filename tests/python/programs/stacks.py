"""Arrays of stacked rows built from zeros, one row at a time: a polynomial
basis, a colour image's channels mixed by a matrix, and a running history of
a few signals."""
import numpy as np

n = 30000
x = np.linspace(-1.0, 1.0, n)

# A basis of Chebyshev polynomials, row by row, then a least-squares-free fit.
degree = 6
basis = np.zeros((degree, n))
basis[0] += 1.0
basis[1] = x
for k in range(2, degree):
    basis[k] = 2 * x * basis[k - 1] - basis[k - 2]
target = np.exp(x) * np.cos(3 * x)
coeffs = basis @ target / n
approx = coeffs @ basis
print("basis", basis.sum(), float(np.abs(target - approx).max()))

# A colour image as (3, h, w); a grey copy and a channel mix into zeros.
h, w = 120, 160
yy, xx = np.mgrid[0:h, 0:w]
img = np.empty((3, h, w))
img[0] = np.sin(xx / 17.0) ** 2
img[1] = np.cos(yy / 11.0) ** 2
img[2] = (xx + yy) / float(h + w)
mix = np.array([[0.9, 0.1, 0.0], [0.05, 0.8, 0.15], [0.0, 0.2, 0.8]])
out = np.zeros(img.shape)
for c in range(3):
    for d in range(3):
        out[c] += mix[c, d] * img[d]
grey = np.zeros((1, h, w))
grey[0] += 0.299 * img[0] + 0.587 * img[1] + 0.114 * img[2]
print("image", out.sum(), out[1].max(), grey.mean())

# Three signals advanced in time; each step's history rows start from zeros
# and the last one is only read.
hist = None
state = np.vstack([np.sin(x), np.cos(x), x * x])
for step in range(5):
    hist = np.zeros((4, n))
    hist[0] += state[0] * 0.5
    hist[1] -= state[1]
    hist[2] = state[2] + step
    norm = hist[3].sum()  # still zeros
    state = state + 0.01 * hist[:3]
    print("step", step, hist.sum(), norm, state.sum())
