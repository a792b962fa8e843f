// SPDX-License-Identifier: MIT
// Stage 3, exclusive prefix sum, one level: each work group scans SCAN_BLOCK values in
// shared memory and writes its block total to scan_sums, which the next level scans in turn
// (src/gpu/grid.c), so any number of cells works.
layout(local_size_x = SCAN_WG) in;

layout(std430, binding = B_SCAN_IN) readonly buffer ScanIn { uint scan_in[]; };
layout(std430, binding = B_SCAN_OUT) writeonly buffer ScanOut { uint scan_out[]; };
layout(std430, binding = B_SCAN_SUMS) writeonly buffer ScanSums { uint scan_sums[]; };
layout(location = 0) uniform uint u_n; // values in this level

shared uint partial[SCAN_WG];

void main() {
    uint t = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * uint(SCAN_BLOCK) + t * uint(SCAN_ITEMS);
    uint v[SCAN_ITEMS];
    uint sum = 0u;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        uint idx = base + uint(k);
        v[k] = idx < u_n ? scan_in[idx] : 0u;
        sum += v[k];
    }
    partial[t] = sum;
    barrier();
    // Inclusive Hillis-Steele scan of the per-thread sums.
    for (uint off = 1u; off < uint(SCAN_WG); off <<= 1) {
        uint add = t >= off ? partial[t - off] : 0u;
        barrier();
        partial[t] += add;
        barrier();
    }
    uint run = partial[t] - sum;
    for (int k = 0; k < SCAN_ITEMS; k++) {
        uint idx = base + uint(k);
        if (idx < u_n) scan_out[idx] = run;
        run += v[k];
    }
    if (t == uint(SCAN_WG) - 1u) scan_sums[gl_WorkGroupID.x] = partial[t];
}
