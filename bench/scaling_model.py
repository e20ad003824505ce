#!/usr/bin/env python3
"""The scaling model of docs/distributed.md: step time and scaling efficiency of
data-parallel training for 8 to 512 processes, from measured compute times and assumed
networks. Prints the Markdown table the doc shows.

    python3 bench/scaling_model.py [--compute mlp=MS,lstm=MS,cnn=MS]

Model (one process per machine, links of B bytes/s with alpha s of latency per message;
the three algorithms Open MPI's tuned collectives choose between by size):
  ring(S, N)        = 2 (N-1)/N * S / B + 2 (N-1) * alpha
  rdb(S, N)         = log2(N) * (alpha + S / B)              (recursive doubling)
  rabenseifner(S, N) = 2 (N-1)/N * S / B + 2 log2(N) * alpha  (reduce-scatter + all-gather)
  allreduce         = the fastest, per bucket, summed over the buckets
  exposed     = max(allreduce(last bucket), allreduce(all) - overlap * backward)
  step(N)     = compute(b) + exposed            (b samples per process: weak scaling)
  efficiency  = compute(b) / step(N)
The backward pass is taken as 2/3 of compute; `overlap` (the share of it that hides
communication) is 0.9, what the measured overlap on this machine suggests is reachable
when communication runs off the compute thread.
"""
import argparse
import math

MODELS = {  # name: (parameters, measured compute ms per step at the bench's batch per process)
    "mlp": (269_322, None),
    "lstm": (83_722, None),
    "cnn": (34_826, None),
    "resnet50-size": (25_557_032, 100.0),  # a CNN whose weights are 102 MB, 100 ms per step assumed
}
NETWORKS = {
    "25 GbE, TCP": (25e9 / 8 * 0.8, 20e-6),
    "100 Gb/s InfiniBand, RDMA": (100e9 / 8 * 0.9, 2e-6),
}
BUCKET = 1 << 20  # DataParallelOptions::bucket_bytes


def allreduce(size, n, bandwidth, alpha):
    ring = 2 * (n - 1) / n * size / bandwidth + 2 * (n - 1) * alpha
    rdb = math.log2(n) * (alpha + size / bandwidth)
    rabenseifner = 2 * (n - 1) / n * size / bandwidth + 2 * math.log2(n) * alpha
    return min(ring, rdb, rabenseifner)


def step(params, compute_ms, n, bandwidth, alpha, overlap=0.9, bucket=BUCKET):
    size = params * 4
    buckets = [bucket] * (size // bucket) + ([size % bucket] if size % bucket else [])
    total = sum(allreduce(b, n, bandwidth, alpha) for b in buckets)
    last = allreduce(buckets[-1], n, bandwidth, alpha)
    compute = compute_ms / 1e3
    exposed = max(last, total - overlap * compute * 2 / 3)
    return compute + exposed, total


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--compute", default="mlp=1.35,lstm=14.9,cnn=19.2",
                        help="compute ms per step per process, measured (bench/distributed.sh, N=1)")
    parser.add_argument("--bucket_mb", type=float, default=1.0, help="bucket size in MiB")
    args = parser.parse_args()
    for item in args.compute.split(","):
        name, ms = item.split("=")
        MODELS[name] = (MODELS[name][0], float(ms))
    print("| model (weights) | network | N | all-reduce ms | step ms | efficiency |")
    print("|---|---|---|---|---|---|")
    for name, (params, compute_ms) in MODELS.items():
        for net, (bandwidth, alpha) in NETWORKS.items():
            for n in (8, 32, 128, 512):
                t, comm = step(params, compute_ms, n, bandwidth, alpha, bucket=int(args.bucket_mb * (1 << 20)))
                print(f"| {name} ({params * 4 / 1e6:.2f} MB) | {net} | {n} | {comm * 1e3:.3f} | "
                      f"{t * 1e3:.2f} | {compute_ms / 1e3 / t:.2f} |")


if __name__ == "__main__":
    main()
