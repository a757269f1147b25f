/* Hand-written twins of nbody and nbody_nice (see hand_kernels.h): the
 * pairwise forces are summed in registers, never stored as n x n matrices. */
#include "hand_common.h"
#include "hand_kernels.h"

/* ---- N-body: one pass over the pairs per step (forces into the
 * velocities), then one over the bodies (positions). ---- */

double hand_nbody(int64_t n, int64_t iterations) {
  const double G = 6.67384e-11, dt = 60 * 60 * 24 * 365.25, light_year = 9.4607e15, solar_mass = 1.9891e30;
  double *m = alloc_doubles(n), *x = alloc_doubles(n), *y = alloc_doubles(n), *z = alloc_doubles(n);
  double *vx = zero_doubles(n), *vy = zero_doubles(n), *vz = zero_doubles(n);
  for (int64_t i = 0; i < n; ++i) {
    m[i] = (philox_uniform(5, (uint64_t)i) + 10) * (solar_mass / 10);
    x[i] = (philox_uniform(6, (uint64_t)i) - 0.5) * (light_year / 100);
    y[i] = (philox_uniform(7, (uint64_t)i) - 0.5) * (light_year / 100);
    z[i] = (philox_uniform(8, (uint64_t)i) - 0.5) * (light_year / 100);
  }
  for (int64_t it = 0; it < iterations; ++it) {
    /* f[i, j] = G m_i d_ij / r_ij^3 with d_ij = x_i - x_j, summed over i (axis 0). */
#pragma omp parallel for if (n * n >= PARALLEL_MIN) schedule(static)
    for (int64_t j = 0; j < n; ++j) {
      double fx = 0, fy = 0, fz = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (i == j) continue; /* the diagonal: no force on itself */
        const double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
        double r = sqrt(dx * dx + dy * dy + dz * dz);
        const double mask = r < 1.0; /* prevent collisions */
        r = r * (double)(!mask) + 1.0 * mask;
        const double r3 = r * r * r, gm = G * m[i];
        fx += gm * dx / r3;
        fy += gm * dy / r3;
        fz += gm * dz / r3;
      }
      vx[j] += dt * fx;
      vy[j] += dt * fy;
      vz[j] += dt * fz;
    }
    for (int64_t i = 0; i < n; ++i) {
      x[i] += dt * vx[i];
      y[i] += dt * vy[i];
      z[i] += dt * vz[i];
    }
  }
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += fabs(vx[i]) + fabs(vy[i]) + fabs(vz[i]);
  free(m), free(x), free(y), free(z), free(vx), free(vy), free(vz);
  return sum;
}

/* ---- N-body Nice: 40 planets (serial, 40 x 40) and n asteroids, each
 * asteroid pulled by the planets and moved in one pass. ---- */

#define NICE_SOLAR_MASS 1.98892e30
#define NICE_MAX 1e18
#define NICE_DT 1e12
#define NICE_PLANETS 40

typedef struct {
  double *x, *y, *z, *vx, *vy, *vz, *m;
} bodies;

static bodies random_system(int64_t n, uint64_t seed, double dist_offset, double mass_floor) {
  bodies b = {alloc_doubles(n), alloc_doubles(n), alloc_doubles(n), alloc_doubles(n),
              alloc_doubles(n), alloc_doubles(n), alloc_doubles(n)};
  const double numerator = 6.67e-11 * 1e6 * NICE_SOLAR_MASS;
#pragma omp parallel for if (n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t k = (uint64_t)i;
    const double x0 = philox_uniform(seed, k), y0 = philox_uniform(seed + 1, k),
                 z0 = philox_uniform(seed + 2, k) * 0.01;
    const double dist = (1.0 / sqrt(x0 * x0 + y0 * y0 + z0 * z0)) - dist_offset;
    const double sx = op_sign(0.5 - philox_uniform(seed + 3, k)),
                 sy = op_sign(0.5 - philox_uniform(seed + 4, k)),
                 sz = op_sign(0.5 - philox_uniform(seed + 5, k));
    const double x = NICE_MAX * x0 * dist * sx, y = NICE_MAX * y0 * dist * sy, z = NICE_MAX * z0 * dist * sz;
    const double speed = sqrt(numerator / sqrt(x * x + y * y + z * z));
    const double theta = M_PI / 2 - atan(fabs(y / x));
    b.x[i] = x;
    b.y[i] = y;
    b.z[i] = z;
    b.vx[i] = -1.0 * op_sign(y) * cos(theta) * speed;
    b.vy[i] = op_sign(x) * sin(theta) * speed;
    b.vz[i] = 0.0;
    b.m[i] = philox_uniform(seed + 6, k) * NICE_SOLAR_MASS * 10 + mass_floor;
  }
  return b;
}

