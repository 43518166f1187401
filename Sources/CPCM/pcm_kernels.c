// Hot loops of the PCM block codec (DriftAudio's PCMCodec), in C so the compiler vectorises them with SSE2: a
// float-to-integer conversion per sample that rounds as lrintf does, without a library call.
#include "pcm_kernels.h"
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__)
#include <immintrin.h>
#endif

static inline uint32_t load_word(const uint8_t *p, int width, int big_endian) {
    // The sample as the top bits of a 32-bit word (16-bit samples in the low half, sign-extended by the caller).
    switch (width) {
    case 2: return big_endian ? (uint32_t)p[1] | (uint32_t)p[0] << 8 : (uint32_t)p[0] | (uint32_t)p[1] << 8;
    case 3: return big_endian ? (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24
                              : (uint32_t)p[0] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 24;
    default: return big_endian ? (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24
                               : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    }
}

#if defined(__x86_64__)
// 24-bit little-endian, 8 samples a step (the WAV a fleet records): two 16-byte loads of 12 bytes' samples each, one
// byte shuffle putting each sample in the top three bytes of a 32-bit word, one conversion. The same values as the
// scalar loop (the conversion is exact and the scale a power of two). Reads at most 4 bytes past a step's 24, which
// the last step keeps within the room the caller leaves; returns the samples done.
__attribute__((target("avx2"))) static size_t decode24_avx2(const uint8_t *bytes, float *samples, size_t count) {
    const __m256 scale = _mm256_set1_ps(1.0f / 2147483648.0f);
    const __m256i order = _mm256_setr_epi8(
        -1, 0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1, 0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11);
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        const uint8_t *b = bytes + 3 * i;
        __m256i raw = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)b)), _mm_loadu_si128((const __m128i *)(b + 12)), 1);
        __m256i words = _mm256_shuffle_epi8(raw, order);
        _mm256_storeu_ps(samples + i, _mm256_mul_ps(_mm256_cvtepi32_ps(words), scale));
    }
    return i;
}
#endif

void driftfix_pcm_decode(const uint8_t *bytes, float *samples, size_t count, int width, int big_endian) {
    if (width == 2) {
        const float scale = 1.0f / 32768.0f;
        if (big_endian) for (size_t i = 0; i < count; i++) samples[i] = (float)(int16_t)load_word(bytes + 2 * i, 2, 1) * scale;
        else for (size_t i = 0; i < count; i++) samples[i] = (float)(int16_t)load_word(bytes + 2 * i, 2, 0) * scale;
        return;
    }
    const float scale = 1.0f / 2147483648.0f;
    if (width == 3 && !big_endian) {
        size_t i = 0;
#if defined(__x86_64__)
        if (__builtin_cpu_supports("avx2")) i = decode24_avx2(bytes, samples, count);
#endif
        // One unaligned 4-byte load per sample (the slack byte past the last is read and shifted out).
        for (; i < count; i++) {
            uint32_t word;
            memcpy(&word, bytes + 3 * i, 4);
            samples[i] = (float)(int32_t)(word << 8) * scale;
        }
        return;
    }
    if (width == 3) {
        if (big_endian) for (size_t i = 0; i < count; i++) samples[i] = (float)(int32_t)load_word(bytes + 3 * i, 3, 1) * scale;
        else for (size_t i = 0; i < count; i++) samples[i] = (float)(int32_t)load_word(bytes + 3 * i, 3, 0) * scale;
    } else {
        if (big_endian) for (size_t i = 0; i < count; i++) samples[i] = (float)(int32_t)load_word(bytes + 4 * i, 4, 1) * scale;
        else for (size_t i = 0; i < count; i++) samples[i] = (float)(int32_t)load_word(bytes + 4 * i, 4, 0) * scale;
    }
}

