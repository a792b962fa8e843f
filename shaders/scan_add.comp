// SPDX-License-Identifier: MIT
// Stage 3, going back down the levels: adds the scanned block totals to each block.
layout(local_size_x = SCAN_WG) in;

layout(std430, binding = B_SCAN_OUT) buffer ScanOut { uint scan_out[]; };
layout(std430, binding = B_SCAN_SUMS) readonly buffer ScanSums { uint scan_sums[]; };
layout(location = 0) uniform uint u_n; // values in this level

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= u_n) return;
    scan_out[i] += scan_sums[i / uint(SCAN_BLOCK)];
}
