/* check_init.c: the initial conditions (common/init.c) are deterministic and are what they claim:
 * a Plummer sphere in Henon units, a uniform cube, two colliding spheres, a Hernquist sphere, masses
 * summing to 1. */
#include "init.h"
#include "reference.h"
#include "rng.h"
#include "testlib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double plummer_length = 3.0 * 3.14159265358979323846 / 16.0; /* Henon units: a = 3 pi / 16 */

static nb_state make(size_t systems, size_t bodies, nb_model model, nb_masses masses, uint64_t seed)
{
    nb_state s;
    ck_assert_int_eq(nb_state_alloc(&s, systems, bodies), NB_EXIT_OK);
    nb_init(&s, model, masses, seed);
    return s;
}

/* The fp64 copy of a drawn system (w, allocated here: free it) and its diagnostics without softening. */
static nb_diag diagnose(const nb_state *s, nb_state64 *w)
{
    ck_assert_int_eq(nb_state64_alloc(w, s->systems, s->bodies), NB_EXIT_OK);
    nb_state64_from(w, s);
    nb_diag d;
    nb_diagnostics(w, 0.0, &d);
    return d;
}

static int same_field(const nb_state *a, const nb_state *b, int k, size_t first, size_t count)
{
    return memcmp(nb_state_field(a, k) + first, nb_state_field(b, k) + first, count * sizeof(float)) == 0;
}

START_TEST(same_seed_same_bits)
{
    /* Every model and mass model: two calls give the same bits in every field. */
    const nb_model model = (nb_model)(_i / 2);
    const nb_masses masses = (nb_masses)(_i % 2);
    nb_state a = make(3, 1000, model, masses, 42), b = make(3, 1000, model, masses, 42);
    for (int k = 0; k < NB_FIELDS; ++k)
        ck_assert_msg(same_field(&a, &b, k, 0, 3000), "%s/%s: field %d differs between two calls",
                      nb_model_name(model), nb_masses_name(masses), k);
    ck_assert(a.step == 0 && a.time == 0.0);
    nb_state_free(&a);
    nb_state_free(&b);
}
END_TEST

START_TEST(systems_and_seeds_differ)
{
    const nb_model model = (nb_model)_i;
    nb_state a = make(3, 500, model, NB_MASSES_EQUAL, 42), b = make(3, 500, model, NB_MASSES_EQUAL, 43);
    for (int k = 0; k < 6; ++k) {
        /* Systems of one run differ from each other, and from the same system of another seed. */
        const float *f = nb_state_field(&a, k), *g = nb_state_field(&b, k);
        size_t equal01 = 0, equal12 = 0, equal_seed = 0;
        for (size_t i = 0; i < 500; ++i) {
            equal01 += f[i] == f[500 + i];
            equal12 += f[500 + i] == f[1000 + i];
            equal_seed += f[i] == g[i];
        }
        ck_assert_msg(equal01 < 5 && equal12 < 5 && equal_seed < 5, "%s field %d: %zu, %zu, %zu equal values",
                      nb_model_name(model), k, equal01, equal12, equal_seed);
    }
    nb_state_free(&a);
    nb_state_free(&b);
}
END_TEST

