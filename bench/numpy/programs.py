#!/usr/bin/python3
"""The benchmark programs of programs/ in NumPy: the reference for their
checksums and the baseline for their speed (`arrvm bench` runs this script).

Each function mirrors its C++ twin operation for operation (same association,
x*x where the C++ writes it, host scalars through `math` so that they are
glibc's numbers), so elementwise float64 results are bit-identical; only the
order of summation in reductions and NumPy's own SIMD exp/log/sin/... differ.

Random inputs are the VM's `random` opcode: Philox-4x32-10 under a 64-bit
seed, a block per two elements (flat index // 2; words 0-1 to the even one,
2-3 to the odd one), top 53 bits times 2^-53 (backends/philox.hpp).

Usage:
    programs.py NAME N ITERATIONS [NAME N ITERATIONS ...]
prints one JSON object per program and line:
    {"name": ..., "n": ..., "iterations": ..., "checksum": ..., "time": seconds}
`time` is the program's wall-clock time less the time spent generating its
Philox inputs, which a NumPy program would get from np.random at a fraction of
that cost (so NumPy's time is, if anything, flattered).
"""
import json
import math
import sys
import time

import numpy as np

# ---- the VM's random opcode ----

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_LOW = np.uint64(0xFFFFFFFF)
_philox_seconds = 0.0


def random_uniform(shape, seed):
    """float64 in [0, 1), element i (row-major) from Philox-4x32-10 under seed: block i // 2
    (counter (low, high, 0, 0) of i // 2) gives words 0, 1 to an even i and 2, 3 to an odd one."""
    global _philox_seconds
    start = time.perf_counter()
    n = int(np.prod(shape, dtype=np.int64))
    blocks = (n + 1) // 2
    b = np.arange(blocks, dtype=np.uint64)
    c0, c1 = b & _LOW, b >> np.uint64(32)
    c2 = np.zeros(blocks, dtype=np.uint64)
    c3 = np.zeros(blocks, dtype=np.uint64)
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    for r in range(10):
        if r > 0:
            k0, k1 = (k0 + _W0) & 0xFFFFFFFF, (k1 + _W1) & 0xFFFFFFFF
        p0, p1 = _M0 * c0, _M1 * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & _LOW,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & _LOW)
    r64 = np.empty(2 * blocks, dtype=np.uint64)
    r64[0::2] = c0 | (c1 << np.uint64(32))
    r64[1::2] = c2 | (c3 << np.uint64(32))
    out = (r64[:n] >> np.uint64(11)).astype(np.float64) * 2.0**-53
    _philox_seconds += time.perf_counter() - start
    return out.reshape(shape)


def diagonal(a):
    """a.reshape(-1)[::n+1]: the diagonal of a contiguous n x n array, as a view."""
    return a.reshape(-1)[::a.shape[0] + 1]


# ---- the programs ----

def black_scholes(n, iterations):
    def cnd(x):
        a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
        l = np.absolute(x)
        k = 1.0 / (1.0 + 0.2316419 * l)
        k2 = k * k
        k3 = k2 * k
        k4 = k3 * k
        k5 = k4 * k
        w = 1.0 - 1.0 / math.sqrt(2 * math.pi) * np.exp(-l * l / 2.0) * (a1 * k + a2 * k2 + a3 * k3 + a4 * k4 + a5 * k5)
        mask = x < 0
        return w * ~mask + (1.0 - w) * mask

    def call_price(s, x, t, r, v):
        d1 = (np.log(s / x) + (r + v * v / 2.0) * t) / (v * math.sqrt(t))
        d2 = d1 - v * math.sqrt(t)
        return s * cnd(d1) - x * math.exp(-r * t) * cnd(d2)

    s = random_uniform((n,), 1) * 4.0 - 2.0 + 60.0
    strike, dt, rate, volatility = 65.0, 1.0 / 365.0, 0.08, 0.3
    t, checksum = dt, 0.0
    for _ in range(iterations):
        checksum += float(np.sum(call_price(s, strike, t, rate, volatility))) / n
        t += dt
    return checksum


