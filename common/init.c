/* init.c: initial conditions. Only +, -, *, / and sqrt (all correctly rounded in IEEE 754), so a
 * seed gives the same bodies, bit for bit, on every machine and compiler. */
#include "init.h"
#include "rng.h"
#include "util.h"

#include <math.h>
#include <stddef.h>

const nb_word nb_model_words[] = {{"plummer", NB_MODEL_PLUMMER},
                                   {"uniform", NB_MODEL_UNIFORM},
                                   {"collision", NB_MODEL_COLLISION},
                                   {"hernquist", NB_MODEL_HERNQUIST},
                                   {"hernquist-bh", NB_MODEL_HERNQUIST_BH}};
const size_t nb_model_word_count = sizeof nb_model_words / sizeof nb_model_words[0];
const nb_word nb_masses_words[] = {{"equal", NB_MASSES_EQUAL}, {"random", NB_MASSES_RANDOM}};
const size_t nb_masses_word_count = sizeof nb_masses_words / sizeof nb_masses_words[0];

const char *nb_model_name(nb_model m) { return nb_word_name(nb_model_words, nb_model_word_count, (int)m); }

const char *nb_masses_name(nb_masses m) { return nb_word_name(nb_masses_words, nb_masses_word_count, (int)m); }

double nb_cbrt(double a)
{
    if (a == 0.0)
        return 0.0;
    /* a = f * 2^(3k) with f in [1/8, 1): Newton from above on f, then scale by 2^k exactly. */
    int k = 0;
    while (a >= 1.0) {
        a *= 0.125;
        ++k;
    }
    while (a < 0.125) {
        a *= 8.0;
        --k;
    }
    double y = 1.0; /* >= cbrt(f), so Newton decreases monotonically to the root */
    for (int i = 0; i < 40; ++i) {
        const double next = (2.0 * y + a / (y * y)) / 3.0;
        if (!(next < y))
            break;
        y = next;
    }
    for (; k > 0; --k)
        y *= 2.0;
    for (; k < 0; ++k)
        y *= 0.5;
    return y;
}

/* A point uniform on the unit sphere, by rejection from the cube (no sin/cos). */
static void random_direction(nb_rng *r, double *ux, double *uy, double *uz)
{
    double x, y, z, d2;
    do {
        x = nb_rng_range(r, -1.0, 1.0);
        y = nb_rng_range(r, -1.0, 1.0);
        z = nb_rng_range(r, -1.0, 1.0);
        d2 = x * x + y * y + z * z;
    } while (d2 > 1.0 || d2 < 1e-6);
    const double inv = 1.0 / sqrt(d2);
    *ux = x * inv;
    *uy = y * inv;
    *uz = z * inv;
}

/* A vector of the given length in a direction uniform on the sphere. */
static void along_random_direction(nb_rng *r, double length, double out[3])
{
    double ux, uy, uz;
    random_direction(r, &ux, &uy, &uz);
    out[0] = length * ux;
    out[1] = length * uy;
    out[2] = length * uz;
}

/* One Plummer body (Aarseth, Henon & Wielen 1974) in units where the Plummer radius is 1. */
static void plummer_body(nb_rng *r, double pos[3], double vel[3])
{
    double radius = 0.0;
    for (;;) {
        const double mass_fraction = nb_rng_uniform(r);
        if (mass_fraction <= 0.0)
            continue;
        const double c = nb_cbrt(mass_fraction); /* X^(-2/3) = 1/c^2: no integer -2/3 here */
        radius = 1.0 / sqrt(1.0 / (c * c) - 1.0);
        if (radius <= 10.0) /* the usual cut: no body beyond 10 Plummer radii (also rejects X = 1) */
            break;
    }
    along_random_direction(r, radius, pos);

    /* Speed as q * escape speed, q from g(q) = q^2 (1 - q^2)^(7/2) by von Neumann rejection. */
    double q, g, w;
    do {
        q = nb_rng_uniform(r);
        g = 0.1 * nb_rng_uniform(r);
        w = 1.0 - q * q;
    } while (g > q * q * w * w * w * sqrt(w)); /* (1 - q^2)^(7/2) without pow() */
    const double escape = sqrt(2.0) / sqrt(sqrt(1.0 + radius * radius));
    along_random_direction(r, q * escape, vel);
}