static void free_bodies(bodies* b) {
  free(b->x), free(b->y), free(b->z), free(b->vx), free(b->vy), free(b->vz), free(b->m);
}

/* a[i]'s velocity += sum over b's bodies j of the pull of j, over dt. */
static inline void pull_one(const bodies* a, int64_t i, const bodies* b, int64_t nb, int same) {
  const double g = 6.673e-11;
  const double ax = a->x[i], ay = a->y[i], az = a->z[i], am = a->m[i];
  double fx = 0, fy = 0, fz = 0;
  for (int64_t j = 0; j < nb; ++j) {
    if (same && j == i) continue;
    const double dx = b->x[j] - ax, dy = b->y[j] - ay, dz = b->z[j] - az;
    const double pm = b->m[j] * am;
    const double r = sqrt(dx * dx + dy * dy + dz * dz);
    const double scale = g * pm / (r * r);
    fx += scale * (dx / r);
    fy += scale * (dy / r);
    fz += scale * (dz / r);
  }
  a->vx[i] += fx / am * NICE_DT;
  a->vy[i] += fy / am * NICE_DT;
  a->vz[i] += fz / am * NICE_DT;
}

static inline void move_one(const bodies* b, int64_t i) {
  b->x[i] += b->vx[i] * NICE_DT;
  b->y[i] += b->vy[i] * NICE_DT;
  b->z[i] += b->vz[i] * NICE_DT;
}

static double speed_sum(const bodies* b, int64_t n) {
  double sum = 0;
#pragma omp parallel for reduction(+ : sum) if (n >= PARALLEL_MIN) schedule(static)
  for (int64_t i = 0; i < n; ++i) sum += fabs(b->vx[i]) + fabs(b->vy[i]) + fabs(b->vz[i]);
  return sum;
}

double hand_nbody_nice(int64_t n, int64_t iterations) {
  bodies planets = random_system(NICE_PLANETS, 10, 0.75, 1e20);
  planets.m[0] = 1e6 * NICE_SOLAR_MASS; /* the central mass, at rest at the origin */
  planets.x[0] = planets.y[0] = planets.z[0] = planets.vx[0] = planets.vy[0] = planets.vz[0] = 0.0;
  bodies asteroids = random_system(n, 20, 0.1, 1e14);
  for (int64_t it = 0; it < iterations; ++it) {
    for (int64_t i = 0; i < NICE_PLANETS; ++i) pull_one(&planets, i, &planets, NICE_PLANETS, 1);
      /* The asteroids feel the planets where they were before this step's move. */
#pragma omp parallel for if (n * NICE_PLANETS >= PARALLEL_MIN) schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      pull_one(&asteroids, i, &planets, NICE_PLANETS, 0);
      move_one(&asteroids, i);
    }
    for (int64_t i = 0; i < NICE_PLANETS; ++i) move_one(&planets, i);
  }
  const double sum = speed_sum(&planets, NICE_PLANETS) + speed_sum(&asteroids, n);
  free_bodies(&planets);
  free_bodies(&asteroids);
  return sum;
}