START_TEST(system_independent_of_count)
{
    /* System s draws from stream s: system 0 of an S = 3 run is the S = 1 run, bit for bit, and
     * system 2 of an S = 3 run is system 2 of an S = 5 run. */
    nb_state one = make(1, 777, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    nb_state three = make(3, 777, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    nb_state five = make(5, 777, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 5);
    for (int k = 0; k < NB_FIELDS; ++k) {
        ck_assert_msg(memcmp(nb_state_field(&one, k), nb_state_field(&three, k), 777 * sizeof(float)) == 0,
                      "field %d of system 0 depends on the number of systems", k);
        ck_assert_msg(memcmp(nb_state_field(&three, k) + 2 * 777, nb_state_field(&five, k) + 2 * 777,
                             777 * sizeof(float)) == 0,
                      "field %d of system 2 depends on the number of systems", k);
    }
    nb_state_free(&one);
    nb_state_free(&three);
    nb_state_free(&five);
}
END_TEST

START_TEST(positions_independent_of_masses)
{
    /* Masses come from their own stream: the uniform cube's bodies are the same bits with either
     * mass model; a Plummer sphere moves only by the difference of the two centres of mass. */
    nb_state e = make(2, 2000, NB_MODEL_UNIFORM, NB_MASSES_EQUAL, 11);
    nb_state r = make(2, 2000, NB_MODEL_UNIFORM, NB_MASSES_RANDOM, 11);
    for (int k = 0; k < 6; ++k)
        ck_assert_msg(same_field(&e, &r, k, 0, 4000), "uniform: field %d depends on the mass model", k);
    nb_state_free(&e);
    nb_state_free(&r);
    e = make(1, 2000, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 11);
    r = make(1, 2000, NB_MODEL_PLUMMER, NB_MASSES_RANDOM, 11);
    for (int k = 0; k < 6; ++k) {
        const float *fe = nb_state_field(&e, k), *fr = nb_state_field(&r, k);
        const double shift = (double)fe[0] - fr[0];
        for (size_t i = 0; i < 2000; ++i) /* one float rounding of each, at |x| < 6: 2 * 2^-24 * 6 */
            nbt_require(fabs((double)fe[i] - fr[i] - shift) <= 1e-6, "plummer field %d body %zu: %g vs %g", k, i,
                          (double)fe[i] - fr[i], shift);
    }
    nb_state_free(&e);
    nb_state_free(&r);
}
END_TEST

START_TEST(plummer_statistics)
{
    /* N = 16384, seed 42, fp64 diagnostics without softening.
     *  - mass: 16384 * 2^-14 = 1 exactly.
     *  - centre of mass and total momentum: the model is shifted into its centre-of-mass frame in
     *    fp64, then rounded to float once (relative 2^-24 per coordinate): |com|, |p| < 1e-6.
     *  - Henon units: W = -1/2, K = 1/4, E = -1/4, virial ratio -K/W = 1/2 for the untruncated
     *    model. The cut at 10 Plummer radii (1.5 % of the mass redrawn inside) binds the sample
     *    more: over seeds 1..40, E = -0.2605 +- 0.0023 and -K/W = 0.4928 +- 0.0029 (1 sigma, the
     *    finite-N scatter ~ 1/sqrt(N)). Tolerance 0.025 on both: the bias plus 5 sigma.
     *  - half-mass radius: with the cut, M(r) = f/2 where f = M(10 a) = 1000/101^1.5 = 0.98518, so
     *    r/sqrt(1+r^2) = (f/2)^(1/3), r = 1.2872 a; the median of N radii scatters by 0.7 %:
     *    tolerance 3.5 %.
     *  - no body beyond the cut, 10 a (plus the centre-of-mass shift, < 1e-3 here). */
    const size_t n = 16384;
    nb_state s = make(1, n, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 42);
    nb_state64 w;
    const nb_diag d = diagnose(&s, &w);
    const double com = sqrt(d.com[0] * d.com[0] + d.com[1] * d.com[1] + d.com[2] * d.com[2]);
    const double p = sqrt(d.momentum[0] * d.momentum[0] + d.momentum[1] * d.momentum[1] + d.momentum[2] * d.momentum[2]);
    printf("plummer N=%zu: mass %.9f, E %.5f, K %.5f, W %.5f, virial ratio %.5f, |com| %.2e, |p| %.2e\n", n, d.mass,
           d.energy, d.kinetic, d.potential, d.virial_ratio, com, p);
    ck_assert_msg(d.mass == 1.0, "total mass %.17g", d.mass);
    ck_assert_msg(com < 1e-6, "centre of mass at %.3e from the origin", com);
    ck_assert_msg(p < 1e-6, "total momentum %.3e", p);
    ck_assert_msg(fabs(d.energy + 0.25) < 0.025, "E = %.5f, want -1/4 within 0.025", d.energy);
    ck_assert_msg(fabs(d.virial_ratio - 0.5) < 0.025, "virial ratio %.5f, want 1/2 within 0.025", d.virial_ratio);

    double *r = malloc(n * sizeof(double));
    double rmax = 0.0;
    for (size_t i = 0; i < n; ++i) {
        r[i] = sqrt(w.x[i] * w.x[i] + w.y[i] * w.y[i] + w.z[i] * w.z[i]);
        rmax = fmax(rmax, r[i]);
    }
    size_t below = 0; /* the median by counting: bodies inside the predicted half-mass radius */
    const double half = 1.2872 * plummer_length;
    for (size_t i = 0; i < n; ++i)
        below += r[i] < half;
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; ++i) {
        lo += r[i] < half * (1 - 0.035);
        hi += r[i] < half * (1 + 0.035);
    }
    printf("plummer: %zu of %zu bodies inside r_h = %.4f (want half), largest radius %.4f (cut %.4f)\n", below, n,
           half, rmax, 10 * plummer_length);
    ck_assert_msg(lo < n / 2 && hi > n / 2, "the half-mass radius is off by more than 3.5 %% (%zu, %zu of %zu inside)",
                  lo, hi, n);
    ck_assert_msg(rmax <= 10 * plummer_length + 1e-3, "a body at r = %.4f, beyond the cut", rmax);
    free(r);
    nb_state64_free(&w);
    nb_state_free(&s);
}
END_TEST

START_TEST(hernquist_statistics)
{
    /* N = 16384, seed 42, fp64 diagnostics without softening.
     *  - mass 1 exactly, |com| and |p| < 1e-6, as for Plummer.
     *  - virial ratio -K/W = 1/2: the DF is the model's own (isotropic, exact), and the cut at 100 a
     *    leaves out only a surface term, 2K + W = 4 pi r^3 rho 3 sigma_r^2 at the cut ~ 7.2 (a/r)^2 |W|
     *    = 7e-4 |W|. Over seeds 1..12: 0.4958 .. 0.5062 (the scatter ~ 0.004: a few cusp bodies
     *    carry much of W): tolerance 0.02.
     *  - E: -1/4 for the untruncated model of mass 1 and a = 1/3; drawn with model mass 1/f (f, the
     *    fraction inside the cut) and cut, seeds 1..12 give -0.2542 .. -0.2642: tolerance 0.025.
     *  - M(<r) = M r^2/(r+a)^2 (M = NB_HERNQUIST_MASS) at r = a/4, a, 4 a, 20 a, about the cusp: the
     *    fraction of bodies inside is binomial, tolerance 5 sigma. Not about the origin: the sample is
     *    moved to its centre of mass, which the far bodies (r_rms ~ 5) put 0.01..0.07 from the cusp,
     *    and a/4 = 0.083 (seed 12: -7 sigma about the origin, -0.7 about the cusp). The cusp: the mean
     *    of the bodies within 4 a of the origin, then three times within a of the last centre.
     *  - no body beyond the cut, 100 a (plus the centre-of-mass shift). */
    const size_t n = 16384;
    nb_state s = make(1, n, NB_MODEL_HERNQUIST, NB_MASSES_EQUAL, 42);
    nb_state64 w;
    const nb_diag d = diagnose(&s, &w);
    const double com = sqrt(d.com[0] * d.com[0] + d.com[1] * d.com[1] + d.com[2] * d.com[2]);
    const double p = sqrt(d.momentum[0] * d.momentum[0] + d.momentum[1] * d.momentum[1] + d.momentum[2] * d.momentum[2]);
    printf("hernquist N=%zu: mass %.9f, E %.5f, K %.5f, W %.5f, virial ratio %.5f, |com| %.2e, |p| %.2e\n", n,
           d.mass, d.energy, d.kinetic, d.potential, d.virial_ratio, com, p);
    ck_assert_msg(d.mass == 1.0, "total mass %.17g", d.mass);
    ck_assert_msg(com < 1e-6, "centre of mass at %.3e from the origin", com);
    ck_assert_msg(p < 1e-6, "total momentum %.3e", p);
    ck_assert_msg(fabs(d.energy + 0.25) < 0.025, "E = %.5f, want -1/4 within 0.025", d.energy);
    ck_assert_msg(fabs(d.virial_ratio - 0.5) < 0.02, "virial ratio %.5f, want 1/2 within 0.02", d.virial_ratio);

    const double a = NB_HERNQUIST_A, radii[4] = {0.25 * a, a, 4 * a, 20 * a};
    double cusp[3] = {0.0, 0.0, 0.0};
    for (int pass = 0; pass < 4; ++pass) {
        const double reach = pass == 0 ? 4 * a : a;
        double sum[3] = {0.0, 0.0, 0.0};
        size_t count = 0;
        for (size_t i = 0; i < n; ++i) {
            const double dx = w.x[i] - cusp[0], dy = w.y[i] - cusp[1], dz = w.z[i] - cusp[2];
            if (dx * dx + dy * dy + dz * dz < reach * reach) {
                sum[0] += w.x[i];
                sum[1] += w.y[i];
                sum[2] += w.z[i];
                ++count;
            }
        }
        ck_assert_msg(count > 0, "no body within %.3f of (%g, %g, %g)", reach, cusp[0], cusp[1], cusp[2]);
        for (int k = 0; k < 3; ++k)
            cusp[k] = sum[k] / (double)count;
    }
    double rmax = 0.0;
    size_t inside[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
        const double dx = w.x[i] - cusp[0], dy = w.y[i] - cusp[1], dz = w.z[i] - cusp[2];
        const double r = sqrt(dx * dx + dy * dy + dz * dz);
        rmax = fmax(rmax, sqrt(w.x[i] * w.x[i] + w.y[i] * w.y[i] + w.z[i] * w.z[i]));
        for (int k = 0; k < 4; ++k)
            inside[k] += r < radii[k];
    }
    printf("hernquist: the cusp at %.4f from the centre of mass\n",
           sqrt(cusp[0] * cusp[0] + cusp[1] * cusp[1] + cusp[2] * cusp[2]));
    for (int k = 0; k < 4; ++k) {
        const double want = NB_HERNQUIST_MASS * radii[k] * radii[k] / ((radii[k] + a) * (radii[k] + a));
        const double got = (double)inside[k] / n, sigma = sqrt(want * (1 - want) / n);
        printf("hernquist: M(<%.4f) = %.4f, sample %.4f (%+.1f sigma)\n", radii[k], want, got, (got - want) / sigma);
        ck_assert_msg(fabs(got - want) < 5 * sigma, "M(<%.4f): %.4f of the bodies, want %.4f", radii[k], got, want);
    }
    printf("hernquist: largest radius %.4f (cut %.4f)\n", rmax, NB_HERNQUIST_CUT);
    ck_assert_msg(rmax <= NB_HERNQUIST_CUT + 1e-3, "a body at r = %.4f, beyond the cut", rmax);
    nb_state64_free(&w);
    nb_state_free(&s);
}
END_TEST

/* The Jeans dispersion of hernquist-bh by quadrature (Simpson on s = r / u, u in (0, 1], 4000 panels, libm),
 * independent of init.c's closed form: (1/rho) int_r^inf rho(s) (M_h(s) + mbh) / s^2 ds. */
static double jeans_sigma2(double r, double mh, double mbh)
{
    const double a = NB_HERNQUIST_A;
    const int panels = 4000;
    double sum = 0.0;
    for (int k = 0; k <= 2 * panels; ++k) {
        const double u = (double)k / (2 * panels);
        double f = 0.0;
        if (u > 0.0) {
            const double sv = r / u, rho_ratio = r * pow(r + a, 3) / (sv * pow(sv + a, 3));
            f = rho_ratio * (mh * sv * sv / ((sv + a) * (sv + a)) + mbh) / (sv * sv) * r / (u * u);
        }
        sum += f * (k == 0 || k == 2 * panels ? 1.0 : (k % 2 ? 4.0 : 2.0));
    }
    return sum / (6.0 * panels);
}

START_TEST(hernquist_bh_statistics)
{
    /* N = 16384, seed 42, fp64 diagnostics without softening.
     *  - body 0 the black hole: mass (float)NB_BH_MASS, at rest in the cusp (the whole system is moved to
     *    its centre of mass, the hole with it); the others (float)((1 - NB_BH_MASS) / (N - 1)); total 1
     *    within 1e-6 (each mass rounded to float).
     *  - M(<r) about the hole at r = a/10, a/4, a, 4 a: binomial, 5 sigma (the hole is where the cusp is).
     *  - the kinetic energy of the bodies in shells about the hole, against 3/2 sigma^2 of the Jeans equation
     *    by quadrature (jeans_sigma2): the speeds are cut at the escape speed, which takes some percent of
     *    the Maxwellian's v^2 (more where v_escape / sigma is smaller); measured 0.975 .. 1.019 of it
     *    (seed 42): within 0.85 .. 1.03.
     *  - virial ratio -K/W: 0.4763 (seed 42): the Maxwellian cut at the escape speed takes about 5 % of K, most
     *    of it far out, where v_escape / sigma is near 3: within 0.46 .. 0.50. With the hole left out of sigma
     *    (a wrong closed form) it is 0.4530, and this check fails first. */
    const size_t n = 16384;
    nb_state s = make(1, n, NB_MODEL_HERNQUIST_BH, NB_MASSES_EQUAL, 42);
    nb_state64 w;
    const nb_diag d = diagnose(&s, &w);
    printf("hernquist-bh N=%zu: mass %.9f, E %.5f, K %.5f, W %.5f, virial ratio %.5f\n", n, d.mass, d.energy,
           d.kinetic, d.potential, d.virial_ratio);
    ck_assert_msg(s.m[0] == (float)NB_BH_MASS, "the hole weighs %.9g", s.m[0]);
    for (size_t i = 1; i < n; ++i)
        nbt_require(s.m[i] == (float)((1.0 - NB_BH_MASS) / (double)(n - 1)), "body %zu weighs %.9g", i, s.m[i]);
    ck_assert_msg(fabs(d.mass - 1.0) < 1e-6, "total mass %.17g", d.mass);
    ck_assert_msg(d.virial_ratio > 0.46 && d.virial_ratio < 0.50, "virial ratio %.5f", d.virial_ratio);

    const double a = NB_HERNQUIST_A, mh = (1.0 - NB_BH_MASS) * NB_HERNQUIST_MASS;
    const double radii[4] = {0.1 * a, 0.25 * a, a, 4 * a};
    size_t inside[4] = {0, 0, 0, 0};
    const double shells[4] = {0.005, 0.02, 0.08, 0.32};
    double v2[3] = {0, 0, 0}, want[3] = {0, 0, 0};
    for (size_t i = 1; i < n; ++i) {
        const double dx = w.x[i] - w.x[0], dy = w.y[i] - w.y[0], dz = w.z[i] - w.z[0];
        const double r = sqrt(dx * dx + dy * dy + dz * dz);
        const double ux = w.vx[i] - w.vx[0], uy = w.vy[i] - w.vy[0], uz = w.vz[i] - w.vz[0];
        for (int k = 0; k < 4; ++k)
            inside[k] += r < radii[k];
        for (int k = 0; k < 3; ++k)
            if (r >= shells[k] && r < shells[k + 1]) {
                v2[k] += ux * ux + uy * uy + uz * uz;
                want[k] += 3.0 * jeans_sigma2(r, mh, NB_BH_MASS);
            }
    }
    for (int k = 0; k < 4; ++k) {
        const double m = NB_HERNQUIST_MASS * radii[k] * radii[k] / ((radii[k] + a) * (radii[k] + a));
        const double got = (double)inside[k] / (n - 1), sigma = sqrt(m * (1 - m) / (n - 1));
        printf("hernquist-bh: M(<%.4f) about the hole = %.4f, sample %.4f (%+.1f sigma)\n", radii[k], m, got,
               (got - m) / sigma);
        ck_assert_msg(fabs(got - m) < 5 * sigma, "M(<%.4f) about the hole: %.4f, want %.4f", radii[k], got, m);
    }
    for (int k = 0; k < 3; ++k) {
        const double ratio = v2[k] / want[k];
        printf("hernquist-bh: v^2 in [%.3f, %.3f) about the hole: %.3f of the Jeans equation's\n", shells[k],
               shells[k + 1], ratio);
        ck_assert_msg(ratio > 0.85 && ratio < 1.03, "v^2 in [%.3f, %.3f): %.3f of the Jeans equation's", shells[k],
                      shells[k + 1], ratio);
    }
    nb_state64_free(&w);
    nb_state_free(&s);
}
END_TEST

START_TEST(asin_against_libm)
{
    /* nb_asin, like nb_cbrt, avoids libm so that every machine draws the same Hernquist bodies: measured
     * at most 2 ulp from asin() over [-1, 1]; allowed 4. A lost term or a wrong reflection is far more. */
    nb_rng r;
    nb_rng_seed(&r, 2, 0);
    double worst = 0.0, worst_at = 0.0;
    for (int i = 0; i < 1000000; ++i) {
        const double x = nb_rng_range(&r, -1.0, 1.0), want = asin(x), got = nb_asin(x);
        const double ulps = fabs(got - want) / (nextafter(fabs(want), INFINITY) - fabs(want));
        if (ulps > worst) {
            worst = ulps;
            worst_at = x;
        }
    }
    printf("nb_asin: worst %.2f ulp (at %.17g)\n", worst, worst_at);
    ck_assert_msg(worst <= 4.0, "nb_asin(%.17g) is %.1f ulp from asin()", worst_at, worst);
    ck_assert(nb_asin(0.0) == 0.0 && fabs(nb_asin(1.0) - 1.57079632679489661923) < 1e-15);
}
END_TEST

START_TEST(log_exp_against_libm)
{
    /* nb_log and nb_exp, like nb_asin, avoid libm so that every machine draws the same hernquist-bh bodies.
     * ln over x in [1e-6, 1e6] (log-uniform): measured 3 ulp at worst, allowed 4. e^y over y in [-40, 0]:
     * nb_exp squares its series' sum k times (y / 2^k above -1/2), which doubles the relative error each time:
     * measured 2.8e-14 relative at worst (208 ulp), allowed 1e-13. The hernquist-bh sampler only compares it
     * with a uniform draw in a rejection test. */
    nb_rng r;
    nb_rng_seed(&r, 3, 0);
    double worst_log = 0.0, worst_exp = 0.0; /* ulp; relative for e^y */
    for (int i = 0; i < 1000000; ++i) {
        const double x = exp(nb_rng_range(&r, -13.8, 13.8)), y = nb_rng_range(&r, -40.0, 0.0);
        const double l = log(x), e = exp(y);
        if (fabs(l) > 1e-3) /* near x = 1 ln x is small and an absolute bound is the honest one: below */
            worst_log = fmax(worst_log, fabs(nb_log(x) - l) / (nextafter(fabs(l), INFINITY) - fabs(l)));
        else
            ck_assert_msg(fabs(nb_log(x) - l) < 1e-18, "nb_log(%.17g) = %.17g, log %.17g", x, nb_log(x), l);
        worst_exp = fmax(worst_exp, fabs(nb_exp(y) - e) / e);
    }
    printf("nb_log: worst %.2f ulp; nb_exp: worst %.2e relative\n", worst_log, worst_exp);
    ck_assert_msg(worst_log <= 4.0, "nb_log is %.1f ulp from log()", worst_log);
    ck_assert_msg(worst_exp <= 1e-13, "nb_exp is %.2e (relative) from exp()", worst_exp);
    ck_assert(nb_log(1.0) == 0.0 && nb_exp(0.0) == 1.0);
}
END_TEST

START_TEST(uniform_cube)
{
    /* Positions and velocities uniform in [-1, 1]^3, not shifted (as in the ECE415 reports: REFERENCES.md). A float
     * rounding of a value just below 1 may give 1 exactly, so the bounds are closed. N = 16384: the
     * extremes lie within 10/N of the faces, the means within 6 sigma = 6 * 0.577 / sqrt(N) of 0. */
    const size_t n = 16384;
    nb_state s = make(2, n, NB_MODEL_UNIFORM, NB_MASSES_EQUAL, 42);
    for (size_t sys = 0; sys < 2; ++sys)
        for (int k = 0; k < 6; ++k) {
            const float *f = nb_state_field(&s, k) + sys * n;
            double lo = 1.0, hi = -1.0, sum = 0.0;
            for (size_t i = 0; i < n; ++i) {
                nbt_require(f[i] >= -1.0f && f[i] <= 1.0f, "field %d body %zu = %.9g outside [-1, 1]", k, i, f[i]);
                lo = fmin(lo, f[i]);
                hi = fmax(hi, f[i]);
                sum += f[i];
            }
            ck_assert_msg(lo < -1.0 + 10.0 / n && hi > 1.0 - 10.0 / n, "field %d spans only [%g, %g]", k, lo, hi);
            ck_assert_msg(fabs(sum / n) < 6 * 0.577 / sqrt((double)n), "field %d has mean %g", k, sum / n);
        }
    nb_state_free(&s);
}
END_TEST

START_TEST(collision_two_clumps)
{
    /* Two Plummer spheres of mass 1/2 (scale 3 pi / 16): the first half of the bodies around
     * (-3, -0.5, 0) moving at +0.25 along x, the second around (+3, +0.5, 0) at -0.25, in the centre-
     * of-mass frame (equal masses: the midpoint). A half's mean position scatters by about
     * 0.75 / sqrt(N/2) = 0.017 per axis and its mean velocity by about 0.3 / sqrt(N/2) = 0.007:
     * tolerances 0.1 and 0.05. At least 95 % of each half lies on its own side of x = 0. */
    const size_t n = 4096, h = n / 2;
    nb_state s = make(1, n, NB_MODEL_COLLISION, NB_MASSES_EQUAL, 42);
    for (int side = 0; side < 2; ++side) {
        const double sign = side ? 1.0 : -1.0;
        double mean[6] = {0, 0, 0, 0, 0, 0};
        size_t own = 0;
        for (size_t i = side * h; i < side * h + h; ++i) {
            for (int k = 0; k < 6; ++k)
                mean[k] += nb_state_field(&s, k)[i] / (double)h;
            own += sign * s.x[i] > 0.0;
        }
        const double want[6] = {3.0 * sign, 0.5 * sign, 0.0, -0.25 * sign, 0.0, 0.0};
        for (int k = 0; k < 6; ++k)
            ck_assert_msg(fabs(mean[k] - want[k]) < (k < 3 ? 0.1 : 0.05), "half %d: mean of field %d is %.4f, want %.2f",
                          side, k, mean[k], want[k]);
        ck_assert_msg(own >= h * 95 / 100, "half %d: only %zu of %zu bodies on its side", side, own, h);
    }
    nb_state_free(&s);
}
END_TEST

START_TEST(masses)
{
    /* Equal: every mass is (float)(1/N). Random: m = u / sum(u) with u uniform in [0.5, 1.5), so the
     * ratio of any two is in (1/3, 3), and with N = 4099 the mean of u is 1 +- 0.0045 (1 sigma),
     * so m * N lies in [0.5, 1.5] / (1 +- 0.03). Each mass is rounded to float once (2^-24
     * relative), so a system's sum is 1 within 1e-6. */
    const size_t n = 4099;
    nb_state e = make(3, n, NB_MODEL_PLUMMER, NB_MASSES_EQUAL, 42);
    for (size_t i = 0; i < 3 * n; ++i)
        nbt_require(e.m[i] == (float)(1.0 / (double)n), "equal mass %zu is %.9g", i, e.m[i]);
    nb_state r = make(3, n, NB_MODEL_UNIFORM, NB_MASSES_RANDOM, 42);
    for (size_t sys = 0; sys < 3; ++sys) {
        double sum = 0.0, lo = 1.0, hi = 0.0;
        for (size_t i = sys * n; i < sys * n + n; ++i) {
            sum += r.m[i];
            lo = fmin(lo, r.m[i]);
            hi = fmax(hi, r.m[i]);
        }
        printf("random masses, system %zu: sum %.9f, m*N in [%.4f, %.4f]\n", sys, sum, lo * n, hi * n);
        ck_assert_msg(fabs(sum - 1.0) < 1e-6, "system %zu: masses sum to %.9f", sys, sum);
        ck_assert_msg(lo > 0.0 && hi / lo < 3.0, "system %zu: masses from %g to %g", sys, lo, hi);
        ck_assert_msg(lo * n >= 0.5 / 1.03 && hi * n <= 1.5 / 0.97, "system %zu: m*N in [%g, %g]", sys, lo * n, hi * n);
        ck_assert_msg(hi / lo > 2.5, "system %zu: masses barely vary (%g to %g)", sys, lo, hi);
    }
    /* Systems of random masses differ. */
    ck_assert(memcmp(r.m, r.m + n, n * sizeof(float)) != 0);
    nb_state_free(&e);
    nb_state_free(&r);
}
END_TEST

START_TEST(cbrt_against_libm)
{
    /* nb_cbrt avoids libm so that every machine computes the same bodies. Newton's iteration from
     * above stops when a step (three roundings) no longer decreases y, a few ulp above the root:
     * measured at most 4 ulp from cbrt() (itself within 1 ulp). Allowed: 8 ulp, 2e-15 relative,
     * invisible once radii are rounded to float; a lost iteration or a wrong scaling is far more.
     * Values: the mass fractions Plummer draws (uniform in (0, 1)) and a log-uniform sweep over
     * [1e-300, 1e300]. (Its domain is that: negative or infinite arguments are never passed.) */
    nb_rng r;
    nb_rng_seed(&r, 1, 0);
    double worst = 0.0, worst_at = 0.0;
    for (int i = 0; i < 1000000; ++i) {
        const double a = i % 2 ? nb_rng_uniform(&r) + 0x1p-60 : pow(10.0, nb_rng_range(&r, -300.0, 300.0));
        const double want = cbrt(a), got = nb_cbrt(a);
        const double ulps = fabs(got - want) / (nextafter(want, INFINITY) - want);
        if (ulps > worst) {
            worst = ulps;
            worst_at = a;
        }
    }
    printf("nb_cbrt: worst %.2f ulp (at %.17g)\n", worst, worst_at);
    ck_assert_msg(worst <= 8.0, "nb_cbrt(%.17g) is %.1f ulp from cbrt()", worst_at, worst);
    /* Exact cubes come out exact; 0 gives 0. */
    ck_assert(nb_cbrt(0.0) == 0.0);
    for (int k = 1; k <= 1000; ++k)
        nbt_require(nb_cbrt((double)k * k * k) == k, "nb_cbrt(%d^3) = %.17g", k, nb_cbrt((double)k * k * k));
    ck_assert(nb_cbrt(0.125) == 0.5 && nb_cbrt(0x1p-600) == 0x1p-200);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("init");
    TCase *det = nbt_tcase(s, "deterministic", 60);
    tcase_add_loop_test(det, same_seed_same_bits, 0, 8);
    tcase_add_loop_test(det, systems_and_seeds_differ, 0, 4);
    tcase_add_test(det, system_independent_of_count);
    tcase_add_test(det, positions_independent_of_masses);
    TCase *models = nbt_tcase(s, "models", 120);
    tcase_add_test(models, plummer_statistics);
    tcase_add_test(models, hernquist_statistics);
    tcase_add_test(models, hernquist_bh_statistics);
    tcase_add_test(models, asin_against_libm);
    tcase_add_test(models, log_exp_against_libm);
    tcase_add_test(models, uniform_cube);
    tcase_add_test(models, collision_two_clumps);
    tcase_add_test(models, masses);
    tcase_add_test(models, cbrt_against_libm);
    return nbt_run(s, CK_FORK);
}