def game_of_life(n, iterations):
    state = np.zeros((n + 2, n + 2))
    state[1:-1, 1:-1] = random_uniform((n, n), 2) < 0.2
    cells = state[1:-1, 1:-1]
    ul, um, ur = state[:-2, :-2], state[:-2, 1:-1], state[:-2, 2:]
    ml, mr = state[1:-1, :-2], state[1:-1, 2:]
    ll, lm, lr = state[2:, :-2], state[2:, 1:-1], state[2:, 2:]
    for _ in range(iterations):
        neighbors = ul + um + ur + ml + mr + ll + lm + lr
        live = neighbors * cells
        stay = (live >= 2) & (live <= 3)
        dead = neighbors * (cells == 0)
        spawn = dead == 3
        cells[:] = stay | spawn
    return float(np.sum(state))


def heat_equation(n, iterations):
    epsilon = 0.005
    grid = np.zeros((n + 2, n + 2))
    grid[:, 0] = -273.15
    grid[:, -1] = -273.15
    grid[-1, :] = -273.15
    grid[0, :] = 40.0
    center = grid[1:-1, 1:-1]
    north, east, west, south = grid[:-2, 1:-1], grid[1:-1, 2:], grid[1:-1, :-2], grid[2:, 1:-1]
    delta = epsilon + 1
    iteration = 0
    while delta > epsilon:
        iteration += 1
        work = 0.2 * (center + north + east + west + south)
        delta = float(np.sum(np.absolute(work - center)))
        center[:] = work
        if iteration >= iterations:
            break
    return float(np.sum(center)) + delta


def leibnitz_pi(n, iterations):
    total = 0.0
    for _ in range(iterations):
        k = np.arange(n, dtype=np.int64)
        total += 4.0 * float(np.sum(1.0 / (4 * k + 1) - 1.0 / (4 * k + 3)))
    return total / iterations


def gauss(n, iterations):
    a = random_uniform((n, n), 3)
    diagonal(a)[:] += n
    for k in range(min(iterations, n - 1)):
        factor = a[k + 1:, k] / a[k, k]
        a[k + 1:, k:] -= factor[:, None] * a[k, k:]
    d = diagonal(a).copy()
    a /= d[:, None]
    return float(np.sum(a))


def lu(n, iterations):
    u = random_uniform((n, n), 4)
    diagonal(u)[:] += n
    l = np.zeros((n, n))
    diagonal(l)[:] = 1.0
    for k in range(min(iterations, n - 1)):
        factor = u[k + 1:, k] / u[k, k]
        l[k + 1:, k] = factor
        u[k + 1:, k:] -= factor[:, None] * u[k, k:]
    return float(np.sum(l)) + float(np.sum(u))


def monte_carlo_pi(n, iterations):
    total = 0.0
    for i in range(iterations):
        seed = 100 + 2 * i
        x = random_uniform((n,), seed)
        y = random_uniform((n,), seed + 1)
        inside = np.sqrt(x * x + y * y) <= 1.0
        total += float(np.sum(inside)) * 4.0 / n
    return total / iterations


def stencil27(n, iterations):
    data = np.zeros((n, n, n))
    mid, half = n // 2, min(8, n // 4)
    data[mid - half:mid + half, mid - half:mid + half] = 100.0
    stencil = [data[z:n - 2 + z, y:n - 2 + y, x:n - 2 + x] for z in range(3) for y in range(3) for x in range(3)]
    active = stencil[13]
    for _ in range(iterations):
        total = stencil[0]
        for s in stencil[1:]:
            total = total + s
        active[:] = total / 27.0
    return float(np.sum(data))


