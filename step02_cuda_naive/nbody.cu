/* step02_cuda_naive: In this version, we move the whole time loop to the GPU: one thread per body
 * sums the forces on it from every body of its system, straight from global memory. The bodies stay
 * on the device for all the steps; they cross the bus once in and once out. */
#include "device.h"
#include "nbody.h"
#include "util.h"

#include <stdio.h>

#define DEFAULT_BLOCK 256

/* Thread i: the force on body i of system y (the grid's rows stride over the systems), then the kick. */
__global__ void force_kick(nb_body *bodies, int n, int systems, float eps2, float dt)
{
    /* BEGIN SOLUTION */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        nb_body *b = bodies + (size_t)sys * n;
        const float xi = b[i].x, yi = b[i].y, zi = b[i].z;
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < n; ++j) {
            const float dx = b[j].x - xi;
            const float dy = b[j].y - yi;
            const float dz = b[j].z - zi;
            const float d2 = dx * dx + dy * dy + dz * dz + eps2;
            const float inv = 1.0f / sqrtf(d2);
            const float f = b[j].m * inv * inv * inv;
            ax += dx * f;
            ay += dy * f;
            az += dz * f;
        }
        /* Only body i's velocity changes here; every thread still reads positions, so the drift
         * must wait for the next kernel. */
        b[i].vx += ax * dt;
        b[i].vy += ay * dt;
        b[i].vz += az * dt;
    }
    /* STUB
    // Yours to write: body i of each system pulled by every body of its system, then kicked.
    END SOLUTION */
}

__global__ void drift(nb_body *bodies, int n, int systems, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    for (int sys = blockIdx.y; sys < systems; sys += gridDim.y) {
        nb_body *b = bodies + (size_t)sys * n + i;
        b->x += b->vx * dt;
        b->y += b->vy * dt;
        b->z += b->vz * dt;
    }
}

int nb_step_run(nb_state *s, const nb_run *run)
{
    /* BEGIN SOLUTION */
    const int n = (int)s->bodies, systems = (int)s->systems;
    const unsigned block = run->block ? run->block : DEFAULT_BLOCK;
    const dim3 grid((n + block - 1) / block, nbd_system_rows(systems));
    nb_body *bodies = nbd_bodies_upload(s);

    nb_region_begin(run);
    for (uint64_t step = 0; step < run->steps; ++step) {
        force_kick<<<grid, block>>>(bodies, n, systems, run->eps2, run->dt);
        NB_LAUNCH();
        drift<<<grid, block>>>(bodies, n, systems, run->dt);
        NB_LAUNCH();
    }
    nb_region_end(run);

    nbd_bodies_download(bodies, s);
    run->info->block = block;
    snprintf(run->info->config, sizeof run->info->config, "block=%u", block);
    return NB_EXIT_OK;
    /* STUB
    (void)s, (void)run;
    nb_error("TODO: force_kick() and nb_step_run() are yours to write (see step02_cuda_naive/README.md)");
    return NB_EXIT_ERROR;
    END SOLUTION */
}