double nb_asin(double x)
{
    const double half_pi = 1.57079632679489661923;
    const double sign = x < 0.0 ? -1.0 : 1.0;
    double y = x * sign;
    /* asin y = pi/2 - 2 asin sqrt((1 - y)/2) above sqrt(1/2), where the result is still at least pi/4:
     * the subtraction loses at most a bit (reflecting above 1/2 lost three). */
    const int reflect = y > 0.70710678118654752440;
    if (reflect)
        y = sqrt((1.0 - y) * 0.5);
    /* asin y = sum_n (2n)! / (4^n (n!)^2 (2n+1)) y^(2n+1); terms fall by y^2 <= 1/2: 56 reach 1e-17 */
    double terms[56], power = y;
    const double y2 = y * y;
    terms[0] = y;
    for (int n = 1; n < 56; ++n) {
        power *= y2 * (2.0 * n - 1.0) / (2.0 * n);
        terms[n] = power / (2.0 * n + 1.0);
    }
    double sum = 0.0;
    for (int n = 55; n >= 0; --n) /* smallest first: the rounding errors stay below the last terms */
        sum += terms[n];
    return sign * (reflect ? half_pi - 2.0 * sum : sum);
}

/* Hernquist's (1990, eq. 17) isotropic distribution function without its constant factor, at
 * q^2 = a E / (G M) for the relative energy E, given q^2 and 1 - q^2 (passed apart: near the centre
 * 1 - q^2 is small and is computed without the cancellation). */
static double hernquist_df(double q2, double one_minus_q2)
{
    const double q = sqrt(q2), w = sqrt(one_minus_q2);
    const double bracket = 3.0 * nb_asin(q) + q * w * (1.0 - 2.0 * q2) * (8.0 * q2 * q2 - 8.0 * q2 - 3.0);
    return bracket / (one_minus_q2 * one_minus_q2 * w);
}

/* The speed distribution at radius r as a function of u = v / v_escape: u^2 f(E), E = psi (1 - u^2). */
static double hernquist_speed_weight(double r, double u)
{
    const double a = NB_HERNQUIST_A, u2 = u * u;
    const double q2 = a / (r + a) * (1.0 - u2);
    return u2 * hernquist_df(q2, (r + a * u2) / (r + a));
}

/* A Hernquist body's position (scale a, cut at NB_HERNQUIST_CUT); returns its radius. M(<r)/M = r^2/(r+a)^2
 * inverted, for a mass fraction drawn below the cut's, so no body is rejected for its radius. */
static double hernquist_position(nb_rng *r, double pos[3])
{
    const double a = NB_HERNQUIST_A, cut = NB_HERNQUIST_CUT / (NB_HERNQUIST_CUT + NB_HERNQUIST_A);
    double radius = 0.0;
    for (;;) {
        const double s = cut * sqrt(nb_rng_uniform(r)); /* s^2 = M(<r)/M, uniform below the cut's cut^2 */
        if (s > 0.0) {
            radius = a * s / (1.0 - s);
            break;
        }
    }
    along_random_direction(r, radius, pos);
    return radius;
}

/* One Hernquist body (G = 1, scale a, model mass NB_HERNQUIST_MASS so that the bodies inside the cut
 * weigh 1). Position: hernquist_position. Speed: von Neumann rejection from the exact DF; the bound is the
 * largest weight on a grid of u = 2^(-j/2), j = 1..24, times 1.1 (between two grid points the peak is at
 * most 4 % higher: near the centre the weight is u^2 / (r/a + u^2)^(5/2), whose log varies by 2.4 (ln u)^2
 * about its peak; farther out the peak is wider). */
static void hernquist_body(nb_rng *r, double pos[3], double vel[3])
{
    const double a = NB_HERNQUIST_A, radius = hernquist_position(r, pos);

    double bound = 0.0, u = 1.0;
    for (int j = 1; j <= 24; ++j) {
        u *= 0.70710678118654752440;
        const double w = hernquist_speed_weight(radius, u);
        bound = w > bound ? w : bound;
    }
    bound *= 1.1;
    double q;
    for (;;) {
        q = nb_rng_uniform(r);
        const double g = bound * nb_rng_uniform(r);
        if (q > 0.0 && g < hernquist_speed_weight(radius, q))
            break;
    }
    const double escape = sqrt(2.0 * NB_HERNQUIST_MASS / (radius + a));
    along_random_direction(r, q * escape, vel);
}