def shallow_water(n, iterations):
    g = 9.80665

    def droplet(height):
        w = 8
        d = np.empty((w, w))
        for i in range(w):
            for j in range(w):
                x, y = -1.0 + j * (2.0 / (w - 1)), -1.0 + i * (2.0 / (w - 1))
                d[i, j] = height * math.exp(-5.0 * (x * x + y * y))
        return d

    def step(H, U, V):
        dt, dx, dy = 0.02, 1.0, 1.0
        cx, cy = dt / (2 * dx), dt / (2 * dy)
        H[:, 0] = H[:, 1]
        U[:, 0] = U[:, 1]
        V[:, 0] = -V[:, 1]
        H[:, -1] = H[:, -2]
        U[:, -1] = U[:, -2]
        V[:, -1] = -V[:, -2]
        H[0, :] = H[1, :]
        U[0, :] = -U[1, :]
        V[0, :] = V[1, :]
        H[-1, :] = H[-2, :]
        U[-1, :] = -U[-2, :]
        V[-1, :] = V[-2, :]

        h1, h0, u1, u0, v1, v0 = H[1:, 1:-1], H[:-1, 1:-1], U[1:, 1:-1], U[:-1, 1:-1], V[1:, 1:-1], V[:-1, 1:-1]
        hx = (h1 + h0) / 2 - cx * (u1 - u0)
        ux = (u1 + u0) / 2 - cx * ((u1 * u1 / h1 + g / 2 * (h1 * h1)) - (u0 * u0 / h0 + g / 2 * (h0 * h0)))
        vx = (v1 + v0) / 2 - cx * ((u1 * v1 / h1) - (u0 * v0 / h0))

        hr, hl, ur, ul, vr, vl = H[1:-1, 1:], H[1:-1, :-1], U[1:-1, 1:], U[1:-1, :-1], V[1:-1, 1:], V[1:-1, :-1]
        hy = (hr + hl) / 2 - cy * (vr - vl)
        uy = (ur + ul) / 2 - cy * ((vr * ur / hr) - (vl * ul / hl))
        vy = (vr + vl) / 2 - cy * ((vr * vr / hr + g / 2 * (hr * hr)) - (vl * vl / hl + g / 2 * (hl * hl)))

        ux1, ux0, hx1, hx0, vx1, vx0 = ux[1:, :], ux[:-1, :], hx[1:, :], hx[:-1, :], vx[1:, :], vx[:-1, :]
        vy1, vy0, uy1, uy0, hy1, hy0 = vy[:, 1:], vy[:, :-1], uy[:, 1:], uy[:, :-1], hy[:, 1:], hy[:, :-1]
        H[1:-1, 1:-1] -= (dt / dx) * (ux1 - ux0) + (dt / dy) * (vy1 - vy0)
        U[1:-1, 1:-1] -= ((dt / dx) * ((ux1 * ux1 / hx1 + g / 2 * (hx1 * hx1)) - (ux0 * ux0 / hx0 + g / 2 * (hx0 * hx0))) +
                          (dt / dy) * ((vy1 * uy1 / hy1) - (vy0 * uy0 / hy0)))
        V[1:-1, 1:-1] -= ((dt / dx) * ((ux1 * vx1 / hx1) - (ux0 * vx0 / hx0)) +
                          (dt / dy) * ((vy1 * vy1 / hy1 + g / 2 * (hy1 * hy1)) - (vy0 * vy0 / hy0 + g / 2 * (hy0 * hy0))))

    H = np.ones((n, n))
    drop = droplet(8.0)
    for at in (n // 4, n // 2):
        H[at:at + 8, at:at + 8] += drop
    U = np.zeros((n, n))
    V = np.zeros((n, n))
    for _ in range(iterations):
        step(H, U, V)
    return float(np.sum(H))


def rosenbrock(n, iterations):
    x = np.arange(n, dtype=np.int64) / n
    total = 0.0
    for _ in range(iterations):
        a, b = x[:-1], x[1:]
        t, u = 1 - a, b - a * a
        total += float(np.sum(t * t + 100.0 * (u * u)))
    return total / iterations


def sor(n, iterations):
    h = (n + 2) // 2
    epsilon = 0.005
    r0, r1, b0, b1 = np.zeros((h, h)), np.zeros((h, h)), np.zeros((h, h)), np.zeros((h, h))
    r0[0, :] = 40.0
    b0[0, :] = 40.0
    r1[-1, :] = -273.15
    b1[-1, :] = -273.15
    r0[:, 0] = -273.15
    b1[:, 0] = -273.15
    b0[:, -1] = -273.15
    r1[:, -1] = -273.15
    delta = epsilon + 1
    iteration = 0
    while delta > epsilon:
        iteration += 1
        r1[:-1, :-1] = (r1[:-1, :-1] + b0[:-1, :-1] + b0[1:, :-1] + b1[:-1, :-1] + b1[:-1, 1:]) * 0.2
        r0[1:, 1:] = (r0[1:, 1:] + b1[:-1, 1:] + b1[1:, 1:] + b0[1:, :-1] + b0[1:, 1:]) * 0.2
        b1[:-1, 1:] = (b1[:-1, 1:] + r0[:-1, 1:] + r0[1:, 1:] + r1[:-1, :-1] + r1[:-1, 1:]) * 0.2
        b0[1:, :-1] = (b0[1:, :-1] + r1[:-1, :-1] + r1[1:, :-1] + r0[1:, :-1] + r0[1:, 1:]) * 0.2
        delta = float(np.sum(np.absolute(r0[1:, 1:] - b0[1:, :-1])) + np.sum(np.absolute(r1[:-1, :-1] - b1[:-1, 1:])) +
                      np.sum(np.absolute(r0[1:, 1:] - b1[:-1, 1:])) + np.sum(np.absolute(b0[1:, :-1] - r1[:-1, :-1])))
        if iteration >= iterations:
            break
    return float(np.sum(r0 + r1 + b0 + b1)) + delta


def nbody(n, iterations):
    G, dt, light_year, solar_mass = 6.67384e-11, 60 * 60 * 24 * 365.25, 9.4607e15, 1.9891e30

    def force_sum(d, m_column, r3):
        f = G * m_column * d / r3
        diagonal(f)[:] = 0.0
        return np.sum(f, axis=0)

    m = (random_uniform((n,), 5) + 10) * (solar_mass / 10)
    x = (random_uniform((n,), 6) - 0.5) * (light_year / 100)
    y = (random_uniform((n,), 7) - 0.5) * (light_year / 100)
    z = (random_uniform((n,), 8) - 0.5) * (light_year / 100)
    vx, vy, vz = np.zeros(n), np.zeros(n), np.zeros(n)
    for _ in range(iterations):
        dx, dy, dz = x[:, None] - x, y[:, None] - y, z[:, None] - z
        r = np.sqrt(dx * dx + dy * dy + dz * dz)
        diagonal(r)[:] = 1.0
        mask = r < 1.0
        r = r * ~mask + 1.0 * mask
        r3 = r * r * r
        mc = m[:, None]
        vx += dt * force_sum(dx, mc, r3)
        vy += dt * force_sum(dy, mc, r3)
        vz += dt * force_sum(dz, mc, r3)
        x += dt * vx
        y += dt * vy
        z += dt * vz
    return float(np.sum(np.absolute(vx) + np.absolute(vy) + np.absolute(vz)))


def nbody_nice(n, iterations):
    solar_mass, x_max, dt, planets_n = 1.98892e30, 1e18, 1e12, 40

    def circle_speed(x, y, z):
        r = np.sqrt(x * x + y * y + z * z)
        numerator = 6.67e-11 * 1e6 * solar_mass
        return np.sqrt(numerator / r)

    def random_system(count, seed, dist_offset, mass_floor):
        b = {}
        x = random_uniform((count,), seed)
        y = random_uniform((count,), seed + 1)
        z = random_uniform((count,), seed + 2) * 0.01
        dist = (1.0 / np.sqrt(x * x + y * y + z * z)) - dist_offset
        sx = np.sign(0.5 - random_uniform((count,), seed + 3))
        sy = np.sign(0.5 - random_uniform((count,), seed + 4))
        sz = np.sign(0.5 - random_uniform((count,), seed + 5))
        b['x'] = x_max * x * dist * sx
        b['y'] = x_max * y * dist * sy
        b['z'] = x_max * z * dist * sz
        speed = circle_speed(b['x'], b['y'], b['z'])
        theta = math.pi / 2 - np.arctan(np.absolute(b['y'] / b['x']))
        b['vx'] = -1 * np.sign(b['y']) * np.cos(theta) * speed
        b['vy'] = np.sign(b['x']) * np.sin(theta) * speed
        b['vz'] = np.zeros(count)
        b['m'] = random_uniform((count,), seed + 6) * solar_mass * 10 + mass_floor
        return b

    def pull(a, b, same):
        g = 6.673e-11
        dx, dy, dz = b['x'] - a['x'][:, None], b['y'] - a['y'][:, None], b['z'] - a['z'][:, None]
        pm = b['m'] * a['m'][:, None]
        r = np.sqrt(dx * dx + dy * dy + dz * dz)
        with np.errstate(divide='ignore', invalid='ignore'):
            scale = g * pm / (r * r)
            fx, fy, fz = scale * (dx / r), scale * (dy / r), scale * (dz / r)
        if same:
            diagonal(fx)[:] = 0.0
            diagonal(fy)[:] = 0.0
            diagonal(fz)[:] = 0.0
        a['vx'] += np.sum(fx, axis=1) / a['m'] * dt
        a['vy'] += np.sum(fy, axis=1) / a['m'] * dt
        a['vz'] += np.sum(fz, axis=1) / a['m'] * dt

    def move(b):
        b['x'] += b['vx'] * dt
        b['y'] += b['vy'] * dt
        b['z'] += b['vz'] * dt

    def speed_sum(b):
        return float(np.sum(np.absolute(b['vx']) + np.absolute(b['vy']) + np.absolute(b['vz'])))

    planets = random_system(planets_n, 10, 0.75, 1e20)
    planets['m'][0] = 1e6 * solar_mass
    for key in ('x', 'y', 'z', 'vx', 'vy', 'vz'):
        planets[key][0] = 0.0
    asteroids = random_system(n, 20, 0.1, 1e14)
    for _ in range(iterations):
        pull(planets, planets, True)
        pull(asteroids, planets, False)
        move(planets)
        move(asteroids)
    return speed_sum(planets) + speed_sum(asteroids)


_LBM_VELOCITY = [(0, 0, 0), (0, 0, 1), (0, 0, -1), (0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0),
                 (1, 1, 0), (1, -1, 0), (-1, 1, 0), (-1, -1, 0), (1, 0, 1), (1, 0, -1), (-1, 0, 1),
                 (-1, 0, -1), (0, 1, 1), (0, 1, -1), (0, -1, 1), (0, -1, -1)]
_LBM_OPPOSITE = [0, 2, 1, 4, 3, 6, 5, 10, 9, 8, 7, 14, 13, 12, 11, 18, 17, 16, 15]


def lattice_boltzmann(n, iterations):
    def shift_pieces(s):
        if s > 0:
            return [(slice(1, None), slice(None, -1)), (slice(None, 1), slice(-1, None))]
        if s < 0:
            return [(slice(None, -1), slice(1, None)), (slice(-1, None), slice(None, 1))]
        return [(slice(None), slice(None))]

    def roll_into(dst, src, shift):
        for dx, sx in shift_pieces(shift[0]):
            for dy, sy in shift_pieces(shift[1]):
                for dz, sz in shift_pieces(shift[2]):
                    dst[dx, dy, dz] = src[sx, sy, sz]

    def moment(f, plus, minus, density):
        u = f[plus[0]].copy()
        for q in plus[1:]:
            u += f[q]
        for q in minus:
            u -= f[q]
        u /= density
        return u

    def equilibrium(t_density, eu, t1):
        return t_density * (1.0 + 3.0 * eu + 9.0 / 2.0 * (eu * eu) - t1)

    omega, delta_u, t1, t2, t3 = 1.0, 1e-7, 1 / 3.0, 1 / 18.0, 1 / 36.0
    F = np.full((19, n, n, n), 1.0 / 19.0)
    FEQ = np.full((19, n, n, n), 1.0 / 19.0)
    T = np.zeros((19, n, n, n))
    BOUND = np.zeros((n, n, n))
    BOUNDi = np.ones((n, n, n))
    BOUND[:, 0, :] += 1.0
    BOUNDi[:, 0, :] *= 0.0
    u = None
    for _ in range(iterations):
        T[:] = F
        for q in range(1, 19):
            roll_into(F[q], T[q], _LBM_VELOCITY[q])
        BB = np.zeros(F.shape)
        T[:] = F
        T[1:] *= BOUND
        for q in range(1, 19):
            BB[_LBM_OPPOSITE[q]] += T[q]
        density = np.sum(F, axis=0)
        ux = moment(F, [5, 7, 8, 11, 12], [6, 9, 10, 13, 14], density)
        uy = moment(F, [3, 7, 9, 15, 16], [4, 8, 10, 17, 18], density)
        uz = moment(F, [1, 11, 13, 15, 17], [2, 12, 14, 16, 18], density)
        ux[0] += delta_u
        ux *= BOUNDi
        uy *= BOUNDi
        uz *= BOUNDi
        density *= BOUNDi
        u_squ = ux * ux + uy * uy + uz * uz
        FEQ[0] = (t1 * density) * (1.0 - 3.0 * u_squ / 2.0)
        t_1 = 3.0 / 2.0 * u_squ
        t_density = t2 * density
        FEQ[1] = equilibrium(t_density, uz, t_1)
        FEQ[2] = equilibrium(t_density, -uz, t_1)
        FEQ[3] = equilibrium(t_density, uy, t_1)
        FEQ[4] = equilibrium(t_density, -uy, t_1)
        FEQ[5] = equilibrium(t_density, ux, t_1)
        FEQ[6] = equilibrium(t_density, -ux, t_1)
        t_1 = 3.0 * u_squ / 2.0
        t_density = t3 * density
        comps = (ux, uy, uz)
        for q in range(7, 19):
            eu = None
            for c in range(3):
                e = _LBM_VELOCITY[q][c]
                if e == 0:
                    continue
                term = comps[c] if e > 0 else -comps[c]
                eu = term if eu is None else eu + term
            FEQ[q] = equilibrium(t_density, eu, t_1)
        F *= (1.0 - omega)
        F += omega * FEQ
        F[1:] *= BOUNDi
        F[1:] += BB[1:]
        u = (ux, uy, uz)
    energy = float(np.sum(F * F))
    if iterations == 0:
        return energy
    return energy + float(np.sum(np.absolute(u[0]) + np.absolute(u[1]) + np.absolute(u[2])))


def water_ice(n, iterations):
    dt = 60.0 * 60 * 24 * 365 / 200
    air_t, air_k, ice_k, freeze_t = -20.0, 20.0, 2.2, -1.8
    ice_rho, latent, horiz_k, horiz_s = 910.0, 3.34e5, 50.0, 1e-3

    def dens0(s, t):
        a0, a1, a2, a3, a4, a5 = 999.842594, 6.793952e-2, -9.095290e-3, 1.001685e-4, -1.120083e-6, 6.536332e-9
        b0, b1, b2, b3, b4 = 8.24493e-1, -4.0899e-3, 7.6438e-5, -8.2467e-7, 5.3875e-9
        c0, c1, c2, d0 = -5.72466e-3, 1.0227e-4, -1.6546e-6, 4.8314e-4
        smow = a0 + (a1 + (a2 + (a3 + (a4 + a5 * t) * t) * t) * t) * t
        rb = b0 + (b1 + (b2 + (b3 + b4 * t) * t) * t) * t
        rc = c0 + (c1 + c2 * t) * t
        return smow + rb * s + rc * s**1.5 + d0 * s * s

    def seck(s, t, p):
        aw = 3.239908 + (1.43713e-3 + (1.16092e-4 + -5.77905e-7 * t) * t) * t
        bw = 8.50935e-5 + (-6.12293e-6 + 5.2787e-8 * t) * t
        kw = 19652.21 + (148.4206 + (-2.327105 + (1.360477e-2 + -5.155288e-5 * t) * t) * t) * t
        sr = np.sqrt(s)
        a = aw + (2.2838e-3 + (-1.0981e-5 + -1.6078e-6 * t) * t + 1.91075e-4 * sr) * s
        k0 = kw + (54.6746 + (-0.603459 + (1.09987e-2 + -6.1670e-5 * t) * t) * t +
                   (7.944e-2 + (1.6483e-2 + -5.3009e-4 * t) * t) * sr) * s
        b = bw + (-9.9348e-7 + (2.0816e-8 + 9.1697e-10 * t) * t) * s
        return k0 + (a + b * p) * p

    def density(s, t, p):
        return dens0(s, t) / (1 - p / seck(s, t, p))

    def heat_capacity(s, t):
        cp0 = 4217.4 + (-3.720283 + (0.1412855 + (-2.654387e-3 + 2.093236e-5 * t) * t) * t) * t
        a = -7.64357 + (0.1072763 + -1.38385e-3 * t) * t
        b = 0.1770383 + (-4.07718e-3 + 5.148e-5 * t) * t
        return cp0 + a * s + b * s**1.5

    def exchange(acc, flux, axis):
        if axis == 0:
            acc[:-1] -= flux
            acc[1:] += flux
        elif axis == 1:
            acc[:, :-1] -= flux
            acc[:, 1:] += flux
        else:
            acc[:, :, :-1] -= flux
            acc[:, :, 1:] += flux

    def neighbour_diff(x, axis):
        if axis == 0:
            return x[:-1] - x[1:]
        if axis == 1:
            return x[:, :-1] - x[:, 1:]
        return x[:, :, :-1] - x[:, :, 1:]

    thickness = np.array([50.0, 300, 400, 1800])
    depth = np.array([50.0, 350, 800, 3000])
    pres = [60.4, 360, 814, 3030]
    pressure = np.array([0.1 * p for p in pres])
    half_span = np.array([(50 + 350) / 2.0, (350 + 800) / 2.0, (800 + 3000) / 2.0])
    depth_sum = np.array([50.0 + 350, 350 + 800, 800 + 3000])
    vertical_k = np.array([5.0, 1.0, 0.5])
    salt_k_ice, salt_k_open = np.array([1e-4, 1e-6, 1e-8]), np.array([6e-4, 1e-6, 1e-8])

    t = np.array([-1.5, 0.1, 5.0, 2.0]) + 0.5 * random_uniform((n, n, 4), 30)
    s = np.array([33.0, 34.5, 32.0, 35.0]) + 0.1 * random_uniform((n, n, 4), 31)
    v = 0.3 + 2 * random_uniform((n, n), 32)
    for _ in range(iterations):
        thin = v <= 0.5
        h_ice = ~thin * v + thin * (np.sqrt(np.maximum(v, 0.0)) / 2.0)
        x_ice = ~thin * 1.0 + thin * (2 * h_ice)
        x_col = x_ice.reshape(n, n, 1)

        p = density(s, t, pressure)
        c_w = heat_capacity(s, t)
        m = thickness * p

        q = np.zeros((n, n, 4))
        exchange(q, vertical_k * neighbour_diff(t, 2) / half_span, 2)
        surface_t = t[:, :, 0]
        conduct = x_ice * ice_k / (h_ice + 0.1)
        q[:, :, 0] += (1 - x_ice) * air_k * (air_t - surface_t) + conduct * (freeze_t - surface_t)
        exchange(q, horiz_k * neighbour_diff(t, 0), 0)
        exchange(q, horiz_k * neighbour_diff(t, 1), 1)
        dt_dt = q / (m * c_w)
        dv_dt = (freeze_t - surface_t) * (conduct + (1 - x_ice) * air_k * 0.01) / (ice_rho * latent)

        ps = p * s
        k_salt = salt_k_ice * x_col + (1 - x_col) * salt_k_open
        w = np.zeros((n, n, 4))
        exchange(w, 2 * k_salt * neighbour_diff(ps, 2) / depth_sum, 2)
        growing = dv_dt > 0
        w_ice = ice_rho * 34 * dv_dt / (1 - 34 / 1000.0)
        w[:, :, 0] += ~growing * w_ice
        w[:, :, 1] += growing * w_ice
        exchange(w, horiz_s * neighbour_diff(ps, 0) / depth, 0)
        exchange(w, horiz_s * neighbour_diff(ps, 1) / depth, 1)
        ds_dt = w / (p * thickness)

        t += dt * dt_dt
        s += dt * ds_dt
        v = np.maximum(v + dt * dv_dt, 0.0)
    return float(np.sum(t)) + float(np.sum(s)) + float(np.sum(v))


PROGRAMS = {
    'black_scholes': black_scholes,
    'game_of_life': game_of_life,
    'heat_equation': heat_equation,
    'leibnitz_pi': leibnitz_pi,
    'gauss': gauss,
    'lu': lu,
    'monte_carlo_pi': monte_carlo_pi,
    'stencil27': stencil27,
    'shallow_water': shallow_water,
    'rosenbrock': rosenbrock,
    'sor': sor,
    'nbody': nbody,
    'nbody_nice': nbody_nice,
    'lattice_boltzmann': lattice_boltzmann,
    'water_ice': water_ice,
}


def main(argv):
    if len(argv) == 0 or len(argv) % 3 != 0:
        sys.stderr.write(__doc__)
        return 2
    for i in range(0, len(argv), 3):
        name, n, iterations = argv[i], int(argv[i + 1]), int(argv[i + 2])
        if name not in PROGRAMS:
            sys.stderr.write("programs.py: unknown program '%s' (known: %s)\n" % (name, ' '.join(PROGRAMS)))
            return 2
        global _philox_seconds
        _philox_seconds = 0.0
        start = time.perf_counter()
        checksum = PROGRAMS[name](n, iterations)
        elapsed = time.perf_counter() - start - _philox_seconds
        print(json.dumps({'name': name, 'n': n, 'iterations': iterations, 'checksum': repr(checksum),
                          'time': elapsed}), flush=True)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
