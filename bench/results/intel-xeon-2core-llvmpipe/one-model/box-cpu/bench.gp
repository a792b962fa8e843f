# boids-bench plots; regenerate with: gnuplot bench.gp (in this folder)
# cpu-1t: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s1 << EOD
100000 8.06916 7.86768 8.36912 80.6916 1 1
1000000 82.3895 80.9119 86.0766 82.3895 1 1
EOD
# cpu-1t@baseline: N ms_median ms_min ms_max ns_per_boid_step trusted speedup_vs_cpu_1t
$s8 << EOD
100000 30.3276 29.5336 30.8889 303.276 1 0.266066
1000000 300.822 296.02 312.712 300.822 1 0.273881
EOD

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_time.svg'
set title 'boids-bench: time per step - no GPU / Intel(R) Xeon(R) Processor'."\n".'load 1.43-1.55, others up to 0.01 cores, 0 of 4 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [66666.7:1.5e+06]
set xlabel 'boids N'
set ylabel 'ms per step (median; bars min..max)'
unset label
plot $s1 using 1:2:3:4 with yerrorbars ps 0 lc 2 notitle, \
    $s1 using 1:($2) with lines lw 2 lc 2 dt 1 title 'cpu-1t' noenhanced, \
    $s1 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s8 using 1:2:3:4 with yerrorbars ps 0 lc 2 notitle, \
    $s8 using 1:($2) with lines lw 2 lc 2 dt 2 title 'cpu-1t@baseline' noenhanced, \
    $s8 using 1:($6 > 0 ? ($2) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s8 using 1:($6 > 0 ? 1/0 : ($2)) with points pt 6 ps 1.5 lc 2 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_cost.svg'
set title 'boids-bench: cost per boid-step - no GPU / Intel(R) Xeon(R) Processor'."\n".'load 1.43-1.55, others up to 0.01 cores, 0 of 4 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [66666.7:1.5e+06]
set xlabel 'boids N'
set ylabel 'ns per boid-step (median)'
unset label
plot $s1 using 1:($5) with lines lw 2 lc 2 dt 1 title 'cpu-1t' noenhanced, \
    $s1 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s8 using 1:($5) with lines lw 2 lc 2 dt 2 title 'cpu-1t@baseline' noenhanced, \
    $s8 using 1:($6 > 0 ? ($5) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s8 using 1:($6 > 0 ? 1/0 : ($5)) with points pt 6 ps 1.5 lc 2 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted'

set terminal svg size 960,600 dynamic enhanced font 'sans,12' background '#ffffff'
set output 'bench_speedup.svg'
set title 'boids-bench: speedup against cpu-1t of this build - no GPU / Intel(R) Xeon(R) Processor'."\n".'load 1.43-1.55, others up to 0.01 cores, 0 of 4 points untrusted (hollow)' noenhanced
set logscale xy
set grid
set key outside right top
set format x '10^{%L}'
set xrange [66666.7:1.5e+06]
set xlabel 'boids N'
set ylabel 'time of cpu-1t / time of the backend (median)'
unset label
set arrow from graph 0, first 1 to graph 1, first 1 nohead dt 3 lc rgb '#808080'
plot $s1 using 1:($7) with lines lw 2 lc 2 dt 1 title 'cpu-1t' noenhanced, \
    $s1 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s1 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 2 notitle, \
    $s8 using 1:($7) with lines lw 2 lc 2 dt 2 title 'cpu-1t@baseline' noenhanced, \
    $s8 using 1:($6 > 0 ? ($7) : 1/0) with points pt 7 ps 0.8 lc 2 notitle, \
    $s8 using 1:($6 > 0 ? 1/0 : ($7)) with points pt 6 ps 1.5 lc 2 notitle, \
    NaN with points pt 6 ps 1.5 lc rgb 'black' title 'untrusted'
unset arrow