/* ln x for x > 0 in plain IEEE arithmetic: x = m 2^k with m in [sqrt(1/2), sqrt(2)), then
 * ln m = 2 atanh(t), t = (m - 1)/(m + 1), |t| < 0.172: 20 odd terms reach 1e-17. */
double nb_log(double x)
{
    int k = 0;
    while (x >= 1.41421356237309504880) {
        x *= 0.5;
        ++k;
    }
    while (x < 0.70710678118654752440) {
        x *= 2.0;
        --k;
    }
    const double t = (x - 1.0) / (x + 1.0), t2 = t * t;
    double sum = 0.0;
    for (int n = 39; n >= 1; n -= 2) /* smallest first */
        sum = sum * t2 + 1.0 / n;
    return 2.0 * t * sum + k * 0.69314718055994530942;
}

/* e^y for y <= 0 in plain IEEE arithmetic: e^(y / 2^k) by its series with |y / 2^k| < 1/2, squared k times. */
double nb_exp(double y)
{
    int k = 0;
    while (y < -0.5) {
        y *= 0.5;
        ++k;
    }
    double sum = 1.0;
    for (int n = 24; n >= 1; --n) /* Horner: 1 + y (1 + y/2 (1 + y/3 (...))) */
        sum = 1.0 + y * sum / n;
    for (; k > 0; --k)
        sum *= sum;
    return sum;
}

/* The velocity dispersion (one component) of the isotropic Jeans equation at radius r, for the Hernquist
 * bodies (mass mh, scale a) about a point mass mbh: sigma^2 = (1/rho) int_r^inf rho (M_h(s) + mbh) / s^2 ds.
 * With x = s/(s + a) both parts are polynomials in x and 1/x plus a logarithm:
 *   r (r+a)^3 / a^5 * [mh (-ln x - 4(1-x) + 3(1-x^2) - 4/3 (1-x^3) + 1/4 (1-x^4))
 *                      + mbh (1/(2x^2) - 4/x - 6 ln x + 4x - x^2/2)], x = r/(r+a)
 * (the integrands (1-x)^4/x and (1-x)^4/x^3; the black hole's constants at x = 1 add up to 0). */
static double hernquist_bh_sigma2(double r, double mh, double mbh)
{
    const double a = NB_HERNQUIST_A, x = r / (r + a), lx = nb_log(x);
    const double x2 = x * x, x3 = x2 * x, x4 = x2 * x2, a2 = a * a;
    const double halo = -lx - 4.0 * (1.0 - x) + 3.0 * (1.0 - x2) - 4.0 / 3.0 * (1.0 - x3) + 0.25 * (1.0 - x4);
    const double hole = 0.5 / x2 - 4.0 / x - 6.0 * lx + 4.0 * x - 0.5 * x2;
    const double ra = r + a;
    return r * ra * ra * ra / (a2 * a2 * a) * (mh * halo + mbh * hole);
}

/* One Hernquist body about the black hole: its position from hernquist_position; its velocity isotropic,
 * each component Gaussian with the Jeans dispersion (Hernquist 1993's recipe for compound models: the DF
 * of the two together has no closed form), the speed below the escape speed. The speed u = v / sigma by
 * rejection from u^2 e^(-u^2/2) (peak 2/e at u = sqrt 2) on [0, u_escape). */
static void hernquist_bh_body(nb_rng *r, double pos[3], double vel[3])
{
    const double a = NB_HERNQUIST_A, mh = (1.0 - NB_BH_MASS) * NB_HERNQUIST_MASS;
    const double radius = hernquist_position(r, pos);

    const double sigma = sqrt(hernquist_bh_sigma2(radius, mh, NB_BH_MASS));
    const double escape = sqrt(2.0 * (mh / (radius + a) + NB_BH_MASS / radius));
    const double top = escape / sigma, peak = 2.0 * 0.36787944117144232160 * 1.0001;
    double u;
    for (;;) {
        u = top * nb_rng_uniform(r);
        const double g = peak * nb_rng_uniform(r);
        if (u > 0.0 && g < u * u * nb_exp(-0.5 * u * u))
            break;
    }
    along_random_direction(r, u * sigma, vel);
}

