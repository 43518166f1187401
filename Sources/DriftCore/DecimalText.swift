extension String {
    /// One decimal, without Foundation's format strings (for report wording).
    public init(format1 value: Double) {
        let scaled = (value * 10).rounded()
        self = "\(Int64(scaled / 10)).\(Int64(abs(scaled).truncatingRemainder(dividingBy: 10)))"
    }

    /// Two decimals, without Foundation's format strings.
    public init(format2 value: Double) {
        let scaled = (value * 100).rounded()
        let whole = Int64(scaled / 100)
        let cents = Int64(abs(scaled).truncatingRemainder(dividingBy: 100))
        let sign = value < 0 && whole == 0 && cents != 0 ? "-" : ""
        self = "\(sign)\(whole).\(cents < 10 ? "0" : "")\(cents)"
    }
}
