# mpi-model.awk: how far direct summation scales over MPI ranks (step11_mpi's ring and allgather),
# from one GPU's measured force rate and an assumed network. Input: CSV lines "n,G interactions/s",
# the rate of one GPU computing n bodies against n (step08 on the H100: report/data/*/throughput.csv).
# Variables (-v):
#   net     nvlink | ib: the assumed link (below); lat_us and gbs override its latency and bandwidth
#   what    strong: fixed N over P = 1, 2, 4 ... 1024 GPUs; weak: N = N1 sqrt(P) (the same pairs per GPU);
#           turn: one ring turn against bodies per GPU n = 64 ... 2^28 (lines n, compute s, message s, overhead s)
#   N       bodies (strong) or N1 (weak)
# Output, one line per P: P, N, ring s/step, allgather s/step, ring efficiency, allgather efficiency,
# compute s per ring turn, message s per ring turn (the ring hides the messages while compute >= message).
# Each GPU holds n = N/P bodies. Ring: P turns, each max(compute n x n, send n bodies) + a launch and a
# sync. Allgather: (P - 1) blocks of n bodies received with no overlap, then the P computes.
BEGIN {
    FS = ","
    if (net == "nvlink") { L = 5e-6; B = 200e9 }      # one NVLink 4 domain, CUDA-aware MPI GPU to GPU
    else if (net == "ib") { L = 3e-6; B = 45e9 }      # a 400 Gb/s (50 GB/s) NDR port per GPU, GPUDirect RDMA
    else { print "mpi-model.awk: net must be nvlink or ib" > "/dev/stderr"; exit 2 }
    if (lat_us != "") L = lat_us * 1e-6
    if (gbs != "") B = gbs * 1e9
    turn = 10e-6          # a kernel launch and a stream synchronisation per turn (assumed)
    bytes = 16            # x y z m, float32
}
$1 ~ /^[0-9]+$/ { rn[++k] = $1 + 0; rr[k] = $2 * 1e9 }
# Interactions per second of one GPU at n x n: the measured curve, log-interpolated; flat above the
# largest n measured; below the smallest, proportional to n (the GPU is not filled).
function rate(n,   i, f) {
    if (n >= rn[k]) return rr[k]
    if (n <= rn[1]) return rr[1] * n / rn[1]
    for (i = 1; i < k; ++i)
        if (n <= rn[i + 1]) {
            f = log(n / rn[i]) / log(rn[i + 1] / rn[i])
            return rr[i] + f * (rr[i + 1] - rr[i])
        }
}
function compute(n) { return n < 1 ? 0 : n * n / rate(n) }
function message(n) { return L + bytes * n / B }
function ring(N, P,   n, c, m) {
    n = N / P; c = compute(n); m = message(n)
    return P == 1 ? c + turn : P * ((c > m ? c : m) + turn)
}
function allgather(N, P,   n) {
    n = N / P
    return P * (compute(n) + turn) + (P > 1 ? log(P) / log(2) * L + (P - 1) * bytes * n / B : 0)
}
END {
    if (k == 0) { print "mpi-model.awk: no rate rows on input" > "/dev/stderr"; exit 2 }
    if (what == "turn") {
        for (n = 64; n <= 268435456; n *= 2)
            printf "%d,%.6g,%.6g,%.6g\n", n, compute(n), message(n), turn
        exit 0
    }
    for (P = 1; P <= 1024; P *= 2) {
        NP = what == "weak" ? N * sqrt(P) : N
        t1r = ring(N, 1)
        tr = ring(NP, P); ta = allgather(NP, P)
        # strong: T(1) / (P T(P)); weak: T(1) / T(P) (the same work per GPU)
        er = what == "weak" ? t1r / tr : t1r / (P * tr)
        ea = what == "weak" ? t1r / ta : t1r / (P * ta)
        printf "%d,%.0f,%.6g,%.6g,%.4f,%.4f,%.6g,%.6g\n", P, NP, tr, ta, er, ea, compute(NP / P), message(NP / P)
    }
}