/* One body of the model, in double precision. */
static void draw_body(nb_rng *r, nb_model model, size_t i, size_t n, double pos[3], double vel[3])
{
    if (model == NB_MODEL_UNIFORM) {
        for (int d = 0; d < 3; ++d)
            pos[d] = nb_rng_range(r, -1.0, 1.0);
        for (int d = 0; d < 3; ++d)
            vel[d] = nb_rng_range(r, -1.0, 1.0);
        return;
    }
    if (model == NB_MODEL_HERNQUIST) { /* in Henon units as drawn: see init.h */
        hernquist_body(r, pos, vel);
        return;
    }
    if (model == NB_MODEL_HERNQUIST_BH) { /* body 0 the black hole, at rest at the centre */
        if (i == 0 && n > 1) {
            for (int d = 0; d < 3; ++d)
                pos[d] = vel[d] = 0.0;
            return;
        }
        hernquist_bh_body(r, pos, vel);
        return;
    }
    /* Plummer sphere of mass M in Henon units (G = 1, E = -M^2/4 for M = 1): positions * 3pi/16,
     * velocities * sqrt(M / (3pi/16)). Collision: two spheres of mass 1/2, the second half of the
     * bodies in the second, 6 apart along x with impact parameter 1, closing at speed 0.5. */
    const double mass = model == NB_MODEL_COLLISION ? 0.5 : 1.0;
    const double length = 3.0 * 3.14159265358979323846 / 16.0;
    const double speed = sqrt(mass / length);
    plummer_body(r, pos, vel);
    for (int d = 0; d < 3; ++d) {
        pos[d] *= length;
        vel[d] *= speed;
    }
    if (model == NB_MODEL_COLLISION) {
        const double side = i >= n / 2 ? 1.0 : -1.0;
        pos[0] += side * 3.0;
        pos[1] += side * 0.5;
        vel[0] -= side * 0.25;
    }
}

void nb_init(nb_state *s, nb_model model, nb_masses masses, uint64_t seed)
{
    const size_t n = s->bodies;
    float *const field[6] = {s->x, s->y, s->z, s->vx, s->vy, s->vz};
    for (size_t sys = 0; sys < s->systems; ++sys) {
        const size_t first = sys * n;
        nb_rng r;

        /* Masses from their own stream, so the positions do not depend on the mass model. */
        nb_rng_seed(&r, seed ^ 0x6d61737365730000ull, sys);
        double total = 0.0;
        for (size_t i = 0; i < n; ++i)
            total += masses == NB_MASSES_RANDOM ? nb_rng_range(&r, 0.5, 1.5) : 1.0;
        nb_rng_seed(&r, seed ^ 0x6d61737365730000ull, sys);
        /* With a black hole, body 0 weighs NB_BH_MASS and the others share the rest in their proportions. */
        const int hole = model == NB_MODEL_HERNQUIST_BH && n > 1;
        const double first_mass = hole ? (masses == NB_MASSES_RANDOM ? nb_rng_range(&r, 0.5, 1.5) : 1.0) : 0.0;
        const double share = hole ? (1.0 - NB_BH_MASS) / (total - first_mass) : 1.0 / total;
        if (hole)
            s->m[first] = (float)NB_BH_MASS;
        for (size_t i = hole ? 1 : 0; i < n; ++i)
            s->m[first + i] = (float)((masses == NB_MASSES_RANDOM ? nb_rng_range(&r, 0.5, 1.5) : 1.0) * share);

        /* Two passes over the same stream: the first finds the centre of mass, the second writes
         * the bodies in its frame, rounding to float once. The uniform cube of the ECE415 reports
         * (REFERENCES.md) stays where it is. */
        double com[6] = {0, 0, 0, 0, 0, 0};
        for (int pass = 0; pass < 2; ++pass) {
            nb_rng_seed(&r, seed, sys);
            for (size_t i = 0; i < n; ++i) {
                double pv[6];
                draw_body(&r, model, i, n, pv, pv + 3);
                if (pass == 0) {
                    const double mi = (double)s->m[first + i];
                    for (int d = 0; d < 6; ++d)
                        com[d] += mi * pv[d];
                } else {
                    for (int d = 0; d < 6; ++d)
                        field[d][first + i] = (float)(pv[d] - com[d]);
                }
            }
            if (pass == 0) {
                double msum = 0.0;
                for (size_t i = 0; i < n; ++i)
                    msum += (double)s->m[first + i];
                for (int d = 0; d < 6; ++d)
                    com[d] = model == NB_MODEL_UNIFORM ? 0.0 : com[d] / msum;
            }
        }
    }
    s->step = 0;
    s->time = 0.0;
}
