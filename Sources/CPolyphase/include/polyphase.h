// The inner loop of DriftDSP's polyphase resampler: band-limited interpolation from a table of filter phases, with
// linear interpolation between neighbouring phases, over planar float channels. AVX-512, or AVX2 and FMA, where the
// CPU has them (chosen at run time), portable C elsewhere.
#ifndef DRIFTFIX_POLYPHASE_H
#define DRIFTFIX_POLYPHASE_H

#include <stdint.h>

/// Where the next output frame lies in the input: `index` whole frames (counted in the planes, where the first tap
/// of that output's window is `index`), plus `remainder / target` of a frame.
typedef struct {
    int64_t index;
    uint64_t remainder;
} driftfix_polyphase_position;

/// The exact step between output frames: `whole + fraction / target` input frames.
typedef struct {
    uint64_t whole;
    uint64_t fraction;
    uint64_t target;
} driftfix_polyphase_step;

/// The kernel's loops, narrowest first: portable C, 8 lanes (AVX2 and FMA), 16 lanes (AVX-512, one or two channels).
/// The wide loops write the 8-lane loop's output bit for bit.
enum {
    driftfix_polyphase_portable = 0,
    driftfix_polyphase_avx2 = 1,
    driftfix_polyphase_avx512 = 2,
};

/// The widest loop this CPU runs, decided once; `DRIFTFIX_NO_AVX512` in the environment stops at 8 lanes.
int driftfix_polyphase_widest(void);

/// Computes `count` output frames into `output` (interleaved, `channels` per frame), advancing `position`, with the
/// widest loop up to `loop` that this CPU and the channel count allow; returns the loop that ran.
/// `coefficients` holds `phases + 1` rows of `taps` floats (row j: the filter at phase j / phases), `differences`
/// `phases` rows (row j + 1 minus row j); `taps` is a multiple of 8. `planes[c]` is channel c's samples; output k
/// reads `planes[c][index_k ... index_k + taps - 1]`.
int driftfix_polyphase_run_loop(
    int loop, const float *coefficients, const float *differences, int taps, int phases, const float *const *planes,
    int channels, driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output);

/// Copies `frames` interleaved frames of `channels` channels into the planes, each from index `offset`.
void driftfix_polyphase_deinterleave(
    const float *input, int frames, int channels, float *const *planes, int offset);

#endif
