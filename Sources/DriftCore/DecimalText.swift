extension String {
    /// One decimal, without Foundation's format strings (for report wording).
    public init(format1 value: Double) { self.init(value, decimals: 1) }

    /// Two decimals, without Foundation's format strings.
    public init(format2 value: Double) { self.init(value, decimals: 2) }

    /// `value` rounded to `decimals` places (0…9), without Foundation's format strings: `-0.05` → "-0.05".
    public init(_ value: Double, decimals: Int) {
        precondition((0...9).contains(decimals))
        guard value.isFinite else {
            self = "\(value)"
            return
        }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let rounded = (abs(value) * scale).rounded()
        let whole = (rounded / scale).rounded(.down)
        let fraction = Int64(rounded - whole * scale)
        var digits = String(fraction)
        while digits.count < decimals { digits = "0" + digits }
        let sign = value < 0 && rounded != 0 ? "-" : ""
        self = decimals == 0 ? "\(sign)\(Int64(whole))" : "\(sign)\(Int64(whole)).\(digits)"
    }
}
