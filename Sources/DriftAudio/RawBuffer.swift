/// A byte buffer that grows to the largest block asked for and is then reused: no allocation per block. It keeps 8
/// bytes of slack past what is asked for (the PCM kernels read and write a few bytes past the last sample).
struct RawBuffer {
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0

    /// At least `count` bytes, valid until the next call.
    mutating func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        if let storage, capacity >= count { return storage }
        storage?.deallocate()
        let grown = UnsafeMutableRawPointer.allocate(byteCount: count + 8, alignment: 16)
        storage = grown
        capacity = count
        return grown
    }

    /// The storage as last reserved (nil before the first reserve).
    var base: UnsafeMutableRawPointer? { storage }

    /// Frees the storage (the owner's deinit).
    mutating func release() {
        storage?.deallocate()
        storage = nil
        capacity = 0
    }
}
