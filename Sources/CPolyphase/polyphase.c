// The polyphase kernel. Each output frame's filter is the table row at its phase plus the fraction of the way to the
// next row (one fused multiply-add per coefficient), shared by every channel; each channel is then one dot product.
// Drift repair moves the phase by about 10^-4 of a frame per output (a small part of a row), so the two rows it reads
// stay in cache, or in registers.
#include "polyphase.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { max_taps = 512, max_register_vectors = 7 };

typedef struct {
    const float *coefficients;
    const float *differences;
    int taps;
    int phases;
} filter_table;

// Where the walk through the input stands: the position (whole frames, and a remainder over the target), and the
// phase within the frame split the same way in integers, row = floor(remainder × phases / target) and rest the part
// of a row left over, both stepped by additions. So each frame's row is exact and its fraction one conversion, and no
// floating-point work competes with the multiply-adds for their pipes.
typedef struct {
    driftfix_polyphase_position *position;
    driftfix_polyphase_step step;
    uint64_t row, rest;
    uint64_t row_step, rest_step;
    uint64_t phases;
    double per_target;
} phase_walk;

static inline phase_walk walk_from(driftfix_polyphase_position *p, driftfix_polyphase_step step, int phases) {
    // remainder, fraction < target < 2^63 and phases ≤ 2^16: the products fit in 128 bits, the quotients in 64.
    const unsigned __int128 at = (unsigned __int128)p->remainder * (uint64_t)phases;
    const unsigned __int128 by = (unsigned __int128)step.fraction * (uint64_t)phases;
    phase_walk walk = {p, step, (uint64_t)(at / step.target), (uint64_t)(at % step.target),
        (uint64_t)(by / step.target), (uint64_t)(by % step.target), (uint64_t)phases, 1.0 / (double)step.target};
    return walk;
}

static inline int phase_row(const phase_walk *w, float *fraction) {
    *fraction = (float)((double)(int64_t)w->rest * w->per_target);
    return (int)w->row;
}

static inline void locate(const phase_walk *w, filter_table table, const float **c, const float **d, float *fraction) {
    int j = phase_row(w, fraction);
    *c = table.coefficients + (size_t)j * table.taps;
    *d = table.differences + (size_t)j * table.taps;
}

static inline void advance(phase_walk *w) {
    driftfix_polyphase_position *p = w->position;
    p->index += (int64_t)w->step.whole;
    p->remainder += w->step.fraction;
    w->row += w->row_step;
    w->rest += w->rest_step;
    if (w->rest >= w->step.target) {
        w->rest -= w->step.target;
        w->row += 1;
    }
    if (p->remainder >= w->step.target) {
        p->remainder -= w->step.target;
        p->index += 1;
        w->row -= w->phases;
    }
}

static void run_portable(
    const float *coefficients, const float *differences, int taps, int phases, const float *const *planes,
    int channels, driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output) {
    const filter_table table = {coefficients, differences, taps, phases};
    phase_walk walk = walk_from(position, step, phases);
    float filter[max_taps];
    for (int k = 0; k < count; k++) {
        const float *c, *d;
        float t;
        locate(&walk, table, &c, &d, &t);
        for (int i = 0; i < taps; i++) filter[i] = c[i] + t * d[i];
        for (int ch = 0; ch < channels; ch++) {
            const float *x = planes[ch] + position->index;
            float a0 = 0, a1 = 0, a2 = 0, a3 = 0;
            for (int i = 0; i < taps; i += 4) {
                a0 += filter[i] * x[i];
                a1 += filter[i + 1] * x[i + 1];
                a2 += filter[i + 2] * x[i + 2];
                a3 += filter[i + 3] * x[i + 3];
            }
            output[(size_t)k * channels + ch] = (a0 + a1) + (a2 + a3);
        }
        advance(&walk);
    }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) static inline float sum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

