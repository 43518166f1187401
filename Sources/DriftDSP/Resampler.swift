internal import CSampleRate
import DriftCore

/// The range of length ratios resampling can make (libsamplerate's limit).
public enum Resampling {
    /// Output length / input length may be 1/maximumRatio ... maximumRatio.
    public static let maximumRatio: Int64 = 256

    /// Whether resampling `input` frames to `output` frames is within range, decided in integers.
    public static func accepts(input: Int64, output: Int64) -> Bool {
        input > 0 && output > 0 && Int128(output) * Int128(maximumRatio) >= Int128(input)
            && Int128(output) <= Int128(input) * Int128(maximumRatio)
    }
}

/// A streaming converter: interleaved float frames in, a fixed ratio's worth out, its state kept across calls.
protocol StreamConverter: AnyObject {
    /// Converts from `input` (`inputFrames` frames) into `output` (room for `outputFrames` frames). With
    /// `endOfInput`, the converter flushes its tail once the input is used up.
    ///
    /// - Returns: input frames consumed and output frames produced.
    func process(
        input: UnsafePointer<Float>?, inputFrames: Int, output: UnsafeMutablePointer<Float>, outputFrames: Int,
        endOfInput: Bool
    ) throws(DSPError) -> (used: Int, generated: Int)
}

/// A libsamplerate converter that keeps its filter state across blocks, so block joins are seamless.
///
/// One converter per stream; not thread-safe.
final class Resampler: StreamConverter {
    private let state: OpaquePointer
    let channelCount: Int
    let ratio: Double
    private var data = SRC_DATA()

    /// Creates a converter for interleaved `channelCount`-channel audio, output rate / input rate = `ratio`.
    init(quality: ResampleQuality, channelCount: Int, ratio: Double) throws(DSPError) {
        guard ratio >= 1.0 / 256.0, ratio <= 256.0 else { throw .invalidRatio(ratio) }
        var error: Int32 = 0
        guard let state = src_new(quality.converterType, Int32(channelCount), &error) else {
            throw .converter(Resampler.message(error))
        }
        self.state = state
        self.channelCount = channelCount
        self.ratio = ratio
        // Fix the ratio before the first call so the converter never interpolates from a default ratio.
        let status = src_set_ratio(state, ratio)
        guard status == 0 else {
            src_delete(state)
            throw .converter(Resampler.message(status))
        }
    }

    deinit {
        src_delete(state)
    }

    /// Converts from `input` (`inputFrames` frames) into `output` (room for `outputFrames` frames).
    /// With `endOfInput`, the converter flushes its tail once the input is used up.
    ///
    /// - Returns: input frames consumed and output frames produced.
    func process(
        input: UnsafePointer<Float>?, inputFrames: Int, output: UnsafeMutablePointer<Float>, outputFrames: Int,
        endOfInput: Bool
    ) throws(DSPError) -> (used: Int, generated: Int) {
        data.data_in = input
        data.input_frames = inputFrames
        data.data_out = output
        data.output_frames = outputFrames
        data.end_of_input = endOfInput ? 1 : 0
        data.src_ratio = ratio
        let status = src_process(state, &data)
        guard status == 0 else { throw .converter(Resampler.message(status)) }
        return (Int(data.input_frames_used), Int(data.output_frames_gen))
    }

    private static func message(_ code: Int32) -> String {
        src_strerror(code).map { String(cString: $0) } ?? "libsamplerate error \(code)"
    }
}

extension ResampleQuality {
    var converterType: Int32 {
        switch self {
        case .best: return Int32(SRC_SINC_BEST_QUALITY)
        case .medium: return Int32(SRC_SINC_MEDIUM_QUALITY)
        case .fast: return Int32(SRC_SINC_FASTEST)
        }
    }
}
