// jitter ceiling: every rank does the same fixed work, then all ranks meet (allreduce), 200 times
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const size_t n = 2500000; // 10 MB of floats, like a 500k-boid tile's positions and velocities
    const int reps = argc > 1 ? atoi(argv[1]) : 12, iters = 200;
    float *a = malloc(n * sizeof *a);
    for (size_t i = 0; i < n; i++) a[i] = (float)i * 1e-7f;
    double acc = 0, t_work = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++) {
        double w0 = MPI_Wtime();
        for (int r = 0; r < reps; r++)
            for (size_t i = 0; i < n; i++) a[i] = a[i] * 0.999f + 1e-6f * (float)(i & 7);
        t_work += MPI_Wtime() - w0;
        double x = a[it % n], y;
        MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        acc += y;
    }
    double t = MPI_Wtime() - t0;
    printf("rank %d/%d: %.3f ms per iteration, %.3f ms of work (%.1f%% waiting) [%g]\n", rank, size,
           1e3 * t / iters, 1e3 * t_work / iters, 100 * (t - t_work) / t, acc);
    MPI_Finalize();
    return 0;
}
