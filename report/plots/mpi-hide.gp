# mpi-hide.gp: one turn of step11_mpi's ring against the bodies each GPU holds (report/query/mpi-model.awk):
# the compute of n x n pairs (step08's measured rate on the H100) and the message of n bodies (16 bytes
# each) over NVLink and 400 Gb/s InfiniBand. Left of the crossing the ring no longer hides the messages.
W = 800; H = 520
load 'report/plots/lib.gp'
rates = data.'/h100-2026-11-22/throughput.csv'
feed = "< grep -h '^08,step08_multigpu,default,throughput,' ".rates." | awk -F, '{ print $8 \",\" $20 }' | sort -t, -k1,1n | awk -f report/query/mpi-model.awk -v what=turn"
set title "{/:Bold step11\\_mpi: where the ring stops hiding the messages}\n{/*0.8 model: report/query/mpi-model.awk; compute = step08 on the H100 (2026-11-22, commit 9becd57b5f15); links assumed}"
set logscale xy
set format y '10^{%T}'
set format x '2^{%L}'
set logscale x 2
set xlabel 'bodies per GPU, n = N / P'
set ylabel 'seconds per ring turn'
set xrange [64:2**28]
set key top left noenhanced box opaque
set grid
# N = 1M, 16M, 256M on 1024 GPUs: n = 1024, 16384, 262144
set arrow from 1024, graph 0 to 1024, graph 1 nohead dt 3 lc rgb '#888888'
set label 'N = 1M on 1024 GPUs' at 1024, graph 0.03 rotate by 90 left offset -1, 0 font ',8'
set arrow from 16384, graph 0 to 16384, graph 1 nohead dt 3 lc rgb '#888888'
set label 'N = 16M on 1024 GPUs' at 16384, graph 0.03 rotate by 90 left offset -1, 0 font ',8'
set arrow from 262144, graph 0 to 262144, graph 1 nohead dt 3 lc rgb '#888888'
set label 'N = 256M on 1024 GPUs' at 262144, graph 0.03 rotate by 90 left offset -1, 0 font ',8'
plot feed.' -v net=nvlink' using 1:2 with lines lw 2 lt 1 title 'compute n × n (measured rate)', \
     feed.' -v net=nvlink' using 1:3 with lines lw 2 lt 2 title 'message, NVLink (5 µs, 200 GB/s assumed)', \
     feed.' -v net=ib' using 1:3 with lines lw 2 lt 3 title 'message, 400 Gb/s IB (3 µs, 45 GB/s assumed)', \
     feed.' -v net=nvlink' using 1:4 with lines lt 4 dt 2 title 'launch + sync per turn (10 µs assumed)'