__attribute__((target("avx2,fma"))) static void run_avx2(
    const float *coefficients, const float *differences, int taps, int phases, const float *const *planes,
    int channels, driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output) {
    const filter_table table = {coefficients, differences, taps, phases};
    phase_walk walk = walk_from(position, step, phases);
    float filter[max_taps] __attribute__((aligned(32)));
    for (int k = 0; k < count; k++) {
        const float *c, *d;
        float t;
        locate(&walk, table, &c, &d, &t);
        const __m256 tv = _mm256_set1_ps(t);
        float *out = output + (size_t)k * channels;
        if (channels == 1 || channels == 2) {
            // The filter stays in registers: two chains of accumulators per channel hide the FMA latency.
            const float *x0 = planes[0] + position->index;
            const float *x1 = planes[channels - 1] + position->index;
            __m256 a0 = _mm256_setzero_ps(), b0 = _mm256_setzero_ps();
            __m256 a1 = _mm256_setzero_ps(), b1 = _mm256_setzero_ps();
            int i = 0;
            for (; i + 16 <= taps; i += 16) {
                __m256 h0 = _mm256_fmadd_ps(tv, _mm256_loadu_ps(d + i), _mm256_loadu_ps(c + i));
                __m256 h1 = _mm256_fmadd_ps(tv, _mm256_loadu_ps(d + i + 8), _mm256_loadu_ps(c + i + 8));
                a0 = _mm256_fmadd_ps(h0, _mm256_loadu_ps(x0 + i), a0);
                b0 = _mm256_fmadd_ps(h1, _mm256_loadu_ps(x0 + i + 8), b0);
                a1 = _mm256_fmadd_ps(h0, _mm256_loadu_ps(x1 + i), a1);
                b1 = _mm256_fmadd_ps(h1, _mm256_loadu_ps(x1 + i + 8), b1);
            }
            for (; i < taps; i += 8) {
                __m256 h0 = _mm256_fmadd_ps(tv, _mm256_loadu_ps(d + i), _mm256_loadu_ps(c + i));
                a0 = _mm256_fmadd_ps(h0, _mm256_loadu_ps(x0 + i), a0);
                a1 = _mm256_fmadd_ps(h0, _mm256_loadu_ps(x1 + i), a1);
            }
            out[0] = sum8(_mm256_add_ps(a0, b0));
            if (channels == 2) out[1] = sum8(_mm256_add_ps(a1, b1));
        } else {
            for (int i = 0; i < taps; i += 8)
                _mm256_store_ps(
                    filter + i, _mm256_fmadd_ps(tv, _mm256_loadu_ps(d + i), _mm256_loadu_ps(c + i)));
            for (int ch = 0; ch < channels; ch++) {
                const float *x = planes[ch] + position->index;
                __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
                int i = 0;
                for (; i + 16 <= taps; i += 16) {
                    a = _mm256_fmadd_ps(_mm256_load_ps(filter + i), _mm256_loadu_ps(x + i), a);
                    b = _mm256_fmadd_ps(_mm256_load_ps(filter + i + 8), _mm256_loadu_ps(x + i + 8), b);
                }
                for (; i < taps; i += 8) a = _mm256_fmadd_ps(_mm256_load_ps(filter + i), _mm256_loadu_ps(x + i), a);
                out[ch] = sum8(_mm256_add_ps(a, b));
            }
        }
        advance(&walk);
    }
}

// A 16-lane accumulator's sum: its two 8-lane chains added, then sum8 (the AVX2 loop's order).
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline float sum16(__m512 v) {
    return sum8(_mm256_add_ps(
        _mm512_castps512_ps256(v), _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))));
}

// Eight 16-lane accumulators summed at once by sum16's tree (lane i plus i + 8, then i + 4, i + 2, i + 1), so each
// sum is bit for bit what sum16 gives; written to `out` in the order given. A few shuffles a level shared by all eight
// instead of a chain of extracts and shuffles for every sum: the horizontal sums were half the loop's time.
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline void sum8_eight(
    const __m512 *v, float *out) {
    __m512 p[4];
    for (int i = 0; i < 4; i++)  // [v(2i) lanes 0-7 + 8-15 | v(2i+1) the same]
        p[i] = _mm512_add_ps(
            _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0x44), _mm512_shuffle_f32x4(v[2 * i], v[2 * i + 1], 0xEE));
    __m512 q[2];
    for (int i = 0; i < 2; i++)  // a quarter per accumulator: lanes 0-3 + 4-7
        q[i] = _mm512_add_ps(
            _mm512_shuffle_f32x4(p[2 * i], p[2 * i + 1], 0x88), _mm512_shuffle_f32x4(p[2 * i], p[2 * i + 1], 0xDD));
    // Per quarter j: lanes 0 + 2 and 1 + 3 of v(j), then of v(4 + j); then the pairs added.
    const __m512 r = _mm512_add_ps(
        _mm512_shuffle_ps(q[0], q[1], _MM_SHUFFLE(1, 0, 1, 0)), _mm512_shuffle_ps(q[0], q[1], _MM_SHUFFLE(3, 2, 3, 2)));
    const __m512 w = _mm512_add_ps(r, _mm512_movehdup_ps(r));
    const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 2, 6, 10, 14, 0, 0, 0, 0, 0, 0, 0, 0);
    _mm256_storeu_ps(out, _mm512_castps512_ps256(_mm512_permutexvar_ps(order, w)));
}

