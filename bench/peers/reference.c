// Hand-written references for workloads b, c and d (bench/peers/workloads.py): one pass over
// memory each, rows split over the cores with OpenMP, inner loops vectorised with glibc's
// libmvec for expf/tanhf (gcc -O3 -march=native -ffast-math -fopenmp). What a compiler that
// fuses perfectly can reach on this machine; bench/peers/peers.sh builds and runs it.
// usage: reference b|c|d REPS   -> one JSON line: median/min/max ms
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static float *buffer(long n, int random) {
  float *p = aligned_alloc(64, n * sizeof(float));
  for (long i = 0; i < n; ++i)
    p[i] = random ? (float)rand() / RAND_MAX : 0.0f;
  return p;
}

// b: sigmoid(exp(tanh(x*1.5+0.5)*y)-y), 4096x4096.
static void math_b(const float *x, const float *y, float *out, long n) {
#pragma omp parallel for simd schedule(static)
  for (long i = 0; i < n; ++i) {
    float e = expf(tanhf(x[i] * 1.5f + 0.5f) * y[i]) - y[i];
    out[i] = 1.0f / (1.0f + expf(-e));
  }
}

// c: softmax over rows of 4096x4096.
static void softmax_c(const float *x, float *out, long rows, long cols) {
#pragma omp parallel for schedule(static)
  for (long r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *o = out + r * cols;
    float m = -INFINITY, s = 0.0f;
#pragma omp simd reduction(max : m)
    for (long i = 0; i < cols; ++i)
      m = fmaxf(m, in[i]);
#pragma omp simd reduction(+ : s)
    for (long i = 0; i < cols; ++i) {
      o[i] = expf(in[i] - m);
      s += o[i];
    }
    float scale = 1.0f / s;
#pragma omp simd
    for (long i = 0; i < cols; ++i)
      o[i] *= scale;
  }
}

// d: LayerNorm over rows of 8192x1024 with scale and bias.
static void layernorm_d(const float *x, const float *gamma, const float *beta, float *out,
                        long rows, long cols) {
#pragma omp parallel for schedule(static)
  for (long r = 0; r < rows; ++r) {
    const float *in = x + r * cols;
    float *o = out + r * cols;
    float sum = 0.0f, sq = 0.0f;
#pragma omp simd reduction(+ : sum)
    for (long i = 0; i < cols; ++i)
      sum += in[i];
    float mean = sum / cols;
#pragma omp simd reduction(+ : sq)
    for (long i = 0; i < cols; ++i)
      sq += (in[i] - mean) * (in[i] - mean);
    float inv = 1.0f / sqrtf(sq / cols + 1e-5f);
#pragma omp simd
    for (long i = 0; i < cols; ++i)
      o[i] = (in[i] - mean) * inv * gamma[i] + beta[i];
  }
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 3 || strlen(argv[1]) != 1 || !strchr("bcd", argv[1][0])) {
    fprintf(stderr, "usage: reference b|c|d REPS\n");
    return 2;
  }
  char w = argv[1][0];
  int reps = atoi(argv[2]);
  long rows = w == 'd' ? 8192 : 4096, cols = w == 'd' ? 1024 : 4096, n = rows * cols;
  float *x = buffer(n, 1), *y = buffer(n, 1), *out = buffer(n, 0);
  float *gamma = buffer(cols, 1), *beta = buffer(cols, 1);
  double *times = malloc(sizeof(double) * reps);
  for (int i = -3; i < reps; ++i) {
    double start = now_ms();
    if (w == 'b')
      math_b(x, y, out, n);
    else if (w == 'c')
      softmax_c(x, out, rows, cols);
    else
      layernorm_d(x, gamma, beta, out, rows, cols);
    if (i >= 0)
      times[i] = now_ms() - start;
  }
  qsort(times, reps, sizeof(double), compare);
  printf("{\"median\": %.4f, \"min\": %.4f, \"max\": %.4f}\n", times[reps / 2], times[0],
         times[reps - 1]);
  return 0;
}
