// The inner loop of DriftDSP's polyphase resampler: band-limited interpolation from a table of filter phases, with
// linear interpolation between neighbouring phases, over planar float channels. AVX2 and FMA where the CPU has them
// (chosen at run time), portable C elsewhere.
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

/// Computes `count` output frames into `output` (interleaved, `channels` per frame), advancing `position`.
/// `coefficients` holds `phases + 1` rows of `taps` floats (row j: the filter at phase j / phases), `differences`
/// `phases` rows (row j + 1 minus row j); `taps` is a multiple of 8. `planes[c]` is channel c's samples; output k
/// reads `planes[c][index_k ... index_k + taps - 1]`.
void driftfix_polyphase_run(
    const float *coefficients, const float *differences, int taps, int phases, const float *const *planes,
    int channels, driftfix_polyphase_position *position, driftfix_polyphase_step step, int count, float *output);

/// Copies `frames` interleaved frames of `channels` channels into the planes, each from index `offset`.
void driftfix_polyphase_deinterleave(
    const float *input, int frames, int channels, float *const *planes, int offset);

/// 1 when the AVX2 and FMA kernel runs on this CPU, 0 for the portable one.
int driftfix_polyphase_vectorised(void);

#endif
