/* Records ReproBLAS's own binned sums for tests/data/reproblas/recorded_sums.txt (see README.md):
 * the elements of each case are drawn bit by bit from splitmix64, exactly as the tests draw them
 * (recorded_case_values in tests/reference/reproducible_support.hpp), and summed element by
 * element with ReproBLAS's binned_sbsadd / binned_dbdadd (3 folds); the lines give the result of
 * binned_ssbconv / binned_ddbconv and the binned sum's primaries and carries, as hex bits. The
 * sum of the two parts of each case merged by binned_sbsbadd / binned_dbdbadd must be the same,
 * or the program fails. Not part of the build: it needs ReproBLAS's sources. */
#include <binned.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum { UNIT, POSITIVE, MIXED, SUBNORMAL, LARGEST, RISING, CANCELLING, KINDS };
static const char* kind_names[KINDS] = {"unit", "positive", "mixed", "subnormal", "largest", "rising", "cancelling"};

/* The bits of element i of a case: sign, biased exponent and fraction from two draws. */
static uint64_t element_bits(int kind, uint64_t i, uint64_t n, uint64_t* state, int frac_bits, int bias, int max_exp,
                             int mixed_reach, uint64_t previous) {
  const uint64_t r = splitmix64(state), s = splitmix64(state);
  const int sign_shift = frac_bits == 23 ? 31 : 63;
  uint64_t sign = r >> 63;
  const uint64_t fraction = r & ((1ull << frac_bits) - 1);
  long exponent;
  switch (kind) {
    case UNIT: exponent = -24 + (long)(s % 24); break;
    case POSITIVE: exponent = -24 + (long)(s % 24); sign = 0; break;
    case MIXED: exponent = -mixed_reach + (long)(s % (2 * mixed_reach + 1)); break;
    case SUBNORMAL: exponent = s % 8 == 0 ? 1 - bias : -bias; break; /* biased 1 or 0 */
    case RISING: exponent = -mixed_reach + (long)((2 * mixed_reach) * i / n); break;
    case LARGEST:
    case CANCELLING:
      if (i % 2 == 1 && s % 64 != 0) return previous ^ (1ull << sign_shift); /* -previous */
      exponent = kind == LARGEST ? (s % 2 ? max_exp - 1 - (long)(s % 8) : -24 + (long)(s % 24))
                                 : -mixed_reach + (long)(s % (2 * mixed_reach + 1));
      break;
    default: abort();
  }
  return (sign << sign_shift) | ((uint64_t)(exponent + bias) << frac_bits) | fraction;
}

/* A floating-point type: its fields, and ReproBLAS's functions on it (3 folds). */
struct format {
  const char* name;
  int bytes, frac_bits, bias, max_exp, mixed_reach;
  int binned_bytes;
  void (*add)(const void* x, void* binned);          /* binned_sbsadd */
  void (*merge)(const void* from, void* into);       /* binned_sbsbadd */
  void (*convert)(const void* binned, void* result); /* binned_ssbconv */
};

static void float_add(const void* x, void* y) { binned_sbsadd(3, *(const float*)x, y); }
static void float_merge(const void* x, void* y) { binned_sbsbadd(3, x, y); }
static void float_convert(const void* x, void* r) { *(float*)r = binned_ssbconv(3, x); }
static void double_add(const void* x, void* y) { binned_dbdadd(3, *(const double*)x, y); }
static void double_merge(const void* x, void* y) { binned_dbdbadd(3, x, y); }
static void double_convert(const void* x, void* r) { *(double*)r = binned_ddbconv(3, x); }

static void print_hex(const unsigned char* p, int bytes) {
  printf(" 0x");
  for (int b = bytes - 1; b >= 0; --b) printf("%02x", p[b]); /* little-endian */
}

static void record(const struct format* f, int kind, uint64_t n, uint64_t seed) {
  uint64_t state = seed, previous = 0;
  unsigned char* x = malloc(n * f->bytes);
  for (uint64_t i = 0; i < n; ++i) {
    previous = element_bits(kind, i, n, &state, f->frac_bits, f->bias, f->max_exp, f->mixed_reach, previous);
    memcpy(x + i * f->bytes, &previous, f->bytes);
  }
  unsigned char* whole = calloc(1, f->binned_bytes); /* zero: binned_sbsetzero */
  unsigned char* first = calloc(1, f->binned_bytes);
  unsigned char* second = calloc(1, f->binned_bytes);
  for (uint64_t i = 0; i < n; ++i) f->add(x + i * f->bytes, whole);
  for (uint64_t i = 0; i < n; ++i) f->add(x + i * f->bytes, i < n / 3 ? first : second);
  f->merge(first, second);
  if (memcmp(whole, second, f->binned_bytes) != 0) {
    fprintf(stderr, "%s %s: the merged parts differ from the whole\n", f->name, kind_names[kind]);
    exit(1);
  }
  unsigned char sum[8];
  f->convert(whole, sum);
  printf("%s %s %llu %llu", f->name, kind_names[kind], (unsigned long long)n, (unsigned long long)seed);
  print_hex(sum, f->bytes);
  for (int k = 0; k < 6; ++k) print_hex(whole + k * f->bytes, f->bytes);
  printf("\n");
  free(x);
  free(whole);
  free(first);
  free(second);
}

int main(void) {
  const struct format float_format = {"float", 4, 23, 127, 128, 100, 24, float_add, float_merge, float_convert};
  const struct format double_format = {"double", 8, 52, 1023, 1024, 1000, 48, double_add, double_merge, double_convert};
  printf("# type kind n seed: sum, primaries 0-2, carries 0-2 (hex bits), from ReproBLAS ae50ec6\n");
  for (int kind = 0; kind < KINDS; ++kind) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
      const uint64_t n = seed == 3 ? 100003 : seed == 2 ? 4095 : 513;
      record(&float_format, kind, n, seed);
      record(&double_format, kind, n, seed);
    }
  }
  return 0;
}