#if defined(__x86_64__)
// 24-bit little-endian stereo, 8 frames a step: 48 bytes loaded under a mask, one byte permutation putting the left
// samples in the low eight words and the right in the high eight, each in the top three bytes of its word (the low
// byte zeroed by the permutation's mask), one conversion, and each half stored to its plane. The same values as
// driftfix_pcm_decode; reads nothing past the 48 bytes. Returns the frames done.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) static size_t decode24_stereo_vbmi(
    const uint8_t *bytes, float *left, float *right, size_t frames) {
    const __m512 scale = _mm512_set1_ps(1.0f / 2147483648.0f);
    // Word j < 8: frame j's left sample (bytes 6j..6j+2); word 8 + j: its right (bytes 6j+3..6j+5).
    uint8_t order[64];
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 3; k++) {
            order[4 * j + 1 + k] = (uint8_t)(6 * j + k);
            order[32 + 4 * j + 1 + k] = (uint8_t)(6 * j + 3 + k);
        }
    for (int j = 0; j < 16; j++) order[4 * j] = 0;
    const __m512i permutation = _mm512_loadu_si512(order);
    const __mmask64 sample_bytes = 0xEEEEEEEEEEEEEEEEull;
    size_t i = 0;
    for (; i + 8 <= frames; i += 8) {
        const __m512i raw = _mm512_maskz_loadu_epi8(0xFFFFFFFFFFFFull, bytes + 6 * i);
        const __m512i words = _mm512_maskz_permutexvar_epi8(sample_bytes, permutation, raw);
        const __m512 values = _mm512_mul_ps(_mm512_cvtepi32_ps(words), scale);
        _mm256_storeu_ps(left + i, _mm512_castps512_ps256(values));
        _mm256_storeu_ps(right + i, _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(values), 1)));
    }
    return i;
}
#endif

#if defined(__x86_64__)
// Whether the CPU permutes bytes across 64 (AVX-512 VBMI) and may be asked to: DRIFTFIX_NO_AVX512 keeps driftfix off
// 512-bit registers, here as in the polyphase kernel. Decided once; threads racing here compute the same answer.
static int byte_permutes(void) {
    static int known = -1;
    int value = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (value < 0) {
        __builtin_cpu_init();
        value = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
            __builtin_cpu_supports("avx512vbmi") && getenv("DRIFTFIX_NO_AVX512") == NULL;
        __atomic_store_n(&known, value, __ATOMIC_RELAXED);
    }
    return value;
}
#endif

void driftfix_pcm_decode_planar(
    const uint8_t *bytes, float *const *planes, size_t offset, size_t frames, int channels, int width, int big_endian) {
    if (channels == 1) {
        driftfix_pcm_decode(bytes, planes[0] + offset, frames, width, big_endian);
        return;
    }
    size_t done = 0;
#if defined(__x86_64__)
    if (channels == 2 && width == 3 && !big_endian && byte_permutes())
        done = decode24_stereo_vbmi(bytes, planes[0] + offset, planes[1] + offset, frames);
#endif
    // Elsewhere: a stretch decoded interleaved (the vector loops above), then parted into the planes.
    enum { stretch = 1024 };
    if ((size_t)channels > stretch) {  // more channels than a stretch holds: a sample at a time
        for (; done < frames; done++)
            for (int c = 0; c < channels; c++)
                driftfix_pcm_decode(bytes + (done * (size_t)channels + (size_t)c) * (size_t)width,
                    planes[c] + offset + done, 1, width, big_endian);
        return;
    }
    float interleaved[stretch] __attribute__((aligned(32)));
    const size_t per = stretch / (size_t)channels;
    while (done < frames) {
        const size_t n = frames - done < per ? frames - done : per;
        driftfix_pcm_decode(bytes + done * (size_t)(channels * width), interleaved, n * (size_t)channels, width,
            big_endian);
        for (int c = 0; c < channels; c++) {
            float *plane = planes[c] + offset + done;
            for (size_t i = 0; i < n; i++) plane[i] = interleaved[i * (size_t)channels + (size_t)c];
        }
        done += n;
    }
}

// libsndfile's clipped conversion of one scaled sample: >= high gives high, <= low gives low (compared as doubles,
// as its C does), NaN gives low (lrintf's "integer indefinite"), anything else rounds to nearest even.
static inline int32_t clip_round(float scaled, double high, double low) {
    if ((double)scaled >= high) return (int32_t)high;
    if ((double)scaled <= low) return (int32_t)low;
    if (scaled != scaled) return (int32_t)low;
    // 1.5 * 2^52 added in double leaves the rounded integer in the low bits (exact: |scaled| < 2^31 here).
    double shifted = (double)scaled + 6755399441055744.0;
    int64_t bits;
    memcpy(&bits, &shifted, sizeof bits);
    return (int32_t)bits;
}