// One output frame of the 16-lane loop: its channels' accumulators (before their sums), the table rows reloaded only
// when the phase has moved to another row.
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline void frame16(
    const int vectors, const int channels, const filter_table table, const float *const *planes, phase_walk *walk,
    int *row, __m512 *c, __m512 *d, __m512 *sums) {
    const int full = vectors * 16;
    const __mmask16 tail = (__mmask16)((1u << (table.taps - full)) - 1u);
    float t;
    const int j = phase_row(walk, &t);
    if (j != *row) {
        *row = j;
        const float *cr = table.coefficients + (size_t)j * table.taps;
        const float *dr = table.differences + (size_t)j * table.taps;
        for (int v = 0; v < vectors; v++) {
            c[v] = _mm512_loadu_ps(cr + v * 16);
            d[v] = _mm512_loadu_ps(dr + v * 16);
        }
        c[vectors] = _mm512_maskz_loadu_ps(tail, cr + full);
        d[vectors] = _mm512_maskz_loadu_ps(tail, dr + full);
    }
    const __m512 tv = _mm512_set1_ps(t);
    const float *x0 = planes[0] + walk->position->index;
    const float *x1 = planes[channels - 1] + walk->position->index;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
    for (int v = 0; v < vectors; v++) {
        __m512 h = _mm512_fmadd_ps(tv, d[v], c[v]);
        a0 = _mm512_fmadd_ps(h, _mm512_loadu_ps(x0 + v * 16), a0);
        if (channels == 2) a1 = _mm512_fmadd_ps(h, _mm512_loadu_ps(x1 + v * 16), a1);
    }
    if (tail) {
        __m512 h = _mm512_fmadd_ps(tv, d[vectors], c[vectors]);
        a0 = _mm512_mask3_fmadd_ps(h, _mm512_maskz_loadu_ps(tail, x0 + full), a0, tail);
        if (channels == 2) a1 = _mm512_mask3_fmadd_ps(h, _mm512_maskz_loadu_ps(tail, x1 + full), a1, tail);
    }
    sums[0] = a0;
    if (channels == 2) sums[1] = a1;
    advance(walk);
}

// The same loop on 16-lane registers, for one or two channels: lanes 0-7 are the AVX2 loop's first chain and lanes
// 8-15 its second, a tail of 8 taps goes to the first chain, and the chains are added as there. So every output is
// bit for bit the AVX2 loop's, with half the loads and multiply-adds issued. `vectors` (the full 16-tap vectors) and
// `channels` are constants where this is inlined: the two table rows live in registers (at drift-sized ratios the row
// changes every 2 to 15 frames, so most frames load only their samples), and the sums of eight outputs (four stereo
// frames, eight mono) are taken together.
__attribute__((target("avx512f,avx2,fma"), always_inline)) static inline void run_avx512_rows(
    const int vectors, const int channels, const filter_table table, const float *const *planes,
    driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output) {
    const int group = 8 / channels;
    __m512 c[max_register_vectors + 1], d[max_register_vectors + 1], sums[8];
    phase_walk walk = walk_from(position, step, table.phases);
    int row = -1;
    int k = 0;
    for (; k + group <= count; k += group) {
#pragma clang loop unroll(full)
        for (int m = 0; m < group; m++)
            frame16(vectors, channels, table, planes, &walk, &row, c, d, sums + m * channels);
        sum8_eight(sums, output + (size_t)k * channels);
    }
    for (; k < count; k++) {  // the last frames of a call, fewer than a group: one sum each
        frame16(vectors, channels, table, planes, &walk, &row, c, d, sums);
        for (int i = 0; i < channels; i++) output[(size_t)k * channels + i] = sum16(sums[i]);
    }
}

