/* SPDX-License-Identifier: MIT */
/* MT19937 as in CPython's Modules/_randommodule.c (the reference algorithm of Matsumoto
 * and Nishimura, with init_by_array seeding). */
#include "boids/rng.h"

enum { MT_N = 624, MT_M = 397 };

static void init_genrand(boids_rng *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++)
        r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->index = MT_N;
}

static void init_by_array(boids_rng *r, const uint32_t *key, int len) {
    init_genrand(r, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > len ? MT_N : len; k; k--) {
        r->mt[i] =
            (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
        if (j >= len) j = 0;
    }
    for (int k = MT_N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u; /* non-zero initial state is guaranteed */
    r->index = MT_N;
}

/* NULL generators: no error channel here (these run once per number), so a neutral answer. */
void boids_rng_seed(boids_rng *rng, uint64_t seed) {
    if (!rng) return;
    /* Python splits the seed's absolute value into 32-bit words, least significant first,
     * keeping at least one word (seed 0 gives the key [0]). */
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    init_by_array(rng, key, key[1] ? 2 : 1);
}

uint32_t boids_rng_u32(boids_rng *r) {
    static const uint32_t mag01[2] = {0u, 0x9908b0dfu};
    if (!r) return 0;
    if (r->index >= MT_N) {
        int kk;
        uint32_t y;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (r->mt[MT_N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
        r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        r->index = 0;
    }
    uint32_t y = r->mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

double boids_rng_random(boids_rng *r) {
    if (!r) return 0;
    uint32_t a = boids_rng_u32(r) >> 5, b = boids_rng_u32(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

double boids_rng_uniform(boids_rng *r, double a, double b) {
    return a + (b - a) * boids_rng_random(r);
}
