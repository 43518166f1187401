// The phase vocoder's frame kernel (DriftDSP's PhaseVocoder drives it): short-time spectra through kissfft, phases by
// phase-gradient heap integration on the sum of the channels, every channel turned by the same angles, transients
// kept where they fall. Planar-free: frames in and out are interleaved, as the stream is.
#ifndef DRIFTFIX_SPECTRAL_H
#define DRIFTFIX_SPECTRAL_H

#include <stdint.h>

typedef struct driftfix_vocoder driftfix_vocoder;

/// A vocoder for frames of `size` samples (even, a product of 2, 3 and 5) whose syntheses lie `hop` samples apart
/// (size / hop an integer of at least 3), over `channels` interleaved channels. NULL when memory runs out or the
/// geometry is not one of those.
driftfix_vocoder *driftfix_vocoder_create(int32_t size, int32_t hop, int32_t channels);
void driftfix_vocoder_destroy(driftfix_vocoder *vocoder);

/// Analyses the next frame: `size` interleaved frames of input centred on its analysis position, which lies
/// `advance` samples after the previous frame's (ignored for the first). From the second call on, writes the synthesis
/// of the frame before it into `out` (`size` interleaved frames, windowed and scaled for overlap-adding at `hop`) and
/// returns 1; the first call returns 0 and writes nothing.
int32_t driftfix_vocoder_push(driftfix_vocoder *vocoder, const float *frame, int32_t advance, float *out);

#endif