#if defined(__SSE2__)
// Four samples scaled by 2^31 at once: cvtps2dq rounds to nearest even (the default MXCSR mode, as lrintf); lanes at or
// above 2^31 come back as 0x80000000 and are turned into 0x7FFFFFFF; lanes at or below -2^31, and NaN, are
// 0x80000000 already.
static inline __m128i convert4(const float *p) {
    const __m128 x = _mm_mul_ps(_mm_loadu_ps(p), _mm_set1_ps(2147483648.0f));
    const __m128i overflow = _mm_castps_si128(_mm_cmpge_ps(x, _mm_set1_ps(2147483648.0f)));
    return _mm_xor_si128(_mm_cvtps_epi32(x), overflow);
}
#endif

#if defined(__x86_64__)
// 24-bit little-endian, 8 samples a step: convert4's conversion on eight lanes, one byte shuffle keeping each word's top
// three bytes (12 bytes at the bottom of each 16-byte half), two 16-byte stores 12 bytes apart. A step writes 4 bytes
// past its 24, which the next step overwrites; the loop stops while 4 bytes of samples are still to come, so nothing
// is written past the end. The same bytes as the loops below; returns the samples done.
__attribute__((target("avx2"))) static size_t encode24_avx2(const float *samples, uint8_t *bytes, size_t count) {
    const __m256 scale = _mm256_set1_ps(2147483648.0f);
    const __m256i top = _mm256_setr_epi8(
        1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, -1, -1, -1, -1, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, -1, -1, -1, -1);
    size_t i = 0;
    for (; i + 10 <= count; i += 8) {
        const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(samples + i), scale);
        const __m256i overflow = _mm256_castps_si256(_mm256_cmp_ps(x, scale, _CMP_GE_OS));
        const __m256i packed = _mm256_shuffle_epi8(_mm256_xor_si256(_mm256_cvtps_epi32(x), overflow), top);
        uint8_t *p = bytes + 3 * i;
        _mm_storeu_si128((__m128i *)p, _mm256_castsi256_si128(packed));
        _mm_storeu_si128((__m128i *)(p + 12), _mm256_extracti128_si256(packed, 1));
    }
    return i;
}
#endif

void driftfix_pcm_encode(const float *samples, uint8_t *bytes, size_t count, int width, int big_endian) {
    size_t i = 0;
#if defined(__x86_64__)
    if (width == 3 && !big_endian && __builtin_cpu_supports("avx2")) i = encode24_avx2(samples, bytes, count);
#endif
    // Every width is rounded at 32 bits and then keeps its top bytes, as libsndfile's clipping writers do (so 16-
    // and 24-bit samples are the 32-bit value's floor at their precision).
#if defined(__SSE2__)
    if (!big_endian) {
        // Lanes leave the register by moves, not through memory (byte loads of a just-stored vector stall).
        for (; i + 4 <= count; i += 4) {
            const __m128i words = convert4(samples + i);
            if (width == 4) {
                _mm_storeu_si128((__m128i *)(bytes + 4 * i), words);
                continue;
            }
            if (width == 2) {
                // The top halves, sign-preserving, packed to eight 16-bit lanes (the upper four are ignored).
                const __m128i halves = _mm_packs_epi32(_mm_srai_epi32(words, 16), _mm_setzero_si128());
                _mm_storel_epi64((__m128i *)(bytes + 2 * i), halves);
                continue;
            }
            // 24-bit: the top three bytes of each word, stored as overlapping 4-byte writes (the slack byte past
            // the last sample is written and then overwritten, or left in the slack).
            const __m128i top = _mm_srli_epi32(words, 8);
            uint8_t *p = bytes + 3 * i;
            const uint32_t a = (uint32_t)_mm_cvtsi128_si32(top);
            const uint32_t b = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(top, 4));
            const uint32_t c = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(top, 8));
            const uint32_t d = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(top, 12));
            memcpy(p, &a, 4);
            memcpy(p + 3, &b, 4);
            memcpy(p + 6, &c, 4);
            memcpy(p + 9, &d, 4);
        }
    }
#endif
    for (; i < count; i++) {
        const uint32_t v = (uint32_t)clip_round(samples[i] * 2147483648.0f, 2147483647.0, -2147483648.0);
        uint8_t *p = bytes + (size_t)width * i;
        if (width == 2) {
            if (big_endian) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); }
            else { p[0] = (uint8_t)(v >> 16); p[1] = (uint8_t)(v >> 24); }
        } else if (width == 3) {
            if (big_endian) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); }
            else { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 24); }
        } else {
            if (big_endian) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
            else memcpy(p, &v, 4);
        }
    }
}