// The 16-lane loop for filters too long for registers (ratios far below 1), reading both rows for every frame.
__attribute__((target("avx512f,avx2,fma"))) static void run_avx512_long(
    const filter_table table, const float *const *planes, int channels, driftfix_polyphase_position *position,
    driftfix_polyphase_step step, int count, float *output) {
    const int taps = table.taps;
    const int full = taps / 16 * 16;
    const __mmask16 tail = (__mmask16)((1u << (taps - full)) - 1u);
    phase_walk walk = walk_from(position, step, table.phases);
    for (int k = 0; k < count; k++) {
        const float *c, *d;
        float t;
        locate(&walk, table, &c, &d, &t);
        const __m512 tv = _mm512_set1_ps(t);
        const float *x0 = planes[0] + position->index;
        const float *x1 = planes[channels - 1] + position->index;
        __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps();
        int i = 0;
        for (; i < full; i += 16) {
            __m512 h = _mm512_fmadd_ps(tv, _mm512_loadu_ps(d + i), _mm512_loadu_ps(c + i));
            a0 = _mm512_fmadd_ps(h, _mm512_loadu_ps(x0 + i), a0);
            a1 = _mm512_fmadd_ps(h, _mm512_loadu_ps(x1 + i), a1);
        }
        if (tail) {
            __m512 h = _mm512_fmadd_ps(tv, _mm512_maskz_loadu_ps(tail, d + i), _mm512_maskz_loadu_ps(tail, c + i));
            a0 = _mm512_mask3_fmadd_ps(h, _mm512_maskz_loadu_ps(tail, x0 + i), a0, tail);
            a1 = _mm512_mask3_fmadd_ps(h, _mm512_maskz_loadu_ps(tail, x1 + i), a1, tail);
        }
        float *out = output + (size_t)k * channels;
        out[0] = sum16(a0);
        if (channels == 2) out[1] = sum16(a1);
        advance(&walk);
    }
}

// Up to 7 full vectors and a tail (120 taps; every quality near ratio 1 has 72 to 96) keep both rows in 16 of the 32
// registers.
__attribute__((target("avx512f,avx2,fma"))) static void run_avx512(
    const float *coefficients, const float *differences, int taps, int phases, const float *const *planes,
    int channels, driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output) {
    const filter_table table = {coefficients, differences, taps, phases};
    switch (taps / 16) {
#define DRIFTFIX_ROWS(n)                                                                    \
    case n:                                                                                 \
        if (channels == 2) run_avx512_rows(n, 2, table, planes, position, step, count, output); \
        else run_avx512_rows(n, 1, table, planes, position, step, count, output);          \
        return;
        DRIFTFIX_ROWS(1) DRIFTFIX_ROWS(2) DRIFTFIX_ROWS(3) DRIFTFIX_ROWS(4) DRIFTFIX_ROWS(5) DRIFTFIX_ROWS(6)
        DRIFTFIX_ROWS(7)
#undef DRIFTFIX_ROWS
    default: run_avx512_long(table, planes, channels, position, step, count, output);
    }
}

#endif

void driftfix_polyphase_deinterleave(
    const float *input, int frames, int channels, float *const *planes, int offset) {
    if (channels == 1) {
        memcpy(planes[0] + offset, input, (size_t)frames * sizeof(float));
    } else if (channels == 2) {
        float *left = planes[0] + offset, *right = planes[1] + offset;
        for (int i = 0; i < frames; i++) {
            left[i] = input[2 * i];
            right[i] = input[2 * i + 1];
        }
    } else {
        for (int c = 0; c < channels; c++) {
            float *plane = planes[c] + offset;
            for (int i = 0; i < frames; i++) plane[i] = input[(size_t)i * channels + c];
        }
    }
}

int driftfix_polyphase_widest(void) {
#if defined(__x86_64__)
    // Decided once; every thread that races here computes the same answer.
    static int known = -1;
    int value = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = driftfix_polyphase_portable;
        if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
            value = __builtin_cpu_supports("avx512f") && getenv("DRIFTFIX_NO_AVX512") == NULL
                ? driftfix_polyphase_avx512 : driftfix_polyphase_avx2;
        }
        __atomic_store_n(&known, value, __ATOMIC_RELAXED);
    }
    return value;
#else
    return driftfix_polyphase_portable;
#endif
}

int driftfix_polyphase_run_loop(
    int loop, const float *coefficients, const float *differences, int taps, int phases, const float *const *planes,
    int channels, driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output) {
    if (loop > driftfix_polyphase_widest()) loop = driftfix_polyphase_widest();
#if defined(__x86_64__)
    if (loop >= driftfix_polyphase_avx512 && channels <= 2 && taps % 8 == 0) {
        run_avx512(coefficients, differences, taps, phases, planes, channels, position, step, count, output);
        return driftfix_polyphase_avx512;
    }
    if (loop >= driftfix_polyphase_avx2) {
        run_avx2(coefficients, differences, taps, phases, planes, channels, position, step, count, output);
        return driftfix_polyphase_avx2;
    }
#endif
    run_portable(coefficients, differences, taps, phases, planes, channels, position, step, count, output);
    return driftfix_polyphase_portable;
}
