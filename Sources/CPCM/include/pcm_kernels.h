#pragma once
#include <stddef.h>
#include <stdint.h>

// Integer PCM <-> 32-bit float for whole blocks, with libsndfile's arithmetic (normalised reads; writes as its
// SFC_SET_CLIPPING writers make them: scaled to 32 bits, clipped, rounded to nearest even, the top bytes kept). `width` is 2, 3 or 4 bytes; `big_endian` is the
// file's byte order. NaN is written as the most negative value. `bytes` must have 4 bytes of room past the last sample (read or written
// as slack by the 24-bit loops).
void driftfix_pcm_decode(const uint8_t *bytes, float *samples, size_t count, int width, int big_endian);
void driftfix_pcm_encode(const float *samples, uint8_t *bytes, size_t count, int width, int big_endian);

// The same decoding into one plane per channel: frame i's channel c goes to planes[c][offset + i] (a planar
// converter's layout, so no separate pass parts the channels). `count` is in frames; `bytes` needs the same slack.
void driftfix_pcm_decode_planar(
    const uint8_t *bytes, float *const *planes, size_t offset, size_t frames, int channels, int width, int big_endian);
